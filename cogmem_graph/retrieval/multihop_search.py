"""`agent.multi_hop(query)`: pick the walk's seeds, then walk (`multihop_walk`).

The seeds are the read path's best matches, or the fused text matches alone
(`MultiHopConfig.seed_source`). A module of its own because the read path also
blends the walk into `retrieve`: the walk cannot import the read path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem_graph.retrieval.multihop_results import MultiHopResult
from cogmem_graph.retrieval.multihop_walk import query_entities, text_relevance, walk
from cogmem_graph.retrieval.read_path import Filtered, retrieve

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.filters import MemoryFilter


def multi_hop(ctx: MemoryContext, query: str, *, hops: int, top_k: int,
              where: MemoryFilter | None = None) -> MultiHopResult:
    """Multi-hop retrieval for the caller of `ctx` (arguments checked by the facade); `where`
    filters the seeds and every reached memory before the top-k cut."""
    filtered = Filtered.of(ctx, where)
    cfg = ctx.config.retrieval.multi_hop
    entities = query_entities(ctx, query)
    pool = max(cfg.seeds, top_k)
    if cfg.seed_source == "retrieve":
        found = retrieve(ctx, query, top_k=pool, record_access=False, where=where)
        relevance = {item.trace.id: item.score for item in found.traces}
    else:
        relevance = text_relevance(ctx, query, pool)
    if filtered is not None and relevance:
        relevance = {tid: relevance[tid] for tid in filtered.keep(ctx, list(relevance))}
    return walk(ctx, query, hops=hops, top_k=top_k, relevance=relevance, entities=entities,
                keep=(lambda ids: filtered.keep(ctx, ids)) if filtered is not None else None)
