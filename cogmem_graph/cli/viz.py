"""`cogmem viz`: an interactive HTML page of what a query retrieves and its
graph neighbourhood. The page itself is built by `cogmem_graph.viz`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import (
    EXIT_USAGE,
    agent_of,
    err,
    fail,
    out,
    refuse_server,
    session,
    settings_of,
)


@app.command()
def viz(
    ctx: typer.Context,
    query: Annotated[str, typer.Option("--query", "-q", help="what to retrieve")],
    target: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write")] = Path("graph.html"),
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=200)] = 10,
) -> None:
    """Write an interactive HTML page of the traces QUERY retrieves and their neighbourhood
    (coloured by node type and edge type; select an element and open Details for its
    content, weights and signals). It runs where the store is, not through --server."""
    refuse_server(ctx, "viz")
    from cogmem_graph.viz import write_viz

    settings = settings_of(ctx)
    if target.is_dir():
        raise fail(f"{target} is a directory; give a file name such as {target / 'graph.html'}", EXIT_USAGE)
    with session(ctx) as store:
        result = write_viz(agent_of(store, settings), query, target, top_k=top_k)
    if not result.retrieved:
        err.print("no memories matched: the page is empty")
    out.print(f"wrote {escape(str(result.path))}: {result.retrieved} retrieved, {result.nodes} nodes, "
              f"{result.relationships} relationships")
