"""The one typer `app` every command registers on, and its global options.

Command modules import `app` from here, so no command module imports another;
the package `__init__` imports the command modules so their commands register.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from cogmem_graph.cli.help_layout import HelpGroup
from cogmem_graph.cli.invocation import Settings

HELP_LAYOUT: dict[str, Any] = {"cls": HelpGroup, "rich_markup_mode": None}
"""Every `cogmem` group's help layout: click's plain one, lines broken only between words
(`help_layout`), not typer's Rich panels, which cut words in two on a narrow terminal."""

app = typer.Typer(help="cogmem-graph: cognitive memory for LLM agents, in a graph database.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, **HELP_LAYOUT)


def _global(flag: str, help_text: str, **kwargs: Any) -> Any:
    """A global option that can also come from `COGMEM_<NAME>` (--home: COGMEM_HOME)."""
    return typer.Option(flag, envvar=f"COGMEM_{flag.removeprefix('--').upper()}", help=help_text, **kwargs)


@app.callback()
def _main(
    ctx: typer.Context,
    home: Annotated[Path | None, _global(
        "--home", "memory home for the embedded graph and vectors",
        show_default="$COGMEM_HOME or ./.cogmem")] = None,
    graph: Annotated[str | None, _global(
        "--graph", "graph server: neo4j://host:7687, bolt://…, falkor://host:6379, rediss://… (TLS) "
        "(default: embedded FalkorDB)",
        metavar="URL")] = None,
    vectors: Annotated[str | None, _global(
        "--vectors", "Qdrant server URL, or :memory: (default: the embedded Qdrant Edge index under the home)",
        metavar="URL")] = None,
    embedder: Annotated[str | None, _global(
        "--embedder", "local | hash | openai:<model> (default: local MiniLM when installed); "
        "use the same one every time",
        metavar="SPEC")] = None,
    agent: Annotated[str, _global("--agent", "agent id")] = "cogmem",
    user: Annotated[str | None, _global("--user", "user id")] = None,
    thread: Annotated[str | None, _global("--thread", "thread id")] = None,
    persona: Annotated[str | None, _global("--persona", "persona id")] = None,
    org: Annotated[str | None, _global("--org", "organization id")] = None,
    server: Annotated[str | None, _global(
        "--server", "a `cogmem serve` URL: memory commands go to it (identity from --key)", metavar="URL")] = None,
    key: Annotated[str | None, typer.Option(
        "--key", envvar="COGMEM_API_KEY", help="API key for --server (env COGMEM_API_KEY)")] = None,
) -> None:
    """Cognitive memory for LLM agents: ingest conversations, recall, inspect, back up."""
    given = frozenset(name for name in ctx.params
                      if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE")
    ctx.obj = Settings(home=home, graph=graph, vectors=vectors, embedder=embedder, agent=agent, user=user,
                       thread=thread, persona=persona, org=org, server=server, key=key, given=given)
