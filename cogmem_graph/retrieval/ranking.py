"""The read path's scoring stage, `rank` (`Ranked`): every recallable candidate scored (the
six signals, HEXACO-modulated; the category and version rules), best first, with what it was
scored with (`Scoring`), which each returned memory's explanation (`ScoreComposition`) reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cogmem_graph.cognition.decay import current_strengths
from cogmem_graph.cognition.scoring import (
    RecallKind,
    Signals,
    SignalTable,
    composite_scores,
    emotional_congruences,
    importance_signals,
    modulated_weights,
    prior_weighted_scores,
    recency_signals,
    signal_contributions,
    tip_of_tongue_mask,
)
from cogmem_graph.cognition.validity import expired, held_at
from cogmem_graph.config.query import IntentRoute
from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.graph.port import TraceVitals
from cogmem_graph.language.query_intent import asks_about_self
from cogmem_graph.model import MemoryCategory, MemoryTrace, Mood
from cogmem_graph.results import ScoreComposition, ScoredTrace
from cogmem_graph.retrieval.ask import NOW, Ask, When
from cogmem_graph.retrieval.candidates import Expanded, Fused, Searched

if TYPE_CHECKING:
    from cogmem_graph.config.retrieval import SignalWeights
    from cogmem_graph.context import MemoryContext


@dataclass(frozen=True)
class Scoring:
    """What one question's candidates were scored with: the explanation each returned memory
    carries (`ScoreComposition`) is read from here, not worked out again."""

    scoring: str
    weights: SignalWeights
    prior_weight: float
    fused_rank: dict[str, int]
    table: SignalTable
    """The six signals, one row per candidate ranked."""
    base: list[float]
    """The score the signals alone gave each row, before the category and version rules."""


@dataclass(frozen=True)
class Candidate:
    """A ranked candidate before its whole trace is loaded."""

    vitals: TraceVitals
    score: float
    row: int
    """Its row in `how.table`."""
    sources: frozenset[str]
    how: Scoring

    @property
    def signals(self) -> Signals:
        return self.how.table.row(self.row)

    def scored(self, trace: MemoryTrace) -> ScoredTrace:
        """The returned form (signals as a dict, sources sorted, how the score was made): built
        only for what is returned."""
        signals = self.signals
        how = self.how
        composition = ScoreComposition(
            scoring=how.scoring, weights=how.weights.as_dict(),
            contributions=signal_contributions(signals, how.weights, how.scoring, how.prior_weight),
            base=how.base[self.row], fused_rank=how.fused_rank.get(self.vitals.id), prior_weight=how.prior_weight)
        return ScoredTrace(trace, self.score, signals.as_dict(), tuple(sorted(self.sources)), composition)


Scored = list[tuple[Candidate, RecallKind]]
"""Candidates best first, each with how it would be recalled."""


@dataclass(frozen=True)
class Ranked:
    """Every recallable candidate scored, best first."""

    scored: Scored
    how: Scoring


def rank(ctx: MemoryContext, ask: Ask, route: IntentRoute, searched: Searched, fused: Fused, expanded: Expanded,
         now: int, mood: Mood) -> Ranked:
    """Every recallable candidate scored (the six signals, the category and version rules),
    best first, as (candidate, recall kind) pairs."""
    versions = expanded.versions
    cosine = searched.cosine
    # Forgetting is about the present: a question about the past may find dormant memories.
    recallable = dormant_filter(ctx.config.retention, fused.ids, cosine, {n for _, n in versions},
                                about_asker=asks_about_self(ask.query)) if ask.when == NOW else (lambda v: True)
    valid = validity_filter(ctx, ask.when, now, current_only=not expanded.history,
                            replaced={o for o, _ in versions})
    vitals = expanded.vitals
    ranked = [vitals[tid] for tid in expanded.ids if tid in vitals and recallable(vitals[tid]) and valid(vitals[tid])]
    table, scores, tip_of_tongue, weights = _score(ctx, ranked, expanded.relevance, expanded.activation, cosine,
                                                   mood, now)
    how = Scoring(ctx.config.retrieval.scoring, weights, ctx.config.retrieval.prior_weight,
                  {tid: rank for rank, tid in enumerate(fused.ids, 1)}, table, scores)
    boosts = _category_boosts(ctx, ask.query, route)
    if boosts:
        scores = _boost_categories(ranked, scores, boosts)
    if versions:
        scores = current_first([v.id for v in ranked], scores, versions, ctx.config.retrieval.current_first_margin)
    sources = expanded.sources
    scored = [
        (Candidate(v, score, i, sources[v.id], how), RecallKind.TIP_OF_TONGUE if tot else RecallKind.RECALLED)
        for i, (v, score, tot) in enumerate(zip(ranked, scores, tip_of_tongue, strict=True))
    ]
    scored.sort(key=lambda pair: (-pair[0].score, pair[0].vitals.id))
    return Ranked(scored, how)


def _score(
    ctx: MemoryContext, ranked: list[TraceVitals], relevance: dict[str, float], activation: dict[str, float],
    cosine: dict[str, float], mood: Mood, now: int,
) -> tuple[SignalTable, list[float], list[bool], SignalWeights]:
    """The six signals, composite score and tip-of-the-tongue flag of every candidate,
    computed over arrays (one element per candidate), and the weights they were scored with."""
    cfg = ctx.config.retrieval
    ids = [v.id for v in ranked]

    def column(values) -> np.ndarray:
        return np.fromiter(values, np.float64, len(ranked))

    last_accessed = np.fromiter((v.last_accessed_at for v in ranked), np.int64, len(ranked))
    confidence = column(v.confidence for v in ranked)
    encoding = column(v.encoding_strength for v in ranked)
    strength = current_strengths(encoding, column(v.stability for v in ranked), last_accessed, now,
                                 ctx.config.decay)
    # What decay never forgets does not fade either (the second reference: no decay for
    # preferences, identities, corrections), nor does a pinned memory.
    permanent = set(ctx.config.retention.permanent_categories)
    lasting = np.fromiter((v.pinned or v.category in permanent for v in ranked), bool, len(ranked))
    strength = np.where(lasting, encoding, strength)
    table = SignalTable(
        strength=strength,
        similarity=column(relevance.get(tid, 0.0) for tid in ids),
        recency=recency_signals(now - last_accessed, half_life_ms=cfg.recency_half_life_ms),
        emotional=emotional_congruences(mood.valence, column(v.valence for v in ranked)),
        activation=column(activation.get(tid, 0.0) for tid in ids),
        importance=importance_signals(confidence, config=cfg),
    )
    weights = modulated_weights(cfg.weights, ctx.traits, config=cfg)
    scores = prior_weighted_scores(table, weights, cfg.prior_weight) if cfg.scoring == "prior" \
        else composite_scores(table, weights)
    tip_of_tongue = tip_of_tongue_mask(column(cosine.get(tid, 0.0) for tid in ids), strength, confidence, config=cfg)
    return table, scores.tolist(), tip_of_tongue.tolist(), weights


def dormant_filter(retention: RetentionConfig, fused_ids: list[str], cosine: dict[str, float],
                   always: set[str], *, about_asker: bool = False):
    """Which candidates may be ranked: every active one; a dormant one only when the query
    matches it strongly (among the best `dormant_recall_rank` by relevance, or by cosine above
    `dormant_recall_similarity`), or when it is the current version of a matched memory. On a
    question about the asker, a dormant memory that states something (not small talk) also
    joins when it is among the best `dormant_recall_rank_about_self`: its category counts,
    not only how well its words match."""
    strong = set(fused_ids[: retention.dormant_recall_rank])
    stated = set(fused_ids[: retention.dormant_recall_rank_about_self]) if about_asker else set()

    def recallable(v: TraceVitals) -> bool:
        return (not v.dormant or v.id in strong or v.id in always
                or (v.id in stated and v.category != MemoryCategory.OTHER)
                or cosine.get(v.id, -1.0) > retention.dormant_recall_similarity)
    return recallable


def validity_filter(ctx: MemoryContext, when: When, now: int, *, current_only: bool, replaced: set[str]):
    """Which candidates the asked-for state holds. At a point in time: what held then. Now
    (unless the route asks for history, as temporal questions do): not what has expired,
    except a replaced memory whose newer version is a candidate too (it ranks
    just below it, reachable for "what did I say before?"). The timeline: everything."""
    if when.as_of is not None:
        at = when.as_of

        def held_then(v: TraceVitals) -> bool:
            return held_at(v.valid_from if v.valid_from is not None else v.created_at, v.valid_until, at)
        return held_then
    if when.timeline or not current_only or not ctx.config.validity.current_state:
        return lambda v: True
    return lambda v: v.id in replaced or not expired(v.valid_until, now)


def _category_boosts(ctx: MemoryContext, query: str, route: IntentRoute) -> dict[str, float]:
    """Score gain per memory category: the route's (preference questions: stated preferences
    and corrections first) and, for a question about the asker, what they stated about
    themselves."""
    qcfg = ctx.config.retrieval.query
    gains = dict.fromkeys(route.boost_categories, route.category_boost) if route.category_boost else {}
    if qcfg.self_boost and asks_about_self(query):
        for category in qcfg.self_categories:
            gains[category] = max(gains.get(category, 0.0), qcfg.self_boost)
    return {str(category): gain for category, gain in gains.items() if gain}


def _boost_categories(ranked: list[TraceVitals], scores: list[float], gains: dict[str, float]) -> list[float]:
    """Score × (1 + gain) for each memory of a boosted category."""
    return [score * (1.0 + gains.get(v.category, 0.0)) for v, score in zip(ranked, scores, strict=True)]


def current_first(ranked: Sequence[str], scores: list[float],
                  versions: Sequence[tuple[str, str]], margin: float) -> list[float]:
    """Each memory scores at least `margin` (relative) below its newer version (chains settle
    in a few passes), so the current fact comes first and the one it replaced stays reachable
    after it."""
    index = {tid: i for i, tid in enumerate(ranked)}
    pairs = [(index[o], index[n]) for o, n in versions if o in index and n in index and o != n]
    both_ways = set(pairs)
    pairs = [(o, n) for o, n in pairs if (n, o) not in both_ways]  # each replaces the other: neither is sure
    out = list(scores)
    keep = 1.0 - margin
    for _ in range(len(pairs) + 1):
        changed = False
        for old, new in pairs:
            if out[old] > out[new] * keep:
                out[old] = out[new] * keep
                changed = True
        if not changed:
            break
    return out
