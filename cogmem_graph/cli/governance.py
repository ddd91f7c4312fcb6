"""What the memory holds, and control over it: `list` memories by filter, `get` one,
`update` (correct) it, show its `history`, `forget` memories for good, and the owner's
`users` (who holds memories) and `erase` of a whole user.

Each command runs one entry of `cogmem_graph.operations`: with --server through the
entry's route (`RemoteAgent.call`, the server's JSON), otherwise through the facade on
the local home, turned into the same JSON; so `--json` prints the same document either
way, and the tables are drawn from it. (Through the server the JSON is used as it comes:
rebuilding the facade's record types would load the facade, which a command through a
server never does.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import (
    EXIT_USAGE,
    IDENTITY_OPTIONS,
    UsageProblem,
    agent_of,
    err,
    fail,
    handled,
    one_of,
    out,
    records_of,
    remote_session,
    session,
    settings_of,
)
from cogmem_graph.filters import MemoryState
from cogmem_graph.model import MemoryType, Scope

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.records import AgentRecords

CONTENT_CHARS = 160


def run_operation(ctx: typer.Context, op: str, args: Mapping[str, Any], local: Callable[[AgentRecords], Any]) -> Any:
    """The JSON answer of operation `op`: through --server its route, else `local(records)` on the
    local home as JSON (the identity options choose the agent, as for every memory command).
    `local` gets the agent's governance face (`store.records`), which loads neither the read
    nor the write path."""
    return _run(ctx, op, args, lambda store, settings: local(records_of(store, settings)))


def run_agent_operation(ctx: typer.Context, op: str, args: Mapping[str, Any],
                        local: Callable[[AgentMemory], Any]) -> Any:
    """`run_operation` for an operation only the whole agent handle (`store.agent`) has."""
    return _run(ctx, op, args, lambda store, settings: local(agent_of(store, settings)))


def _run(ctx: typer.Context, op: str, args: Mapping[str, Any], local: Callable[[Any, Any], Any]) -> Any:
    settings = settings_of(ctx)
    if settings.server:
        with remote_session(ctx) as remote:
            return remote.call(op, dict(args))
    with session(ctx) as store:
        from cogmem_graph.server.wire import to_jsonable

        return to_jsonable(local(store, settings))


def json_object(text: str | None, option: str, example: str) -> dict[str, Any] | None:
    """The JSON object an option holds; UsageProblem naming the option otherwise."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageProblem(f"{option} is not JSON ({exc.msg} at character {exc.pos}); give an object such as "
                           f"{example}") from None
    if not isinstance(value, dict):
        raise UsageProblem(f"{option} must be a JSON object such as {example}, not {type(value).__name__}")
    return value


WHERE_EXAMPLE = '\'{"tags_any": ["billing"], "metadata": {"plan": "pro"}}\''


def filter_of(where: str | None, **flags: tuple[str, list[Any] | None]) -> dict[str, Any] | None:
    """The filter of `--where JSON` and the flag options (field -> (option, values)): a field
    given both ways is a usage error, naming both."""
    combined = json_object(where, "--where", WHERE_EXAMPLE) or {}
    for field, (option, values) in flags.items():
        if not values:
            continue
        if field in combined:
            raise UsageProblem(f"{option} and the {field!r} of --where both filter on {field}: give one of them")
        combined[field] = [getattr(v, "value", v) for v in values]
    return combined or None


def _when(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M") if ms else "-"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CONTENT_CHARS else text[: CONTENT_CHARS - 1] + "…"


def _records_table(title: str, records: list[dict[str, Any]], *, versions: bool = False) -> Table:
    table = Table(title=escape(title))
    columns = ("version", "id", "state", "when", "by", "content") if versions else \
        ("id", "type", "state", "when", "tags", "content")
    for column in columns:
        # An id is copied into the next command: it never wraps; the other columns give way.
        table.add_column(column, overflow="fold", no_wrap=column == "id")
    for record in records:
        trace = record["trace"]
        if versions:
            row = (str(record["version"]), trace["id"], record["state"], _when(trace.get("recorded_at")),
                   record.get("updated_by") or trace.get("agent_id") or "-", _short(trace["content"]))
        else:
            row = (trace["id"], trace["type"], record["state"] + (" pinned" if trace.get("pinned") else ""),
                   _when(trace.get("created_at")), ", ".join(trace.get("tags") or ()), _short(trace["content"]))
        table.add_row(*(escape(str(cell)) for cell in row))
    return table


def _print_record(record: dict[str, Any]) -> None:
    trace = record["trace"]
    table = Table(show_header=False, title=f"memory {escape(trace['id'])}")
    table.add_column("field")
    table.add_column("value", overflow="fold")
    rows = [
        ("content", trace["content"]), ("type", trace["type"]), ("scope", trace.get("scope_key", "")),
        ("state", record["state"]), ("version", record["version"]), ("pinned", trace.get("pinned", False)),
        ("tags", ", ".join(trace.get("tags") or ()) or "-"),
        ("metadata", json.dumps(trace.get("metadata") or {}, ensure_ascii=False, sort_keys=True)),
        ("created", _when(trace.get("created_at"))), ("recorded", _when(trace.get("recorded_at"))),
        ("agent", trace.get("agent_id", "")),
    ]
    if record.get("superseded_by"):
        rows.append(("superseded by", ", ".join(record["superseded_by"])))
    if record.get("updated_by"):
        rows.append(("updated by", record["updated_by"]))
    if record.get("archived"):
        rows.append(("archived original", "yes"))
    for name, value in rows:
        table.add_row(name, escape(str(value)))
    out.print(table)


# ---------------------------------------------------------------- reading


@app.command("list")
def list_(
    ctx: typer.Context,
    tags: Annotated[list[str] | None, typer.Option("--tag", help="with at least one of these tags (repeat)")] = None,
    types: Annotated[list[MemoryType] | None, typer.Option(
        "--type", metavar="TYPE", help=f"of these types (repeat): {one_of(MemoryType)}")] = None,
    states: Annotated[list[MemoryState] | None, typer.Option(
        "--state", metavar="STATE", help=f"in these states (repeat): {one_of(MemoryState)}")] = None,
    scopes: Annotated[list[Scope] | None, typer.Option(
        "--scope", metavar="SCOPE", help=f"in these scopes (repeat): {one_of(Scope)}")] = None,
    where: Annotated[str | None, typer.Option(
        "--where", metavar="JSON", help="a filter object: type, scope, tags_any, tags_all, metadata, source_type, "
        "state, created_after, created_before, valid_after, valid_before, entity")] = None,
    order: Annotated[str, typer.Option(help="newest or oldest first (event time)")] = "newest",
    limit: Annotated[int | None, typer.Option(min=1, max=1000, help="memories per page (default 100)")] = None,
    cursor: Annotated[str | None, typer.Option(help="the cursor a previous page printed, for the next page")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the page as JSON (items and cursor)")] = False,
) -> None:
    """List this identity's memories, filtered, a page at a time (the next page's --cursor goes to stderr)."""
    with handled():
        if order not in ("newest", "oldest"):
            raise UsageProblem(f"--order must be newest or oldest, not {order!r}")
        flt = filter_of(where, tags_any=("--tag", tags), type=("--type", types), state=("--state", states),
                        scope=("--scope", scopes))
    page = run_operation(ctx, "list", {"where": flt, "order": order, "limit": limit, "cursor": cursor},
                         lambda agent: agent.list(flt, order=order, cursor=cursor,
                                                  **({} if limit is None else {"limit": limit})))
    if as_json:
        out.print_json(data=page)
        return
    if not page["items"]:
        err.print("no memories" + (" match" if flt else ""))
    else:
        out.print(_records_table("memories", page["items"]))
    if page["cursor"]:
        err.print(f"more: add --cursor {page['cursor']}")


@app.command()
def get(
    ctx: typer.Context,
    trace_id: Annotated[str, typer.Argument(metavar="ID", help="the memory's id (as list or recall --json show)")],
    as_json: Annotated[bool, typer.Option("--json", help="print the record as JSON")] = False,
) -> None:
    """Show one memory with its state, version and what replaced it."""
    record = run_operation(ctx, "get", {"trace_id": trace_id}, lambda agent: agent.get(trace_id))
    if as_json:
        out.print_json(data=record)
        return
    _print_record(record)


@app.command()
def history(
    ctx: typer.Context,
    trace_id: Annotated[str, typer.Argument(metavar="ID", help="the id of any version of the memory")],
    as_json: Annotated[bool, typer.Option("--json", help="print the versions as JSON")] = False,
) -> None:
    """Every version of a memory, oldest first: what it said, its state and who changed it."""
    versions = run_operation(ctx, "history", {"trace_id": trace_id}, lambda agent: agent.history(trace_id))
    if as_json:
        out.print_json(data=versions)
        return
    out.print(_records_table(f"history of {trace_id}", versions, versions=True))


@app.command("consolidation-report")
def consolidation_report(
    ctx: typer.Context,
    runs: Annotated[int, typer.Option(min=1, max=100, help="the newest runs")] = 20,
    schemas: Annotated[int, typer.Option(min=0, max=200, help="the newest schemas")] = 20,
    members: Annotated[int, typer.Option(min=0, max=100, help="member memories shown per schema")] = 10,
    contradictions: Annotated[int, typer.Option(min=0, max=500, help="the newest settled contradictions")] = 50,
) -> None:
    """What consolidation did in this identity's scopes, as JSON: runs, schemas, contradictions settled."""
    report = run_agent_operation(ctx, "consolidation_report",
                                 {"runs": runs, "schemas": schemas, "members": members,
                                  "contradictions": contradictions},
                                 lambda agent: {**agent.consolidation_report(
                                     runs=runs, schemas=schemas, members=members, contradictions=contradictions),
                                     "store_wide": False})
    out.print_json(data=report)


@app.command("memory-stats")
def memory_stats(ctx: typer.Context) -> None:
    """Counts of the memories this identity can see, as JSON: by type and state, entities, edges by type."""
    out.print_json(data=run_operation(ctx, "memory_stats", {}, lambda agent: agent.stats().as_dict()))


# ---------------------------------------------------------------- changing


@app.command()
def update(
    ctx: typer.Context,
    trace_id: Annotated[str, typer.Argument(metavar="ID", help="the memory to correct")],
    content: Annotated[str | None, typer.Option(
        help="the corrected text: a new version that supersedes this one (kept in its history)")] = None,
    tags: Annotated[list[str] | None, typer.Option("--tag", help="the new tags, replacing the old (repeat)")] = None,
    metadata: Annotated[str | None, typer.Option(
        metavar="JSON", help="the new metadata object, replacing the old")] = None,
    memory_type: Annotated[MemoryType | None, typer.Option(
        "--type", metavar="TYPE", help=f"the memory's type: {one_of(MemoryType)}")] = None,
    pinned: Annotated[bool | None, typer.Option("--pin/--unpin", help="pin (a truth anchor) or unpin")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the updated record as JSON")] = False,
) -> None:
    """Correct a memory: --content makes a new version; tags, metadata, type and pinning change in place."""
    with handled():
        meta = json_object(metadata, "--metadata", '\'{"plan": "pro"}\'')
        if all(v is None for v in (content, tags, meta, memory_type, pinned)):
            raise UsageProblem("nothing to update: give --content, --tag, --metadata, --type, --pin or --unpin")
    changes = {"content": content, "tags": tags, "metadata": meta, "pinned": pinned,
               "type": memory_type.value if memory_type else None}
    given: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
    record = run_operation(ctx, "update", {"trace_id": trace_id, **given},
                           lambda agent: agent.update(trace_id, **given))
    if as_json:
        out.print_json(data=record)
        return
    new_id = record["trace"]["id"]
    if new_id != trace_id:
        out.print(f"updated {trace_id}: version {record['version']} is {new_id} (the old text stays in its history)")
    else:
        out.print(f"updated {trace_id} ({', '.join(sorted(given))})")


@app.command()
def forget(
    ctx: typer.Context,
    trace_ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="the memories to delete")] = None,
    where: Annotated[str | None, typer.Option(
        "--where", metavar="JSON", help="instead of ids: delete every memory matching this filter object")] = None,
    force: Annotated[bool, typer.Option("--force", help="delete pinned memories too")] = False,
    compact: Annotated[bool, typer.Option(
        "--compact", help="rewrite the store's files now (otherwise at the next consolidation)")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the receipt as JSON")] = False,
) -> None:
    """Delete memories for good, by id or by --where filter: the memory, its versions, edges,
    vectors and what was made from it. There is no undo."""
    with handled():
        flt = filter_of(where)
        if bool(trace_ids) == (flt is not None):
            raise UsageProblem("forget needs memory ids or --where (a filter), not both and not neither")
    receipt = run_operation(ctx, "forget", {"ids": trace_ids or None, "where": flt, "force": force, "compact": compact},
                            lambda agent: agent.forget(trace_ids or None, where=flt, force=force, compact=compact))
    if as_json:
        out.print_json(data=receipt)
    else:
        n = len(receipt["forgotten"])
        out.print(f"forgot {n} {'memory' if n == 1 else 'memories'} (versions and duplicates included)"
                  + (", files compacted" if receipt.get("compacted") else ""))
    problems = []
    if receipt["not_found"]:
        problems.append(f"no memory visible to this identity with id {', '.join(receipt['not_found'])}")
    if receipt["skipped_pinned"]:
        problems.append(f"pinned, so kept: {', '.join(receipt['skipped_pinned'])} (pass --force to delete them)")
    if problems:
        raise fail("; ".join(problems), EXIT_USAGE)


def _subject_after_the_command(ctx: typer.Context, command: str, subject: str, usage: str) -> None:
    """An owner command's subject (the user, the organization) goes after it: the identity
    options given before it would name who acts, which an owner command takes from nobody,
    so they are refused (exit 2) rather than taken for the subject."""
    settings = settings_of(ctx)
    chosen = [option for name, option in IDENTITY_OPTIONS if getattr(settings, name)]
    if chosen:
        raise fail(f"`cogmem {command}` is an owner command: {subject} goes after it (`{usage}`); remove the "
                   f"global {', '.join(chosen)} given before `{command}` (or unset the matching COGMEM_* "
                   "variables)", EXIT_USAGE)


@app.command()
def erase(
    ctx: typer.Context,
    user: Annotated[str, typer.Option("--user", help="the user whose memories to erase", show_default=False)],
    org: Annotated[str | None, typer.Option("--org", help="the user's organization, when their keys name one")] = None,
    include_shared: Annotated[bool, typer.Option(
        "--include-shared", help="also delete what they wrote into shared scopes (kept without author otherwise)")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the receipt as JSON")] = False,
) -> None:
    """Erase everything of one user (owner): their user and thread memories, reminders, notes,
    archive and vectors, and compact the files. Shared memories they wrote stay, without author,
    unless --include-shared. Give the user after the command: `cogmem erase --user U`."""
    settings = settings_of(ctx)
    _subject_after_the_command(ctx, "erase", "the user to erase", "cogmem erase --user U --org O")
    args = {"user_id": user, "organization_id": org, "include_shared": include_shared}
    if settings.server:
        with remote_session(ctx) as remote:
            receipt = remote.call("erase", args)
    else:
        with session(ctx) as store:
            receipt = store.erase(user, organization_id=org, include_shared=include_shared).as_dict()
    if as_json:
        out.print_json(data=receipt)
        return
    counts = receipt["counts"]
    out.print(f"erased user {escape(receipt['user'])}: {counts.get('traces', 0)} memories, "
              f"{counts.get('observation_notes', 0)} notes, {counts.get('archived', 0)} archived, "
              f"{counts.get('other_nodes', 0)} other records in {len(receipt['scope_keys'])} scopes; shared: "
              f"{counts.get('shared_deleted', 0)} deleted, {counts.get('shared_kept_without_author', 0)} kept "
              "without author" + (", files compacted" if receipt.get("compacted") else ""))


@app.command()
def users(
    ctx: typer.Context,
    org: Annotated[str | None, typer.Option("--org", help=(
        "that organization's users; without it, the users outside every organization"))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """The users who hold memories (owner), one id a line: the ids `cogmem erase --user U` takes.
    Give the organization after the command: `cogmem users --org O`."""
    settings = settings_of(ctx)
    _subject_after_the_command(ctx, "users", "the organization", "cogmem users --org O")
    if settings.server:
        with remote_session(ctx) as remote:
            answer = remote.call("users", {"organization_id": org})
    else:
        with session(ctx) as store:
            answer = {"organization_id": org, "users": store.users(organization_id=org)}
    if as_json:
        out.print_json(data=answer)
        return
    for user_id in answer["users"]:
        out.print(escape(user_id), soft_wrap=True)
