"""The `cogmem` command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="cogmem-graph: cognitive memory for LLM agents, in a graph database.",
                  no_args_is_help=True, add_completion=False)


@app.callback()
def _main() -> None:
    """Global entry; subcommands below."""


@app.command()
def demo(
    home: Annotated[Path | None, typer.Option(help="memory home to use (default: a temporary folder)")] = None,
    embedder: Annotated[str | None, typer.Option(help="embedder spec: local, hash, openai:<model>")] = None,
) -> None:
    """Run the memory on the embedded default with a small scripted story."""
    from cogmem_graph.demo import run_demo

    raise typer.Exit(run_demo(home=home, embedder=embedder))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
