"""Encoding: how strongly a new memory is stamped in, and how slowly it will fade.

Four mechanisms multiply into the initial strength S0:

* HEXACO attention weights: personality decides which content features are
  noticed (openness → novelty, conscientiousness → procedure, emotionality →
  emotion, extraversion → social, agreeableness → cooperation, honesty → ethics);
  the weighted features form the attention multiplier.
* Yerkes-Dodson: encoding is best at moderate arousal (inverted U).
* Mood congruence (Bower): content whose valence agrees with the mood sticks better.
* Flashbulb memories (Brown & Kulik): very intense moments get extra strength
  and much extra stability.

S0 = min(1, base · arousal boost · emotional boost · attention · congruence · flashbulb),
stability = base stability · (1 + 6·S0) · flashbulb stability multiplier.

Pure functions only: no clock, no I/O; every number comes from `EncodingConfig`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cogmem_graph.config.encoding import EncodingConfig, TraitWeight
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.features import ContentFeatures
from cogmem_graph.model import Hexaco, Mood

_DEFAULT_CONFIG = EncodingConfig()


def _cfg(config: EncodingConfig | None) -> EncodingConfig:
    return _DEFAULT_CONFIG if config is None else config


def _check(name: str, value: float, low: float, high: float) -> float:
    """Refuse NaN/inf and out-of-range inputs with an error that names the argument."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgument(f"{name} must be a finite number, got {value!r}", argument=name)
    if not low <= value <= high:
        raise InvalidArgument(f"{name} must be in [{low:g}, {high:g}], got {value!r}", argument=name)
    return float(value)


# ---------------------------------------------------------------- HEXACO -> attention weights


@dataclass(frozen=True)
class EncodingWeights:
    """Per-feature attention weights in [0, 1] derived from one personality."""

    novelty_attention: float
    procedural_attention: float
    emotional_sensitivity: float
    social_attention: float
    cooperative_attention: float
    ethical_attention: float


def trait_weight(trait: float, weight: TraitWeight) -> float:
    """One trait's attention weight: floor + gain · trait."""
    return weight.floor + weight.gain * _check("trait", trait, 0.0, 1.0)


def encoding_weights(traits: Hexaco, config: EncodingConfig | None = None) -> EncodingWeights:
    """Map HEXACO traits to attention weights, so personality shapes what gets noticed."""
    cfg = _cfg(config)
    return EncodingWeights(
        novelty_attention=trait_weight(traits.openness, cfg.novelty_attention),
        procedural_attention=trait_weight(traits.conscientiousness, cfg.procedural_attention),
        emotional_sensitivity=trait_weight(traits.emotionality, cfg.emotional_sensitivity),
        social_attention=trait_weight(traits.extraversion, cfg.social_attention),
        cooperative_attention=trait_weight(traits.agreeableness, cfg.cooperative_attention),
        ethical_attention=trait_weight(traits.honesty, cfg.ethical_attention),
    )


def attention_multiplier(
    weights: EncodingWeights, features: ContentFeatures, config: EncodingConfig | None = None
) -> float:
    """Composite attention: a base plus trait-weighted bonuses for each feature present.

    Feature scores scale their bonus (a boolean feature is 1.0). Contradictions and
    topic relevance are not trait-weighted: they draw attention whoever listens.
    """
    cfg = _cfg(config)
    m = cfg.attention_base
    m += weights.novelty_attention * cfg.novelty_bonus * features.novelty
    m += weights.procedural_attention * cfg.procedure_bonus * features.procedure
    m += weights.emotional_sensitivity * cfg.emotion_bonus * features.emotion
    m += weights.social_attention * cfg.social_bonus * features.social
    m += weights.cooperative_attention * cfg.cooperation_bonus * features.cooperation
    m += weights.ethical_attention * cfg.ethical_bonus * features.ethical
    m += cfg.contradiction_bonus * features.contradiction
    m += cfg.topic_relevance_bonus * features.topic_relevance
    return min(cfg.attention_cap, m)


# ---------------------------------------------------------------- arousal and emotion


def yerkes_dodson(arousal01: float, config: EncodingConfig | None = None) -> float:
    """Inverted-U arousal multiplier f(a) = max(floor, 1 - k·(a - optimum)²).

    Bored and panicked minds both encode poorly; the floor keeps a trace encodable.
    """
    cfg = _cfg(config)
    a = _check("arousal01", arousal01, 0.0, 1.0)
    centred = a - cfg.yerkes_dodson_optimum
    return max(cfg.yerkes_dodson_floor, 1.0 - cfg.yerkes_dodson_steepness * centred * centred)


def emotional_valence(
    content_sentiment: float, mood_valence: float, config: EncodingConfig | None = None
) -> float:
    """Valence stored on the trace: mostly the content's own sentiment, coloured by the mood."""
    cfg = _cfg(config)
    w = cfg.content_valence_weight
    s = _check("content_sentiment", content_sentiment, -1.0, 1.0)
    m = _check("mood_valence", mood_valence, -1.0, 1.0)
    return max(-1.0, min(1.0, w * s + (1.0 - w) * m))


def emotional_intensity(valence: float, arousal01: float) -> float:
    """How hard a moment hits, in [0, 1]: |valence| · arousal. Drives flashbulb and pruning protection."""
    return abs(_check("valence", valence, -1.0, 1.0)) * _check("arousal01", arousal01, 0.0, 1.0)


def emotional_boost(
    intensity: float, emotional_sensitivity: float, config: EncodingConfig | None = None
) -> float:
    """Strength multiplier for emotional moments: 1 + intensity · sensitivity · gain (≥ 1)."""
    cfg = _cfg(config)
    i = _check("intensity", intensity, 0.0, 1.0)
    s = _check("emotional_sensitivity", emotional_sensitivity, 0.0, 1.0)
    return 1.0 + i * s * cfg.emotional_boost_gain


def mood_congruence_boost(
    mood_valence: float,
    content_valence: float,
    emotional_sensitivity: float,
    config: EncodingConfig | None = None,
) -> float:
    """Bower's mood congruence: 1 + max(0, mood · content) · sensitivity · gain.

    Only agreement (both positive or both negative) boosts; disagreement never penalises.
    """
    cfg = _cfg(config)
    m = _check("mood_valence", mood_valence, -1.0, 1.0)
    c = _check("content_valence", content_valence, -1.0, 1.0)
    s = _check("emotional_sensitivity", emotional_sensitivity, 0.0, 1.0)
    return 1.0 + max(0.0, m * c) * s * cfg.mood_congruence_gain


def is_flashbulb(intensity: float, config: EncodingConfig | None = None) -> bool:
    """A flashbulb memory is one whose emotional intensity exceeds the threshold (strictly)."""
    return _check("intensity", intensity, 0.0, 1.0) > _cfg(config).flashbulb_threshold


# ---------------------------------------------------------------- strength and stability


def initial_strength(
    base: float,
    arousal_boost: float = 1.0,
    emotional_boost: float = 1.0,
    attention: float = 1.0,
    congruence_boost: float = 1.0,
    flashbulb_boost: float = 1.0,
) -> float:
    """Composite S0 = min(1, product of the factors), never below 0."""
    product = base * arousal_boost * emotional_boost * attention * congruence_boost * flashbulb_boost
    if not math.isfinite(product):
        raise ValueError(f"initial strength factors must be finite, product is {product!r}")
    return min(1.0, max(0.0, product))


def initial_stability(strength: float, flashbulb: bool, config: EncodingConfig | None = None) -> float:
    """Decay time constant in ms: stronger memories fade slower, flashbulb ones much slower."""
    cfg = _cfg(config)
    s = _check("strength", strength, 0.0, 1.0)
    multiplier = cfg.flashbulb_stability_multiplier if flashbulb else 1.0
    return cfg.base_stability_ms * (1.0 + s * cfg.stability_strength_factor) * multiplier


@dataclass(frozen=True)
class EncodingResult:
    """Everything encoding decides about a new trace, plus the factors for explanations."""

    strength: float
    """S0, in [0, 1]."""
    stability_ms: float
    flashbulb: bool
    valence: float
    """PAD snapshot to store on the trace (valence blended from content and mood)."""
    arousal: float
    dominance: float
    intensity: float
    arousal_boost: float
    emotional_boost: float
    attention: float
    congruence_boost: float
    flashbulb_boost: float


def compute_encoding(
    mood: Mood,
    traits: Hexaco,
    features: ContentFeatures,
    config: EncodingConfig | None = None,
    weights: EncodingWeights | None = None,
) -> EncodingResult:
    """Run the whole encoding model for one piece of content in one mood. `weights`: the
    traits' `encoding_weights` when the caller has them already (one per batch, not per text)."""
    cfg = _cfg(config)
    if weights is None:
        weights = encoding_weights(traits, cfg)
    arousal01 = mood.arousal01
    arousal_boost = yerkes_dodson(arousal01, cfg)
    valence = emotional_valence(features.sentiment, mood.valence, cfg)
    intensity = emotional_intensity(valence, arousal01)
    emo_boost = emotional_boost(intensity, weights.emotional_sensitivity, cfg)
    attention = attention_multiplier(weights, features, cfg)
    congruence = mood_congruence_boost(mood.valence, features.sentiment, weights.emotional_sensitivity, cfg)
    flashbulb = is_flashbulb(intensity, cfg)
    flashbulb_boost = cfg.flashbulb_strength_multiplier if flashbulb else 1.0
    strength = initial_strength(cfg.base_strength, arousal_boost, emo_boost, attention, congruence, flashbulb_boost)
    return EncodingResult(
        strength=strength,
        stability_ms=initial_stability(strength, flashbulb, cfg),
        flashbulb=flashbulb,
        valence=valence,
        arousal=mood.arousal,
        dominance=mood.dominance,
        intensity=intensity,
        arousal_boost=arousal_boost,
        emotional_boost=emo_boost,
        attention=attention,
        congruence_boost=congruence,
        flashbulb_boost=flashbulb_boost,
    )
