"""One filter model for every read that selects memories: list, retrieve, multi-hop,
prompt assembly, forget and export.

A `MemoryFilter` is data. It is pushed down, never applied to a result after its top-k:
`graph_params()` gives the parameters of the Cypher `WHERE` that every filtered graph
statement shares (cypher/memory_filter_*.cypher), `payload_conditions()` gives the
conditions the vector index turns into its payload filter, so a filtered search returns
top-k matching memories whenever that many exist. The scope part only narrows the caller's
visible scope keys: a filter can never widen what a caller sees.

Metadata conditions address a key by its dotted path (`"plan"`, `"billing.tier"`); a value
is an equality, a list is "any of", a dict of `eq` / `in` / `gte` / `gt` / `lte` / `lt` is
an explicit condition. Ranges compare numbers, or ISO-8601 date strings (`"2026-01-31"`)
with string values of the same form.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from cogmem_graph.errors import InvalidArgument, model_from
from cogmem_graph.metadata_props import metadata_pair
from cogmem_graph.model import (
    MAX_NAME_CHARS,
    MemoryType,
    Moment,
    Scope,
    SourceType,
    check_text,
)

MAX_FILTER_VALUES = 256
"""Values one condition may list."""
MAX_METADATA_CONDITIONS = 32
MAX_METADATA_DEPTH = 4
RANGE_OPS = ("gte", "gt", "lte", "lt")


class MemoryState(StrEnum):
    """Where a memory is in its life. `active`: recalled by default. `dormant`: faded, found
    again only by a strong match. `superseded`: replaced by a newer version or a correction
    (kept for history, timeline and as_of). `inactive`: merged into a duplicate or pruned."""

    ACTIVE = "active"
    DORMANT = "dormant"
    SUPERSEDED = "superseded"
    INACTIVE = "inactive"


SUPERSEDED_REASON_PREFIX = "superseded"
"""A trace whose `deactivatedReason` starts with this was replaced by another."""


def state_of(is_active: bool, dormant: bool, deactivated_reason: str | None) -> MemoryState:
    """The state a trace's flags say (the Cypher filter decides it the same way)."""
    if (deactivated_reason or "").startswith(SUPERSEDED_REASON_PREFIX):
        return MemoryState.SUPERSEDED
    if not is_active:
        return MemoryState.INACTIVE
    return MemoryState.DORMANT if dormant else MemoryState.ACTIVE


def _range_bound(value: Any, where: str) -> float | str:
    if isinstance(value, bool) or value is None:
        raise InvalidArgument(f"{where} must be a number or an ISO-8601 date, got {value!r}", argument=where)
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise InvalidArgument(f"{where} must be a finite number", argument=where)
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise InvalidArgument(f"{where} must be a number or an ISO-8601 date such as '2026-01-31', "
                                  f"got {value!r}", argument=where) from None
        return value
    raise InvalidArgument(f"{where} must be a number or an ISO-8601 date, got {type(value).__name__}", argument=where)


def _match_value(value: Any, where: str) -> str | int | float | bool:
    if isinstance(value, str):
        return check_text(value, where, max_len=MAX_NAME_CHARS)
    if isinstance(value, bool | int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise InvalidArgument(f"{where} must be a string, a number or true/false, got {value!r}", argument=where)


@dataclass(frozen=True)
class MetadataCondition:
    """One metadata key: any of `values` (equality / in), and/or a range."""

    key: str
    values: tuple[Any, ...] | None = None
    gte: float | str | None = None
    gt: float | str | None = None
    lte: float | str | None = None
    lt: float | str | None = None

    @property
    def bounds(self) -> dict[str, float | str]:
        return {op: getattr(self, op) for op in RANGE_OPS if getattr(self, op) is not None}

    @property
    def text_range(self) -> bool:
        return any(isinstance(v, str) for v in self.bounds.values())


def metadata_condition(key: str, spec: Any) -> MetadataCondition:
    where = f"where.metadata[{key!r}]"
    check_text(key, "where.metadata key", allow_empty=False, max_len=200)
    if isinstance(spec, Mapping):
        unknown = sorted(set(spec) - {"eq", "in", *RANGE_OPS})
        if unknown or not spec:
            raise InvalidArgument(f"{where}: a condition is a value, a list of values, or a dict of "
                                  f"eq / in / gte / gt / lte / lt; got {sorted(spec) or 'an empty dict'}",
                                  argument=where)
        values: list[Any] | None = None
        if "eq" in spec:
            values = [_match_value(spec["eq"], f"{where}.eq")]
        if "in" in spec:
            listed = spec["in"]
            if not isinstance(listed, list | tuple) or not listed or len(listed) > MAX_FILTER_VALUES:
                raise InvalidArgument(f"{where}.in must be a list of 1 to {MAX_FILTER_VALUES} values",
                                      argument=f"{where}.in")
            values = (values or []) + [_match_value(v, f"{where}.in[{i}]") for i, v in enumerate(listed)]
        bounds = {op: _range_bound(spec[op], f"{where}.{op}") for op in RANGE_OPS if op in spec}
        kinds = {isinstance(v, str) for v in bounds.values()}
        if len(kinds) > 1:
            raise InvalidArgument(f"{where}: a range compares numbers or dates, not both", argument=where)
        return MetadataCondition(key, tuple(values) if values is not None else None, **bounds)
    if isinstance(spec, list | tuple):
        if not spec or len(spec) > MAX_FILTER_VALUES:
            raise InvalidArgument(f"{where} must list 1 to {MAX_FILTER_VALUES} values", argument=where)
        return MetadataCondition(key, tuple(_match_value(v, f"{where}[{i}]") for i, v in enumerate(spec)))
    return MetadataCondition(key, (_match_value(spec, where),))


# ---------------------------------------------------------------- the filter


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str | StrEnum) else value


class MemoryFilter(BaseModel):
    """Which memories a call considers. Every field is optional; given fields all hold
    (AND), the values listed for one field are alternatives (OR), except `tags_all`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: list[MemoryType] | None = Field(None, description="memory types, any of")
    scope: list[Scope] | None = Field(None, description="scopes, any of (within what the caller sees)")
    tags_any: list[str] | None = Field(None, description="at least one of these tags")
    tags_all: list[str] | None = Field(None, description="every one of these tags")
    metadata: dict[str, Any] | None = Field(
        None, description="dotted key → value, list of values, or {eq, in, gte, gt, lte, lt}")
    source_type: list[SourceType] | None = Field(None, description="where the memory came from, any of")
    state: list[MemoryState] | None = Field(None, description="active, dormant, superseded, inactive; any of")
    created_after: Moment | None = Field(None, description="event time at or after")
    created_before: Moment | None = Field(None, description="event time before")
    valid_after: Moment | None = Field(None, description="held true at some moment at or after")
    valid_before: Moment | None = Field(None, description="held true at some moment before")
    entity: list[str] | None = Field(None, description="mentions one of these entities (names)")

    @field_validator("type", "scope", "source_type", "state", "tags_any", "tags_all", "entity", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        return _as_list(value)

    @field_validator("tags_any", "tags_all", "entity")
    @classmethod
    def _names(cls, value: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is None:
            return None
        field = info.field_name or "names"  # always set: the validator names its fields
        if not value or len(value) > MAX_FILTER_VALUES:
            raise InvalidArgument(f"list 1 to {MAX_FILTER_VALUES} names", argument=field)
        for item in value:
            check_text(item, field, allow_empty=False, max_len=MAX_NAME_CHARS)
        return value

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        if len(value) > MAX_METADATA_CONDITIONS:
            raise InvalidArgument(f"at most {MAX_METADATA_CONDITIONS} metadata conditions", argument="metadata")
        for key, spec in value.items():
            metadata_condition(key, spec)
        return value

    @model_validator(mode="after")
    def _windows(self) -> MemoryFilter:
        for low, high in (("created_after", "created_before"), ("valid_after", "valid_before")):
            a, b = getattr(self, low), getattr(self, high)
            if a is not None and b is not None and a >= b:
                raise InvalidArgument(f"{low} ({a}) must be before {high} ({b})", argument=low)
        return self

    # ------------------------------------------------------------ reading it

    @property
    def is_empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())

    def metadata_conditions(self) -> list[MetadataCondition]:
        return [metadata_condition(k, v) for k, v in (self.metadata or {}).items()]

    def narrow_scope_keys(self, visible: Sequence[str]) -> list[str]:
        """The visible scope keys this filter keeps (its `scope` part)."""
        if not self.scope:
            return list(visible)
        prefixes = tuple(f"{s.value}:" for s in self.scope)
        return [k for k in visible if k.startswith(prefixes)]

    def graph_params(self, entity_keys: Iterable[str] | None = None) -> dict[str, Any]:
        """The parameters of the shared Cypher filter (cypher/memory_filter_*.cypher).
        `entity_keys`: the `entity` names as keys (the cognitive core normalises them)."""
        conditions = self.metadata_conditions()
        return {
            "fTypes": [t.value for t in self.type] if self.type else None,
            "fTagsAny": self.tags_any,
            "fTagsAll": self.tags_all,
            "fSourceTypes": [s.value for s in self.source_type] if self.source_type else None,
            "fStates": [s.value for s in self.state] if self.state else None,
            "fCreatedFrom": self.created_after,
            "fCreatedTo": self.created_before,
            "fValidFrom": self.valid_after,
            "fValidTo": self.valid_before,
            "fEntityKeys": list(entity_keys) if entity_keys is not None else None,
            "fMetaIn": [[metadata_pair(c.key, v) for v in c.values] for c in conditions if c.values is not None],
            "fMetaNum": [{"key": c.key, **{op: c.bounds.get(op) for op in RANGE_OPS}}
                         for c in conditions if c.bounds and not c.text_range],
            "fMetaText": [{"key": c.key, **{op: c.bounds.get(op) for op in RANGE_OPS}}
                          for c in conditions if c.bounds and c.text_range],
            "fSupersededPrefix": SUPERSEDED_REASON_PREFIX,
        }


NO_FILTER_PARAMS: dict[str, Any] = MemoryFilter().graph_params()
"""The shared filter's parameters when nothing is filtered."""


def as_filter(where: MemoryFilter | Mapping[str, Any] | None, argument: str = "where") -> MemoryFilter | None:
    """`where` as a `MemoryFilter` (None stays None), with a ValueError naming `argument`."""
    if where is None or isinstance(where, MemoryFilter):
        return where
    if not isinstance(where, Mapping):
        raise InvalidArgument(f"{argument} must be a MemoryFilter or a dict of its fields, not {type(where).__name__}",
                              argument=argument)
    return model_from(MemoryFilter, where, f"{argument} is not a valid filter", f"{argument}.", argument=argument)


# ---------------------------------------------------------------- the vector side


@dataclass(frozen=True)
class PayloadCondition:
    """One condition of a vector payload filter, in no engine's vocabulary: `any` (the
    field holds one of `values`), or `range` (bounds on a number or an ISO date)."""

    key: str
    kind: str  # "any" | "range"
    values: tuple[Any, ...] = ()
    bounds: tuple[tuple[str, float | str], ...] = ()


PAYLOAD_TAGS = "tags"
PAYLOAD_SOURCE_TYPE = "source_type"
PAYLOAD_TYPE = "type"
PAYLOAD_CREATED_AT = "created_at"
PAYLOAD_VALID_FROM = "valid_from"
PAYLOAD_VALID_UNTIL = "valid_until"
PAYLOAD_ENTITIES = "entity_keys"
PAYLOAD_METADATA = "metadata"
FOREVER_MS = 253_402_300_799_999
"""The valid-until a point carries while what it says still holds (so a range can test it)."""


def payload_conditions(f: MemoryFilter, entity_keys: Iterable[str] | None = None) -> list[PayloadCondition]:
    """The filter as vector payload conditions (all must hold). State is not among them:
    the vector index holds active memories only, and dormancy is decided on the graph."""
    out: list[PayloadCondition] = []
    if f.type:
        out.append(PayloadCondition(PAYLOAD_TYPE, "any", tuple(t.value for t in f.type)))
    if f.tags_any:
        out.append(PayloadCondition(PAYLOAD_TAGS, "any", tuple(f.tags_any)))
    for tag in f.tags_all or ():
        out.append(PayloadCondition(PAYLOAD_TAGS, "any", (tag,)))
    if f.source_type:
        out.append(PayloadCondition(PAYLOAD_SOURCE_TYPE, "any", tuple(s.value for s in f.source_type)))
    created = tuple((op, float(v)) for op, v in (("gte", f.created_after), ("lt", f.created_before)) if v is not None)
    if created:
        out.append(PayloadCondition(PAYLOAD_CREATED_AT, "range", bounds=created))
    if f.valid_before is not None:
        out.append(PayloadCondition(PAYLOAD_VALID_FROM, "range", bounds=(("lt", float(f.valid_before)),)))
    if f.valid_after is not None:
        out.append(PayloadCondition(PAYLOAD_VALID_UNTIL, "range", bounds=(("gt", float(f.valid_after)),)))
    if entity_keys is not None:
        out.append(PayloadCondition(PAYLOAD_ENTITIES, "any", tuple(entity_keys)))
    for c in f.metadata_conditions():
        key = f"{PAYLOAD_METADATA}.{c.key}"
        if c.values is not None:
            out.append(PayloadCondition(key, "any", c.values))
        if c.bounds:
            out.append(PayloadCondition(key, "range", bounds=tuple(c.bounds.items())))
    return out
