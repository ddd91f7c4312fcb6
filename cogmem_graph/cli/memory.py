"""The commands an agent's memory is used through: `ingest` a file, `recall`
memories for a query, print the prompt `context` for a query, `pin` and
`unpin` memories.

They act as one agent identity (the global --agent/--user/... options); file
parsing lives in `readers`, what one run of a command needs in `invocation`.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import app
from cogmem_graph.cli.invocation import (
    EXIT_USAGE,
    IDENTITY_OPTIONS,
    Settings,
    agent_of,
    agent_session,
    err,
    fail,
    handled,
    one_of,
    out,
    progress_bars,
    session,
    settings_of,
)
from cogmem_graph.cli.readers import IngestPlan, InputFormat, Skipped, read_ingest_file
from cogmem_graph.config.retrieval import MAX_TOP_K
from cogmem_graph.model import MemoryType, Scope

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.client import RemoteAgent


@app.command()
def ingest(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(
        metavar="FILE", help="JSONL chat messages, a text file, or LoCoMo conversation JSON")],
    fmt: Annotated[InputFormat, typer.Option("--format", help="input format (auto: detected from the content)")]
    = InputFormat.AUTO,
    memory_type: Annotated[MemoryType | None, typer.Option(
        "--type", metavar="TYPE",
        help=f"memory type: {one_of(MemoryType)} (default: episodic for chats, semantic for text)")] = None,
    scope: Annotated[Scope | None, typer.Option(
        metavar="SCOPE", help=f"scope: {one_of(Scope)} (default: user when --user is set)")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=5_000, help="memories per encode batch")] = 200,
    strict: Annotated[bool, typer.Option(
        "--strict", help="store nothing when a message is invalid (default: store the valid ones)")] = False,
) -> None:
    """Remember a file: chat messages (JSONL with speaker/role, text/content, timestamp as
    epoch ms or ISO 8601; a JSON list works too), a plain text file (one memory per
    paragraph) or LoCoMo-style conversation JSON (one thread per session).

    Every message is checked before anything is stored. One with a bad field (no text, a
    NaN or infinite number, a time that is not one or lies outside 1970-9999) is skipped
    and named on stderr with its file, line and field; the others are stored, and the exit
    code is 2 when any message with text was skipped. The summary counts the memories
    stored, those merged into a memory already there (a near-duplicate reinforces it
    instead), and those skipped."""
    settings = settings_of(ctx)
    with handled():
        plan = read_ingest_file(file, fmt)
    requests = _checked_requests(plan, memory_type, scope)
    for skipped in plan.skipped:
        err.print(f"skipped {escape(str(skipped))}")
    invalid = len(plan.invalid)
    if strict and invalid:
        raise fail(f"{file}: {invalid} invalid message(s), listed above; with --strict nothing was stored",
                   EXIT_USAGE)
    if not requests:
        raise fail(f"{file}: nothing to ingest (no valid non-empty messages or paragraphs)", EXIT_USAGE)
    what = f"{escape(str(file))} (format {plan.format}"
    if settings.server:
        sent = _ingest_remote(ctx, plan, requests, batch_size, file)
        out.print(f"ingested {what}, via server): {sent} stored or merged, {_skipped_text(plan)}")
    else:
        stored, merged = _ingest_local(ctx, plan, requests, batch_size, file)
        out.print(f"ingested {what}, {plan.threads} thread(s)): {stored} stored, "
                  f"{merged} merged into existing memories, {_skipped_text(plan)}")
    if invalid:
        raise fail(f"{invalid} message(s) of {file} were not stored (listed above): fix them and ingest them "
                   "again (ingesting the whole file again merges what was stored rather than duplicating it)",
                   EXIT_USAGE)


def _skipped_text(plan: IngestPlan) -> str:
    empty = len(plan.skipped) - len(plan.invalid)
    parts = [f"{n} {what}" for n, what in ((empty, "empty"), (len(plan.invalid), "invalid")) if n]
    return f"{len(plan.skipped)} skipped" + (f" ({', '.join(parts)})" if parts else "")


def _checked_requests(plan: IngestPlan, memory_type: MemoryType | None, scope: Scope | None) -> list[dict[str, Any]]:
    """Each item's encode request, checked as `encode` checks it (the checked request under
    "_checked"); an item it refuses (content too long, metadata too large, ...) joins the
    plan's skipped ones, naming its line and field."""
    from pydantic import ValidationError

    from cogmem_graph.errors import field_problems
    from cogmem_graph.write.request import EncodeRequest

    kept, requests = [], []
    for item, request in zip(plan.items, _requests(plan.items, memory_type, scope), strict=True):
        try:
            checked = EncodeRequest.model_validate(request)
        except ValidationError as exc:
            plan.skipped.append(Skipped(item["_where"], field_problems(exc.errors()), line=item.get("_line", 0)))
            continue
        kept.append(item)
        requests.append({**request, "_thread": item.get("_thread"), "_checked": checked})
    plan.items = kept
    plan.skipped.sort(key=lambda skipped: skipped.line)
    return requests


def _requests(batch: list[dict[str, Any]], memory_type: MemoryType | None,
              scope: Scope | None) -> list[dict[str, Any]]:
    requests = []
    for item in batch:
        request = {k: v for k, v in item.items() if not k.startswith("_")}
        request["type"] = (memory_type.value if memory_type
                           else "semantic" if item.get("_kind") == "text" else "episodic")
        if scope:
            request["scope"] = scope.value
        requests.append(request)
    return requests


def _encode_requests(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in request.items() if not k.startswith("_")} for request in batch]


def _ingest_local(ctx: typer.Context, plan: IngestPlan, requests: list[dict[str, Any]], batch_size: int,
                  file: Path) -> tuple[int, int]:
    """Encode on the local store, one identity per thread: (stored, merged into existing memories)."""
    from cogmem_graph.write.encode import MAX_ENCODE_BATCH, encode_batch

    settings = settings_of(ctx)
    stored = merged = 0
    with session(ctx) as store:
        handles: dict[str | None, AgentMemory] = {}
        with progress_bars() as progress:
            task = progress.add_task(f"ingesting {escape(file.name)} ({plan.format})", total=len(requests))
            try:
                for thread, batch in _batches(requests, min(batch_size, MAX_ENCODE_BATCH)):
                    if thread not in handles:
                        handles[thread] = agent_of(store, settings, thread)
                    outcome = encode_batch(handles[thread].context(), [r["_checked"] for r in batch])
                    stored += outcome.created
                    merged += len(batch) - outcome.created
                    progress.advance(task, len(batch))
            except (Exception, KeyboardInterrupt):
                err.print(f"stopped after {stored} stored and {merged} merged of the {len(requests)} messages "
                          f"of {escape(str(file))}; the rest were not stored")
                raise
    return stored, merged


def _ingest_remote(ctx: typer.Context, plan: IngestPlan, requests: list[dict[str, Any]], batch_size: int,
                   file: Path) -> int:
    """Ingest through a server: the key's identity (and thread) for every item. The server does
    not say which items it merged into existing memories, only that it took them."""
    sent = 0
    with agent_session(ctx) as agent, progress_bars() as progress:
        task = progress.add_task(f"ingesting {escape(file.name)} ({plan.format}) via server", total=len(requests))
        for _thread, batch in _batches(requests, batch_size):
            agent.encode_many(_encode_requests(batch), batch_size=batch_size)
            sent += len(batch)
            progress.advance(task, len(batch))
    return sent


def _batches(items: list[dict[str, Any]], size: int) -> Iterator[tuple[str | None, list[dict[str, Any]]]]:
    """Consecutive items of one thread, at most `size` at a time."""
    batch: list[dict[str, Any]] = []
    thread: str | None = None
    for item in items:
        if batch and (item.get("_thread") != thread or len(batch) >= size):
            yield thread, batch
            batch = []
        thread = item.get("_thread")
        batch.append(item)
    if batch:
        yield thread, batch


def _scored_json(item: Any) -> dict[str, Any]:
    trace = item.trace
    return {"id": trace.id, "score": round(item.score, 6), "content": trace.content, "type": trace.type.value,
            "scope_key": trace.scope_key, "created_at": trace.created_at, "metadata": trace.metadata,
            "category": trace.category.value, "pinned": trace.pinned, "dormant": trace.dormant,
            "sources": list(item.sources), "signals": {k: round(v, 6) for k, v in item.signals.items()}}


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M") if ms else "-"


@app.command()
def recall(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="what to remember")],
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K, help="how many memories")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
    no_reinforce: Annotated[bool, typer.Option(
        "--no-reinforce", help="look without reinforcing: no access update, no Hebbian learning")] = False,
) -> None:
    """Retrieve the memories that best answer QUERY, with the signals that ranked them."""
    with agent_session(ctx) as agent:
        result = agent.retrieve(query, top_k=top_k, record_access=not no_reinforce)
        if not result.traces and not result.gated:
            _explain_an_identity_that_sees_nothing(ctx, agent, "recall", query)
    if as_json:
        out.print_json(data={"query": query, "gated": result.gated, "traces": [_scored_json(t) for t in result.traces],
                             "partial": [_scored_json(t) for t in result.partial]})
        return
    if result.gated:
        err.print("not searched: small talk or a command needs no memory (retrieval.query.gate)")
        return
    if not result.traces:
        err.print("no memories matched")
        return
    table = Table(title=f"recall: {escape(query)}")
    for column in ("#", "score", "type", "when", "via", "content"):
        table.add_column(column, overflow="fold")
    for rank, item in enumerate(result.traces, start=1):
        table.add_row(str(rank), f"{item.score:.3f}", item.trace.type.value, _when(item.trace.created_at),
                      "+".join(item.sources), escape(item.trace.content))
    out.print(table)
    if result.partial:
        err.print(f"{len(result.partial)} more on the tip of the tongue (weak or untrusted matches)")


IDENTITY_FLAGS = (("organization_id", "--org"), ("agent_id", "--agent"), ("user_id", "--user"),
                  ("thread_id", "--thread"), ("persona_id", "--persona"))
"""The global options an identity is given by, in the order an example command lists them."""
LISTED_IDENTITIES = 10


def _explain_an_identity_that_sees_nothing(ctx: typer.Context, agent: AgentMemory | RemoteAgent, command: str,
                                           query: str) -> None:
    """Nothing was found because the identity sees no memory at all while the home holds some
    under other identities. Given no identity, the user most likely left --user out: exit 2
    saying which identities hold how many and the flags that reach them. Given one (a typo,
    or a user with no memories yet), the answer stands and a note on stderr says the same. A
    local home's owner may know that much; no memory's content is shown. Through a server,
    the key decides the identity and nothing is said."""
    from cogmem_graph.api.governance import scope_counts

    settings = settings_of(ctx)
    if settings.server:
        return
    local = cast("AgentMemory", agent)  # without --server, agent_session gives the local home's agent
    counts = scope_counts(local.store)
    if not counts or any(counts.get(key) for key in local.visible_scope_keys):
        return
    ranked = _memories_by_identity(counts)
    listed = ", ".join(f"{n} under {flags}" for flags, n in ranked[:LISTED_IDENTITIES])
    rest = ranked[LISTED_IDENTITIES:]
    if rest:
        listed += f" and {sum(n for _, n in rest)} under {len(rest)} more identities"
    census = f"{_who(settings)} sees no memories, but this memory home holds {sum(counts.values())}: {listed}"
    if _identity_given(settings):
        err.print(f"note: {escape(census)}")
        return
    raise fail(f"{census}. Give the identity before the command, e.g. "
               f"`cogmem {ranked[0][0]} {command} {shlex.quote(query)}`", EXIT_USAGE)


def _memories_by_identity(counts: dict[str, int]) -> list[tuple[str, int]]:
    """(the flags that reach a scope, its memories), most memories first."""
    from cogmem_graph.identity import identity_of_scope_key

    by_flags: dict[str, int] = {}
    for key, n in counts.items():
        needed = identity_of_scope_key(key)
        flags = " ".join(f"{flag} {shlex.quote(needed[field])}" for field, flag in IDENTITY_FLAGS if field in needed)
        label = flags or f"scope key {key}"
        by_flags[label] = by_flags.get(label, 0) + n
    return sorted(by_flags.items(), key=lambda pair: (-pair[1], pair[0]))


def _identity_given(settings: Settings) -> bool:
    return settings.agent != Settings().agent or any(getattr(settings, name) for name, _ in IDENTITY_OPTIONS)


def _who(settings: Settings) -> str:
    given = [f"{option} {value}" for name, option in IDENTITY_OPTIONS if (value := getattr(settings, name))]
    if given:
        return f"{' '.join(given)} (agent {settings.agent!r})"
    options = [option for _, option in IDENTITY_OPTIONS]
    return f"agent {settings.agent!r} with no {', '.join(options[:-1])} or {options[-1]}"


def _pin_command(ctx: typer.Context, trace_ids: list[str], pinned: bool) -> None:
    with agent_session(ctx) as agent:
        done = agent.pin(trace_ids) if pinned else agent.unpin(trace_ids)
    verb = "pinned" if pinned else "unpinned"
    for trace_id in done:
        out.print(f"{verb} {trace_id}")
    missing = [i for i in trace_ids if i not in set(done)]
    if missing:
        raise fail(f"no active memory visible to this identity with id {', '.join(missing)}", EXIT_USAGE)


@app.command()
def pin(
    ctx: typer.Context,
    trace_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="trace ids (as `recall --json` shows)")],
) -> None:
    """Pin memories: truth anchors that are never forgotten, merged, gisted or superseded."""
    _pin_command(ctx, trace_ids, True)


@app.command()
def unpin(
    ctx: typer.Context,
    trace_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="trace ids")],
) -> None:
    """Unpin memories: they decay and may be forgotten like any other again."""
    _pin_command(ctx, trace_ids, False)


@app.command()
def context(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="what the prompt is about")],
    budget: Annotated[int | None, typer.Option(
        "--budget", min=1, max=200_000, help="token budget (default: config)")] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON with token usage")] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="show each memory's id and score (and its activation under Active Context)")] = False,
) -> None:
    """Print the memory context an LLM prompt would get for QUERY, within --budget tokens."""
    with agent_session(ctx) as agent:
        assembled = agent.assemble_for_prompt(query, token_budget=budget, top_k=top_k, debug=debug)
        if not assembled.trace_ids:
            _explain_an_identity_that_sees_nothing(ctx, agent, "context", query)
    if as_json:
        out.print_json(data={"query": query, "text": assembled.text, "tokens_used": assembled.tokens_used,
                             "token_budget": assembled.token_budget, "sections": assembled.sections,
                             "trace_ids": list(assembled.trace_ids), "outdated": list(assembled.outdated),
                             "abbreviated": list(assembled.abbreviated), "left_out": list(assembled.left_out)})
        return
    out.print(escape(assembled.text))
    err.print(f"{assembled.tokens_used}/{assembled.token_budget} tokens")

