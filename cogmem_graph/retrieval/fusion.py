"""Reciprocal rank fusion: merge ranked candidate lists without comparing their scores.

BM25 scores and cosine similarities live on different scales; RRF only uses each
candidate's rank in each list: score = Σ weight / (k + rank + 1), rank from 0,
k = 60 by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.errors import InvalidArgument

if TYPE_CHECKING:
    from cogmem_graph.config.retrieval import RetrievalConfig
    from cogmem_graph.vectors.port import VectorHit


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], *, k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Fused (id, score) pairs, best first; ties keep first-seen order."""
    if k < 0:
        raise InvalidArgument(f"k must be >= 0, got {k!r}", argument="k")
    if weights is not None and len(weights) != len(rankings):
        raise InvalidArgument("weights must have one entry per ranking", argument="weights")
    scores: dict[str, float] = {}
    for index, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[index]
        seen: set[str] = set()
        for rank, item in enumerate(ranking):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def weighted_score_fusion(
    scored_lists: Sequence[Sequence[tuple[str, float]]], weights: Sequence[float]
) -> list[tuple[str, float]]:
    """Fused (id, relevance in [0, 1]) pairs, best first.

    Each list's scores are divided by that list's best score (negative scores count as
    0), weighted, summed, and divided by the total weight of the non-empty lists — so
    1.0 means best in every list. Unlike RRF it keeps how far apart the scores are:
    a BM25 hit far ahead of the rest stays far ahead.
    """
    if len(weights) != len(scored_lists):
        raise InvalidArgument("weights must have one entry per list", argument="weights")
    if any(w < 0 for w in weights):
        raise InvalidArgument("weights must be >= 0", argument="weights")
    totals: dict[str, float] = {}
    used = 0.0
    for weight, items in zip(weights, scored_lists, strict=True):
        best = max((s for _, s in items), default=0.0)
        if best <= 0.0 or weight == 0.0:
            continue
        used += weight
        for item, score in items:
            totals[item] = totals.get(item, 0.0) + weight * max(0.0, score) / best
    if used == 0.0:
        return []
    return sorted(((item, total / used) for item, total in totals.items()), key=lambda pair: -pair[1])


def fuse_hits(dense: Sequence[VectorHit], lexical: Sequence[VectorHit], cfg: RetrievalConfig, *,
              lexical_weight: float | None = None, dense_weight: float | None = None,
              extra: Sequence[tuple[Sequence[VectorHit], float]] = ()) -> list[tuple[str, float]]:
    """Dense and BM25 hits fused as `cfg.fusion` says, relevance in [0, 1], best first: the
    read path and the multi-hop seeds rank text matches alike. RRF is put on an absolute
    scale (1 = first in every list). An intent's route may set its own weights.

    `extra`: further dense lists and their weights (`RetrievalConfig.gather`: the query
    without its names, the memories mentioning its entities)."""
    if cfg.fusion == "score":
        fused = weighted_score_fusion(
            [[(h.trace_id, h.score) for h in lexical], [(h.trace_id, h.score) for h in dense]],
            [cfg.lexical_weight if lexical_weight is None else lexical_weight,
             cfg.dense_weight if dense_weight is None else dense_weight],
        )
        fused = dense_floor(fused, dense, cfg.dense_floor) if cfg.dense_floor else fused
        for hits, weight in extra:
            if hits and weight:
                fused = with_relative_list(fused, hits, weight)
        return fused
    lists = [([h.trace_id for h in dense], 1.0), ([h.trace_id for h in lexical], 1.0)]
    lists += [([h.trace_id for h in hits], weight) for hits, weight in extra if weight]
    lists = [(r, w) for r, w in lists if r]
    fused = reciprocal_rank_fusion([r for r, _ in lists], k=cfg.rrf_k, weights=[w for _, w in lists])
    top = sum(w for _, w in lists) / (cfg.rrf_k + 1)
    return [(tid, min(1.0, score / top)) for tid, score in fused]


def with_relative_list(fused: list[tuple[str, float]], hits: Sequence[VectorHit],
                       weight: float) -> list[tuple[str, float]]:
    """(fused + weight × where each hit's score lies between the list's worst (0) and best
    (1)) / (1 + weight): a further list joins score fusion without changing how the first
    ones weigh against each other, relevance staying in [0, 1]."""
    best = max((h.score for h in hits), default=0.0)
    low = min((h.score for h in hits), default=0.0)
    span = best - low
    extra = {h.trace_id: (h.score - low) / span if span > 0 else 1.0 for h in hits}
    scores = {tid: score for tid, score in fused}
    out = {tid: (scores.get(tid, 0.0) + weight * extra.get(tid, 0.0)) / (1.0 + weight)
           for tid in dict.fromkeys([*scores, *extra])}
    return sorted(out.items(), key=lambda pair: -pair[1])


def dense_floor(fused: list[tuple[str, float]], dense: Sequence[VectorHit],
                floor: float) -> list[tuple[str, float]]:
    """Relevance at least `floor` x where the hit's cosine lies between the pool's worst (0)
    and best (1) dense hit.

    Score fusion weighs BM25 above the cosine (names and dates carry chat recall), so a
    paraphrase that shares no word with the query scores at most the dense weight's share,
    below any weak word match; the floor keeps a close paraphrase among the best. Measured
    from the pool's worst cosine rather than from 0, because embedders such as MiniLM put
    unrelated text at 0.1-0.3, which would give every hit a floor."""
    if not dense:
        return fused
    best = max(h.score for h in dense)
    low = min(h.score for h in dense)
    if best <= low:
        return fused
    scores = dict(fused)
    for h in dense:
        scores[h.trace_id] = max(scores.get(h.trace_id, 0.0), floor * max(0.0, h.score - low) / (best - low))
    return sorted(scores.items(), key=lambda pair: -pair[1])
