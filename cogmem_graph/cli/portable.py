"""Backups: `export` writes the whole store as JSON Lines (gzip for .gz, or
stdout) and `import` restores one into any backend, with progress on stderr.

The format itself lives in `cogmem_graph.portable`; this module only handles
files, streams and progress.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from cogmem_graph.cli.app import app
from cogmem_graph.cli.common import (
    EXIT_USAGE,
    err,
    fail,
    handled,
    out,
    progress_bars,
    refuse_identity,
    refuse_server,
    session,
    settings_of,
)

if TYPE_CHECKING:
    from cogmem_graph.portable import PortableCounts


def _open_text(path: Path, mode: str, *, gz: bool | None = None) -> IO[str]:
    if path.suffix == ".gz" if gz is None else gz:
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return path.open(mode, encoding="utf-8")


def _extras(counts: PortableCounts) -> str:
    return (f"{counts.reminders} reminders, {counts.observation_notes} observation notes, "
            f"{counts.conversation_turns} buffered turns")


@app.command()
def export(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="OUT.jsonl", help="file to write ('-' for stdout; .gz compresses)")],
    batch_size: Annotated[int, typer.Option(min=1, max=50_000, help="graph rows per page")] = 1_000,
) -> None:
    """Back up the whole store as JSON Lines (traces, entities, schemas, reminders, observation
    notes, buffered turns, mentions, edges); restores into FalkorDB or Neo4j with `import`.
    An owner command: it takes no identity (--user, --thread, --persona, --org). It runs where
    the store is, not through --server."""
    from cogmem_graph.portable import export_store

    refuse_server(ctx, "export")
    refuse_identity(settings_of(ctx), "export", "backs up the memories")
    to_stdout = target == "-"
    path = Path(target)
    if not to_stdout and path.is_dir():
        raise fail(f"{path} is a directory; give a file name such as {path / 'backup.jsonl'}", EXIT_USAGE)
    summary = err if to_stdout else out
    with session(ctx) as store:
        total = store.stats()
        with progress_bars() as progress:
            tasks = {"traces": progress.add_task("exporting traces", total=total.total_traces),
                     "entities": progress.add_task("exporting entities", total=None),
                     "mentions": progress.add_task("exporting mentions (per trace)", total=total.total_traces),
                     "edges": progress.add_task("exporting edges (per trace)", total=total.total_traces)}

            def advance(section: str, n: int) -> None:
                if section not in tasks:
                    tasks[section] = progress.add_task(f"exporting {section}", total=None)
                progress.advance(tasks[section], n)

            if to_stdout:
                counts = export_store(store, sys.stdout, batch_size=batch_size, on_progress=advance)
                sys.stdout.flush()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
                try:
                    with _open_text(partial, "w", gz=path.suffix == ".gz") as fh:
                        counts = export_store(store, fh, batch_size=batch_size, on_progress=advance)
                    os.replace(partial, path)
                finally:
                    with contextlib.suppress(FileNotFoundError):
                        partial.unlink()
            for task in tasks.values():
                progress.update(task, total=progress.tasks[task].completed)
    summary.print(f"exported {counts.traces} traces, {counts.entities} entities, {counts.schemas} schemas, "
                  f"{counts.archived} archived, {counts.mentions} mentions, {counts.total_edges} edges, "
                  f"{_extras(counts)}" + ("" if to_stdout else f" to {escape(str(path))}"))


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(metavar="IN.jsonl", help="backup written by `cogmem export` ('-' for stdin)")],
    batch_size: Annotated[int, typer.Option(min=1, max=50_000, help="records per write batch")] = 500,
) -> None:
    """Restore a backup into this store (merged by id): traces keep their ids, scopes,
    timestamps and strengths; edges keep their weights; vectors are re-embedded. An owner
    command: it takes no identity. It runs where the store is, not through --server."""
    from cogmem_graph.portable import check_header, import_store

    refuse_server(ctx, "import")
    refuse_identity(settings_of(ctx), "import", "restores a backup into the memories")
    from_stdin = source == "-"
    path = Path(source)
    if not from_stdin:
        if not path.exists():
            raise fail(f"file not found: {path}", EXIT_USAGE)
        if path.is_dir():
            raise fail(f"{path} is a directory, not a backup file", EXIT_USAGE)
        with handled(), _open_text(path, "r") as fh:
            check_header(next((line for line in fh if line.strip()), ""))
    with session(ctx) as store:
        size = None if from_stdin or path.suffix == ".gz" else path.stat().st_size
        with progress_bars(bytes_=True) as progress:
            task = progress.add_task(f"importing {'stdin' if from_stdin else escape(path.name)}", total=size)
            counters: dict[str, int] = {}

            indexing: list = []

            def advance(section: str, n: int) -> None:
                if section == "bytes":
                    progress.advance(task, n)
                elif section == "indexed":  # embedding the imported traces, once all are in the graph
                    if not indexing:
                        indexing.append(progress.add_task("indexing traces", total=counters.get("traces")))
                    progress.advance(indexing[0], n)
                else:
                    counters[section] = counters.get(section, 0) + n

            with contextlib.ExitStack() as stack:
                fh = sys.stdin if from_stdin else stack.enter_context(_open_text(path, "r"))
                counts = import_store(store, fh, batch_size=batch_size, on_progress=advance)
            progress.update(task, total=progress.tasks[task].completed)
    out.print(f"imported {counts.traces} traces, {counts.entities} entities, {counts.schemas} schemas, "
              f"{counts.archived} archived, {counts.mentions} mentions, {counts.total_edges} edges, "
              f"{_extras(counts)}")
