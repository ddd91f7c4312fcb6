"""The `cogmem` command.

Global options choose the store (an embedded home, or production URLs) and the
agent identity; each can also come from the environment (`COGMEM_HOME`,
`COGMEM_GRAPH`, `COGMEM_VECTORS`, `COGMEM_EMBEDDER`, `COGMEM_AGENT`,
`COGMEM_USER`, `COGMEM_THREAD`, `COGMEM_PERSONA`, `COGMEM_ORG`).

Exit codes: 0 success; 1 a runtime or backend error (the message names the URL
or what to start); 2 a usage error or bad input (bad option, missing or
malformed file). Errors are one line on stderr, without a traceback
(`COGMEM_DEBUG=1` shows it). Data goes to stdout, progress to stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.portable import PortableCounts

app = typer.Typer(help="cogmem-graph: cognitive memory for LLM agents, in a graph database.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

err = Console(stderr=True, soft_wrap=True, highlight=False)
out = Console(soft_wrap=True, highlight=False)

EXIT_ERROR = 1
EXIT_USAGE = 2


class UsageProblem(ValueError):
    """Bad input the user can fix (exit code 2)."""


# ---------------------------------------------------------------- settings and errors


@dataclass
class Settings:
    home: Path | None = None
    graph: str | None = None
    vectors: str | None = None
    embedder: str | None = None
    agent: str = "cogmem"
    user: str | None = None
    thread: str | None = None
    persona: str | None = None
    org: str | None = None

    def identity(self, thread: str | None = None) -> dict[str, Any]:
        return {"user_id": self.user, "thread_id": thread or self.thread, "persona_id": self.persona,
                "organization_id": self.org}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _fail(message: str, code: int) -> typer.Exit:
    err.print(f"[red]error:[/red] {escape(_one_line(message))}")
    return typer.Exit(code)


def _validation_message(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in errors())
    return str(exc)


@contextlib.contextmanager
def _handled() -> Iterator[None]:
    """Turn exceptions into one-line messages and the documented exit codes."""
    from pydantic import ValidationError

    from cogmem_graph.errors import BackendUnavailable, CogmemError

    try:
        yield
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("COGMEM_DEBUG"):
            raise
        if isinstance(exc, BackendUnavailable):
            raise _fail(str(exc), EXIT_ERROR) from None
        if isinstance(exc, ValidationError):
            raise _fail(_validation_message(exc), EXIT_USAGE) from None
        if isinstance(exc, (UsageProblem, ValueError, FileNotFoundError, IsADirectoryError, UnicodeDecodeError)):
            raise _fail(str(exc), EXIT_USAGE) from None
        if isinstance(exc, CogmemError):
            raise _fail(str(exc), EXIT_ERROR) from None
        raise _fail(f"{type(exc).__name__}: {exc}", EXIT_ERROR) from None


def _settings(ctx: typer.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings()


def _open(settings: Settings) -> MemoryStore:
    import cogmem_graph as cg

    where = settings.graph or f"embedded graph under {settings.home or 'the default home'}"
    with err.status(f"opening the memory store ({escape(where)})…"):
        return cg.open(home=settings.home, graph=settings.graph, vectors=settings.vectors,
                       embedder=settings.embedder)


@contextlib.contextmanager
def _session(ctx: typer.Context) -> Iterator[MemoryStore]:
    """An open store for one command, closed after it, with errors mapped to exit codes."""
    settings = _settings(ctx)
    with _handled():
        store = _open(settings)
        try:
            yield store
        finally:
            store.close()


def _agent(store: MemoryStore, settings: Settings, thread: str | None = None) -> AgentMemory:
    return store.agent(settings.agent, **settings.identity(thread))


def _progress(*, bytes_: bool = False) -> Progress:
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               DownloadColumn() if bytes_ else MofNCompleteColumn(), TimeElapsedColumn()]
    return Progress(*columns, console=err, transient=False)


# ---------------------------------------------------------------- global options


@app.callback()
def _main(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option(
        "--home", envvar="COGMEM_HOME", show_default="$COGMEM_HOME or ./.cogmem",
        help="memory home for the embedded graph and vectors")] = None,
    graph: Annotated[str | None, typer.Option(
        "--graph", metavar="URL", envvar="COGMEM_GRAPH",
        help="graph server: neo4j://host:7687, bolt://…, falkor://host:6379 (default: embedded FalkorDB)")] = None,
    vectors: Annotated[str | None, typer.Option(
        "--vectors", metavar="URL", envvar="COGMEM_VECTORS",
        help="Qdrant server URL, or :memory: (default: the embedded Qdrant Edge index under the home)")] = None,
    embedder: Annotated[str | None, typer.Option(
        "--embedder", metavar="SPEC", envvar="COGMEM_EMBEDDER",
        help="local | hash | openai:<model> (default: local MiniLM when installed); use the same one every time")] = None,
    agent: Annotated[str, typer.Option("--agent", envvar="COGMEM_AGENT", help="agent id")] = "cogmem",
    user: Annotated[str | None, typer.Option("--user", envvar="COGMEM_USER", help="user id")] = None,
    thread: Annotated[str | None, typer.Option("--thread", envvar="COGMEM_THREAD", help="thread id")] = None,
    persona: Annotated[str | None, typer.Option("--persona", envvar="COGMEM_PERSONA", help="persona id")] = None,
    org: Annotated[str | None, typer.Option("--org", envvar="COGMEM_ORG", help="organization id")] = None,
) -> None:
    """Cognitive memory for LLM agents: ingest conversations, recall, inspect, back up."""
    ctx.obj = Settings(home=home, graph=graph, vectors=vectors, embedder=embedder, agent=agent, user=user,
                       thread=thread, persona=persona, org=org)


# ---------------------------------------------------------------- demo


@app.command()
def demo(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option(help="memory home to use (default: a temporary folder)")] = None,
    embedder: Annotated[str | None, typer.Option(help="embedder spec: local, hash, openai:<model>")] = None,
) -> None:
    """Run the memory on the embedded default with a built-in two-session conversation."""
    from cogmem_graph.demo import run_demo

    settings = _settings(ctx)
    with _handled():
        code = run_demo(home=home, embedder=embedder or settings.embedder, graph=settings.graph,
                        vectors=settings.vectors)
    raise typer.Exit(code)


# ---------------------------------------------------------------- ingest readers


class InputFormat(StrEnum):
    AUTO = "auto"
    JSONL = "jsonl"
    TEXT = "text"
    LOCOMO = "locomo"


SPEAKER_KEYS = ("speaker", "role", "name", "author", "sender")
TEXT_KEYS = ("text", "content", "message", "body")
TIME_KEYS = ("timestamp", "time", "ts", "created_at", "createdAt", "date", "datetime")
THREAD_KEYS = ("thread", "thread_id", "threadId", "conversation_id", "conversationId", "session", "session_id")
ID_KEYS = ("id", "message_id", "messageId", "dia_id")
ROLE_SOURCES = {
    "user": "user_statement", "human": "user_statement",
    "assistant": "agent_inference", "ai": "agent_inference", "agent": "agent_inference", "bot": "agent_inference",
    "model": "agent_inference", "system": "external", "tool": "tool_result", "function": "tool_result",
}
LOCOMO_TIME = "%I:%M %p on %d %B, %Y"
EPOCH_SECONDS_LIMIT = 100_000_000_000
"""Numbers below this are epoch seconds (before 1973 in ms); above, epoch milliseconds."""
MAX_CHUNK_CHARS = 2_000


def parse_time(value: Any, where: str) -> int:
    """Epoch ms from epoch ms/s numbers, ISO 8601 or LoCoMo's '1:56 pm on 8 May, 2023' (UTC if naive)."""
    if isinstance(value, bool):
        raise UsageProblem(f"{where}: timestamp {value!r} is not epoch ms or ISO 8601")
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\.\d+)?\s*", value):
        value = float(value)
    if isinstance(value, (int, float)):
        if value < 0:
            raise UsageProblem(f"{where}: timestamp {value!r} is negative")
        return int(value * 1000 if value < EPOCH_SECONDS_LIMIT else value)
    if isinstance(value, str) and value.strip():
        text = value.strip()
        for parse in (lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")),
                      lambda s: datetime.strptime(s, LOCOMO_TIME)):
            try:
                moment = parse(text)
            except ValueError:
                continue
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            return int(moment.timestamp() * 1000)
    raise UsageProblem(f"{where}: timestamp {value!r} is not epoch ms or ISO 8601")


def _first(record: dict, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if record.get(key) not in (None, ""):
            return record[key]
    return None


def _message_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multi-part chat content: [{"type": "text", "text": ...}, ...]
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in value]
        return "\n".join(p for p in parts if p)
    return "" if value is None else str(value)


def _clean_id(value: Any) -> str | None:
    if value in (None, ""):
        return None
    return str(value).replace("/", "-").strip() or None


@dataclass
class IngestPlan:
    format: str
    items: list[dict[str, Any]]
    skipped: int = 0

    @property
    def threads(self) -> int:
        return len({item.get("_thread") for item in self.items})


def messages_to_items(messages: list[Any], source: str, *, line_numbers: list[int] | None = None) -> IngestPlan:
    """Chat messages (JSONL or a JSON list) to encode items, in file order."""
    items: list[dict[str, Any]] = []
    skipped = 0
    previous: int | None = None
    now = None
    for index, record in enumerate(messages):
        where = f"{source} line {line_numbers[index]}" if line_numbers else f"{source} message {index + 1}"
        if not isinstance(record, dict):
            raise UsageProblem(f"{where}: expected a JSON object with text/content")
        text = _message_text(_first(record, TEXT_KEYS)).strip()
        if not text:
            skipped += 1
            continue
        speaker = _first(record, SPEAKER_KEYS)
        raw_time = _first(record, TIME_KEYS)
        if raw_time is not None:
            created = parse_time(raw_time, where)
        else:
            if now is None:
                from cogmem_graph.clock import SystemClock

                now = SystemClock().now_ms()
            created = (previous + 1) if previous is not None else now
        previous = created
        metadata: dict[str, Any] = {}
        if isinstance(record.get("metadata"), dict):
            metadata.update({k: v for k, v in record["metadata"].items()
                             if isinstance(v, (str, int, float, bool)) or v is None})
        for key in ID_KEYS:
            if isinstance(record.get(key), (str, int)):
                metadata[key] = record[key]
        if speaker is not None:
            metadata["speaker"] = str(speaker)
        thread = _clean_id(_first(record, THREAD_KEYS))
        items.append({
            "content": f"{speaker}: {text}" if speaker is not None else text,
            "created_at": created,
            "metadata": metadata,
            "source_type": ROLE_SOURCES.get(str(speaker).lower(), "user_statement"),
            "source_id": f"{source}#{thread}" if thread else source,
            "_thread": thread,
        })
    return IngestPlan("jsonl", items, skipped)


def text_to_items(text: str, source: str) -> IngestPlan:
    """Paragraphs (blank-line separated); long ones split at sentence ends."""
    from cogmem_graph.clock import SystemClock

    chunks: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        while len(paragraph) > MAX_CHUNK_CHARS:
            cut = max(paragraph.rfind(". ", 0, MAX_CHUNK_CHARS), paragraph.rfind("? ", 0, MAX_CHUNK_CHARS),
                      paragraph.rfind("! ", 0, MAX_CHUNK_CHARS))
            cut = cut + 1 if cut > 0 else MAX_CHUNK_CHARS
            chunks.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if paragraph:
            chunks.append(paragraph)
    now = SystemClock().now_ms()
    items = [{"content": chunk, "created_at": now + index, "source_type": "external", "source_id": source,
              "metadata": {"source": source, "chunk": index + 1}, "_thread": None, "_kind": "text"}
             for index, chunk in enumerate(chunks)]
    return IngestPlan("text", items)


def is_locomo(data: Any) -> bool:
    samples = data if isinstance(data, list) else [data]
    return bool(samples) and all(
        isinstance(s, dict) and isinstance(s.get("conversation", s), dict)
        and isinstance(s.get("conversation", s).get("session_1"), list) for s in samples)


def locomo_to_items(data: Any, source: str) -> IngestPlan:
    """LoCoMo conversations: one thread per session; event time = session date + 30 s x turn."""
    samples = data if isinstance(data, list) else [data]
    items: list[dict[str, Any]] = []
    for number, sample in enumerate(samples, start=1):
        conversation = sample.get("conversation", sample)
        prefix = f"{_clean_id(sample.get('sample_id')) or number}-" if len(samples) > 1 else ""
        session = 1
        while isinstance(conversation.get(f"session_{session}"), list):
            where = f"{source} conversation {number} session {session}"
            stamp = conversation.get(f"session_{session}_date_time")
            if stamp is None:
                raise UsageProblem(f"{where}: session_{session}_date_time is missing")
            start = parse_time(stamp, where)
            for position, turn in enumerate(conversation[f"session_{session}"]):
                if not isinstance(turn, dict) or not str(turn.get("text", "")).strip():
                    raise UsageProblem(f"{where} turn {position + 1}: expected an object with speaker and text")
                content = f"{turn.get('speaker', 'unknown')}: {turn['text']}"
                if turn.get("blip_caption"):
                    content += f" [shares a photo: {turn['blip_caption']}]"
                metadata = {"session": session, "speaker": str(turn.get("speaker", "unknown"))}
                if turn.get("dia_id"):
                    metadata["dia_id"] = str(turn["dia_id"])
                thread = f"{prefix}session-{session}"
                items.append({"content": content, "created_at": start + 30_000 * position, "metadata": metadata,
                              "source_id": f"{source}#{thread}", "_thread": thread})
            session += 1
    return IngestPlan("locomo", items)


def read_ingest_file(path: Path, fmt: InputFormat) -> IngestPlan:
    """Parse a chat log / text / LoCoMo file; the format is detected from the content."""
    if not path.exists():
        raise UsageProblem(f"file not found: {path}")
    if path.is_dir():
        raise UsageProblem(f"{path} is a directory, not a file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageProblem(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    source = path.name
    if fmt is InputFormat.TEXT:
        return text_to_items(text, source)
    stripped = text.lstrip()
    if fmt in (InputFormat.AUTO, InputFormat.LOCOMO) and stripped[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if data is not None:
            if is_locomo(data):
                return locomo_to_items(data, source)
            if fmt is InputFormat.LOCOMO:
                raise UsageProblem(f"{path}: not a LoCoMo conversation (no conversation.session_1 list)")
            if isinstance(data, dict) and isinstance(data.get("messages"), list):
                return messages_to_items(data["messages"], source)
            if isinstance(data, list):
                return messages_to_items(data, source)
            if isinstance(data, dict) and _first(data, TEXT_KEYS) is not None:
                return messages_to_items([data], source)
            raise UsageProblem(f"{path}: JSON that is neither chat messages nor a LoCoMo conversation")
    if fmt is InputFormat.LOCOMO:
        raise UsageProblem(f"{path}: not a LoCoMo conversation JSON file")
    if fmt is InputFormat.JSONL or (fmt is InputFormat.AUTO and stripped.startswith("{")):
        records, numbers = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise UsageProblem(f"{path} line {number}: not JSON ({exc.msg}); "
                                   "use --format text for a plain text file") from None
            numbers.append(number)
        return messages_to_items(records, source, line_numbers=numbers)
    return text_to_items(text, source)


# ---------------------------------------------------------------- ingest


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
    settings = _settings(ctx)
    with _handled():
        plan = read_ingest_file(file, fmt)
    if not plan.items:
        raise _fail(f"{file}: nothing to ingest (no non-empty messages or paragraphs)", EXIT_USAGE)
    with _session(ctx) as store:
        handles: dict[str | None, AgentMemory] = {}
        written = 0
        with _progress() as progress:
            task = progress.add_task(f"ingesting {file.name} ({plan.format})", total=len(plan.items))
            for thread, batch in _batches(plan.items, batch_size):
                if thread not in handles:
                    handles[thread] = _agent(store, settings, thread)
                requests = []
                for item in batch:
                    request = {k: v for k, v in item.items() if not k.startswith("_")}
                    kind = memory_type or ("semantic" if item.get("_kind") == "text" else "episodic")
                    request["type"] = kind
                    if scope:
                        request["scope"] = scope
                    requests.append(request)
                written += len(handles[thread].encode_many(requests, batch_size=batch_size))
                progress.advance(task, len(batch))
    skipped = f", {plan.skipped} empty skipped" if plan.skipped else ""
    out.print(f"ingested {len(plan.items)} memories from {escape(str(file))} "
              f"(format {plan.format}, {plan.threads} thread(s){skipped})")


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


# ---------------------------------------------------------------- recall and context


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
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=1_000, help="how many memories")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
    no_reinforce: Annotated[bool, typer.Option(
        "--no-reinforce", help="look without reinforcing: no access update, no Hebbian learning")] = False,
) -> None:
    """Retrieve the memories that best answer QUERY, with the signals that ranked them."""
    settings = _settings(ctx)
    with _session(ctx) as store:
        result = _agent(store, settings).retrieve(query, top_k=top_k, record_access=not no_reinforce)
    if as_json:
        out.print_json(data={"query": query, "traces": [_scored_json(t) for t in result.traces],
                             "partial": [_scored_json(t) for t in result.partial]})
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
    settings = _settings(ctx)
    with _session(ctx) as store:
        agent = _agent(store, settings)
        done = agent.pin(trace_ids) if pinned else agent.unpin(trace_ids)
    verb = "pinned" if pinned else "unpinned"
    for trace_id in done:
        out.print(f"{verb} {trace_id}")
    missing = [i for i in trace_ids if i not in set(done)]
    if missing:
        raise _fail(f"no active memory visible to this identity with id {', '.join(missing)}", EXIT_USAGE)


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
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=1_000)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON with token usage")] = False,
) -> None:
    """Print the memory context an LLM prompt would get for QUERY, within --budget tokens."""
    settings = _settings(ctx)
    with _session(ctx) as store:
        assembled = _agent(store, settings).assemble_for_prompt(query, token_budget=budget, top_k=top_k)
    if as_json:
        out.print_json(data={"query": query, "text": assembled.text, "tokens_used": assembled.tokens_used,
                             "token_budget": assembled.token_budget, "sections": assembled.sections,
                             "trace_ids": list(assembled.trace_ids)})
        return
    out.print(escape(assembled.text))
    err.print(f"{assembled.tokens_used}/{assembled.token_budget} tokens")


# ---------------------------------------------------------------- maintenance


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


@app.command()
def stats(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Counts of the whole store: traces by type and state, entities, edges by type, vectors."""
    with _session(ctx) as store:
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
def repair(ctx: typer.Context) -> None:
    """Reconcile the vectors with the graph (the source of truth)."""
    with _session(ctx) as store, err.status("repairing…"):
        result = store.repair()
    out.print(f"repair: {result.reindexed} re-indexed, {result.deactivated_vectors} vectors deactivated, "
              f"{result.reactivated_vectors} reactivated, {result.removed_vectors} removed")


@app.command()
def consolidate(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Run consolidation now: decay and prune, merge, replay, schemas, contradictions, gist."""
    with _session(ctx) as store, err.status("consolidating…"):
        result = store.consolidate()
    data = dataclasses.asdict(result)
    if json_out:
        out.print_json(json.dumps(data))
        return
    out.print(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data.items()
                        if isinstance(v, int | float) and not isinstance(v, bool)))


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
    notes, buffered turns, mentions, edges); restores into FalkorDB or Neo4j with `import`."""
    from cogmem_graph.portable import export_store

    to_stdout = target == "-"
    path = Path(target)
    if not to_stdout and path.is_dir():
        raise _fail(f"{path} is a directory; give a file name such as {path / 'backup.jsonl'}", EXIT_USAGE)
    summary = err if to_stdout else out
    with _session(ctx) as store:
        total = store.stats()
        with _progress() as progress:
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
    timestamps and strengths; edges keep their weights; vectors are re-embedded."""
    from cogmem_graph.portable import check_header, import_store

    from_stdin = source == "-"
    path = Path(source)
    if not from_stdin:
        if not path.exists():
            raise _fail(f"file not found: {path}", EXIT_USAGE)
        if path.is_dir():
            raise _fail(f"{path} is a directory, not a backup file", EXIT_USAGE)
        with _handled(), _open_text(path, "r") as fh:
            check_header(next((line for line in fh if line.strip()), ""))
    with _session(ctx) as store:
        size = None if from_stdin or path.suffix == ".gz" else path.stat().st_size
        with _progress(bytes_=True) as progress:
            task = progress.add_task(f"importing {'stdin' if from_stdin else escape(path.name)}", total=size)
            counters: dict[str, int] = {}

            def advance(section: str, n: int) -> None:
                if section == "bytes":
                    progress.advance(task, n)
                else:
                    counters[section] = counters.get(section, 0) + n

            with contextlib.ExitStack() as stack:
                fh = sys.stdin if from_stdin else stack.enter_context(_open_text(path, "r"))
                counts = import_store(store, fh, batch_size=batch_size, on_progress=advance)
            progress.update(task, total=progress.tasks[task].completed)
    out.print(f"imported {counts.traces} traces, {counts.entities} entities, {counts.schemas} schemas, "
              f"{counts.archived} archived, {counts.mentions} mentions, {counts.total_edges} edges, "
              f"{_extras(counts)}")


# ---------------------------------------------------------------- visualisation


@app.command()
def viz(
    ctx: typer.Context,
    query: Annotated[str, typer.Option("--query", "-q", help="what to retrieve")],
    target: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write")] = Path("graph.html"),
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=200)] = 10,
) -> None:
    """Write an interactive HTML page of the traces QUERY retrieves and their neighbourhood
    (coloured by node type and edge type; select an element and open Details for its
    content, weights and signals)."""
    from cogmem_graph.viz import write_viz

    settings = _settings(ctx)
    if target.is_dir():
        raise _fail(f"{target} is a directory; give a file name such as {target / 'graph.html'}", EXIT_USAGE)
    with _session(ctx) as store:
        result = write_viz(_agent(store, settings), query, target, top_k=top_k)
    if not result.retrieved:
        err.print("no memories matched: the page is empty")
    out.print(f"wrote {escape(str(result.path))}: {result.retrieved} retrieved, {result.nodes} nodes, "
              f"{result.relationships} relationships")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
