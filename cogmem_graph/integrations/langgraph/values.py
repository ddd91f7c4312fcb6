"""A LangGraph item as a cogmem memory, and back.

The memory's content is the item's text (what its meaning is found by); its metadata, under
one key, keeps the item exact: namespace, key, the value as JSON, the item's times, and a
copy of the value's filterable fields (scalars and lists of them, two levels deep) that
memory filters can match, so a `search(filter=...)` is pushed down to the graph and the
vector index. Every filter is also checked on the value itself with LangGraph's semantics.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeGuard, TypeVar

from langgraph.store.base import Item, SearchItem, get_text_at_path

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.integrations.langgraph.namespaces import labels_of, namespace_path, path_prefixes
from cogmem_graph.model import MAX_METADATA_CHARS, MAX_NAME_CHARS, MemoryTrace

Ordered = TypeVar("Ordered", float, str)

METADATA_KEY = "langgraph"
NAMESPACE_FIELD = f"{METADATA_KEY}.namespace"
PREFIXES_FIELD = f"{METADATA_KEY}.prefixes"
KEY_FIELD = f"{METADATA_KEY}.key"
FIELDS_FIELD = f"{METADATA_KEY}.fields"
UNINDEXED_FIELD = f"{METADATA_KEY}.unindexed"
FIELD_DEPTH = 2
"""Levels of the value copied for filters: metadata nests four objects deep at most, and
two of them are `langgraph` and `fields`."""
MAX_FIELD_KEY_CHARS = 200
TEXT_FIELDS = ("content", "text")
"""Without `index` fields, the first of these that holds text is what the item is found by."""
COMPARISONS = {"$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte"}
OPERATORS = ("$eq", "$ne", *COMPARISONS)


# ---------------------------------------------------------------- writing


def checked_value(value: object) -> dict[str, Any]:
    """The value as a dict of JSON, or a ValueError naming `value`."""
    if not isinstance(value, Mapping):
        raise InvalidArgument(f"value must be a dict, not {type(value).__name__}", argument="value")
    value = dict(value)
    if not all(isinstance(k, str) for k in value):
        raise InvalidArgument("value's keys must be strings", argument="value")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(
            f"value must be JSON (text, finite numbers, true/false, null, lists, objects): {exc}",
            argument="value") from None
    return value


def value_json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def text_to_index(value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """What the item's meaning is found by: the text at `fields` (LangGraph's JSON paths,
    "$" the whole value), joined by lines; without fields, a "content" or "text" field that
    holds text, else the whole value as JSON."""
    if fields is None:
        for name in TEXT_FIELDS:
            text = value.get(name)
            if isinstance(text, str) and text.strip():
                return text
        return value_json(value)
    return "\n".join(_texts_at(value, fields)) or value_json(value)


def has_text_at(value: Mapping[str, Any], fields: Sequence[str] | None) -> bool:
    """Whether the item has text to be found by: always without fields, else at one of them."""
    return fields is None or bool(_texts_at(value, fields))


def _texts_at(value: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    return [text for path in fields for text in get_text_at_path(value, path) if text.strip()]


def _filterable_key(key: object) -> bool:
    return (isinstance(key, str) and 0 < len(key) <= MAX_FIELD_KEY_CHARS and "." not in key
            and "\x00" not in key and not key.startswith("$"))


def _filterable_scalar(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" not in value
    return isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value))


def filterable_fields(value: Mapping[str, Any], depth: int = 1) -> dict[str, Any]:
    """The copy of the value memory filters match: scalars and lists of scalars, nested
    objects down to `FIELD_DEPTH`; what does not fit is left to the check on the value."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not _filterable_key(key):
            continue
        scalars = isinstance(item, list) and bool(item) and all(_filterable_scalar(x) for x in item)
        if scalars or _filterable_scalar(item):
            out[key] = item
        elif isinstance(item, Mapping) and depth < FIELD_DEPTH:
            out[key] = filterable_fields(item, depth + 1)
    return out


def item_metadata(namespace: Sequence[str], key: str, value: Mapping[str, Any], *, created_ms: int,
                  updated_ms: int, indexed: bool = True) -> dict[str, Any]:
    """The memory's metadata for one item; a ValueError naming `value` when it is too large.
    An item put with `index=False` is marked `unindexed` (the flag only, so older items need none)."""
    metadata = {METADATA_KEY: {
        "namespace": namespace_path(namespace), "prefixes": path_prefixes(namespace), "key": key,
        "value": value_json(value), "created_at": created_ms, "updated_at": updated_ms,
        "fields": filterable_fields(value),
    }}
    if not indexed:
        metadata[METADATA_KEY]["unindexed"] = True
    size = len(json.dumps(metadata, ensure_ascii=False))
    if size > MAX_METADATA_CHARS:
        raise InvalidArgument(f"value is too large: with its namespace, key and filterable fields it takes {size:,} "
                              f"characters of JSON, and a memory's metadata holds at most {MAX_METADATA_CHARS:,}",
                              argument="value")
    return metadata


def checked_key(key: object) -> str:
    if not isinstance(key, str) or not key or "\x00" in key or len(key) > MAX_NAME_CHARS:
        raise InvalidArgument(f"key must be a non-empty string of at most {MAX_NAME_CHARS} characters "
                              f"without NUL, got {key!r}", argument="key")
    return key


# ---------------------------------------------------------------- reading


def is_item(trace: MemoryTrace) -> bool:
    kept = trace.metadata.get(METADATA_KEY)
    return isinstance(kept, Mapping) and all(f in kept for f in ("namespace", "key", "value"))


def is_unindexed(trace: MemoryTrace) -> bool:
    return trace.metadata[METADATA_KEY].get("unindexed") is True


def item_key(trace: MemoryTrace) -> tuple[tuple[str, ...], str]:
    kept = trace.metadata[METADATA_KEY]
    return labels_of(kept["namespace"]), kept["key"]


def _time(ms: object, fallback: int) -> datetime:
    at = ms if isinstance(ms, int) and not isinstance(ms, bool) else fallback
    return datetime.fromtimestamp(at / 1000, tz=UTC)


def stored_value(trace: MemoryTrace) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(trace.metadata[METADATA_KEY]["value"])
    return value


def item_of(trace: MemoryTrace) -> Item:
    kept = trace.metadata[METADATA_KEY]
    namespace, key = item_key(trace)
    return Item(value=stored_value(trace), key=key, namespace=namespace,
                created_at=_time(kept.get("created_at"), trace.created_at),
                updated_at=_time(kept.get("updated_at"), trace.recorded_at))


def search_item_of(trace: MemoryTrace, score: float | None = None) -> SearchItem:
    item = item_of(trace)
    return SearchItem(namespace=item.namespace, key=item.key, value=item.value, created_at=item.created_at,
                      updated_at=item.updated_at, score=score)


def created_ms(trace: MemoryTrace) -> int:
    at = trace.metadata[METADATA_KEY].get("created_at")
    return at if isinstance(at, int) and not isinstance(at, bool) else trace.created_at


# ---------------------------------------------------------------- filters


def check_filter(filter: object) -> dict[str, Any]:  # noqa: A002 - LangGraph's name
    """A LangGraph filter: field → value, or field → {"$eq" | "$ne" | "$gt" | "$gte" | "$lt" |
    "$lte": value}, nested objects for nested fields; a ValueError naming `filter` otherwise."""
    if filter is None:
        return {}
    if not isinstance(filter, Mapping):
        raise InvalidArgument(f"filter must be a dict of field → value, not {type(filter).__name__}", argument="filter")
    _check_conditions(filter, "filter")
    return dict(filter)


def _check_conditions(conditions: Mapping[str, Any], where: str) -> None:
    for field, expected in conditions.items():
        if not isinstance(field, str):
            raise InvalidArgument(f"{where}: field names must be strings, got {field!r}", argument=where)
        if isinstance(expected, Mapping):
            operators = [k for k in expected if isinstance(k, str) and k.startswith("$")]
            if operators:
                unknown = sorted(set(expected) - set(OPERATORS))
                if unknown:
                    raise InvalidArgument(f"{where}[{field!r}]: unknown operator(s) {unknown}; use one of {OPERATORS}",
                                          argument=f"{where}[{field!r}]")
            else:
                _check_conditions(expected, f"{where}[{field!r}]")


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: object) -> bool:
    """A number memory filters take: ±inf and NaN are compared on the value only, as Python
    compares them (everything is below inf; NaN equals nothing and no range holds for it)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _compare(actual: object, operator: str, expected: object) -> bool:
    if operator == "$eq":
        return actual == expected
    if operator == "$ne":
        return actual != expected
    if _number(actual) and _number(expected):
        return _ordered(actual, operator, expected)
    if isinstance(actual, str) and isinstance(expected, str):
        return _ordered(actual, operator, expected)
    return False


def _ordered(actual: Ordered, operator: str, expected: Ordered) -> bool:
    """A range operator on two numbers or two texts."""
    if operator == "$gt":
        return actual > expected
    if operator == "$gte":
        return actual >= expected
    if operator == "$lt":
        return actual < expected
    return actual <= expected


def matches(actual: object, expected: object) -> bool:
    """LangGraph's filter semantics on a value: equality, operators, nested objects field by
    field, lists element by element; ranges compare numbers with numbers, text with text."""
    if isinstance(expected, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in expected):
            return all(_compare(actual, op, v) for op, v in expected.items())
        return isinstance(actual, Mapping) and all(matches(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        return (isinstance(actual, list | tuple) and len(actual) == len(expected)
                and all(matches(a, e) for a, e in zip(actual, expected, strict=True)))
    return actual == expected


def _pushed_condition(expected: Any) -> dict[str, Any] | None:
    """A memory-filter condition that keeps at least every value `expected` matches, or None."""
    if isinstance(expected, Mapping):
        bounds = {COMPARISONS[op]: v for op, v in expected.items() if op in COMPARISONS}
        if any(not _finite(v) for v in bounds.values()):
            return None
        if set(expected) - set(COMPARISONS) - {"$eq"}:
            return None  # $ne: checked on the value only
        if "$eq" in expected:
            equal = _pushed_condition(expected["$eq"])
            if equal is None or (bounds and "eq" not in equal):
                return None
            bounds.update(equal)
        return bounds or None
    if _number(expected):
        return {"gte": expected, "lte": expected} if _finite(expected) else None  # 1 and 1.0 are one number
    if isinstance(expected, bool) or (isinstance(expected, str) and _filterable_scalar(expected)
                                      and len(expected) <= MAX_NAME_CHARS):
        return {"eq": expected}
    return None


def pushed_filter(filter: Mapping[str, Any], path: str = FIELDS_FIELD, depth: int = 1  # noqa: A002
                  ) -> tuple[dict[str, Any], bool]:
    """The metadata conditions a memory filter can apply for `filter`, and whether they are
    all of it (else the value check drops more, and a search asks for more candidates)."""
    pushed: dict[str, Any] = {}
    whole = True
    for field, expected in filter.items():
        if not _filterable_key(field) or depth > FIELD_DEPTH:
            whole = False
            continue
        nested = isinstance(expected, Mapping) and not any(isinstance(k, str) and k.startswith("$") for k in expected)
        if nested:
            inner, inner_whole = pushed_filter(expected, f"{path}.{field}", depth + 1)
            pushed.update(inner)
            whole = whole and inner_whole
            continue
        condition = _pushed_condition(expected)
        if condition is None:
            whole = False
        else:
            pushed[f"{path}.{field}"] = condition
    return pushed, whole
