"""`agent.multi_hop(query)`: pick the walk's seeds, then walk (`multihop_walk`).

The seeds are the read path's best matches, or the fused text matches alone
(`MultiHopConfig.seed_source`). A module of its own because the read path also
blends the walk into `retrieve`: the walk cannot import the read path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem_graph.retrieval.multihop_results import MultiHopResult
from cogmem_graph.retrieval.multihop_walk import query_entities, text_matches, text_relevance, walk
from cogmem_graph.retrieval.read_path import Filtered, retrieve

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.filters import MemoryFilter


def multi_hop(ctx: MemoryContext, query: str, *, hops: int, top_k: int,
              where: MemoryFilter | None = None) -> MultiHopResult:
    """Multi-hop retrieval for the caller of `ctx` (arguments checked by the facade); `where`
    filters the seeds and every reached memory before the top-k cut.

    Only seeds the query matches start the walk (`text_matches`): the read path fills its
    top k with the nearest memories whatever they are, and a walk seeded with those would
    hand back unrelated ones. So fewer than `top_k` come back when the query reaches fewer."""
    filtered = Filtered.of(ctx, where)
    cfg = ctx.config.retrieval.multi_hop
    entities = query_entities(ctx, query)
    pool = max(cfg.seeds, top_k)
    if cfg.seed_source == "retrieve":
        found = retrieve(ctx, query, top_k=pool, record_access=False, where=where)
        relevance = {item.trace.id: item.score for item in found.traces}
    else:
        relevance = text_relevance(ctx, query, pool)
    if relevance:
        matched = text_matches(ctx, query, ctx.config.retrieval.pool_for(pool),
                               scope_keys=filtered.scope_keys if filtered else None,
                               where=filtered.payload if filtered else ())
        relevance = {tid: score for tid, score in relevance.items() if tid in matched}
    if filtered is not None and relevance:
        relevance = {tid: relevance[tid] for tid in filtered.keep(ctx, list(relevance))}
    return walk(ctx, query, hops=hops, top_k=top_k, relevance=relevance, entities=entities,
                keep=(lambda ids: filtered.keep(ctx, ids)) if filtered is not None else None)
