"""The `GraphStore` port: what the rest of the library may ask of a graph database.

Two adapters implement it (Neo4j and FalkorDB) by running the same named Cypher
statements. Every read takes the caller's visible scope keys; nothing here keeps
per-tenant state, so one store object can serve every agent safely.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from cogmem_graph.config.graph import ActivationConfig
from cogmem_graph.model import EdgeType, MemoryTrace


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    weight: float
    type: EdgeType | None = None


@dataclass(frozen=True)
class Mention:
    """A trace naming an entity: the name as this trace spells it, and what kind of name it
    is, kept on the MENTIONS link (the Entity node is only the shared key)."""

    trace_id: str
    key: str
    name: str
    kind: str = "thing"
    created_at: int | None = None
    """When the link was made (None: now); an import keeps the saved time."""


@dataclass(frozen=True)
class TraceVitals:
    """The part of an active, indexed trace that ranking reads: a retrieval ranks ~100
    candidates and returns ten, so it loads whole traces only for what it returns."""

    id: str
    encoding_strength: float
    stability: float
    last_accessed_at: int
    valence: float
    confidence: float
    created_at: int
    entities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    is_active: bool = True
    dormant: bool = False
    category: str = "other"
    pinned: bool = False
    recorded_at: int | None = None
    valid_from: int | None = None
    """When what it says began to hold (None: created_at)."""
    valid_until: int | None = None
    """When what it says stopped holding (None: it still holds)."""


@dataclass(frozen=True)
class NeighbourState:
    """What the write path reads of an existing trace close to a new one: enough to judge
    interference (its current strength) and contradiction (its text). A batch of 500 new
    memories meets ~700 neighbours, and loading them whole cost more than the checks."""

    id: str
    content: str
    is_active: bool
    encoding_strength: float
    stability: float
    last_accessed_at: int


@dataclass(frozen=True)
class Activation:
    trace_id: str
    activation: float
    vitals: TraceVitals | None = None
    """The reached trace's ranking fields; None when it is not indexed (not yet searchable)."""


@dataclass(frozen=True)
class LexicalHit:
    trace_id: str
    score: float


@dataclass(frozen=True, slots=True)
class FulltextSearch:
    """One of several full-text searches sent together (`GraphStore.fulltext_search_many`)."""

    text: str
    scope_keys: Sequence[str]
    every_word_of: Sequence[str] = ()


@dataclass(frozen=True)
class AccessUpdate:
    """New spaced-repetition values for a retrieved trace (computed by the cognitive core)."""

    trace_id: str
    last_accessed_at: int
    stability: float
    reinforcement_interval: int
    next_reinforcement_at: int
    encoding_strength: float | None = None


@dataclass
class Subgraph:
    traces: list[dict] = field(default_factory=list)
    entities: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)


@dataclass
class GraphStats:
    traces_by_type: dict[str, int] = field(default_factory=dict)
    active_traces: int = 0
    inactive_traces: int = 0
    dormant_traces: int = 0
    """Active traces that forgetting made dormant (counted among the active ones)."""
    unindexed_traces: int = 0
    edges_by_type: dict[str, int] = field(default_factory=dict)
    entities: int = 0

    @property
    def total_traces(self) -> int:
        return self.active_traces + self.inactive_traces


@runtime_checkable
class GraphStore(Protocol):
    dialect: str
    url: str

    def setup_schema(self) -> None: ...
    # Whether the server answers now, within a couple of seconds and without retries (a readiness
    # probe): returns, or raises GraphStoreUnavailable naming the (redacted) URL. A store that runs
    # its own server (embedded FalkorDB) starts it again when it finds it dead, without waiting.
    def ping(self) -> None: ...
    def upsert_traces(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> int: ...
    def upsert_traces_later(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> Callable[[], int]: ...
    def get_traces(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryTrace]: ...
    def trace_vitals(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[TraceVitals]: ...
    def set_pinned(self, ids: Sequence[str], pinned: bool, scope_keys: Sequence[str]) -> list[str]: ...
    def neighbour_states(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[NeighbourState]: ...
    def list_traces(
        self, scope_keys: Sequence[str], *, include_inactive: bool = False, skip: int = 0, limit: int = 100
    ) -> list[MemoryTrace]: ...
    def soft_delete(self, ids: Sequence[str], scope_keys: Sequence[str], reason: str) -> list[str]: ...
    def set_indexed(self, ids: Sequence[str], indexed: bool = True) -> int: ...
    def unindexed_traces(self, limit: int = 1000) -> list[MemoryTrace]: ...
    def merge_mentions(self, mentions: Sequence[Mention]) -> int: ...
    def merge_edges(self, edge_type: EdgeType, edges: Sequence[Edge]) -> int: ...
    def get_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[Edge]: ...
    def derive_shared_entity_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int: ...
    def derive_temporal_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int: ...
    def derive_structural_edges(self, ids: Sequence[str], scope_keys: Sequence[str], *,
                                caused_by_predecessor: Collection[str] = ()) -> int: ...
    def spread_activation(
        self, seed_ids: Sequence[str], scope_keys: Sequence[str], config: ActivationConfig | None = None,
        seed_activation: dict[str, float] | None = None,
    ) -> list[Activation]: ...
    def hebbian_update(
        self, co_retrieved: Sequence[Sequence[str]], scope_keys: Sequence[str]
    ) -> dict[tuple[str, str], float]: ...
    def record_access(self, updates: Sequence[AccessUpdate], scope_keys: Sequence[str]) -> dict[str, int]: ...
    def set_strengths(self, strengths: dict[str, float], scope_keys: Sequence[str]) -> int: ...
    def trace_index_state(self, ids: Sequence[str]) -> dict[str, bool]: ...
    def indexed_trace_ids(self) -> set[str]: ...
    def count_searchable_traces(self) -> int: ...
    def scope_key_counts(self) -> dict[str, int]: ...
    def known_entity_keys(self, keys: Sequence[str], scope_keys: Sequence[str]) -> set[str]: ...
    def write_mechanism_state(self, rows: Sequence[dict[str, Any]], scope_keys: Sequence[str]) -> int: ...
    def after_retrieval(
        self, updates: Sequence[AccessUpdate], co_retrieved: Sequence[str], changes: Sequence[dict[str, Any]],
        scope_keys: Sequence[str], *, wait: bool = True,
    ) -> None: ...
    def confirm_writes(self) -> None: ...
    # A named statement of `cypher/`, values only as parameters (the pipeline's own queries).
    def run(self, name: str, params: dict[str, Any] | None = None, *, write: bool = False) -> list[dict[str, Any]]: ...
    def read_later(self, name: str, params: dict[str, Any] | None = None) -> Callable[[], list[dict[str, Any]]]: ...
    def get_traces_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[MemoryTrace]]: ...
    def trace_vitals_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[TraceVitals]]: ...
    # Id -> content of the traces among `ids` the caller may see (no whole trace is built).
    def trace_texts(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, str]: ...
    # Traces matching any word of `text`, or every word of one of `every_word_of`, best first.
    def fulltext_search(self, text: str, scope_keys: Sequence[str], limit: int = 50, *,
                        every_word_of: Sequence[str] = ()) -> list[LexicalHit]: ...
    # Several such searches in one statement, each at most `limit` hits: one list per search, in order.
    def fulltext_search_many(self, searches: Sequence[FulltextSearch], limit: int) -> list[list[LexicalHit]]: ...
    def subgraph(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Subgraph: ...
    def stats(self, scope_keys: Sequence[str] | None = None) -> GraphStats: ...
    # Governance: list, edit, forget and erase what the memory holds (api/governance.py).
    def filter_page(self, scope_keys: Sequence[str], filter_params: dict[str, Any], *,
                    after: tuple[int, str] | None, newest_first: bool, limit: int) -> list[tuple[dict, str]]: ...
    def filter_ids(self, ids: Sequence[str], scope_keys: Sequence[str], filter_params: dict[str, Any]) -> set[str]: ...
    def memories(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[dict[str, Any]]: ...
    def update_fields(self, trace_id: str, scope_keys: Sequence[str], fields: dict[str, Any], *,
                      by: str) -> dict[str, Any] | None: ...
    def retype(self, trace_id: str, memory_type: str) -> None: ...
    def supersede_by_update(self, old_id: str, new_id: str, scope_keys: Sequence[str], *, by: str,
                            reason: str, weight: float) -> bool: ...
    def versions(self, trace_id: str, scope_keys: Sequence[str]) -> list[dict[str, Any]]: ...
    def schema_page(self, scope_keys: Sequence[str], *, limit: int, members: int) -> list[dict[str, Any]]: ...
    def resolved_contradictions(self, scope_keys: Sequence[str], reason: str, *, limit: int) -> list[dict[str, Any]]: ...
    def open_contradictions(self, scope_keys: Sequence[str], *, limit: int) -> list[dict[str, Any]]: ...
    def forget_expand(self, ids: Sequence[str], scope_keys: Sequence[str],
                      same_memory: Sequence[str]) -> list[dict[str, Any]]: ...
    def hard_delete(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, int]: ...
    def user_scope_keys(self, user_key: str, thread_prefix: str) -> list[str]: ...
    def trace_ids_in_scopes(self, scope_keys: Sequence[str], limit: int) -> list[str]: ...
    def delete_scope_leftovers(self, scope_keys: Sequence[str]) -> int: ...
    def authored_elsewhere(self, author: str, user_scope_keys: Sequence[str], limit: int) -> list[tuple[str, str]]: ...
    def remove_author(self, ids: Sequence[str], author: str) -> int: ...
    def clear(self) -> None: ...
    # Leave what was deleted in no file the store keeps (where the adapter can): a dict of
    # what it did, or a note saying why it cannot (a remote server's disk).
    def compact_storage(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
