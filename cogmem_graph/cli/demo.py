"""`cogmem demo`: the memory on the embedded default, with a built-in conversation.

A module of its own because it is the first thing a new user runs and it opens
its own store (a temporary home by default) rather than the shared session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import handled, refuse_server, settings_of


@app.command()
def demo(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option(help="memory home to use (default: a temporary folder)")] = None,
    embedder: Annotated[str | None, typer.Option(help="embedder spec: local, hash, openai:<model>")] = None,
) -> None:
    """Run the memory on the embedded default with a built-in two-session conversation."""
    refuse_server(ctx, "demo")
    from cogmem_graph.demo import run_demo

    settings = settings_of(ctx)
    with handled():
        code = run_demo(home=home, embedder=embedder or settings.embedder, graph=settings.graph,
                        vectors=settings.vectors)
    raise typer.Exit(code)
