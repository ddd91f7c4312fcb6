"""The write path (DESIGN §5): from text to a trace in the graph and in Qdrant.

features → strength and stability (personality, mood) → embed → nearest
neighbours (near-duplicates reinforce the old memory instead of adding one;
interference weakens old similar traces and the new one; correction cues make
CONTRADICTS edges) → graph write of the traces with `indexed=false` → Qdrant upsert,
alongside the graph linking MENTIONS and deriving TEMPORAL_SEQUENCE and SHARED_ENTITY
edges → `indexed=true`.

The graph is written first and is the source of truth: if the vector upsert
fails, the traces stay `indexed=false` and `store.repair()` finishes the job.
A whole batch costs one graph upsert, one neighbour query and one vector upsert.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from cogmem_graph.cognition.contradiction import candidate_query, contradicts
from cogmem_graph.cognition.decay import (
    InterferenceNeighbour,
    apply_strength_loss,
    current_strength,
    interference,
    update_on_retrieval,
)
from cogmem_graph.cognition.encoding import compute_encoding
from cogmem_graph.cognition.entities import ExtractedEntity, extract_entities
from cogmem_graph.cognition.features import detect_features
from cogmem_graph.cognition.mechanisms import apply_schema_encoding
from cogmem_graph.cognition.retention import (
    carries_different_facts,
    density_stability_factor,
    information_density,
    memory_category,
)
from cogmem_graph.gc_pause import collector_paused
from cogmem_graph.graph.port import AccessUpdate, Edge, Mention, NeighbourState
from cogmem_graph.model import (
    MAX_ID_CHARS,
    EdgeType,
    MemoryTrace,
    MemoryType,
    Mood,
    Scope,
    SourceType,
    check_text,
    scope_key,
)
from cogmem_graph.retrieval.lexical import bm25_document_vector
from cogmem_graph.vectors.port import VectorPoint

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory

SCHEMA_CENTROIDS_PER_BATCH = 1_000
"""Most recent schemas compared with new input (a bound on the per-batch matrix product)."""
MAX_CONTENT_CHARS = 1_000_000
FIRST_REINFORCEMENT_INTERVAL_MS: int = MemoryTrace.model_fields["reinforcement_interval"].default
"""A new trace is first due for reinforcement one interval (the model's default) after it is learned."""
BACKGROUND_INDEXING_MIN = 64
"""New traces in a batch from which their vectors are written on a worker thread while the
graph derives their edges; a smaller batch writes them in line (a thread costs more)."""
FEATURE_CHARS = 20_000
"""Content features are judged on the opening of a long text; keyword cues past it add
little and would make encoding a 1 MB document take tens of seconds."""


class EncodeRequest(BaseModel):
    """One memory to encode, as `agent.encode(...)` or an `encode_many` item takes it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    content: str
    type: MemoryType = MemoryType.EPISODIC
    scope: Scope | None = None
    mood: Mood | None = None
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list, description="names the caller knows; extraction adds more")
    source_type: SourceType = SourceType.USER_STATEMENT
    source_id: str | None = None
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    created_at: int | None = Field(None, ge=0, description="event time in epoch ms; default now")
    pinned: bool = Field(False, description="a truth anchor: never made dormant, merged, gisted or weakened")
    metadata: dict[str, Any] = Field(default_factory=dict)
    structured_data: dict[str, Any] | None = None

    @field_validator("source_id")
    @classmethod
    def _source_id(cls, v: str | None) -> str | None:
        if v is not None:
            check_text(v, "source_id", allow_empty=False, max_len=MAX_ID_CHARS)
        return v

    @field_validator("structured_data")
    @classmethod
    def _structured(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None:
            try:
                json.dumps(v, allow_nan=False, ensure_ascii=False).encode("utf-8")
            except (TypeError, ValueError) as exc:
                raise ValueError(f"structured_data must be JSON (finite numbers, strings, lists, maps): {exc}") from None
        return v

    @field_validator("content")
    @classmethod
    def _content(cls, v: str) -> str:
        check_text(v, "content", allow_empty=False, max_len=MAX_CONTENT_CHARS)
        if not v.strip():
            raise ValueError("content must not be blank")
        return v


@dataclass
class EncodeOutcome:
    traces: list[MemoryTrace]
    """One per request, in order: the new trace, or the existing one it reinforced."""
    created: int
    reinforced: int


def _sequence_key(agent: AgentMemory, request: EncodeRequest, trace_scope_key: str) -> str:
    """TEMPORAL_SEQUENCE chains traces of one conversation: the thread when known,
    else the source, else the scope the trace lives in."""
    identity = agent.identity
    if identity.thread_id and identity.user_id:
        return identity.scope_key(Scope.THREAD)
    if request.source_id:
        return f"source:{request.source_id}"
    return trace_scope_key


def build_trace(agent: AgentMemory, request: EncodeRequest, now: int,
                entities: list[ExtractedEntity] | None = None) -> MemoryTrace:
    """Everything the cognitive core decides about a new memory, before it meets the others.
    `entities`: the request's extracted entities, when the caller has them already."""
    cfg = agent.store.config
    scope = request.scope or agent.identity.default_scope()
    scope_id = agent.identity.scope_id(scope)
    mood = request.mood or agent.current_mood()
    features = detect_features(request.content[:FEATURE_CHARS])
    enc = compute_encoding(mood, agent.traits, features, cfg.encoding)
    if entities is None:
        entities = extract_entities(request.content, extra=request.entities)
    density = information_density(request.content[:FEATURE_CHARS], len(entities))
    stability = enc.stability_ms * density_stability_factor(density, cfg.retention)
    return MemoryTrace(
        type=request.type, scope=scope, scope_id=scope_id, agent_id=agent.identity.agent_id,
        content=request.content, tags=request.tags, entities=[e.name for e in entities],
        structured_data=request.structured_data, metadata=request.metadata,
        source_type=request.source_type, source_id=request.source_id, confidence=request.confidence,
        valence=enc.valence, arousal=enc.arousal, dominance=enc.dominance, intensity=enc.intensity,
        encoding_strength=enc.strength, stability=stability, pinned=request.pinned,
        category=memory_category(request.content[:FEATURE_CHARS], density, cfg.retention),
        created_at=request.created_at if request.created_at is not None else now, recorded_at=now,
        last_accessed_at=now, updated_at=now, next_reinforcement_at=now + FIRST_REINFORCEMENT_INTERVAL_MS,
        sequence_key=_sequence_key(agent, request, scope_key(scope, scope_id)), indexed=False,
    )


def _contradiction_candidates(store, draft: MemoryTrace, live, existing: dict[str, NeighbourState],
                              scope_keys: list[str]) -> dict[str, float | None]:
    """Old traces the new one may correct or disagree with, by id, with their similarity
    (None when full-text found them); `existing` gets the state of each.

    Candidates: the dense neighbours, plus traces found by full-text search for the
    fact the new text states ("I moved to Berlin" looks for where the user lives) —
    two statements of one fact are rarely similar as whole texts. Searched before the
    batch is written, so the batch's own traces are never among them."""
    scored: dict[str, float | None] = {h.trace_id: h.score for h in live}
    query = candidate_query(draft.content)
    if query:
        limit = max(1, store.config.write.neighbours)
        for hit in store.graph.fulltext_search(query, [draft.scope_key], limit=limit):
            scored.setdefault(hit.trace_id, None)
    missing = [tid for tid in scored if tid not in existing]
    if missing:
        existing.update({t.id: t for t in store.graph.neighbour_states(missing, scope_keys)})
    return scored


def _contradiction_edges(store, draft: MemoryTrace, candidates: dict[str, float | None],
                         existing: dict[str, NeighbourState]) -> list[Edge]:
    """CONTRADICTS edges from the new trace to the candidates it contradicts (pure: the
    write path runs it while the engine writes the batch)."""
    edges = []
    for tid, similarity in candidates.items():
        old = existing.get(tid)
        if old is None or not old.is_active or old.id == draft.id:
            continue
        confidence = contradicts(draft.content, old.content, similarity=similarity)
        if confidence >= store.config.write.contradiction_min_confidence:
            edges.append(Edge(draft.id, tid, round(confidence, 6), EdgeType.CONTRADICTS))
    return edges


def _schema_centroids_later(agent: AgentMemory) -> Callable[[], list[dict[str, Any]]]:
    """The agent's schema centroids, read while the batch's traces are built and embedded."""
    store = agent.store
    if not store.config.mechanisms.schema_encoding.enabled:
        return list
    return store.graph.read_later("centroids_of_schemas", {
        "scopeKeys": agent.identity.visible_scope_keys(), "model": store.embedder.name,
        "limit": SCHEMA_CENTROIDS_PER_BATCH})


def _schema_encoding(agent: AgentMemory, drafts: list[MemoryTrace], vector_of: dict[int, list[float]],
                     now: int, centroids: Callable[[], list[dict[str, Any]]]) -> None:
    """Schema encoding (Bartlett): input close to a schema the agent already holds is
    encoded weaker, input that fits none of them stronger. One query per batch; the
    cosines are one matrix product. Without schemas nothing is surprising yet."""
    config = agent.store.config.mechanisms.schema_encoding
    rows = centroids()  # read whatever happens, so its connection goes back; none when disabled
    if not vector_of:
        return
    rows = [r for r in rows if r["centroid"] and len(r["centroid"]) == len(next(iter(vector_of.values())))]
    if not rows:
        return
    centroids = np.asarray([r["centroid"] for r in rows], dtype=np.float32)
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    indexes = list(vector_of)
    matrix = np.asarray([vector_of[i] for i in indexes], dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    similarities = matrix @ centroids.T
    for row, i in enumerate(indexes):
        best = int(similarities[row].argmax())
        drafts[i], _ = apply_schema_encoding(
            drafts[i], float(similarities[row, best]), config, now, schema_id=rows[best]["id"])


def _write_old_trace_changes(store, existing: dict[str, NeighbourState], retro_loss: dict[str, float],
                             reinforced: dict[int, MemoryTrace], scope_keys: list[str], now: int) -> None:
    """What new input does to old memories: interference weakens them, a near-duplicate
    reinforces the one it repeats (as a retrieval would)."""
    graph = store.graph
    if retro_loss:
        weakened = {
            tid: apply_strength_loss(existing[tid].encoding_strength, min(1.0, loss))
            for tid, loss in retro_loss.items() if tid in existing
        }
        graph.set_strengths(weakened, scope_keys)
    if reinforced:
        updates = {}
        for old in reinforced.values():
            u = update_on_retrieval(old, now, store.config.decay)
            updates[old.id] = AccessUpdate(old.id, u.last_accessed_at, u.stability, u.reinforcement_interval,
                                           u.next_reinforcement_at, u.encoding_strength)
        graph.record_access(list(updates.values()), scope_keys)


def encode_batch(
    agent: AgentMemory, requests: Sequence[EncodeRequest], *, on_progress: Callable[[int], None] | None = None
) -> EncodeOutcome:
    """Encode one batch, with the cyclic garbage collector paused (`CogmemConfig.pause_gc`)."""
    with collector_paused(agent.store.config.pause_gc):
        return _encode_batch(agent, requests, on_progress=on_progress)


def _encode_batch(
    agent: AgentMemory, requests: Sequence[EncodeRequest], *, on_progress: Callable[[int], None] | None = None
) -> EncodeOutcome:
    store = agent.store
    cfg = store.config
    now = store.clock.now_ms()
    centroids = _schema_centroids_later(agent)
    # Entities are read once per request: for the trace's names and for its MENTIONS.
    found = [extract_entities(r.content, extra=r.entities) for r in requests]
    drafts = [build_trace(agent, r, now, entities) for r, entities in zip(requests, found, strict=True)]

    # Identical content in the same scope within the batch: the first one stands for all.
    first_of: dict[tuple[str, str], int] = {}
    alias: dict[int, int] = {}
    for i, t in enumerate(drafts):
        key = (t.scope_key, t.content_hash)
        if key in first_of:
            alias[i] = first_of[key]
        else:
            first_of[key] = i
    unique = [i for i in range(len(drafts)) if i not in alias]

    vectors = store.embedder.embed([drafts[i].content for i in unique])
    vector_of = dict(zip(unique, vectors, strict=True))
    _schema_encoding(agent, drafts, vector_of, now, centroids)

    # Nearest existing neighbours of every new trace, inside its own scope, in one request.
    wcfg = cfg.write
    neighbours = (
        store.vectors.search_dense_many(
            [vector_of[i] for i in unique], [[drafts[i].scope_key] for i in unique], wcfg.neighbours,
            score_threshold=cfg.decay.interference_threshold,
        )
        if wcfg.neighbours and unique else [[] for _ in unique]
    )
    neighbour_ids = sorted({h.trace_id for hits in neighbours for h in hits})
    scope_keys = agent.identity.visible_scope_keys()
    existing = {t.id: t for t in store.graph.neighbour_states(neighbour_ids, scope_keys)}

    duplicate_of: dict[int, str] = {}
    retro_loss: dict[str, float] = {}
    contradiction_candidates: dict[int, dict[str, float | None]] = {}
    distinct = (lambda a, b: carries_different_facts(a, b)) if cfg.retention.protect_distinct_facts \
        else (lambda a, b: False)
    for i, hits in zip(unique, neighbours, strict=True):
        draft = drafts[i]
        live = [h for h in hits if h.trace_id in existing and existing[h.trace_id].is_active]
        dup = next((h for h in live if h.payload.get("content_hash") == draft.content_hash
                    or (h.score >= wcfg.near_duplicate_similarity
                        and not distinct(draft.content, existing[h.trace_id].content))), None)
        if dup is not None:
            duplicate_of[i] = dup.trace_id
            continue
        near = []
        # A neighbour stating another fact (other numbers, names, dates) does not interfere.
        for h in (h for h in live if not distinct(draft.content, existing[h.trace_id].content)):
            old = existing[h.trace_id]
            strength = current_strength(old.encoding_strength, old.stability, old.last_accessed_at, now, cfg.decay)
            near.append(InterferenceNeighbour(h.trace_id, h.score, strength))
        result = interference(near, cfg.decay)
        for tid, loss in result.retroactive.items():
            retro_loss[tid] = retro_loss.get(tid, 0.0) + loss
        if result.proactive > 0:
            drafts[i] = draft.model_copy(
                update={"encoding_strength": apply_strength_loss(draft.encoding_strength, result.proactive)})
        contradiction_candidates[i] = _contradiction_candidates(store, draft, live, existing, scope_keys)

    # Near-duplicates reinforce the old memory, which the caller gets back whole.
    old_traces = {t.id: t for t in store.graph.get_traces(sorted(set(duplicate_of.values())), scope_keys)}
    reinforced = {i: old_traces[tid] for i, tid in duplicate_of.items() if tid in old_traces}
    new_at = [i for i in unique if i not in reinforced]
    new = [drafts[i] for i in new_at]
    graph = store.graph
    contradictions: list[Edge] = []

    with ThreadPoolExecutor(1, thread_name_prefix="cogmem-index") if len(new) >= BACKGROUND_INDEXING_MIN \
            else nullcontext() as pool:
        indexing = None
        if new:
            # The engine writes the traces while their vector points, MENTIONS rows and
            # CONTRADICTS edges are computed here.
            written = graph.upsert_traces_later(new, fresh=True)  # their ids were minted in build_trace
            points = [
                VectorPoint(trace_id=t.id, scope_key=t.scope_key, type=t.type.value, created_at=t.created_at,
                            dense=vector_of[i], sparse=bm25_document_vector(t.content), content_hash=t.content_hash)
                for i, t in ((i, drafts[i]) for i in new_at)
            ]
            mentions = [Mention(drafts[i].id, e.key, e.name, e.kind) for i in new_at for e in found[i]]
            for i in new_at:
                # (none gathered for a near-duplicate whose old trace was gone by the time it was loaded)
                contradictions += _contradiction_edges(store, drafts[i], contradiction_candidates.get(i, {}), existing)
            written()
            # The traces are in the graph now: their vectors are written while the graph
            # links their entities and derives their edges (waits on the server).
            indexing = pool.submit(store.vectors.upsert, points) if pool is not None else None
            graph.merge_mentions(mentions)
            graph.derive_structural_edges([t.id for t in new], scope_keys)
            if contradictions:
                graph.merge_edges(EdgeType.CONTRADICTS, contradictions)
        _write_old_trace_changes(store, existing, retro_loss, reinforced, scope_keys, now)
        if indexing is not None:
            indexing.result()
        elif new:
            store.vectors.upsert(points)
    if new:
        graph.set_indexed([t.id for t in new], True)
    if on_progress:
        on_progress(len(requests))

    final: list[MemoryTrace] = []
    for i in range(len(drafts)):
        j = alias.get(i, i)
        final.append(reinforced[j] if j in reinforced else drafts[j].model_copy(update={"indexed": True}))
    return EncodeOutcome(traces=final, created=len(new), reinforced=len(reinforced))
