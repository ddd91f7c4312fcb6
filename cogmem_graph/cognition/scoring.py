"""Six-signal retrieval scoring and the metacognitive signals around it.

Pure functions, one per formula, so the retrieval layer can compose them and the
tests can check each against hand arithmetic:

- `modulated_weights`: HEXACO traits tilt the six weights, then renormalise to 1;
- `recency_signal`, `emotional_congruence`, `importance_signal`: the signals
  the reference defines by formula (strength, similarity and activation come
  from decay, the vector index and the graph respectively);
- `composite_score`: weighted sum of clamped signals, clamped to [0, 1] (the
  reference's additive form);
- `prior_weighted_score`: relevance (similarity, activation) times a bounded prior
  from the query-independent signals (strength, recency, emotion, importance), so
  a strong memory never outranks a relevant one on strength alone (the default);
- `classify_recall`: full recall or tip-of-the-tongue (similar but weak);
- `feeling_of_knowing` / `detect_feeling_of_knowing`: "I should know this"
  signals for candidates that scored in the partial band but missed the cut.

`SignalTable`, `recency_signals`, `emotional_congruences`, `importance_signals`,
`composite_scores`, `prior_weighted_scores` and `tip_of_tongue_mask` are the same formulas over arrays, one
element per candidate: what retrieval uses to rank ~100 candidates at once.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields
from enum import StrEnum

import numpy as np

from cogmem_graph.config.retrieval import SIGNAL_NAMES, RetrievalConfig, SignalWeights
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import Hexaco


def _clamp01(value: float) -> float:
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def _finite(value: float, name: str) -> float:
    kind = type(value)
    if (kind is float or kind is int) and math.isfinite(value):  # the common case, checked cheaply
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgument(f"{name} must be a number, got {type(value).__name__}", argument=name)
    if not math.isfinite(value):
        raise InvalidArgument(f"{name} must be a finite number, got {value!r}", argument=name)
    return float(value)


@dataclass(frozen=True, slots=True)
class Signals:
    """The six per-candidate signals, each nominally in [0, 1].

    Values outside [0, 1] (a negative cosine, an uncalibrated rerank score) are
    accepted and clamped by `composite_score`; NaN and infinities are refused
    here so a bad signal fails where it was produced.
    """

    strength: float = 0.0
    similarity: float = 0.0
    recency: float = 0.0
    emotional: float = 0.0
    activation: float = 0.0
    importance: float = 0.0

    def __post_init__(self) -> None:
        for name in SIGNAL_NAMES:
            object.__setattr__(self, name, _finite(getattr(self, name), f"signals.{name}"))

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SIGNAL_NAMES}


# ---------------------------------------------------------------- weights


def trait_factor(trait: float, gain: float) -> float:
    """Multiplier for a weight driven by one trait: 1 at the neutral 0.5,
    1 + gain at 1, 1 - gain at 0 (never negative)."""
    return max(0.0, 1.0 + gain * (2.0 * trait - 1.0))


def modulated_weights(
    weights: SignalWeights | None = None,
    traits: Hexaco | None = None,
    *,
    config: RetrievalConfig | None = None,
) -> SignalWeights:
    """Weights tilted by personality and renormalised to sum 1.

    Openness scales graph activation (concept-adjacent recall), conscientiousness
    scales importance (rule-following recall), emotionality scales emotional
    congruence (low emotionality flattens mood bias). Without traits the weights
    are only renormalised.
    """
    cfg = config or RetrievalConfig()
    base = (weights or cfg.weights).as_dict()
    if traits is not None:
        gain = cfg.hexaco_weight_gain
        base["activation"] *= trait_factor(traits.openness, gain)
        base["importance"] *= trait_factor(traits.conscientiousness, gain)
        base["emotional"] *= trait_factor(traits.emotionality, gain)
        if sum(base.values()) <= 0.0:  # every positive weight was scaled to zero
            base = (weights or cfg.weights).as_dict()
    total = sum(base.values())
    return SignalWeights(**{name: value / total for name, value in base.items()})


# ---------------------------------------------------------------- signals


def recency_signal(elapsed_ms: float, *, half_life_ms: float | None = None) -> float:
    """e^(-elapsed / half-life), in (0, 1]: 1 for just-touched traces.

    The reference writes the recency boost as 0.2 * e^(-elapsed / half-life) and
    normalises it by 0.2; this returns the normalised value. A timestamp in the
    future (negative elapsed) counts as now.
    """
    half_life = RetrievalConfig().recency_half_life_ms if half_life_ms is None else half_life_ms
    elapsed = _finite(elapsed_ms, "elapsed_ms")
    if _finite(half_life, "half_life_ms") <= 0.0:
        raise InvalidArgument("half_life_ms must be positive", argument="half_life_ms")
    return math.exp(-max(0.0, elapsed) / half_life)


def emotional_congruence(mood_valence: float, trace_valence: float) -> float:
    """max(0, mood valence x trace valence), in [0, 1]: memories whose valence
    has the agent's current sign come to mind more easily (Bower, 1981).

    The reference's 0.25-scaled bias divided by 0.25 is this product. Pass a
    mood valence of 0 for neutral-mood (factual) lookups.
    """
    product = _finite(mood_valence, "mood_valence") * _finite(trace_valence, "trace_valence")
    return _clamp01(product)


def importance_signal(confidence: float, *, config: RetrievalConfig | None = None) -> float:
    """base + (1 - base) x confidence (0.5 + 0.5 x confidence by default), so an
    unverified memory keeps half its importance rather than vanishing."""
    base = (config or RetrievalConfig()).importance_base
    return base + (1.0 - base) * _clamp01(_finite(confidence, "confidence"))


def composite_score(signals: Signals, weights: SignalWeights | None = None) -> float:
    """Σ weight x clamp01(signal), clamped to [0, 1].

    Pass weights from `modulated_weights` (they sum to 1); unnormalised weights
    are still safe because the result is clamped.
    """
    w = weights or SignalWeights()
    total = (
        w.strength * _clamp01(signals.strength)
        + w.similarity * _clamp01(signals.similarity)
        + w.recency * _clamp01(signals.recency)
        + w.emotional * _clamp01(signals.emotional)
        + w.activation * _clamp01(signals.activation)
        + w.importance * _clamp01(signals.importance)
    )
    return _clamp01(total)


RELEVANCE_SIGNALS: tuple[str, ...] = ("similarity", "activation")
"""What depends on the query: how well a memory matches it, directly or through the graph."""
PRIOR_SIGNALS: tuple[str, ...] = ("strength", "recency", "emotional", "importance")
"""What does not: how accessible a memory is, whatever was asked."""


def _part_weights(weights: SignalWeights, names: tuple[str, ...]) -> dict[str, float]:
    """The weights of one part, renormalised to sum 1 (equal when all are zero)."""
    raw = {name: getattr(weights, name) for name in names}
    total = sum(raw.values())
    return {n: (v / total if total > 0 else 1.0 / len(names)) for n, v in raw.items()}


def prior_weighted_score(signals: Signals, weights: SignalWeights | None = None, prior_weight: float = 0.3) -> float:
    """relevance x (1 - p + p x prior), in [0, 1].

    relevance: the weighted mean of the query-dependent signals; prior: the weighted mean
    of the others. A memory that does not match the query scores 0 however strong it is,
    and the prior can lower a matching one's score by at most the fraction p.
    """
    w = weights or SignalWeights()
    p = _clamp01(_finite(prior_weight, "prior_weight"))
    relevance = sum(v * _clamp01(getattr(signals, n)) for n, v in _part_weights(w, RELEVANCE_SIGNALS).items())
    prior = sum(v * _clamp01(getattr(signals, n)) for n, v in _part_weights(w, PRIOR_SIGNALS).items())
    return _clamp01(relevance * (1.0 - p + p * prior))


def signal_contributions(signals: Signals, weights: SignalWeights, scoring: str,
                         prior_weight: float = 0.3) -> dict[str, float]:
    """What each signal added to `composite_score` or `prior_weighted_score`: the terms of
    the same sum, so they add up to the score (before its clamp), for explaining a ranking.

    Prior scoring is relevance x (1 - p) + relevance x p x prior: a relevance signal adds its
    weighted value x (1 - p), a prior signal its weighted value x relevance x p.
    """
    if scoring != "prior":
        return {n: getattr(weights, n) * _clamp01(getattr(signals, n)) for n in SIGNAL_NAMES}
    p = _clamp01(_finite(prior_weight, "prior_weight"))
    rel = {n: v * _clamp01(getattr(signals, n)) for n, v in _part_weights(weights, RELEVANCE_SIGNALS).items()}
    relevance = sum(rel.values())
    out = {n: v * (1.0 - p) for n, v in rel.items()}
    out.update({n: relevance * p * v * _clamp01(getattr(signals, n))
                for n, v in _part_weights(weights, PRIOR_SIGNALS).items()})
    return {n: out[n] for n in SIGNAL_NAMES}


# ---------------------------------------------------------------- many candidates at once
#
# Retrieval ranks ~100 candidates per query. The forms below compute the same formulas
# over arrays (one element per candidate); the scalar forms above stay the reference the
# tests compare them with.


@dataclass(frozen=True)
class SignalTable:
    """The six signals of many candidates, one array each, all the same length.
    NaN and infinities are refused, as `Signals` refuses them."""

    strength: np.ndarray
    similarity: np.ndarray
    recency: np.ndarray
    emotional: np.ndarray
    activation: np.ndarray
    importance: np.ndarray

    def __post_init__(self) -> None:
        lengths = set()
        for f in fields(self):
            array = np.asarray(getattr(self, f.name), dtype=np.float64)
            if not np.isfinite(array).all():
                raise ValueError(f"signals.{f.name} must hold finite numbers")
            object.__setattr__(self, f.name, array)
            lengths.add(array.shape)
        if len(lengths) > 1:
            raise ValueError(f"every signal needs one value per candidate, got shapes {sorted(lengths)}")

    def row(self, index: int) -> Signals:
        """One candidate's signals."""
        return Signals(**{name: float(getattr(self, name)[index]) for name in SIGNAL_NAMES})


def recency_signals(elapsed_ms: np.ndarray, *, half_life_ms: float) -> np.ndarray:
    """`recency_signal` of many candidates."""
    if _finite(half_life_ms, "half_life_ms") <= 0.0:
        raise InvalidArgument("half_life_ms must be positive", argument="half_life_ms")
    elapsed = np.asarray(elapsed_ms, dtype=np.float64)
    return np.exp(-np.maximum(0.0, elapsed) / half_life_ms)


def emotional_congruences(mood_valence: float, trace_valences: np.ndarray) -> np.ndarray:
    """`emotional_congruence` of many traces with one mood."""
    return np.clip(_finite(mood_valence, "mood_valence") * np.asarray(trace_valences, dtype=np.float64), 0.0, 1.0)


def importance_signals(confidences: np.ndarray, *, config: RetrievalConfig | None = None) -> np.ndarray:
    """`importance_signal` of many candidates."""
    base = (config or RetrievalConfig()).importance_base
    return base + (1.0 - base) * np.clip(np.asarray(confidences, dtype=np.float64), 0.0, 1.0)


def composite_scores(signals: SignalTable, weights: SignalWeights | None = None) -> np.ndarray:
    """`composite_score` of many candidates."""
    w = weights or SignalWeights()
    total = sum(getattr(w, name) * np.clip(getattr(signals, name), 0.0, 1.0) for name in SIGNAL_NAMES)
    return np.clip(total, 0.0, 1.0)


def prior_weighted_scores(signals: SignalTable, weights: SignalWeights | None = None,
                          prior_weight: float = 0.3) -> np.ndarray:
    """`prior_weighted_score` of many candidates."""
    w = weights or SignalWeights()
    p = _clamp01(_finite(prior_weight, "prior_weight"))
    relevance = sum(v * np.clip(getattr(signals, n), 0.0, 1.0) for n, v in _part_weights(w, RELEVANCE_SIGNALS).items())
    prior = sum(v * np.clip(getattr(signals, n), 0.0, 1.0) for n, v in _part_weights(w, PRIOR_SIGNALS).items())
    return np.clip(relevance * (1.0 - p + p * prior), 0.0, 1.0)


def tip_of_tongue_mask(
    similarity: np.ndarray, strength: np.ndarray, confidence: np.ndarray, *, config: RetrievalConfig | None = None
) -> np.ndarray:
    """`is_tip_of_tongue` of many candidates, as a boolean array."""
    cfg = config or RetrievalConfig()
    sim, strong, sure = (np.asarray(a, dtype=np.float64) for a in (similarity, strength, confidence))
    return (sim > cfg.tot_min_similarity) & ((strong < cfg.tot_max_strength) | (sure < cfg.tot_max_confidence))


# ---------------------------------------------------------------- tip of the tongue


class RecallKind(StrEnum):
    """How a candidate comes back: fully, or as a tip-of-the-tongue partial."""

    RECALLED = "recalled"
    TIP_OF_TONGUE = "tip_of_tongue"


def classify_recall(
    similarity: float,
    strength: float,
    confidence: float,
    *,
    config: RetrievalConfig | None = None,
) -> RecallKind:
    """Tip-of-the-tongue when the cue matches well (similarity > 0.6) but the
    memory is weak (strength < 0.3) or untrusted (confidence < 0.4): the agent
    almost remembers, and should ask for more cues instead of asserting it."""
    cfg = config or RetrievalConfig()
    sim = _finite(similarity, "similarity")
    weak = _finite(strength, "strength") < cfg.tot_max_strength
    unsure = _finite(confidence, "confidence") < cfg.tot_max_confidence
    if sim > cfg.tot_min_similarity and (weak or unsure):
        return RecallKind.TIP_OF_TONGUE
    return RecallKind.RECALLED


def is_tip_of_tongue(
    similarity: float, strength: float, confidence: float, *, config: RetrievalConfig | None = None
) -> bool:
    """Shorthand for `classify_recall(...) is RecallKind.TIP_OF_TONGUE`."""
    return classify_recall(similarity, strength, confidence, config=config) is RecallKind.TIP_OF_TONGUE
