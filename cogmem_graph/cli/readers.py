"""Reading the files `cogmem ingest` accepts into encode requests: chat logs
(JSONL or a JSON list), plain text, and LoCoMo conversation JSON.

Kept apart from the commands because it is pure parsing, with no store and no
console: each reader turns a file's content into an `IngestPlan`, or raises
`UsageProblem` naming the file and line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from cogmem_graph.cli.common import UsageProblem


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
