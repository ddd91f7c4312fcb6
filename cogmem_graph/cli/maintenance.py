"""Looking after the store as a whole rather than one agent's memories:
`stats` counts it, `repair` reconciles the vectors with the graph, and
`consolidate` runs the consolidation cycle now, and `migrate` upgrades a store an older
version wrote.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import (
    IDENTITY_OPTIONS,
    agent_of,
    err,
    handled,
    out,
    progress_bars,
    refuse_identity,
    refuse_server,
    remote_session,
    session,
    settings_of,
)

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore


def _stats_dict(store: MemoryStore) -> dict[str, Any]:
    stats = store.stats()
    return {
        "traces_by_type": dict(sorted(stats.traces_by_type.items())),
        "total_traces": stats.total_traces,
        "active_traces": stats.active_traces,
        "inactive_traces": stats.inactive_traces,
        "dormant_traces": stats.dormant_traces,
        "unindexed_traces": stats.unindexed_traces,
        "entities": stats.entities,
        "edges_by_type": dict(sorted(stats.edges_by_type.items())),
        "vectors": {"active": store.vectors.count(None, active=True),
                    "inactive": store.vectors.count(None, active=False)},
    }


def _remote(ctx: typer.Context, op: str, args: dict[str, Any] | None = None) -> bool:
    """With --server: run the owner operation there (an owner key is needed) and print its JSON."""
    if not settings_of(ctx).server:
        return False
    with remote_session(ctx) as remote:
        data = remote.call(op, args)
    out.print_json(data=data)
    return True


@app.command()
def stats(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Counts of the whole store: traces by type and state, entities, edges by type, vectors.
    An owner command: it takes no identity (--user, --thread, --persona, --org)."""
    if _remote(ctx, "stats"):
        return
    with session(ctx, owner=("stats", "counts the memories")) as store:
        data = _stats_dict(store)
        graph_url = store.graph.url
    if as_json:
        out.print_json(data=data)
        return
    table = Table(title=f"memory store ({escape(str(graph_url))})", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, n in data["traces_by_type"].items():
        table.add_row(f"traces: {name}", str(n))
    for name in ("active_traces", "dormant_traces", "inactive_traces", "unindexed_traces", "entities"):
        table.add_row(name.replace("_", " "), str(data[name]))
    for name, n in data["edges_by_type"].items():
        table.add_row(f"edges: {name}", str(n))
    table.add_row("vectors (active)", str(data["vectors"]["active"]))
    table.add_row("vectors (inactive)", str(data["vectors"]["inactive"]))
    out.print(table)


@app.command()
def repair(
    ctx: typer.Context,
    reembed: Annotated[bool, typer.Option(
        "--reembed", help="also embed every memory again with the store's embedder (vectors an older version "
        "made: memories written before sentence vectors have none); a progress bar shows it")] = False,
) -> None:
    """Reconcile the vectors with the graph (the source of truth). An owner command: no identity.
    A home opened with another embedder (--embedder) is indexed for it here."""
    if _remote(ctx, "repair", {"reembed": reembed}):
        return
    with session(ctx, owner=("repair", "reconciles the vectors")) as store, progress_bars() as bars:
        tasks = {"reembedded": bars.add_task("embedding every memory again",
                                             total=store.stats().total_traces if reembed else 0, visible=reembed),
                 "reindexed": bars.add_task("indexing memories without a vector", total=None, visible=False)}

        def advance(kind: str, n: int) -> None:
            bars.update(tasks[kind], advance=n, visible=True)

        result = store.repair(reembed=reembed, on_progress=advance)
    done = f"{result.reembedded} re-embedded, " if reembed else ""
    out.print(f"repair: {done}{result.reindexed} re-indexed, {result.deactivated_vectors} vectors deactivated, "
              f"{result.reactivated_vectors} reactivated, {result.removed_vectors} removed")


@app.command()
def consolidate(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Run consolidation now: decay and prune, merge, replay, schemas, contradictions, gist.
    Over the whole store; with an identity (--user, --org, ...) over that agent's visible scopes."""
    if _remote(ctx, "consolidate"):
        return
    settings = settings_of(ctx)
    with session(ctx) as store, err.status("consolidating…"):
        scoped = any(getattr(settings, name) for name, _ in IDENTITY_OPTIONS)
        result = agent_of(store, settings).consolidate() if scoped else store.consolidate()
    data = dataclasses.asdict(result)
    if json_out:
        out.print_json(json.dumps(data))
        return
    out.print(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.items()
                        if isinstance(v, int | float) and not isinstance(v, bool)))


@app.command()
def migrate(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="say what an upgrade would do, and change nothing")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the plan as JSON")] = False,
) -> None:
    """Upgrade a store an older version wrote to this version's data layout, with a progress
    bar. Opening the store does the same by itself; this runs it ahead of time. An interrupted
    run is run again; a store a newer version wrote is refused. An owner command: no identity."""
    import cogmem_graph as cg
    from cogmem_graph.api import upgrade

    settings = settings_of(ctx)
    refuse_server(ctx, "migrate")
    refuse_identity(settings, "migrate", "upgrades the data")
    with handled():
        store = cg.open(home=settings.home, graph=settings.graph, vectors=settings.vectors,
                        embedder=settings.embedder, upgrade=False)
        try:
            todo = upgrade.plan(store)
            if not dry_run and todo.needed:
                with progress_bars() as bars:
                    tasks = {s.name: bars.add_task(s.what, total=max(s.pending, 1)) for s in todo.steps}

                    def advance(step: str, done: int, total: int) -> None:
                        bars.update(tasks[step], completed=done, total=max(total, 1))

                    upgrade.migrate(store, on_progress=advance)
        finally:
            store.close()
    if json_out:
        out.print_json(json.dumps({**todo.as_dict(), "dry_run": dry_run}))
        return
    found = f"graph version {todo.graph_version if todo.graph_version is not None else 'none'}"
    if not todo.needed:
        out.print(f"migrate: up to date (data layout version {upgrade.STORE_VERSION})")
        return
    verb = "would" if dry_run else "did"
    out.print(f"migrate: {found}, home version {todo.home_version if todo.home_version is not None else 'none'}; "
              f"{verb} upgrade to version {upgrade.STORE_VERSION}:")
    for step in todo.steps:
        count = f" ({step.pending})" if step.pending else ""
        out.print(f"  - {step.what}{count}")
