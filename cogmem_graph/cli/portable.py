"""Backups: `export` writes the whole store, or one user's memories, as JSON Lines
(gzip for .gz, or stdout; through --server the key's user's) and `import` restores
one into any backend, with progress on stderr.

The format itself lives in `cogmem_graph.portable`; this module only handles
files, streams and progress.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO, cast

import typer
from click.core import ParameterSource
from rich.markup import escape

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import (
    EXIT_USAGE,
    err,
    fail,
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
    from cogmem_graph.portable import PortableCounts


def _open_text(path: Path, mode: str, *, gz: bool | None = None) -> TextIO:
    # Both open in text mode: the checker cannot tell from a `mode` that is not a literal.
    if path.suffix == ".gz" if gz is None else gz:
        return cast(TextIO, gzip.open(path, mode + "t", encoding="utf-8"))
    return cast(TextIO, path.open(mode, encoding="utf-8"))


def _extras(counts: PortableCounts) -> str:
    return (f"{counts.reminders} reminders, {counts.observation_notes} observation notes, "
            f"{counts.conversation_turns} buffered turns")


@app.command()
def export(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="OUT.jsonl", help="file to write ('-' for stdout; .gz compresses)")],
    user: Annotated[str | None, typer.Option(
        "--user", help="only this user's memories (their user and thread scopes)")] = None,
    org: Annotated[str | None, typer.Option("--org", help="the user's organization, with --user")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=50_000, help="graph rows per page")] = 1_000,
) -> None:
    """Back up the whole store as JSON Lines (traces, entities, schemas, reminders, observation
    notes, buffered turns, mentions, edges); restores into FalkorDB or Neo4j with `import`.
    With --user (and --org), only that user's memories. An owner command: the global identity
    options (--user, --thread, ... before `export`) are refused. With --server it writes the
    key's user's memories (GET /v1/export), or with --user and an owner key that user's; a
    whole-store backup is written where the store is."""
    settings = settings_of(ctx)
    if org and not user:
        raise fail("--org names the organization of the user to export: give --user too", EXIT_USAGE)
    to_stdout = target == "-"
    path = Path(target)
    if not to_stdout and path.is_dir():
        raise fail(f"{path} is a directory; give a file name such as {path / 'backup.jsonl'}", EXIT_USAGE)
    if settings.server:
        if ctx.get_parameter_source("batch_size") is ParameterSource.COMMANDLINE:
            raise fail("--batch-size pages a local export; through --server the server pages: leave it out",
                       EXIT_USAGE)
        counts = _export_remote(ctx, path, to_stdout, user, org)
    else:
        refuse_identity(settings, "export", "backs up the memories")
        counts = _export_local(ctx, path, to_stdout, user, org, batch_size)
    summary = err if to_stdout else out
    edges = sum((counts.get("edges") or {}).values())
    summary.print(f"exported {counts.get('traces', 0)} traces, {counts.get('entities', 0)} entities, "
                  f"{counts.get('schemas', 0)} schemas, {counts.get('archived', 0)} archived, "
                  f"{counts.get('mentions', 0)} mentions, {edges} edges, {counts.get('reminders', 0)} reminders, "
                  f"{counts.get('observation_notes', 0)} observation notes, "
                  f"{counts.get('conversation_turns', 0)} buffered turns"
                  + ("" if to_stdout else f" to {escape(str(path))}"))


@contextlib.contextmanager
def _written(path: Path, to_stdout: bool) -> Iterator[TextIO]:
    """stdout, or a partial file beside `path` that replaces it once everything is written."""
    if to_stdout:
        yield sys.stdout
        sys.stdout.flush()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        with _open_text(partial, "w", gz=path.suffix == ".gz") as fh:
            yield fh
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


def _export_local(ctx: typer.Context, path: Path, to_stdout: bool, user: str | None, org: str | None,
                  batch_size: int) -> dict[str, Any]:
    from cogmem_graph.portable import export_store

    with session(ctx) as store:
        total = None if user else store.stats().total_traces
        with progress_bars() as progress:
            tasks = {"traces": progress.add_task("exporting traces", total=total),
                     "entities": progress.add_task("exporting entities", total=None),
                     "mentions": progress.add_task("exporting mentions (per trace)", total=total),
                     "edges": progress.add_task("exporting edges (per trace)", total=total)}

            def advance(section: str, n: int) -> None:
                if section not in tasks:
                    tasks[section] = progress.add_task(f"exporting {section}", total=None)
                progress.advance(tasks[section], n)

            with _written(path, to_stdout) as fh:
                if user:
                    counts = store.export(fh, user_id=user, organization_id=org, on_progress=advance)
                else:
                    counts = export_store(store, fh, batch_size=batch_size, on_progress=advance)
            for task in tasks.values():
                progress.update(task, total=progress.tasks[task].completed)
    return counts.as_dict()


def _export_remote(ctx: typer.Context, path: Path, to_stdout: bool, user: str | None,
                   org: str | None) -> dict[str, Any]:
    """Through the server: the key's user's memories, or with --user one user's (an owner key)."""
    from cogmem_graph.client import footer_counts

    op, args = ("export_user", {"user_id": user, "organization_id": org}) if user else ("export", {})
    with remote_session(ctx) as remote, err.status("exporting through the server…"), _written(path, to_stdout) as fh:
        return footer_counts(remote.call(op, args, out=fh))


def _import_problem(source: str, exc: Exception) -> str:
    """A bad record names the backup and its line; what came before it may be in the store
    already, which importing the corrected backup again merges by id rather than duplicates."""
    message = f"{source} {exc}" if str(exc).startswith("line ") else f"{source}: {exc}"
    if str(exc).startswith("line "):
        message += ("; the import stopped there and part of what came before may be written: import the "
                    "corrected backup again (records merge by id, nothing is duplicated)")
    return message


@app.command("import")
def import_(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(
        metavar="IN.jsonl", help="backup written by `cogmem export` ('-' for stdin)")],
    batch_size: Annotated[int, typer.Option(min=1, max=50_000, help="records per write batch")] = 500,
) -> None:
    """Restore a backup into this store (merged by id): traces keep their ids, scopes,
    timestamps and strengths; edges keep their weights; vectors are re-embedded. An owner
    command: it takes no identity. It runs where the store is, not through --server."""
    from cogmem_graph.portable import PortableFormatError, check_header, import_store

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
                try:
                    counts = import_store(store, fh, batch_size=batch_size, on_progress=advance)
                except PortableFormatError as exc:
                    raise fail(_import_problem("stdin" if from_stdin else str(path), exc), EXIT_USAGE) from None
            progress.update(task, total=progress.tasks[task].completed)
    out.print(f"imported {counts.traces} traces, {counts.entities} entities, {counts.schemas} schemas, "
              f"{counts.archived} archived, {counts.mentions} mentions, {counts.total_edges} edges, "
              f"{_extras(counts)}")
