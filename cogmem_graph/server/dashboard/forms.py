"""The memories page's query string as a `MemoryFilter` dict: each problem is a ValueError
naming its field, as the REST routes name theirs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from cogmem_graph.errors import InvalidArgument

MAX_FIELD_CHARS = 2000
DAY_MS = 86_400_000


def first(form: Mapping[str, list[str]], name: str) -> str:
    value = (form.get(name) or [""])[0].strip()
    if len(value) > MAX_FIELD_CHARS:
        raise InvalidArgument(f"{name}: at most {MAX_FIELD_CHARS} characters", argument=name)
    return value


def _day_ms(form: Mapping[str, list[str]], name: str) -> int | None:
    text = first(form, name)
    if not text:
        return None
    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidArgument(f"{name}: a date as YYYY-MM-DD, not {text[:40]!r}", argument=name) from None
    return int(day.timestamp() * 1000)


def where_of(form: Mapping[str, list[str]]) -> dict[str, Any] | None:
    """The filter the form asks for (None: every memory the key sees). The service validates
    the values against `MemoryFilter` (a bad type or state is a 400 naming its field)."""
    where: dict[str, Any] = {}
    for name in ("type", "scope", "state"):
        values = [v for v in form.get(name, []) if v]
        if values:
            where[name] = values
    tags = [t.strip() for t in first(form, "tags").split(",") if t.strip()]
    if tags:
        where["tags_any"] = tags
    pairs = [p.strip() for p in first(form, "metadata").split(",") if p.strip()]
    if pairs:
        metadata: dict[str, str] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise InvalidArgument(f"metadata: write key=value (comma separated), not {pair[:40]!r}",
                                      argument="metadata")
            metadata[key.strip()] = value.strip()
        where["metadata"] = metadata
    for name in ("created_after", "created_before"):
        moment = _day_ms(form, name)
        if moment is not None:
            where[name] = moment
    return where or None


def as_of_ms(form: Mapping[str, list[str]]) -> int | None:
    """The last moment of the `as_of` day (epoch ms), or None."""
    day = _day_ms(form, "as_of")
    return None if day is None else day + DAY_MS - 1


def listing_where(form: Mapping[str, list[str]]) -> dict[str, Any] | None:
    """`where_of` for the list; with `as_of`, only what held true at that moment and had
    happened by then (valid across it, event time before its end)."""
    where = where_of(form) or {}
    moment = as_of_ms(form)
    if moment is not None:
        where["valid_after"] = moment
        where["valid_before"] = moment + 1
        where["created_before"] = min(where.get("created_before", moment + 1), moment + 1)
    return where or None


def timeline(form: Mapping[str, list[str]]) -> bool:
    return first(form, "view") == "timeline"
