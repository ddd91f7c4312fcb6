"""The `GraphStore` port: what the rest of the library may ask of a graph database.

Two adapters implement it (Neo4j and FalkorDB) by running the same named Cypher
statements. Every read takes the caller's visible scope keys; nothing here keeps
per-tenant state, so one store object can serve every agent safely. What a method answers is
a dataclass here or a row of `graph/rows.py` (a TypedDict of the statement's RETURN columns).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from cogmem_graph.config.graph import ActivationConfig
from cogmem_graph.graph.rows import (
    ArchivedProps,
    ConsolidationStateProps,
    ContradictionRow,
    EntityStep,
    ExportRow,
    ForgetTarget,
    IntentionProps,
    MemoryRow,
    NoteProps,
    OpenContradiction,
    ResolvedContradiction,
    SchemaPageRow,
    SchemaRow,
    SubgraphEdge,
    SubgraphEntity,
    TraceProps,
)
from cogmem_graph.model import EdgeType, MemoryTrace, MemoryType

T = TypeVar("T")
Later = Callable[[], T]
"""A read sent now whose result is taken by calling it (it raises what the read raised). The
engine answers several such reads at once (FalkorDB pipelines them), so a caller sends all
it needs before it waits for any."""


@dataclass(frozen=True)
class GistState:
    """What remains of a trace when its archived original is asked for (`archive_trace_state`)."""

    content: str
    gisted_at: int | None


@dataclass(frozen=True)
class CueEmbedding:
    """A context trigger's cue vector, packed as one property, and the embedder that made it."""

    intention_id: str
    packed: str
    model: str


@dataclass(frozen=True)
class Firing:
    """An intention that fired: its state after firing, recorded only if nobody fired it first
    (`expected_fired_count` is the count this caller read)."""

    intention_id: str
    expected_fired_count: int
    next_fire_at: int | None
    active: bool


@dataclass(frozen=True)
class ClaimedTurn:
    """A buffered conversation turn claimed by one observer run."""

    id: str
    role: str
    content: str
    created_at: int | None
    tokens: int | None


@dataclass(frozen=True)
class Resolution:
    """A settled contradiction: the winner SUPERSEDES the loser."""

    winner: str
    loser: str


@dataclass(frozen=True)
class CausalNeighbour:
    """A trace `steps` CAUSED_BY hops (either way) from a seed."""

    seed: str
    trace_id: str
    steps: int


@dataclass(frozen=True)
class SequenceStart:
    """The first trace of a batch in its sequence (thread or source): its predecessor is stored."""

    trace_id: str
    sequence_key: str
    scope_key: str
    at: int


@dataclass(frozen=True)
class SchemaCentroid:
    id: str
    scope_key: str
    centroid: list[float]


@dataclass(frozen=True)
class NewSchema:
    """A community becoming a schema node, its members linked SCHEMA_INSTANCE."""

    id: str
    summary: str
    size: int
    algorithm: str
    members: list[str]
    centroid: list[float]
    centroid_model: str


@dataclass(frozen=True)
class CommunitySchema:
    """A schema as the multi-hop walk reads it: summary, members, centroid."""

    id: str
    summary: str | None
    scope_key: str
    members: tuple[str, ...]
    centroid: list[float] | None
    centroid_model: str | None


@dataclass(frozen=True)
class EntityFan:
    """An entity key the caller's memories mention: the name they spell it with, and how many
    of them mention it."""

    key: str
    name: str | None
    fan: int


@dataclass(frozen=True)
class ReplayCandidate:
    """A recent trace and which structural edges it still lacks."""

    id: str
    unchained: bool
    unlinked: bool


@dataclass(frozen=True)
class GistRewrite:
    """New properties for a trace, applied only while its content hash is still `expected_hash`."""

    trace_id: str
    expected_hash: str
    props: dict[str, Any]


@dataclass(frozen=True)
class EntityReach:
    """A trace reached in one hop of the multi-hop walk, through an entity it mentions."""

    trace_id: str
    activation: float
    entity_key: str
    from_id: str | None


ExportSection = Literal["traces", "entities", "schemas", "archived", "prospective", "observation_notes",
                        "conversation_turns", "mentions", "edges"]
"""What an export reads page by page, in this order."""
GdsCommunityAlgorithm = Literal["louvain", "leiden", "label_propagation"]
"""The Graph Data Science community detections consolidation can use on Neo4j."""
SavedNodes = Literal["prospective", "observation_notes", "conversation_turns"]
"""Nodes an import writes back exactly as they were saved."""


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


VITALS_LEAD_CHARS = 120
"""The longest opening `TraceVitals.lead` carries: a chat turn's "Speaker" fits in it."""


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
    lead: str | None = None
    """The text up to its first ": ", when that is at most VITALS_LEAD_CHARS characters (None:
    longer): enough to tell who spoke a chat turn (`language.speakers`) without reading whole
    texts."""
    lead_is_whole: bool = False
    """Whether the text has no ": " (then `lead`, if any, is the whole text)."""


@dataclass(frozen=True)
class NeighbourState:
    """What the write path reads of an existing trace close to a new one: enough to judge
    interference (its current strength), contradiction (its text) and duplication (its
    content hash). A batch of 500 new memories meets ~700 neighbours, and loading them whole
    cost more than the checks."""

    id: str
    content: str
    content_hash: str
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
    traces: list[TraceProps] = field(default_factory=list)
    entities: list[SubgraphEntity] = field(default_factory=list)
    edges: list[SubgraphEdge] = field(default_factory=list)


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

    def as_dict(self) -> dict[str, Any]:
        """The counts as JSON-ready values, the total included (what the server and the CLI print)."""
        return {**asdict(self), "total_traces": self.total_traces}


class TracePort(Protocol):
    """Traces: written, read (whole, or the parts ranking and the write path need), listed,
    indexed, searched by words, counted."""

    def get_traces_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[MemoryTrace]]: ...
    def trace_vitals_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[TraceVitals]]: ...
    def upsert_traces(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> int: ...
    def upsert_traces_later(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> Callable[[], int]: ...
    def get_traces(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryTrace]: ...
    def trace_texts(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, str]: ...
    def trace_vitals(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[TraceVitals]: ...
    def neighbour_states(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[NeighbourState]: ...
    def list_traces(
            self, scope_keys: Sequence[str], *, include_inactive: bool = False, skip: int = 0, limit: int = 100
        ) -> list[MemoryTrace]: ...
    def soft_delete(self, ids: Sequence[str], scope_keys: Sequence[str], reason: str) -> list[str]: ...
    def set_indexed(self, ids: Sequence[str], indexed: bool = True) -> int: ...
    def unindexed_traces(self, limit: int = 1000) -> list[MemoryTrace]: ...
    def indexed_trace_ids(self) -> set[str]: ...
    def count_searchable_traces(self) -> int: ...
    def scope_key_counts(self) -> dict[str, int]: ...
    def known_entity_keys(self, keys: Sequence[str], scope_keys: Sequence[str]) -> set[str]: ...
    def trace_index_state(self, ids: Sequence[str]) -> dict[str, bool]: ...
    def fulltext_search(self, text: str, scope_keys: Sequence[str], limit: int = 50, *,
                            every_word_of: Sequence[str] = ()) -> list[LexicalHit]: ...
    def fulltext_search_many(self, searches: Sequence[FulltextSearch], limit: int) -> list[list[LexicalHit]]: ...
    def subgraph(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Subgraph: ...
    def set_pinned(self, ids: Sequence[str], pinned: bool, scope_keys: Sequence[str]) -> list[str]: ...
    def stats(self, scope_keys: Sequence[str] | None = None) -> GraphStats: ...
    def retype_traces(self, ids: Sequence[str], memory_type: MemoryType) -> int: ...
    def newer_versions_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Later[list[tuple[str, str]]]: ...


class EdgePort(Protocol):
    """Mentions and associative edges; the structural edges derived at encode; causal and sequence neighbours."""

    def merge_mentions(self, mentions: Sequence[Mention]) -> int: ...
    def merge_edges(self, edge_type: EdgeType, edges: Sequence[Edge]) -> int: ...
    def get_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[Edge]: ...
    def derive_shared_entity_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int: ...
    def derive_temporal_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int: ...
    def derive_structural_edges(self, ids: Sequence[str], scope_keys: Sequence[str], *,
                                    caused_by_predecessor: Collection[str] = ()) -> int: ...
    def causal_neighbours_later(self, ids: Sequence[str], scope_keys: Sequence[str],
                                    hops: int) -> Later[list[CausalNeighbour]]: ...
    def sequence_predecessors_later(self, starts: Sequence[SequenceStart], scope_keys: Sequence[str],
                                        window_ms: int) -> Later[dict[str, tuple[str, str]]]: ...


class ActivationPort(Protocol):
    """Association in the database: spreading activation, Hebbian learning, what a retrieval writes."""

    def spread_activation(
            self, seed_ids: Sequence[str], scope_keys: Sequence[str], config: ActivationConfig | None = None,
            seed_activation: dict[str, float] | None = None,
        ) -> list[Activation]: ...
    def hebbian_update(
            self, co_retrieved: Sequence[Sequence[str]], scope_keys: Sequence[str]
        ) -> dict[tuple[str, str], float]: ...
    def record_access(self, updates: Sequence[AccessUpdate], scope_keys: Sequence[str]) -> dict[str, int]: ...
    def after_retrieval(
            self, updates: Sequence[AccessUpdate], co_retrieved: Sequence[str], changes: Sequence[dict[str, Any]],
            scope_keys: Sequence[str], *, wait: bool = True,
        ) -> None: ...
    def set_strengths(self, strengths: dict[str, float], scope_keys: Sequence[str]) -> int: ...
    def write_mechanism_state(self, rows: Sequence[dict[str, Any]], scope_keys: Sequence[str]) -> int: ...


class GovernancePort(Protocol):
    """Governance: list, edit, forget and erase what the memory holds (api/governance.py)."""

    def filter_page(self, scope_keys: Sequence[str], filter_params: dict[str, Any], *, after: tuple[int, str] | None,
                        newest_first: bool, limit: int) -> list[tuple[TraceProps, str]]: ...
    def filter_ids(self, ids: Sequence[str], scope_keys: Sequence[str], filter_params: dict[str, Any]) -> set[str]: ...
    def memories(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryRow]: ...
    def update_fields(self, trace_id: str, scope_keys: Sequence[str], fields: dict[str, Any], *,
                          by: str) -> TraceProps | None: ...
    def retype(self, trace_id: str, memory_type: str) -> None: ...
    def supersede_by_update(self, old_id: str, new_id: str, scope_keys: Sequence[str], *, by: str,
                                reason: str, weight: float) -> bool: ...
    def versions(self, trace_id: str, scope_keys: Sequence[str]) -> list[TraceProps]: ...
    def schema_page(self, scope_keys: Sequence[str], *, limit: int, members: int) -> list[SchemaPageRow]: ...
    def resolved_contradictions(self, scope_keys: Sequence[str], reason: str, *,
                                limit: int) -> list[ResolvedContradiction]: ...
    def open_contradictions(self, scope_keys: Sequence[str], *, limit: int) -> list[OpenContradiction]: ...
    def forget_expand(self, ids: Sequence[str], scope_keys: Sequence[str],
                          same_memory: Sequence[str]) -> list[ForgetTarget]: ...
    def hard_delete(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, int]: ...
    def user_scope_keys(self, user_key: str, thread_prefix: str) -> list[str]: ...
    def user_keys_in_organizations(self, user_suffix: str, thread_part: str) -> list[str]: ...
    def trace_ids_in_scopes(self, scope_keys: Sequence[str], limit: int) -> list[str]: ...
    def delete_scope_leftovers(self, scope_keys: Sequence[str]) -> int: ...
    def authored_elsewhere(self, author: str, user_scope_keys: Sequence[str], limit: int) -> list[tuple[str, str]]: ...
    def remove_author(self, ids: Sequence[str], author: str) -> int: ...


class NotePort(Protocol):
    """The observer's turn buffer and observation notes, claimed by one run at a time."""

    def list_notes(self, scope_keys: Sequence[str], *, agent_id: str | None, pending_only: bool,
                       limit: int) -> list[NoteProps]: ...
    def pending_note_tokens(self, scope_key: str, agent_id: str) -> int: ...
    def buffer_turn(self, *, turn_id: str, buffer_key: str, scope_key: str, agent_id: str, role: str,
                        content: str, tokens: int, created_at: int, now: int) -> tuple[int, int]: ...
    def claim_turns(self, buffer_key: str, scope_key: str, *, stale_before: int, run_id: str, now: int,
                        limit: int) -> list[ClaimedTurn]: ...
    def write_notes(self, turn_ids: Sequence[str], scope_key: str, buffer_key: str, run_id: str,
                        notes: Sequence[dict[str, Any]]) -> bool: ...
    def release_turns(self, buffer_key: str, scope_key: str, run_id: str) -> None: ...
    def claim_notes(self, scope_key: str, agent_id: str, *, stale_before: int, run_id: str, now: int,
                        limit: int) -> list[NoteProps]: ...
    def mark_notes_reflected(self, trace_ids: Mapping[str, Sequence[str]], scope_key: str, run_id: str,
                                 now: int) -> None: ...
    def release_notes(self, scope_key: str, agent_id: str, run_id: str) -> None: ...


class IntentionPort(Protocol):
    """Intentions (prospective memory), as property maps."""

    def create_intention(self, props: dict[str, Any]) -> None: ...
    def list_intentions(self, scope_keys: Sequence[str], *, include_inactive: bool, skip: int,
                            limit: int) -> list[IntentionProps]: ...
    def cancel_intention(self, intention_id: str, scope_keys: Sequence[str], now: int) -> bool: ...
    def due_intentions(self, scope_keys: Sequence[str], now: int, limit: int) -> list[IntentionProps]: ...
    def set_cue_embeddings(self, cues: Sequence[CueEmbedding], scope_keys: Sequence[str]) -> None: ...
    def record_firings(self, firings: Sequence[Firing], scope_keys: Sequence[str], now: int) -> set[str]: ...


class ArchivePort(Protocol):
    """Verbatim originals of gisted traces; scope keys None: every scope (the owner)."""

    def archive_originals(self, traces: Sequence[MemoryTrace], reason: str, now: int) -> dict[str, str]: ...
    def archived_original(self, trace_id: str, scope_keys: Sequence[str] | None) -> ArchivedProps | None: ...
    def rehydrate_original(self, trace_id: str, scope_keys: Sequence[str] | None, *, now: int,
                               log_size: int) -> str | None: ...
    def gist_state(self, trace_id: str, scope_keys: Sequence[str] | None) -> GistState | None: ...
    def prune_archive(self, scope_keys: Sequence[str] | None, *, cutoff: int, limit: int) -> int: ...


class ConsolidationPort(Protocol):
    """What a consolidation run reads and writes per scope key; traces as property maps."""

    def scope_keys_with_active_traces(self) -> list[str]: ...
    def count_active_traces(self, scope_key: str) -> int: ...
    def consolidation_state(self, scope_key: str) -> ConsolidationStateProps: ...
    def set_consolidation_state(self, scope_key: str, props: dict[str, Any], now: int) -> None: ...
    def count_edges_of(self, ids: Sequence[str]) -> int: ...
    def set_trace_fields(self, props_by_id: Mapping[str, dict[str, Any]], scope_key: str) -> int: ...
    def forget_weak_traces(self, scope_key: str, settings: Mapping[str, Any], *, due_only: bool, now: int,
                               limit: int, reason: str, forgetting: str) -> list[str]: ...
    def make_sweep_due(self, scope_key: str, limit: int) -> int: ...
    def schedule_sweep(self, scope_key: str, settings: Mapping[str, Any], *, now: int, limit: int) -> int: ...
    def reinforcement_due_traces(self, scope_key: str, *, now: int, limit: int,
                                     retrieved_only: bool) -> list[TraceProps]: ...
    def reinforce_traces(self, updates: Sequence[AccessUpdate], scope_key: str, now: int) -> int: ...
    def compaction_candidates(self, scope_key: str, *, before: int, min_retrievals: int, limit: int) -> list[str]: ...
    def duplicate_content_groups(self, scope_key: str, limit: int) -> list[list[str]]: ...
    def claim_merge_due(self, scope_key: str) -> int: ...
    def forget_merge_due(self, scope_key: str) -> int: ...
    def due_duplicate_groups(self, scope_key: str, limit: int) -> list[list[str]]: ...
    def duplicate_groups_of(self, ids: Sequence[str], scope_key: str) -> list[list[str]]: ...
    def clear_merge_due(self, scope_key: str) -> int: ...
    def mark_merge_due(self, ids: Sequence[str], scope_key: str) -> None: ...
    def merge_candidates(self, scope_key: str, limit: int) -> list[tuple[str, str]]: ...
    def merge_duplicates(self, groups: Sequence[tuple[str, Sequence[str]]], scope_key: str, *, now: int,
                             reason: str, weight: float) -> list[str]: ...
    def mark_consolidated(self, ids: Sequence[str], scope_key: str, now: int) -> None: ...
    def replay_candidates(self, scope_key: str, *, since: int, limit: int) -> list[ReplayCandidate]: ...
    def gist_candidates(self, scope_key: str, *, types: Sequence[str], before: int, max_retrievals: int,
                            immune_strength: float, limit: int) -> list[TraceProps]: ...
    def apply_gists(self, rewrites: Sequence[GistRewrite], scope_key: str) -> set[str]: ...
    def confidence_candidates(self, scope_key: str, *, before: int, limit: int) -> list[TraceProps]: ...
    def confidence_candidates_upto(self, scope_key: str, *, upto: int,
                                   limit: int) -> list[tuple[TraceProps, int]]: ...
    def count_confidence_clocks_upto(self, scope_key: str, *, upto: int) -> int: ...
    def repair_confidence_clocks(self, scope_key: str, limit: int) -> int: ...
    def regulation_candidates(self, scope_key: str, *, arousal_threshold: float, immune_strength: float,
                                  limit: int) -> list[TraceProps]: ...
    def unresolved_contradictions(self, scope_key: str, limit: int) -> list[ContradictionRow]: ...
    def resolve_contradictions(self, resolutions: Sequence[Resolution], scope_key: str, *, now: int, reason: str,
                                   weight: float, keep_loser: bool) -> list[str]: ...
    def create_schemas(self, schemas: Sequence[NewSchema], scope_key: str, *, now: int, weight: float) -> int: ...
    def list_schemas(self, scope_keys: Sequence[str]) -> list[SchemaRow]: ...
    def schema_centroids_later(self, scope_keys: Sequence[str], model: str,
                               limit: int) -> Later[list[SchemaCentroid]]: ...


class CommunityPort(Protocol):
    """Communities for schema integration: FalkorDB, GDS or plain-Cypher label propagation."""

    def gds_procedures_available(self, names: Sequence[str]) -> set[str]: ...
    def drop_gds_graph(self, graph_name: str) -> None: ...
    def relationship_types(self) -> set[str]: ...
    def label_propagation_communities(self, rel_types: Sequence[str], scope_keys: Sequence[str], *,
                                          max_iterations: int, min_size: int,
                                          limit: int) -> list[tuple[str, list[str]]]: ...
    def project_community_graph(self, scope_key: str, graph_name: str, min_weight: float) -> int | None: ...
    def gds_communities(self, algorithm: GdsCommunityAlgorithm, graph_name: str, scope_key: str,
                            min_size: int, limit: int) -> list[tuple[str, list[str]]]: ...
    def label_propagation_start(self, scope_key: str, min_weight: float) -> int: ...
    def label_propagation_round(self, scope_key: str, min_weight: float) -> bool: ...
    def label_propagation_result(self, scope_key: str, *, min_size: int, limit: int) -> list[tuple[str, list[str]]]: ...


class MultiHopPort(Protocol):
    """The multi-hop walk's reads, and personalised PageRank where Neo4j has GDS."""

    def entity_fans_later(self, keys: Sequence[str], scope_keys: Sequence[str]) -> Later[list[EntityFan]]: ...
    def community_schemas(self, scope_keys: Sequence[str], limit: int) -> list[CommunitySchema]: ...
    def walk_to_entities(self, frontier: Sequence[dict[str, Any]], scope_keys: Sequence[str], *,
                             named: Sequence[str], fan_exponent: float, limit: int) -> list[EntityStep]: ...
    def walk_to_traces(self, entities: Sequence[dict[str, Any]], scope_keys: Sequence[str], *, decay: float,
                           min_activation: float, limit: int) -> list[EntityReach]: ...
    def traces_mentioning(self, ids: Sequence[str], keys: Sequence[str],
                              scope_keys: Sequence[str]) -> list[tuple[str, list[str]]]: ...
    def project_pagerank_graph(self, graph_name: str, trace_ids: Sequence[str], entity_keys: Sequence[str],
                                   scope_keys: Sequence[str]) -> bool: ...
    def personalised_pagerank(self, graph_name: str, *, entity_sources: Sequence[dict[str, Any]],
                                  trace_sources: Sequence[dict[str, Any]], scope_keys: Sequence[str], damping: float,
                                  max_iterations: int, limit: int) -> dict[str, float]: ...


class PortabilityPort(Protocol):
    """Export pages and import writes."""

    def export_page(self, section: ExportSection, *, after: str, limit: int,
                        scope_keys: Sequence[str] | None) -> list[ExportRow]: ...
    def import_trace_props(self, extras: Sequence[tuple[str, dict[str, Any]]]) -> None: ...
    def import_entities(self, entities: Sequence[dict[str, Any]]) -> None: ...
    def import_schemas(self, schemas: Sequence[dict[str, Any]]) -> None: ...
    def import_archived(self, archived: Sequence[dict[str, Any]]) -> None: ...
    def import_saved_nodes(self, kind: SavedNodes, nodes: Sequence[dict[str, Any]]) -> int: ...
    def import_edge_props(self, edge_type: EdgeType, edges: Sequence[tuple[str, str, dict[str, Any]]]) -> int: ...


class UpgradePort(Protocol):
    """The stamped version of the graph's data layout and the backfills an upgrade runs."""

    def store_version(self) -> tuple[int, str] | None: ...
    def set_store_version(self, version: int, release: str, now: int) -> None: ...
    def count_traces_without_meta(self) -> int: ...
    def traces_without_meta(self, limit: int) -> list[tuple[str, str | None]]: ...
    def backfill_trace_props(self, props_by_id: Mapping[str, dict[str, Any]]) -> int: ...


@runtime_checkable
class GraphStore(TracePort, EdgePort, ActivationPort, GovernancePort, NotePort, IntentionPort, ArchivePort,
                 ConsolidationPort, CommunityPort, MultiHopPort, PortabilityPort, UpgradePort, Protocol):
    """What the rest of the library may ask of a graph database: one typed method per
    operation, grouped by aggregate above. Each runs named statements of `cypher/`; no caller
    names a statement (tests/unit/test_graph_port_calls.py). A `*_later` method sends its read
    now and returns a `Later`, so reads sent together are answered together."""

    dialect: str
    url: str

    def setup_schema(self) -> None: ...
    # Whether the server answers now, within a couple of seconds and without retries (a readiness
    # probe): returns, or raises GraphStoreUnavailable naming the (redacted) URL. A store that runs
    # its own server (embedded FalkorDB) starts it again when it finds it dead, without waiting.
    def ping(self) -> None: ...
    # Return once every write sent without waiting (`after_retrieval(wait=False)`) is applied,
    # raising if one failed.
    def confirm_writes(self) -> None: ...
    def clear(self) -> None: ...
    # Leave what was deleted in no file the store keeps (where the adapter can): a dict of
    # what it did, or a note saying why it cannot (a remote server's disk).
    def compact_storage(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
