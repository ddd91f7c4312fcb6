"""Indexing what the graph holds unindexed: `repair()` after a lost vector or a failed
upsert, and an import once all of its traces are in the graph (so that each turn's
previous turn is there to embed it with, whatever order the backup lists them in); and
embedding every memory again (`repair(reembed=True)`), for vectors an older version or
another setting made."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cogmem_graph.filters import (
    FOREVER_MS,
        PAYLOAD_ENTITIES,
    PAYLOAD_METADATA,
    PAYLOAD_SOURCE_TYPE,
    PAYLOAD_TAGS,
    PAYLOAD_VALID_FROM,
    PAYLOAD_VALID_UNTIL,
)
from cogmem_graph.lexical import bm25_document_vector
from cogmem_graph.model import MemoryTrace, entity_key
from cogmem_graph.vectors.port import VectorPoint

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

INDEX_BATCH = 500


def filter_payload(trace: MemoryTrace) -> dict:
    """What a memory's vector carries so a filtered search is filtered in the vector index."""
    return {
        PAYLOAD_TAGS: list(trace.tags), PAYLOAD_SOURCE_TYPE: trace.source_type.value,
        PAYLOAD_VALID_FROM: trace.valid_from if trace.valid_from is not None else trace.created_at,
        PAYLOAD_VALID_UNTIL: trace.valid_until if trace.valid_until is not None else FOREVER_MS,
        PAYLOAD_ENTITIES: list(dict.fromkeys(entity_key(n) for n in trace.entities)),
        PAYLOAD_METADATA: dict(trace.metadata),
    }


def point_for(trace: MemoryTrace, dense: list[float], *, active: bool = True,
              sentences: list[list[float]] | None = None) -> VectorPoint:
    """The vector point of a memory: its dense vector, its BM25 words, its sentences' vectors
    (when it has them) and its filter payload."""
    return VectorPoint(trace_id=trace.id, scope_key=trace.scope_key, type=trace.type.value,
                       created_at=trace.created_at, dense=dense, sparse=bm25_document_vector(trace.content),
                       active=active, content_hash=trace.content_hash, payload=filter_payload(trace),
                       sentences=sentences)


def index_unindexed(ctx: MemoryContext, *, batch_size: int = INDEX_BATCH,
                    on_batch: Callable[[int], None] | None = None) -> int:
    """Embed and index every trace the graph holds with `indexed = false` (all scopes: an
    owner's operation), a batch at a time; the number indexed."""
    done = 0
    while pending := ctx.graph.unindexed_traces(limit=batch_size):
        _index(ctx, pending)
        done += len(pending)
        if on_batch:
            on_batch(len(pending))
    return done


def reembed_all(ctx: MemoryContext, *, batch_size: int = INDEX_BATCH,
                on_batch: Callable[[int], None] | None = None) -> int:
    """Embed every trace of the store again (all scopes, active or not: an owner's
    operation) and replace its vector point, a batch at a time in id order; the number
    embedded. Each point is replaced whole, so a memory is searchable throughout. A trace
    forgotten while its batch was embedded loses the point this wrote (the graph is the
    source of truth); one deactivated meanwhile is set right by `repair()`'s reconciliation."""
    done, after = 0, ""
    while rows := ctx.graph.export_page("traces", after=after, limit=batch_size, scope_keys=None):
        traces = [MemoryTrace.from_graph_props(row["trace"]) for row in rows]
        after = traces[-1].id
        _index(ctx, traces)
        ids = [t.id for t in traces]
        present = ctx.graph.trace_index_state(ids)
        gone = [i for i in ids if i not in present]
        if gone:
            ctx.vectors.delete(gone)
        done += len(traces)
        if on_batch:
            on_batch(len(traces))
        if len(rows) < batch_size:
            break
    return done


def _index(ctx: MemoryContext, traces: list[MemoryTrace]) -> None:
    """Embed these traces (with their conversation's context) and write their points whole,
    then mark them indexed."""
    # Here, not at the top: governance and consolidation import this module for
    # `filter_payload` and `point_for`, and must not bring numpy to every command.
    from cogmem_graph.write.context_vectors import embed_for_index

    vectors, sentences = embed_for_index(ctx, traces)
    ctx.vectors.upsert([point_for(t, v, active=t.is_active, sentences=sentences[i] if sentences else None)
                        for i, (t, v) in enumerate(zip(traces, vectors, strict=True))])
    ctx.graph.set_indexed([t.id for t in traces], True)
