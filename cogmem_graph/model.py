"""Domain model: the MemoryTrace envelope and the vocabulary around it.

Python attributes are snake_case; graph properties are the camelCase aliases
(`trace.to_graph_props()`), the convention Neo4j Browser users expect. Every
number that has a natural range is validated, so a bad value fails at the edge
with an error that names the field instead of corrupting decay maths later.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import uuid
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.metadata_props import metadata_graph_props

# ---------------------------------------------------------------- vocabulary


class MemoryType(StrEnum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"
    RELATIONAL = "relational"


class MemoryCategory(StrEnum):
    """What kind of thing a memory states; decides how long forgetting leaves it alone
    (`RetentionConfig`)."""

    PREFERENCE = "preference"
    CORRECTION = "correction"
    IDENTITY = "identity"
    """Who someone is: name, family, health, home, work, accounts."""
    COMMITMENT = "commitment"
    """Decisions, promises, plans, deadlines."""
    FACT = "fact"
    OTHER = "other"


class Scope(StrEnum):
    """Who may see a memory. `agent` is the agent's own private store."""

    THREAD = "thread"
    USER = "user"
    PERSONA = "persona"
    ORGANIZATION = "organization"
    AGENT = "agent"


class SourceType(StrEnum):
    USER_STATEMENT = "user_statement"
    AGENT_INFERENCE = "agent_inference"
    TOOL_RESULT = "tool_result"
    OBSERVATION = "observation"
    REFLECTION = "reflection"
    EXTERNAL = "external"


class EdgeType(StrEnum):
    """The eight associative edge types. Values are the relationship types in the graph."""

    SHARED_ENTITY = "SHARED_ENTITY"
    TEMPORAL_SEQUENCE = "TEMPORAL_SEQUENCE"
    SAME_TOPIC = "SAME_TOPIC"
    CONTRADICTS = "CONTRADICTS"
    SUPERSEDES = "SUPERSEDES"
    CAUSED_BY = "CAUSED_BY"
    CO_ACTIVATED = "CO_ACTIVATED"
    SCHEMA_INSTANCE = "SCHEMA_INSTANCE"


STRUCTURAL_EDGE_TYPES: frozenset[EdgeType] = frozenset({EdgeType.SHARED_ENTITY, EdgeType.TEMPORAL_SEQUENCE})
"""Edges the write path derives at configured weights; most of a graph's edges. Their
weights never exceed `EdgeDefaults.structural_weight_ceiling`."""


class NodeLabel(StrEnum):
    """Node labels. A trace also carries its type label (Episodic, Semantic, ...)."""

    TRACE = "Trace"
    ENTITY = "Entity"
    SCHEMA = "Schema"
    ARCHIVED_TRACE = "ArchivedTrace"
    PROSPECTIVE = "Prospective"
    OBSERVATION_NOTE = "ObservationNote"
    CONVERSATION_TURN = "ConversationTurn"
    """A turn buffered for the observer until it becomes notes."""
    CONSOLIDATION_STATE = "ConsolidationState"
    """What consolidation remembers about one scope key between runs (the decay sweep's settings)."""
    STORE_VERSION = "StoreVersion"
    """The version of the data layout the graph holds (`cogmem_graph.api.upgrade`)."""


class LinkType(StrEnum):
    """Structural (non-associative) relationship types."""

    MENTIONS = "MENTIONS"


TYPE_LABELS: dict[MemoryType, str] = {t: t.value.capitalize() for t in MemoryType}
"""Second label per memory type so Neo4j Browser colours each kind differently."""


def scope_key(scope: Scope | str, scope_id: str) -> str:
    """The single string every read filters on: `"<scope>:<scope id>"`."""
    return f"{Scope(scope).value}:{scope_id}"


def entity_key(name: str) -> str:
    """Normalised identity of an entity: lower case, single spaces, no edge punctuation."""
    return " ".join(name.lower().replace("’", "'").split()).strip(" .,;:!?'\"")


def content_hash(content: str) -> str:
    """SHA-256 of the content: identical-content detection without embeddings."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def new_trace_id() -> str:
    return "mt_" + uuid.uuid4().hex


# ---------------------------------------------------------------- text hygiene


def check_text(value: str, field: str, *, allow_empty: bool = True, max_len: int | None = None) -> str:
    """Reject text the stores cannot keep verbatim: NUL bytes and lone surrogates
    (not encodable as UTF-8). Everything else, quotes and Cypher included, is data."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{field} must be a string", argument=field)
    if not allow_empty and not value.strip():
        raise InvalidArgument(f"{field} must not be empty", argument=field)
    if "\x00" in value:
        raise InvalidArgument(f"{field} must not contain NUL bytes", argument=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(f"{field} contains characters that are not valid UTF-8 (lone surrogates)",
                              argument=field) from exc
    if max_len is not None and len(value) > max_len:
        raise InvalidArgument(f"{field} is longer than {max_len} characters", argument=field)
    return value


MAX_CONTENT_CHARS = 1_000_000
MAX_ID_CHARS = 256
MAX_SCOPE_ID_CHARS = 3 * MAX_ID_CHARS + 2
"""A qualified scope id joins up to three ids (organization/user/thread) with separators."""
MAX_NAME_CHARS = 1_000
"""One tag or entity name."""
MAX_TAGS = 256
"""Tags per memory."""
MAX_ENTITIES = 256
"""Entity names a caller gives per memory (extraction adds at most a dozen of its own)."""
MAX_METADATA_CHARS = 65_536
"""A memory's `metadata` as JSON."""
MAX_EPOCH_MS = 253_402_300_799_999
"""The last millisecond of year 9999 (UTC): a later time is a mistake, not a date."""


MOMENT_FORMS = "an aware datetime, an ISO-8601 string or epoch milliseconds (an int)"
"""The forms every time argument of the public API takes, as its errors list them."""


def duration_ms(value: int | timedelta | None) -> int | None:
    """A duration argument as the milliseconds an operation takes: a timedelta converted,
    anything else as given, for the operation's model to judge."""
    return int(value.total_seconds() * 1000) if isinstance(value, timedelta) else value


def epoch_ms_of(value: object, field: str) -> int:
    """One moment as epoch ms, from any form a time argument takes (`MOMENT_FORMS`); a
    ValueError naming `field` otherwise. The message describes a bad value without quoting
    it: it reaches models and logs, and the caller still has the value."""
    if isinstance(value, date) and not isinstance(value, datetime):
        value = value.isoformat()  # a day: its midnight, UTC
    if isinstance(value, str):
        text = value.strip()
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidArgument(f"{field} must be {MOMENT_FORMS}; the text given is not ISO-8601 (2026-01-31, "
                                  "2026-01-31T18:00:00+01:00; UTC when it names no zone)", argument=field) from None
        value = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    elif isinstance(value, datetime) and (value.tzinfo is None or value.utcoffset() is None):
        raise InvalidArgument(f"{field} must be {MOMENT_FORMS}; a naive datetime (no tzinfo) is ambiguous: "
                              "give it a zone, e.g. datetime.now(UTC)", argument=field)
    if isinstance(value, datetime):
        try:
            value = int(value.timestamp() * 1000)
        except (OverflowError, ValueError, OSError):
            raise InvalidArgument(f"{field} must be a moment from 1970 to 9999", argument=field) from None
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # 1.7e12 as JSON writers may send it
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "NaN" if isinstance(value, float) and math.isnan(value) else type(value).__name__
        raise InvalidArgument(f"{field} must be {MOMENT_FORMS}, not {kind}", argument=field)
    if not 0 <= value <= MAX_EPOCH_MS:
        raise InvalidArgument(f"{field} must be a moment from 1970-01-01 to 9999-12-31 "
                              f"(epoch ms 0 to {MAX_EPOCH_MS:,})", argument=field)
    return value


def _moment_field(value: object, info: ValidationInfo) -> int | None:
    return None if value is None else epoch_ms_of(value, info.field_name or "time")


Moment = Annotated[int, BeforeValidator(_moment_field), WithJsonSchema({
    "anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_MS}, {"type": "string"}],
    "description": "epoch milliseconds, or an ISO-8601 date or date-time (UTC when it names no zone)"})]
"""A pydantic field type for a moment: every form `epoch_ms_of` takes, stored as epoch ms."""


def check_count(value: object, field: str, limit: int) -> None:
    """Refuse a list longer than `limit` before any of its items is looked at."""
    if isinstance(value, list | tuple) and len(value) > limit:
        raise InvalidArgument(f"{field} holds {len(value):,} items; at most {limit:,} are allowed", argument=field)


class _Strict(BaseModel):
    """Base: camelCase aliases, no NaN/inf, assignment validated, unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        validate_assignment=True,
        allow_inf_nan=False,
        extra="forbid",
        use_enum_values=False,
    )


Unit = Field(ge=0.0, le=1.0)


# ---------------------------------------------------------------- personality and mood


def refuse_unknown_names(data: Any, model: type[BaseModel], synonyms: dict[str, str]) -> Any:
    """Before validation: a field name the model does not know is refused with the name it
    probably meant (a synonym from the literature, or the closest spelling)."""
    if not isinstance(data, dict):
        return data
    known = {name for name in model.model_fields} | {f.alias for f in model.model_fields.values() if f.alias}
    for name in data:
        if isinstance(name, str) and name not in known:
            hint = synonyms.get(name.lower().replace("-", "_")) or next(
                iter(difflib.get_close_matches(name, sorted(model.model_fields), n=1, cutoff=0.6)), None)
            meant = f"; did you mean {hint!r}?" if hint else ""
            raise InvalidArgument(f"{name!r} is not a {model.__name__} field{meant} "
                                  f"(fields: {', '.join(model.model_fields)})", argument=name)
    return data


_HEXACO_SYNONYMS = {
    "honesty_humility": "honesty", "h": "honesty", "neuroticism": "emotionality", "e": "emotionality",
    "extroversion": "extraversion", "x": "extraversion", "a": "agreeableness", "c": "conscientiousness",
    "o": "openness", "openness_to_experience": "openness",
}
_MOOD_SYNONYMS = {"pleasure": "valence", "p": "valence", "v": "valence", "a": "arousal", "d": "dominance",
                  "control": "dominance"}


class Hexaco(_Strict):
    """HEXACO personality traits, each in [0, 1]; 0.5 is the neutral midpoint."""

    @model_validator(mode="before")
    @classmethod
    def _known_names(cls, data: Any) -> Any:
        return refuse_unknown_names(data, cls, _HEXACO_SYNONYMS)

    honesty: float = Field(0.5, ge=0.0, le=1.0)
    emotionality: float = Field(0.5, ge=0.0, le=1.0)
    extraversion: float = Field(0.5, ge=0.0, le=1.0)
    agreeableness: float = Field(0.5, ge=0.0, le=1.0)
    conscientiousness: float = Field(0.5, ge=0.0, le=1.0)
    openness: float = Field(0.5, ge=0.0, le=1.0)

    def dominant(self) -> str:
        """Name of the highest trait (ties: the order above)."""
        values = self.model_dump()
        return max(values, key=lambda k: values[k])


class Mood(_Strict):
    """PAD mood (pleasure/valence, arousal, dominance), each in [-1, 1]."""

    @model_validator(mode="before")
    @classmethod
    def _known_names(cls, data: Any) -> Any:
        return refuse_unknown_names(data, cls, _MOOD_SYNONYMS)

    valence: float = Field(0.0, ge=-1.0, le=1.0)
    arousal: float = Field(0.0, ge=-1.0, le=1.0)
    dominance: float = Field(0.0, ge=-1.0, le=1.0)

    @property
    def arousal01(self) -> float:
        """Arousal mapped to [0, 1], the range the Yerkes-Dodson curve expects."""
        return (self.arousal + 1.0) / 2.0


NEUTRAL_MOOD = Mood()


# ---------------------------------------------------------------- the trace envelope


Metadata = dict[str, Any]
"""A memory's metadata: JSON values (text, numbers, true/false, null, lists of those, and
objects of the same, at most `MAX_METADATA_DEPTH` deep). Filters address nested keys by
dotted path ("billing.tier")."""
MAX_METADATA_DEPTH = 4


def _check_metadata_value(value: Any, where: str, depth: int) -> None:
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument(f"{where} must be a finite number", argument=where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict | list):
                raise InvalidArgument(f"{where}[{i}]: a list holds text, numbers, true/false or null",
                                      argument=f"{where}[{i}]")
            _check_metadata_value(item, f"{where}[{i}]", depth)
    elif isinstance(value, dict):
        if depth >= MAX_METADATA_DEPTH:
            raise InvalidArgument(f"{where}: metadata nests at most {MAX_METADATA_DEPTH} objects deep", argument=where)
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidArgument(f"{where}: keys must be text", argument=where)
            check_text(key, "metadata key", allow_empty=False, max_len=200)
            _check_metadata_value(item, f"{where}[{key!r}]", depth + 1)
    else:
        raise InvalidArgument(f"{where} must be text, a number, true/false, null, a list or an object, "
                              f"not {type(value).__name__}", argument=where)


@functools.cache
def _graph_keys(cls: type[BaseModel]) -> frozenset[str]:
    """Property names a model accepts from the graph (aliases and field names), once per class."""
    return frozenset({f.alias or name for name, f in cls.model_fields.items()} | set(cls.model_fields))


class MemoryTrace(_Strict):
    """One memory. Field groups follow the reference envelope."""

    # identity
    id: str = Field(default_factory=new_trace_id)
    type: MemoryType = MemoryType.EPISODIC
    scope: Scope = Scope.USER
    scope_id: str
    scope_key: str = ""
    agent_id: str
    author: str | None = Field(None, description="the user (organization-qualified id) whose agent wrote it; "
                               "erasing that user deletes it or takes the author off")

    # content
    content: str
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    structured_data: dict[str, Any] | None = None
    metadata: Metadata = Field(default_factory=dict)
    content_hash: str = ""

    # provenance
    source_type: SourceType = SourceType.USER_STATEMENT
    source_id: str | None = None
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    verification_count: int = Field(0, ge=0)
    contradicted_by: list[str] = Field(default_factory=list)

    # emotional context (PAD snapshot at encoding + intensity)
    valence: float = Field(0.0, ge=-1.0, le=1.0)
    arousal: float = Field(0.0, ge=-1.0, le=1.0)
    dominance: float = Field(0.0, ge=-1.0, le=1.0)
    intensity: float = Field(0.0, ge=0.0, le=1.0)

    # decay parameters
    encoding_strength: float = Field(0.5, ge=0.0, le=1.0)
    stability: float = Field(3_600_000.0, gt=0.0, description="decay time constant, ms")
    retrieval_count: int = Field(0, ge=0)
    last_accessed_at: int = Field(0, ge=0)

    # spaced repetition
    reinforcement_interval: int = Field(86_400_000, gt=0, description="ms")
    next_reinforcement_at: int = Field(0, ge=0)

    # graph links (read side; edges are the truth)
    sequence_key: str | None = Field(
        None, description="thread or source this trace continues; TEMPORAL_SEQUENCE chains follow it"
    )
    associated_trace_ids: list[str] = Field(default_factory=list)

    # lifecycle
    created_at: int = Field(0, ge=0, description="event time, epoch ms")
    recorded_at: int = Field(0, ge=0, description="when the memory learned it, epoch ms")
    updated_at: int = Field(0, ge=0)
    consolidated_at: int | None = None
    valid_from: int | None = Field(
        None, ge=0, description="when what it says began to hold, epoch ms (None: created_at)")
    valid_until: int | None = Field(
        None, ge=0, description="when what it says stopped holding, epoch ms (None: it still holds); set by a bound "
        "the statement states (\"until Friday\") or by a newer statement superseding it")
    is_active: bool = True
    """False once deleted (merged away, superseded or pruned under `forgetting="delete"`)."""

    # retention
    category: MemoryCategory = MemoryCategory.OTHER
    pinned: bool = False
    """A truth anchor: never made dormant, merged, gisted or weakened by interference."""
    keyed: bool = False
    """An entry a caller reads back by its own key (a key-value store's item): consolidation
    never merges it into another memory, so the key keeps its memory; others may merge into it."""
    dormant: bool = False
    """Forgotten, not gone: out of the default candidate set, found again by a strong match."""

    # consistency between graph and vectors
    indexed: bool = False

    @field_validator("content")
    @classmethod
    def _content(cls, v: str) -> str:
        return check_text(v, "content", allow_empty=False, max_len=MAX_CONTENT_CHARS)

    @field_validator("agent_id", "id")
    @classmethod
    def _ids(cls, v: str, info: ValidationInfo) -> str:
        return check_text(v, info.field_name or "id", allow_empty=False, max_len=MAX_ID_CHARS)

    @field_validator("scope_id")
    @classmethod
    def _scope_id(cls, v: str) -> str:
        return check_text(v, "scope_id", allow_empty=False, max_len=MAX_SCOPE_ID_CHARS)

    @field_validator("tags", "entities")
    @classmethod
    def _str_list(cls, v: list[str], info: ValidationInfo) -> list[str]:
        for item in v:
            check_text(item, info.field_name or "names", allow_empty=False, max_len=MAX_NAME_CHARS)
        return list(dict.fromkeys(v))  # deduplicated in order, in linear time

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, v: Metadata) -> Metadata:
        _check_metadata_value(v, "metadata", 0)
        return v

    @model_validator(mode="after")
    def _derived(self) -> MemoryTrace:
        # object.__setattr__ avoids re-running validation recursively.
        expected_key = scope_key(self.scope, self.scope_id)
        if self.scope_key and self.scope_key != expected_key:
            raise InvalidArgument(f"scope_key {self.scope_key!r} does not match scope/scope_id ({expected_key!r})",
                                  argument="scope_key")
        object.__setattr__(self, "scope_key", expected_key)
        if not self.content_hash:
            object.__setattr__(self, "content_hash", content_hash(self.content))
        if not self.recorded_at:
            object.__setattr__(self, "recorded_at", self.created_at)
        if not self.last_accessed_at:
            object.__setattr__(self, "last_accessed_at", self.recorded_at)
        if not self.updated_at:
            object.__setattr__(self, "updated_at", self.recorded_at)
        return self

    # ------------------------------------------------------------ graph mapping

    @property
    def type_label(self) -> str:
        return TYPE_LABELS[self.type]

    def to_graph_props(self) -> dict[str, Any]:
        """Flat property map for a graph node: camelCase keys, primitives and
        lists of strings only (maps are stored as JSON strings)."""
        props = self.model_dump(by_alias=True, mode="json", exclude={"associated_trace_ids"})
        props["structuredData"] = self.structured_data_json()
        props["metadata"] = json.dumps(self.metadata, sort_keys=True)
        # Metadata is one JSON string on the node; filters read these derived lists instead.
        props.update(metadata_graph_props(self.metadata))
        props["entityKeys"] = list(dict.fromkeys(entity_key(name) for name in self.entities))
        return props

    def structured_data_json(self) -> str | None:
        """`structuredData` as the graph stores it (a JSON string, or null)."""
        return json.dumps(self.structured_data) if self.structured_data is not None else None

    @classmethod
    def from_graph_props(cls, props: dict[str, Any]) -> MemoryTrace:
        data = dict(props)
        sd = data.get("structuredData")
        data["structuredData"] = json.loads(sd) if isinstance(sd, str) else sd
        md = data.get("metadata")
        data["metadata"] = json.loads(md) if isinstance(md, str) else (md or {})
        for list_field in ("tags", "entities", "contradictedBy"):
            if data.get(list_field) is None:
                data[list_field] = []
        known = _graph_keys(cls)
        return cls.model_validate(
            {k: v for k, v in data.items() if k in known and v is not None or k == "consolidatedAt"})
