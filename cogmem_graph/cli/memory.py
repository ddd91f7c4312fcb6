"""The commands an agent's memory is used through: `ingest` a file, `recall`
memories for a query, print the prompt `context` for a query, `pin` and
`unpin` memories.

They act as one agent identity (the global --agent/--user/... options); file
parsing lives in `readers`, the shared plumbing in `common`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import app
from cogmem_graph.cli.common import (
    EXIT_USAGE,
    agent_of,
    agent_session,
    err,
    fail,
    handled,
    out,
    progress_bars,
    session,
    settings_of,
)
from cogmem_graph.cli.readers import InputFormat, read_ingest_file
from cogmem_graph.config.retrieval import MAX_TOP_K

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory


@app.command()
def ingest(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="JSONL chat messages, a text file, or LoCoMo conversation JSON")],
    fmt: Annotated[InputFormat, typer.Option("--format", help="input format (auto: detected from the content)")]
    = InputFormat.AUTO,
    memory_type: Annotated[str | None, typer.Option(
        "--type", help="memory type (default: episodic for chats, semantic for text)")] = None,
    scope: Annotated[str | None, typer.Option(
        help="scope: thread, user, persona, organization, agent (default: user when --user is set)")] = None,
    batch_size: Annotated[int, typer.Option(min=1, max=5_000, help="memories per encode batch")] = 200,
) -> None:
    """Remember a file: chat messages (JSONL with speaker/role, text/content, timestamp as
    epoch ms or ISO 8601; a JSON list works too), a plain text file (one memory per
    paragraph) or LoCoMo-style conversation JSON (one thread per session)."""
    settings = settings_of(ctx)
    with handled():
        plan = read_ingest_file(file, fmt)
    if not plan.items:
        raise fail(f"{file}: nothing to ingest (no non-empty messages or paragraphs)", EXIT_USAGE)
    if settings.server:
        _ingest_remote(ctx, plan, memory_type, scope, batch_size, file)
        return
    with session(ctx) as store:
        handles: dict[str | None, AgentMemory] = {}
        written = 0
        with progress_bars() as progress:
            task = progress.add_task(f"ingesting {file.name} ({plan.format})", total=len(plan.items))
            for thread, batch in _batches(plan.items, batch_size):
                if thread not in handles:
                    handles[thread] = agent_of(store, settings, thread)
                requests = _requests(batch, memory_type, scope)
                written += len(handles[thread].encode_many(requests, batch_size=batch_size))
                progress.advance(task, len(batch))
    skipped = f", {plan.skipped} empty skipped" if plan.skipped else ""
    out.print(f"ingested {len(plan.items)} memories from {escape(str(file))} "
              f"(format {plan.format}, {plan.threads} thread(s){skipped})")


def _requests(batch: list[dict[str, Any]], memory_type: str | None, scope: str | None) -> list[dict[str, Any]]:
    requests = []
    for item in batch:
        request = {k: v for k, v in item.items() if not k.startswith("_")}
        request["type"] = memory_type or ("semantic" if item.get("_kind") == "text" else "episodic")
        if scope:
            request["scope"] = scope
        requests.append(request)
    return requests


def _ingest_remote(ctx: typer.Context, plan: Any, memory_type: str | None, scope: str | None,
                   batch_size: int, file: Path) -> None:
    """Ingest through a server: the key's identity (and thread) for every item."""
    with agent_session(ctx) as agent, progress_bars() as progress:
        task = progress.add_task(f"ingesting {file.name} ({plan.format}) via server", total=len(plan.items))
        for _thread, batch in _batches(plan.items, batch_size):
            agent.encode_many(_requests(batch, memory_type, scope), batch_size=batch_size)
            progress.advance(task, len(batch))
    out.print(f"ingested {len(plan.items)} memories from {escape(str(file))} (format {plan.format}, via server)")


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
    budget: Annotated[int | None, typer.Option("--budget", min=1, help="token budget (default: config)")] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=MAX_TOP_K)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON with token usage")] = False,
) -> None:
    """Print the memory context an LLM prompt would get for QUERY, within --budget tokens."""
    with agent_session(ctx) as agent:
        assembled = agent.assemble_for_prompt(query, token_budget=budget, top_k=top_k)
    if as_json:
        out.print_json(data={"query": query, "text": assembled.text, "tokens_used": assembled.tokens_used,
                             "token_budget": assembled.token_budget, "sections": assembled.sections,
                             "trace_ids": list(assembled.trace_ids)})
        return
    out.print(escape(assembled.text))
    err.print(f"{assembled.tokens_used}/{assembled.token_budget} tokens")

