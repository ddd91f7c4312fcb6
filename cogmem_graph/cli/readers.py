"""Reading the files `cogmem ingest` accepts into encode requests: chat logs
(JSONL or a JSON list), plain text, and LoCoMo conversation JSON.

Kept apart from the commands because it is pure parsing, with no store and no
console: each reader turns a file's content into an `IngestPlan`, or raises
`UsageProblem` naming the file and line when the file as a whole cannot be read.
A chat message with a bad field (empty text, a NaN or infinite number, a time that is
not a time or lies outside 1970-9999) does not stop the others: it is left out of the
plan as `Skipped`, naming the file, the line and the field.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from cogmem_graph.cli.invocation import UsageProblem
from cogmem_graph.model import MAX_EPOCH_MS


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


def parse_time(value: Any, where: str, field: str = "timestamp") -> int:
    """Epoch ms from epoch ms/s numbers, ISO 8601 or LoCoMo's '1:56 pm on 8 May, 2023' (UTC if naive);
    a UsageProblem naming `where` and `field` for anything else, or a time outside 1970-9999."""
    if isinstance(value, bool):
        raise UsageProblem(f"{where}: {field} {value!r} is not epoch ms or ISO 8601")
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\.\d+)?\s*", value):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageProblem(f"{where}: {field} is {_non_finite(value)}, not a finite number")
    if isinstance(value, (int, float)):
        if value < 0:
            raise UsageProblem(f"{where}: {field} {value!r} is negative")
        return _in_range(int(value * 1000 if value < EPOCH_SECONDS_LIMIT else value), value, where, field)
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
            return _in_range(int(moment.timestamp() * 1000), value, where, field)
    raise UsageProblem(f"{where}: {field} {value!r} is not epoch ms or ISO 8601")


def _in_range(ms: int, value: Any, where: str, field: str) -> int:
    if not 0 <= ms <= MAX_EPOCH_MS:
        raise UsageProblem(f"{where}: {field} {value!r} is outside 1970-01-01 to 9999-12-31")
    return ms


def _first(record: dict, keys: tuple[str, ...]) -> Any:
    return _first_field(record, keys)[1]


def _first_field(record: dict, keys: tuple[str, ...]) -> tuple[str, Any]:
    """(key, value) of the first of `keys` the record fills; (keys[0], None) when none."""
    for key in keys:
        if record.get(key) not in (None, ""):
            return key, record[key]
    return keys[0], None


def _message_text(value: Any, key: str, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multi-part chat content: [{"type": "text", "text": ...}, ...]
        parts = [p.get("text", "") if isinstance(p, dict) else p for p in value]
        if not all(isinstance(p, str) for p in parts):
            raise UsageProblem(f"{where}: {key} holds parts that are not text")
        return "\n".join(p for p in parts if p)
    if value is None:
        return ""
    raise UsageProblem(f"{where}: {key} must be text, not {_json_kind(value)}")


def _json_kind(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return _non_finite(value)
    return {bool: "true/false", int: "a number", float: "a number", dict: "an object", list: "a list",
            str: "text"}.get(type(value), type(value).__name__)


def _non_finite(value: float) -> str:
    """NaN or infinity as JSON writers spell it."""
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _clean_id(value: Any) -> str | None:
    if value in (None, ""):
        return None
    return str(value).replace("/", "-").strip() or None


def _check_finite(value: Any, where: str, name: str) -> None:
    """A NaN or infinite number anywhere in a field (JSON has neither; Python writes them)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageProblem(f"{where}: {name} is {_non_finite(value)}, not a finite number")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, where, f"{name}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_finite(item, where, f"{name}[{index}]")


@dataclass(frozen=True)
class Skipped:
    """A message left out of the plan: where it is ("chat.jsonl line 7") and why. `empty`
    ones had no text, so nothing of them is lost; the others held something that was."""

    where: str
    problem: str
    empty: bool = False
    line: int = 0
    """The line number, where the file has lines (0: it has none)."""

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


@dataclass
class IngestPlan:
    format: str
    items: list[dict[str, Any]]
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return len({item.get("_thread") for item in self.items})

    @property
    def invalid(self) -> list[Skipped]:
        """The skipped messages that had something to store."""
        return [s for s in self.skipped if not s.empty]


class _Empty(Exception):
    """A message with nothing to store. Internal: caught in this module (the message is skipped),
    so it is not under `CogmemError`."""


def messages_to_items(messages: list[Any], source: str, *, line_numbers: list[int] | None = None) -> IngestPlan:
    """Chat messages (JSONL or a JSON list) to encode items, in file order; a message with a
    bad field is skipped, naming its line (or its place in the list) and the field."""
    plan = IngestPlan("jsonl", [])
    previous: int | None = None
    for index, record in enumerate(messages):
        line = line_numbers[index] if line_numbers else 0
        where = f"{source} line {line}" if line else f"{source} message {index + 1}"
        try:
            item = _message_item(record, source, where, previous)
        except _Empty:
            plan.skipped.append(Skipped(where, f"no text (in {', '.join(TEXT_KEYS)})", empty=True, line=line))
            continue
        except UsageProblem as problem:
            plan.skipped.append(Skipped(where, str(problem).removeprefix(f"{where}: "), line=line))
            continue
        item["_where"], item["_line"] = where, line
        plan.items.append(item)
        previous = item["created_at"]
    return plan


def _message_item(record: Any, source: str, where: str, previous: int | None) -> dict[str, Any]:
    """One chat message as an encode item; UsageProblem naming the field that is wrong. A
    message without a time comes 1 ms after the one before it (the first one: now)."""
    if not isinstance(record, dict):
        raise UsageProblem(f"{where}: expected a JSON object with text/content, not {_json_kind(record)}")
    for key in (*TEXT_KEYS, *SPEAKER_KEYS, *TIME_KEYS, *THREAD_KEYS, *ID_KEYS, "metadata"):
        _check_finite(record.get(key), where, key)
    text_key, raw_text = _first_field(record, TEXT_KEYS)
    text = _message_text(raw_text, text_key, where).strip()
    if not text:
        raise _Empty
    speaker = _first(record, SPEAKER_KEYS)
    time_key, raw_time = _first_field(record, TIME_KEYS)
    if raw_time is not None:
        created = parse_time(raw_time, where, time_key)
    elif previous is not None:
        created = previous + 1
    else:
        from cogmem_graph.clock import SystemClock

        created = SystemClock().now_ms()
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
    return {
        "content": f"{speaker}: {text}" if speaker is not None else text,
        "created_at": created,
        "metadata": metadata,
        "source_type": ROLE_SOURCES.get(str(speaker).lower(), "user_statement"),
        "source_id": f"{source}#{thread}" if thread else source,
        "_thread": thread,
    }


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
              "metadata": {"source": source, "chunk": index + 1}, "_thread": None, "_kind": "text",
              "_where": f"{source} chunk {index + 1}"}
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
                              "source_id": f"{source}#{thread}", "_thread": thread,
                              "_where": f"{where} turn {position + 1}"})
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
                lines = element_lines(text, _messages_offset(text))
                return messages_to_items(data["messages"], source,
                                         line_numbers=lines if len(lines) == len(data["messages"]) else None)
            if isinstance(data, list):
                return messages_to_items(data, source, line_numbers=element_lines(text, text.index("[")))
            if isinstance(data, dict) and any(key in data for key in (*TEXT_KEYS, *SPEAKER_KEYS)):
                # one message (a one-line JSONL file too), its text empty or not: said of its line
                return messages_to_items([data], source, line_numbers=[text.count("\n", 0, text.index("{")) + 1])
            raise UsageProblem(f"{path}: JSON that is neither chat messages nor a LoCoMo conversation")
    if fmt is InputFormat.LOCOMO:
        raise UsageProblem(f"{path}: not a LoCoMo conversation JSON file")
    if fmt is InputFormat.JSONL or (fmt is InputFormat.AUTO and stripped.startswith("{")):
        return _jsonl_items(text, path)
    return text_to_items(text, source)


def _jsonl_items(text: str, path: Path) -> IngestPlan:
    """One message per line. A first line that is not JSON means the file is no JSONL at all;
    a later one is skipped like any bad message."""
    records: list[Any] = []
    numbers: list[int] = []
    broken: list[Skipped] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if not records and not broken:
                raise UsageProblem(f"{path} line {number}: not JSON ({exc.msg}); "
                                   "use --format text for a plain text file") from None
            broken.append(Skipped(f"{path.name} line {number}", f"not JSON ({exc.msg} at column {exc.colno})",
                                  line=number))
            continue
        records.append(record)
        numbers.append(number)
    plan = messages_to_items(records, path.name, line_numbers=numbers)
    plan.skipped = sorted([*plan.skipped, *broken], key=lambda skipped: skipped.line)
    return plan


def element_lines(text: str, start: int) -> list[int]:
    """The line each element of the JSON array at `start` begins on (`text` is valid JSON)."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    line, counted = 1, 0
    at = _skip_space(text, start + 1)
    while text[at] != "]":
        line += text.count("\n", counted, at)
        counted = at
        lines.append(line)
        _, at = decoder.raw_decode(text, at)
        at = _skip_space(text, at)
        if text[at] == ",":
            at = _skip_space(text, at + 1)
    return lines


def _skip_space(text: str, at: int) -> int:
    while text[at] in " \t\r\n":
        at += 1
    return at


def _messages_offset(text: str) -> int:
    """Where the value of the top-level object's "messages" key begins (`text` is valid JSON)."""
    decoder = json.JSONDecoder()
    at = _skip_space(text, text.index("{") + 1)
    while True:
        key, at = decoder.raw_decode(text, at)
        at = _skip_space(text, _skip_space(text, at) + 1)  # past the colon
        if key == "messages":
            return at
        _, at = decoder.raw_decode(text, at)
        at = _skip_space(text, _skip_space(text, at) + 1)  # past the comma
