"""Encoding configuration: how hard a new memory is stamped in.

Reference values: base strength 0.5; HEXACO attention weights 0.3 + 0.7·O
(novelty), 0.3 + 0.7·C (procedure), 0.2 + 0.8·trait for emotionality,
extraversion, agreeableness and honesty; attention multiplier starting at
0.5 with bonuses of 0.15 (novelty, procedure, contradiction, topic relevance)
and 0.10 (emotion, social, cooperation, ethics), capped at 1; Yerkes-Dodson
f(a) = 1 - 4(a - 0.5)² floored at 0.3; mood-congruence gain 0.3; flashbulb
above intensity 0.8 with strength ×2 and stability ×5; stability =
base · (1 + 6·S0), base 1 h in the reference and 1 day by default (see RetentionConfig).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.config.graph import _Config


class TraitWeight(_Config):
    """Linear map from one HEXACO trait t in [0, 1] to an attention weight `floor + gain·t`.

    floor + gain must not exceed 1 so the weight stays in [0, 1] for every trait value.
    """

    floor: float = Field(ge=0.0, le=1.0, description="weight when the trait is 0")
    gain: float = Field(ge=0.0, le=1.0, description="added weight per unit of trait")

    @model_validator(mode="after")
    def _bounded(self) -> TraitWeight:
        if self.floor + self.gain > 1.0 + 1e-12:
            raise ValueError(f"floor + gain must be <= 1 (got {self.floor} + {self.gain})")
        return self


class EncodingConfig(_Config):
    """Every number the encoding model uses."""

    base_strength: float = Field(0.5, ge=0.0, le=1.0, description="strength before any modulation")

    # HEXACO -> attention weights
    novelty_attention: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.3, gain=0.7), description="from openness"
    )
    procedural_attention: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.3, gain=0.7), description="from conscientiousness"
    )
    emotional_sensitivity: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.2, gain=0.8), description="from emotionality"
    )
    social_attention: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.2, gain=0.8), description="from extraversion"
    )
    cooperative_attention: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.2, gain=0.8), description="from agreeableness"
    )
    ethical_attention: TraitWeight = Field(
        default_factory=lambda: TraitWeight(floor=0.2, gain=0.8), description="from honesty"
    )

    # attention multiplier: base plus a weighted bonus per detected content feature
    attention_base: float = Field(0.5, ge=0.0, le=1.0, description="attention before any feature bonus")
    attention_cap: float = Field(1.0, gt=0.0, le=2.0, description="upper bound of the attention multiplier")
    novelty_bonus: float = Field(0.15, ge=0.0, le=1.0)
    procedure_bonus: float = Field(0.15, ge=0.0, le=1.0)
    emotion_bonus: float = Field(0.10, ge=0.0, le=1.0)
    social_bonus: float = Field(0.10, ge=0.0, le=1.0)
    cooperation_bonus: float = Field(0.10, ge=0.0, le=1.0)
    ethical_bonus: float = Field(0.10, ge=0.0, le=1.0)
    contradiction_bonus: float = Field(
        0.15, ge=0.0, le=1.0, description="not trait-weighted: contradictions always draw attention")
    topic_relevance_bonus: float = Field(0.15, ge=0.0, le=1.0)

    # Yerkes-Dodson inverted U over arousal in [0, 1]
    yerkes_dodson_optimum: float = Field(0.5, ge=0.0, le=1.0, description="arousal at which encoding peaks")
    yerkes_dodson_steepness: float = Field(4.0, ge=0.0, le=100.0, description="k in 1 - k·(a - optimum)²")
    yerkes_dodson_floor: float = Field(0.3, ge=0.0, le=1.0, description="the curve never drops below this")

    # emotion
    content_valence_weight: float = Field(
        0.7, ge=0.0, le=1.0,
        description="trace valence = w·content sentiment + (1 - w)·mood valence",
    )
    emotional_boost_gain: float = Field(
        0.5, ge=0.0, le=10.0, description="emotional boost = 1 + intensity·sensitivity·gain"
    )
    mood_congruence_gain: float = Field(
        0.3, ge=0.0, le=10.0, description="congruence boost = 1 + max(0, mood·content)·sensitivity·gain"
    )

    # flashbulb memories (Brown & Kulik)
    flashbulb_threshold: float = Field(0.8, ge=0.0, le=1.0, description="intensity above which a memory is flashbulb")
    flashbulb_strength_multiplier: float = Field(2.0, ge=1.0, le=100.0)
    flashbulb_stability_multiplier: float = Field(5.0, ge=1.0, le=1000.0)

    # stability (time constant of decay)
    base_stability_ms: float = Field(
        float(MS_PER_DAY), gt=0.0,
        description="stability of a zero-strength trace, ms (the first reference: 1 h, which forgets an unrecalled "
        "statement within a day; the default: 1 day)",
    )
    stability_strength_factor: float = Field(
        6.0, ge=0.0, le=1000.0, description="stability = base · (1 + factor·S0) · flashbulb multiplier"
    )
