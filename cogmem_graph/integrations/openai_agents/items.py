"""The text of the SDK's input items (Responses API format), where an item is a message:
`{"role": "user", "content": "..."}`, or content parts (`input_text`, `output_text`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TEXT_PARTS = ("input_text", "output_text")


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def turn_of(item: Any) -> tuple[str, str] | None:
    """(role, text) of a message item; None for the rest (tool calls, their outputs, reasoning)."""
    if _get(item, "type") not in (None, "message"):
        return None
    role, content = _get(item, "role"), _get(item, "content")
    if not isinstance(role, str):
        return None
    if isinstance(content, str):
        return role, content
    if isinstance(content, list):
        parts = [_get(part, "text") for part in content if _get(part, "type") in TEXT_PARTS]
        return role, "\n".join(text for text in parts if isinstance(text, str))
    return None


def turns_of(items: Iterable[Any]) -> list[tuple[str, str]]:
    return [turn for turn in map(turn_of, items) if turn is not None]


def latest_user_text(items: Iterable[Any]) -> str:
    """What the user said last: the question the memory answers."""
    for role, text in reversed(turns_of(items)):
        if role == "user" and text.strip():
            return text.strip()
    return ""
