"""Indexing what the graph holds unindexed: `repair()` after a lost vector or a failed
upsert, and an import once all of its traces are in the graph (so that each turn's
previous turn is there to embed it with, whatever order the backup lists them in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cogmem_graph.lexical import bm25_document_vector
from cogmem_graph.vectors.port import VectorPoint
from cogmem_graph.write.context_vectors import embed_for_index

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

INDEX_BATCH = 500


def index_unindexed(ctx: MemoryContext, *, batch_size: int = INDEX_BATCH,
                    on_batch: Callable[[int], None] | None = None) -> int:
    """Embed and index every trace the graph holds with `indexed = false` (all scopes: an
    owner's operation), a batch at a time; the number indexed."""
    done = 0
    while pending := ctx.graph.unindexed_traces(limit=batch_size):
        vectors = embed_for_index(ctx, pending)
        ctx.vectors.upsert([
            VectorPoint(trace_id=t.id, scope_key=t.scope_key, type=t.type.value, created_at=t.created_at,
                        dense=v, sparse=bm25_document_vector(t.content), active=t.is_active,
                        content_hash=t.content_hash)
            for t, v in zip(pending, vectors, strict=True)
        ])
        ctx.graph.set_indexed([t.id for t in pending], True)
        done += len(pending)
        if on_batch:
            on_batch(len(pending))
    return done
