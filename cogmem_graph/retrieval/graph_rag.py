"""`agent.multi_hop(query)`: the read path's ranking and the walk's (`walk.py`), fused.

The read path ranks what the query says, gathering around the entities it names for every
question (`MultiHopConfig.gather_for`); its best matches seed the walk, which adds what is
connected to them. Reciprocal rank fusion weighted towards the read path keeps its head and
lets the walk fill the tail: alone, the walk ranked the answers the read path finds lower
(LoCoMo, docs/read_path.md). A global question answered from community summaries keeps
the walk's ranking, so the communities' members lead. Beside the read path, not in
`multihop/`: it is built on the read path, which blends the walk into `retrieve`, so the
walk's package never imports the read path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem_graph.retrieval.fusion import reciprocal_rank_fusion
from cogmem_graph.retrieval.multihop.results import MultiHopResult, QueryEntity
from cogmem_graph.retrieval.multihop.walk import (
    query_entities,
    spread,
    text_matches,
    text_relevance,
)
from cogmem_graph.retrieval.read_path import Filtered, retrieve

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.filters import MemoryFilter


def multi_hop(ctx: MemoryContext, query: str, *, hops: int, top_k: int,
              where: MemoryFilter | None = None) -> MultiHopResult:
    """Multi-hop retrieval for the caller of `ctx` (arguments checked by the facade); `where`
    filters the read path's results, the seeds and every reached memory before the top-k cut.

    Only seeds the query matches start the walk (`text_matches`): the read path fills its
    top k with the nearest memories whatever they are, and a walk seeded with those would
    hand back unrelated ones. For the same reason a read path result is returned only with an
    exact evidence path: the query matches it, the walk reached it, or it mentions an entity
    the query names. So fewer than `top_k` come back when the query reaches fewer."""
    filtered = Filtered.of(ctx, where)
    cfg = ctx.config.retrieval.multi_hop
    entities = query_entities(ctx, query)
    pool = max(cfg.seeds, top_k)
    read: list[tuple[str, float]] = []
    if cfg.seed_source == "retrieve":
        found = retrieve(ctx, query, top_k=pool, record_access=False, where=where, gather_for=cfg.gather_for)
        read = [(item.trace.id, item.score) for item in found.traces]
        relevance = dict(read)
    else:
        relevance = text_relevance(ctx, query, pool)
    if relevance:
        matched = text_matches(ctx, query, ctx.config.retrieval.pool_for(pool),
                               scope_keys=filtered.scope_keys if filtered else None,
                               where=filtered.payload if filtered else ())
        relevance = {tid: score for tid, score in relevance.items() if tid in matched}
    if filtered is not None and relevance:
        relevance = {tid: relevance[tid] for tid in filtered.keep(ctx, list(relevance))}
    walked = spread(ctx, query, hops=hops, relevance=relevance, entities=entities,
                    keep=(lambda ids: filtered.keep(ctx, ids)) if filtered is not None else None)
    walk_ids = [tid for tid, _ in walked.ranked()]
    if not read or walked.communities:  # a global question: the communities' members lead, as ranked
        return walked.result(ctx, walked.ranked()[:top_k], relevance)

    named = _named_paths(ctx, [tid for tid, _ in read if tid not in walked.scores], entities)
    with_paths = [tid for tid, _ in read if tid in walked.scores or tid in named]
    fused = reciprocal_rank_fusion([with_paths, walk_ids], k=cfg.fusion_k,
                                   weights=[cfg.read_weight, cfg.walk_weight])
    return walked.result(ctx, fused[:top_k], dict(read), named)


def _named_paths(ctx: MemoryContext, ids: list[str], entities: list[QueryEntity]) -> dict[str, list[tuple[str, str]]]:
    """For each of `ids` that mentions an entity the query names, its evidence chain (the
    query names the entity, the trace mentions it): one graph read."""
    if not ids or not entities:
        return {}
    order = [e.key for e in entities]
    out = {}
    for trace_id, keys in ctx.graph.traces_mentioning(ids, order, ctx.visible_scope_keys):
        key = min(keys, key=order.index)
        out[trace_id] = [("entity", key), ("trace", trace_id)]
    return out
