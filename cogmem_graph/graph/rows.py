"""The rows `GraphStore` methods answer, as the named statements of `cypher/` return them.

A TypedDict's keys are the statement's RETURN columns (camelCase, as Cypher names them), so
a caller reads a row by key at no cost; nothing checks them at runtime. A property map (a
node's `properties(...)`) is a plain dict: it holds whatever the node stores, and callers
read it into a model (`MemoryTrace.from_graph_props`, `Intention`) that validates it.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

# ---------------------------------------------------------------- property maps

TraceProps = dict[str, Any]
"""A trace node's stored properties, as `MemoryTrace.to_graph_props` writes them."""
NoteProps = dict[str, Any]
"""An `ObservationNote` node's properties (`observation_notes_list`, `observation_notes_claim`)."""
IntentionProps = dict[str, Any]
"""A `Prospective` node's properties (`prospective_list` projects the intention's fields,
`prospective_due` returns them all); `cognition/prospective.py` reads them into an `Intention`."""
ArchivedProps = dict[str, Any]
"""An `ArchivedTrace` node's properties: traceId, verbatim, contentHash, reason, scopeKey, the
trace's createdAt, tags, entities and affect, and the archive's access log (`archive_get`)."""
ConsolidationStateProps = dict[str, Any]
"""What consolidation remembered about one scope key at its last run (`consolidation_state_get`)."""
ExportRow = dict[str, Any]
"""One row of an export page: one column by section, named as `portable.py` reads it (`trace`,
`entity`, `schema`, `archived`, `prospective`, `note`, `turn`: the node's properties), or
{id, mentions} / {id, edges} for the links of one trace (`export_*.cypher`)."""


# ---------------------------------------------------------------- traces


class SubgraphEntity(TypedDict):
    """An entity a trace of a subgraph mentions: the first spelling and kind the visible
    mentions give it, and when one of them first mentioned it (absent on older links)."""

    key: str
    name: str
    kind: str
    createdAt: NotRequired[int]


class SubgraphEdge(TypedDict):
    """A link of a subgraph (`subgraph`): between traces, or a trace's MENTIONS of an entity
    (then `dst` is the entity's key)."""

    src: str
    dst: str
    type: str
    weight: float | None


# ---------------------------------------------------------------- governance


class MemoryRow(TypedDict):
    """A memory as governance reads it (`memory_get`)."""

    trace: TraceProps
    archived: bool
    """Whether an archived original of it exists."""
    supersededBy: list[str]
    """The visible traces that SUPERSEDE it."""


class ForgetTarget(TypedDict):
    """A visible trace to forget (`forget_expand`), with the traces that are the same memory."""

    id: str
    pinned: bool
    related: list[str]


class SchemaMember(TypedDict):
    id: str
    content: str


class SchemaPageRow(TypedDict):
    """A schema of the consolidation report (`consolidation_schemas_page`), newest first."""

    id: str
    summary: str | None
    size: int | None
    createdAt: int | None
    members: list[SchemaMember]


class ResolvedContradiction(TypedDict):
    """A contradiction consolidation settled (`consolidation_resolved`): the winner SUPERSEDES
    the loser since `at`."""

    winner: str
    winnerContent: str
    winnerCreatedAt: int | None
    winnerConfidence: float | None
    loser: str
    loserContent: str
    loserCreatedAt: int | None
    loserConfidence: float | None
    at: int | None


class ContradictionRow(TypedDict):
    """A CONTRADICTS pair not settled yet (`consolidation_contradictions`): each side's id, event
    and record time, confidence, agent and pinned flag."""

    a: str
    b: str
    aCreatedAt: int | None
    bCreatedAt: int | None
    aRecordedAt: int | None
    bRecordedAt: int | None
    aConfidence: float | None
    bConfidence: float | None
    aAgent: str
    bAgent: str
    aPinned: bool
    bPinned: bool


class OpenContradiction(ContradictionRow):
    """A `ContradictionRow` with both sides' text (None: the caller cannot see that side)."""

    aContent: str | None
    bContent: str | None


# ---------------------------------------------------------------- consolidation


class SchemaRow(TypedDict):
    """A schema with its member ids (`consolidation_list_schemas`)."""

    id: str
    summary: str | None
    scopeKey: str
    size: int | None
    algorithm: str | None
    members: list[str]
    weight: float | None
    """The weakest SCHEMA_INSTANCE link of its visible members."""


# ---------------------------------------------------------------- multi-hop


class EntityStep(TypedDict):
    """An entity one hop of the multi-hop walk reaches from its frontier traces
    (`multihop_trace_entities`): the activation they carry to it, the strongest of them
    (`fromId`), how many visible traces mention it (`fan`) and the share it passes on."""

    key: str
    name: str | None
    activation: float
    fromId: str
    fan: int
    share: float
