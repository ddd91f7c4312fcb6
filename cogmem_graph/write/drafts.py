"""A new memory before it meets the others: its features, strength and stability (personality,
mood, information density), and schema encoding against what the agent already knows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from cogmem_graph.cognition.encoding import EncodingWeights, compute_encoding, encoding_weights
from cogmem_graph.cognition.mechanisms import apply_schema_encoding
from cogmem_graph.cognition.retention import density_stability_factor
from cogmem_graph.cognition.validity import validity_of
from cogmem_graph.graph.port import Later, SchemaCentroid
from cogmem_graph.language.entities import (
    ExtractedEntity,
    entities_and_doubtful_names,
    extract_entities,
)
from cogmem_graph.language.features import detect_features
from cogmem_graph.language.memory_kind import information_density, memory_category
from cogmem_graph.model import MemoryTrace, Mood, Scope, scope_key
from cogmem_graph.write.request import EncodeRequest

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

SCHEMA_CENTROIDS_PER_BATCH = 1_000
"""Most recent schemas compared with new input (a bound on the per-batch matrix product)."""
FIRST_REINFORCEMENT_INTERVAL_MS: int = MemoryTrace.model_fields["reinforcement_interval"].default
"""A new trace is first due for reinforcement one interval (the model's default) after it is learned."""
FEATURE_CHARS = 20_000
"""Content features are judged on the opening of a long text; keyword cues past it add
little and would make encoding a 1 MB document take tens of seconds."""


def _sequence_key(ctx: MemoryContext, request: EncodeRequest, trace_scope_key: str) -> str:
    """TEMPORAL_SEQUENCE chains traces of one conversation: the thread when known,
    else the source, else the scope the trace lives in."""
    identity = ctx.caller
    if identity.thread_id and identity.user_id:
        return identity.scope_key(Scope.THREAD)
    if request.source_id:
        return f"source:{request.source_id}"
    return trace_scope_key


def request_entities(ctx: MemoryContext, requests: Sequence[EncodeRequest]) -> list[list[ExtractedEntity]]:
    """Each request's entities. A lone word that only starts a sentence is a name when the
    memory already knows it as one: another memory of the batch names it, or one of the
    caller's memories mentions it ("Biscuit has an allergy" after "my dog Biscuit"); one
    graph read for the whole batch, and only when such a word occurs."""
    read = [entities_and_doubtful_names(r.content, extra=r.entities) for r in requests]
    found = [entities for entities, _doubtful in read]
    doubtful = [doubt for _entities, doubt in read]
    wanted = set().union(*doubtful)
    if not wanted:
        return found
    named = {e.key for entities in found for e in entities}
    known = (wanted & named) | ctx.graph.known_entity_keys(sorted(wanted - named), ctx.visible_scope_keys)
    return [extract_entities(r.content, extra=r.entities, known=known) if doubt & known else entities
            for r, entities, doubt in zip(requests, found, doubtful, strict=True)]


def build_trace(ctx: MemoryContext, request: EncodeRequest, now: int,
                entities: list[ExtractedEntity] | None = None, *, mood: Mood | None = None,
                weights: EncodingWeights | None = None) -> MemoryTrace:
    """Everything the cognitive core decides about a new memory, before it meets the others.
    `entities`: the request's extracted entities, when the caller has them already; `mood`
    and `weights`: the context's mood and its traits' encoding weights, when a batch has
    them already (a request's own mood comes first)."""
    cfg = ctx.config
    scope = request.scope or ctx.caller.default_scope()
    scope_id = ctx.caller.scope_id(scope)
    mood = request.mood or mood or ctx.current_mood()
    features = detect_features(request.content[:FEATURE_CHARS])
    enc = compute_encoding(mood, ctx.traits, features, cfg.encoding, weights)
    if entities is None:
        entities = extract_entities(request.content, extra=request.entities)
    density = information_density(request.content[:FEATURE_CHARS], len(entities))
    stability = enc.stability_ms * density_stability_factor(density, cfg.retention)
    event_time = request.created_at if request.created_at is not None else now
    valid = validity_of(request.content[:FEATURE_CHARS] if cfg.validity.stated_bounds else "", event_time,
                        valid_from=request.valid_from, valid_until=request.valid_until)
    return MemoryTrace(
        type=request.type, scope=scope, scope_id=scope_id, agent_id=ctx.agent_id,
        author=ctx.caller.user_key(),
        content=request.content, tags=request.tags, entities=[e.name for e in entities],
        structured_data=request.structured_data, metadata=request.metadata,
        source_type=request.source_type, source_id=request.source_id, confidence=request.confidence,
        valence=enc.valence, arousal=enc.arousal, dominance=enc.dominance, intensity=enc.intensity,
        encoding_strength=enc.strength, stability=stability, pinned=request.pinned, keyed=request.keyed,
        category=memory_category(request.content[:FEATURE_CHARS], density, cfg.retention),
        created_at=event_time, recorded_at=now, valid_from=valid.valid_from, valid_until=valid.valid_until,
        last_accessed_at=now, updated_at=now, next_reinforcement_at=now + FIRST_REINFORCEMENT_INTERVAL_MS,
        sequence_key=_sequence_key(ctx, request, scope_key(scope, scope_id)), indexed=False,
    )


def build_traces(ctx: MemoryContext, requests: Sequence[EncodeRequest], now: int,
                 entities: Sequence[list[ExtractedEntity]]) -> list[MemoryTrace]:
    """`build_trace` for each request of a batch, with what the batch shares worked out once:
    the traits' encoding weights, and the mood unless the context asks a callable for it
    (which is asked per memory, as it may change)."""
    mood = None if callable(ctx.mood) else ctx.current_mood()
    weights = encoding_weights(ctx.traits, ctx.config.encoding)
    return [build_trace(ctx, r, now, found, mood=mood, weights=weights)
            for r, found in zip(requests, entities, strict=True)]


def schema_centroids_later(ctx: MemoryContext) -> Later[list[SchemaCentroid]]:
    """The agent's schema centroids, read while the batch's traces are built and embedded."""
    if not ctx.config.mechanisms.schema_encoding.enabled:
        return list
    return ctx.graph.schema_centroids_later(ctx.visible_scope_keys, ctx.embedder.name, SCHEMA_CENTROIDS_PER_BATCH)


def schema_encoding(ctx: MemoryContext, drafts: list[MemoryTrace], vector_of: dict[int, list[float]],
                     now: int, centroids: Later[list[SchemaCentroid]]) -> None:
    """Schema encoding (Bartlett): input close to a schema the agent already holds is
    encoded weaker, input that fits none of them stronger. One query per batch; the
    cosines are one matrix product. Without schemas nothing is surprising yet."""
    config = ctx.config.mechanisms.schema_encoding
    rows = centroids()  # read whatever happens, so its connection goes back; none when disabled
    if not vector_of:
        return
    rows = [r for r in rows if r.centroid and len(r.centroid) == len(next(iter(vector_of.values())))]
    if not rows:
        return
    matrix_of_centroids = np.asarray([r.centroid for r in rows], dtype=np.float32)
    matrix_of_centroids /= np.maximum(np.linalg.norm(matrix_of_centroids, axis=1, keepdims=True), 1e-12)
    indexes = list(vector_of)
    matrix = np.asarray([vector_of[i] for i in indexes], dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    similarities = matrix @ matrix_of_centroids.T
    for row, i in enumerate(indexes):
        best = int(similarities[row].argmax())
        drafts[i], _ = apply_schema_encoding(
            drafts[i], float(similarities[row, best]), config, now, schema_id=rows[best].id)
