"""The write path: from text to a trace in the graph and in Qdrant, in named stages
(`_encode_batch`: draft, dedupe, embed, neighbours, interference and contradictions, write).

features → strength and stability (personality, mood) → embed → nearest
neighbours (near-duplicates reinforce the old memory instead of adding one;
interference weakens old similar traces and the new one; correction cues make
CONTRADICTS edges) → graph write of the traces with `indexed=false` → Qdrant upsert,
alongside the graph linking MENTIONS and deriving TEMPORAL_SEQUENCE and SHARED_ENTITY
edges → `indexed=true`.

The graph is written first and is the source of truth: if the vector upsert
fails, the traces stay `indexed=false` and `ctx.repair()` finishes the job.
A whole batch costs one graph upsert, one neighbour query and one vector upsert.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogmem_graph.cognition.decay import (
    InterferenceNeighbour,
    apply_strength_loss,
    current_strength,
    interference,
)
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.gc_pause import collector_paused
from cogmem_graph.graph.port import Edge, Mention, NeighbourState
from cogmem_graph.language.causality import refers_back_causally
from cogmem_graph.language.memory_kind import carries_different_facts
from cogmem_graph.model import EdgeType, MemoryTrace
from cogmem_graph.write.conflicts import (
    contradiction_candidates,
    contradiction_edges,
    write_old_trace_changes,
)
from cogmem_graph.write.context_vectors import index_vectors, previous_turns_later
from cogmem_graph.write.drafts import (
    build_traces,
    request_entities,
    schema_centroids_later,
    schema_encoding,
)
from cogmem_graph.write.embedding import embed_memories
from cogmem_graph.write.indexing import point_for
from cogmem_graph.write.request import EncodeRequest, as_request

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

MAX_ENCODE_BATCH = 1_000
"""The most items `encode_many` encodes in one batch (a larger `batch_size` is served in
batches of this many): one batch's drafts, vectors, neighbours and graph rows are what an
encode holds in memory at once."""

BACKGROUND_INDEXING_MIN = 64
"""New traces in a batch from which their vectors are written on a worker thread while the
graph derives their edges; a smaller batch writes them in line (a thread costs more)."""


@dataclass
class EncodeOutcome:
    traces: list[MemoryTrace]
    """One per request, in order: the new trace, or the existing one it reinforced."""
    created: int
    reinforced: int


def encode_batch(
    ctx: MemoryContext, requests: Sequence[EncodeRequest], *, on_progress: Callable[[int], None] | None = None,
    reinforce_duplicates: bool = True,
) -> EncodeOutcome:
    """Encode one batch, with the cyclic garbage collector paused (`CogmemConfig.pause_gc`).
    `reinforce_duplicates=False` stores a near-duplicate as new (a corrected version)."""
    with collector_paused(ctx.config.pause_gc):
        return _encode_batch(ctx, requests, on_progress=on_progress, reinforce_duplicates=reinforce_duplicates)


@dataclass
class _Batch:
    """One batch as the stages fill it: drafts, which of them are new, their vectors, their
    existing neighbours and what those do to each other."""

    requests: Sequence[EncodeRequest]
    now: int
    drafts: list[MemoryTrace]
    entities: list[list]
    """The entities each request names: for the trace's names and for its MENTIONS."""
    alias: dict[int, int] = field(default_factory=dict)
    """Position -> the earlier position with the same content in the same scope, which stands for it."""
    unique: list[int] = field(default_factory=list)
    vector_of: dict[int, list[float]] = field(default_factory=dict)
    indexed_as: dict[int, list[float]] = field(default_factory=dict)
    """The index vector (with conversational context) of each unique position."""
    sentences_of: dict[int, list[list[float]]] = field(default_factory=dict)
    """Each unique position's sentences' vectors, when the embedder gives them."""
    neighbours: list[list] = field(default_factory=list)
    existing: dict[str, NeighbourState] = field(default_factory=dict)
    duplicate_of: dict[int, str] = field(default_factory=dict)
    retro_loss: dict[str, float] = field(default_factory=dict)
    candidates_of: dict[int, dict] = field(default_factory=dict)
    """Contradiction candidates among each new trace's neighbours."""


def _encode_batch(
    ctx: MemoryContext, requests: Sequence[EncodeRequest], *, on_progress: Callable[[int], None] | None = None,
    reinforce_duplicates: bool = True,
) -> EncodeOutcome:
    """The stages in order: draft, dedupe, embed, neighbours, interference and contradictions, write."""
    now = ctx.clock.now_ms()
    centroids = schema_centroids_later(ctx)
    batch = _draft(ctx, requests, now)
    _dedupe(batch)
    _embed(ctx, batch, centroids)
    _find_neighbours(ctx, batch)
    _interfere(ctx, batch, reinforce_duplicates)
    reinforced, created = _write(ctx, batch)
    if on_progress:
        on_progress(len(requests))
    final: list[MemoryTrace] = []
    for i in range(len(batch.drafts)):
        j = batch.alias.get(i, i)
        final.append(reinforced[j] if j in reinforced else batch.drafts[j].model_copy(update={"indexed": True}))
    return EncodeOutcome(traces=final, created=created, reinforced=len(reinforced))


def _draft(ctx: MemoryContext, requests: Sequence[EncodeRequest], now: int) -> _Batch:
    """A trace drafted per request: features, strength and stability, names (entities are
    read once per request)."""
    found = request_entities(ctx, requests)
    drafts = build_traces(ctx, requests, now, found)
    return _Batch(requests, now, drafts, found)


def _dedupe(batch: _Batch) -> None:
    """Identical content in the same scope within the batch: the first one stands for all."""
    first_of: dict[tuple[str, str], int] = {}
    for i, t in enumerate(batch.drafts):
        key = (t.scope_key, t.content_hash)
        if key in first_of:
            batch.alias[i] = first_of[key]
        else:
            first_of[key] = i
    batch.unique = [i for i in range(len(batch.drafts)) if i not in batch.alias]


def _embed(ctx: MemoryContext, batch: _Batch, centroids: Callable[[], Any]) -> None:
    """One embedding pass per unique draft (its sentences' vectors from the same pass); its
    index vector carries the conversation's previous turn (looked up by the graph while the
    batch is embedded); schemas shape its encoding."""
    unique_drafts = [batch.drafts[i] for i in batch.unique]
    previous = previous_turns_later(ctx, unique_drafts, ctx.visible_scope_keys)
    embedded = embed_memories(ctx, [t.content for t in unique_drafts], [t.category for t in unique_drafts])
    batch.vector_of = dict(zip(batch.unique, embedded.vectors, strict=True))
    if embedded.sentences is not None:
        batch.sentences_of = dict(zip(batch.unique, embedded.sentences, strict=True))
    index_of = index_vectors(ctx, unique_drafts, dict(enumerate(embedded.vectors)), previous(), embedded.stating)
    batch.indexed_as = {i: index_of[n] for n, i in enumerate(batch.unique)}
    schema_encoding(ctx, batch.drafts, batch.vector_of, batch.now, centroids)


def _find_neighbours(ctx: MemoryContext, batch: _Batch) -> None:
    """Nearest existing neighbours of every new trace, inside its own scope, in one request,
    and their states in one read."""
    cfg = ctx.config
    neighbours = cfg.write.neighbours
    unique = batch.unique
    batch.neighbours = ctx.vectors.search_dense_many(
        [batch.vector_of[i] for i in unique], [[batch.drafts[i].scope_key] for i in unique], neighbours,
        score_threshold=cfg.decay.interference_threshold,
    ) if neighbours and unique else [[] for _ in unique]
    neighbour_ids = sorted({h.trace_id for hits in batch.neighbours for h in hits})
    batch.existing = {t.id: t for t in ctx.graph.neighbour_states(neighbour_ids, ctx.visible_scope_keys)}


def _interfere(ctx: MemoryContext, batch: _Batch, reinforce_duplicates: bool) -> None:
    """Per new draft: a near-duplicate reinforces its old memory instead; otherwise similar
    neighbours interfere both ways (a neighbour stating another fact does not), and those
    that may contradict it are gathered."""
    cfg = ctx.config
    now, drafts, existing = batch.now, batch.drafts, batch.existing
    contradicting: dict[int, tuple[MemoryTrace, list]] = {}
    distinct = (lambda a, b: carries_different_facts(a, b)) if cfg.retention.protect_distinct_facts \
        else (lambda a, b: False)
    for i, hits in zip(batch.unique, batch.neighbours, strict=True):
        draft = drafts[i]
        live = [h for h in hits if h.trace_id in existing and existing[h.trace_id].is_active]
        dup = next((h for h in live if existing[h.trace_id].content_hash == draft.content_hash
                    or (h.score >= cfg.write.near_duplicate_similarity
                        and not distinct(draft.content, existing[h.trace_id].content))), None)
        if dup is not None and reinforce_duplicates:
            batch.duplicate_of[i] = dup.trace_id
            continue
        near = []
        for h in (h for h in live if not distinct(draft.content, existing[h.trace_id].content)):
            old = existing[h.trace_id]
            strength = current_strength(old.encoding_strength, old.stability, old.last_accessed_at, now, cfg.decay)
            near.append(InterferenceNeighbour(h.trace_id, h.score, strength))
        result = interference(near, cfg.decay)
        for tid, loss in result.retroactive.items():
            batch.retro_loss[tid] = batch.retro_loss.get(tid, 0.0) + loss
        if result.proactive > 0:
            drafts[i] = draft.model_copy(
                update={"encoding_strength": apply_strength_loss(draft.encoding_strength, result.proactive)})
        contradicting[i] = (draft, live)
    batch.candidates_of = contradiction_candidates(ctx, contradicting, existing, ctx.visible_scope_keys)


def _write(ctx: MemoryContext, batch: _Batch) -> tuple[dict[int, MemoryTrace], int]:
    """The new traces into the graph (the source of truth), then their vectors while the graph
    links their entities and derives their edges; the old traces' changes; `indexed=true`.
    Returns the reinforced old memories by position (the caller gets them back whole) and how
    many traces were created."""
    scope_keys = ctx.visible_scope_keys
    drafts = batch.drafts
    old_traces = {t.id: t for t in ctx.graph.get_traces(sorted(set(batch.duplicate_of.values())), scope_keys)}
    reinforced = {i: old_traces[tid] for i, tid in batch.duplicate_of.items() if tid in old_traces}
    new_at = [i for i in batch.unique if i not in reinforced]
    new = [drafts[i] for i in new_at]
    graph = ctx.graph
    with ThreadPoolExecutor(1, thread_name_prefix="cogmem-index") if len(new) >= BACKGROUND_INDEXING_MIN \
            else nullcontext() as pool:
        indexing = None
        if new:
            # The engine writes the traces while their vector points, MENTIONS rows and
            # CONTRADICTS edges are computed here.
            written = graph.upsert_traces_later(new, fresh=True)  # their ids were minted in build_traces
            points = [point_for(drafts[i], batch.indexed_as[i], sentences=batch.sentences_of.get(i)) for i in new_at]
            mentions = [Mention(drafts[i].id, e.key, e.name, e.kind) for i in new_at for e in batch.entities[i]]
            contradictions: list[Edge] = []
            for i in new_at:
                # (none gathered for a near-duplicate whose old trace was gone by the time it was loaded)
                contradictions += contradiction_edges(ctx, drafts[i], batch.candidates_of.get(i, {}), batch.existing)
            written()
            indexing = pool.submit(ctx.vectors.upsert, points) if pool is not None else None
            graph.merge_mentions(mentions)
            graph.derive_structural_edges([t.id for t in new], scope_keys, caused_by_predecessor={
                t.id for t in new if refers_back_causally(t.content)})
            if contradictions:
                graph.merge_edges(EdgeType.CONTRADICTS, contradictions)
        write_old_trace_changes(ctx, batch.existing, batch.retro_loss, reinforced, scope_keys, batch.now)
        if indexing is not None:
            indexing.result()
        elif new:
            ctx.vectors.upsert(points)
    # A repeated memory whose own write was cut off before its indexed mark (the process was
    # killed; its vector is there, or the search would not have found it) is completed here:
    # acknowledging it while it stays unindexed would hide it from every read.
    unfinished = sorted({t.id for t in reinforced.values() if not t.indexed})
    if new or unfinished:
        graph.set_indexed([t.id for t in new] + unfinished, True)
    if unfinished:
        reinforced = {i: t if t.indexed else t.model_copy(update={"indexed": True}) for i, t in reinforced.items()}
    return reinforced, len(new)


def encode_many(ctx: MemoryContext, items: Iterable[Mapping[str, Any] | EncodeRequest], *,
                batch_size: int = 500, reinforce_duplicates: bool = True) -> list[MemoryTrace]:
    """Encode `items` one batch of `batch_size` (at most `MAX_ENCODE_BATCH`) at a time, so the
    work in flight stays one batch whatever the number of items.

    A sequence (a list, a tuple) is checked whole first, nothing kept of the check past one
    batch (a sequence of one batch is encoded from the requests checked), so a bad item
    anywhere stores nothing; any other iterable (a generator) is read and checked one
    batch at a time, so it is never held whole: a bad item stops it there, after the batches
    before it were stored. Either way the error names the item's index and field. What
    grows with the number of items is only the returned list of traces."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidArgument(f"batch_size must be a positive integer, got {batch_size!r}", argument="batch_size")
    size = min(batch_size, MAX_ENCODE_BATCH)
    if isinstance(items, Sequence) and not isinstance(items, str | bytes):
        if len(items) <= size:  # one batch: the requests checked are the batch, checked once
            checked = [as_request(item, index) for index, item in enumerate(items)]
            ctx.check_open()
            return encode_batch(ctx, checked, reinforce_duplicates=reinforce_duplicates).traces if checked else []
        for index, item in enumerate(items):
            as_request(item, index)
    ctx.check_open()
    out: list[MemoryTrace] = []
    for start, chunk in _chunks(items, size):
        out += encode_batch(ctx, [as_request(item, start + i) for i, item in enumerate(chunk)],
                            reinforce_duplicates=reinforce_duplicates).traces
    return out


def _chunks(items: Iterable[Any], size: int) -> Iterator[tuple[int, list[Any]]]:
    """(index of the first item, the items) per `size` items, reading `items` lazily."""
    iterator = iter(items)
    start = 0
    while chunk := list(itertools.islice(iterator, size)):
        yield start, chunk
        start += len(chunk)
