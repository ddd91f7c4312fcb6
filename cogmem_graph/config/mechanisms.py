"""Configuration of the eight cognitive mechanisms, one sub-model each.

Reference values (with the upstream mechanism defaults where the references give no
number):

- reconsolidation: drift 5 % of the PAD gap per retrieval, at most 0.4 total
  drift per trace, rate halved for perspective-encoded traces;
- retrieval-induced forgetting: competitors above cosine 0.7 lose 12 % of their
  stability, at most 5 per query;
- involuntary recall: 8 % chance per prompt assembly, memories 14+ days old with
  strength at least 0.15;
- feeling-of-knowing: partial-activation zone 0.3-0.7; FOK = 0.4·closeness to
  the cutoff + 0.3·similarity + 0.3·entity overlap; above 0.6 "high confidence";
- temporal gist: 60+ days old, fewer than 2 retrievals, strength ×0.8 on
  compression, at most 20 per cycle, 30-word extractive fallback;
- schema encoding: cosine 0.75 to a schema makes a trace congruent (×0.85),
  otherwise novel (×1.3);
- source-confidence decay: confidence fades faster for internally generated
  sources (user statement and tool result slowest, reflection fastest);
- emotion regulation: arousal above 0.8 is reappraised by 15 % per cycle
  (valence, arousal and intensity), at most 10 traces per cycle; traces still
  above the threshold are suppressed (strength ×0.9).

Guards shared by several mechanisms: flashbulb immunity at encoding strength
>= 0.9 (reconsolidation, RIF, temporal gist, emotion regulation) and
dead-trace protection below strength 0.1 (RIF).
"""

from __future__ import annotations

import math

from pydantic import Field, field_validator, model_validator

from cogmem_graph.clock import MS_PER_HOUR
from cogmem_graph.config.graph import _Config
from cogmem_graph.model import SourceType

FLASHBULB_STRENGTH = 0.9
"""Encoding strength at or above which a trace counts as flashbulb-grade (immune)."""

DEAD_STRENGTH = 0.1
"""Encoding strength below which a trace is nearly dead and not worth suppressing."""


class ReconsolidationConfig(_Config):
    """Retrieval re-opens a memory; the current mood bleeds into its emotional tone."""

    enabled: bool = True
    drift_rate: float = Field(
        0.05, ge=0.0, le=1.0, description="fraction of the PAD gap to the mood applied per retrieval")
    max_drift_per_trace: float = Field(
        0.4, ge=0.0, le=6.0, description="cap on the summed |ΔV|+|ΔA|+|ΔD| over a trace's lifetime"
    )
    perspective_drift_factor: float = Field(
        0.5, ge=0.0, le=1.0, description="drift-rate multiplier for perspective-encoded traces"
    )
    immune_strength: float = Field(
        FLASHBULB_STRENGTH, ge=0.0, le=1.0, description="traces at or above this encoding strength never drift"
    )


class RetrievalInducedForgettingConfig(_Config):
    """Retrieving one memory suppresses similar competitors that lost the race."""

    enabled: bool = True
    similarity_threshold: float = Field(
        0.7, ge=0.0, lt=1.0, description="a competitor must be more similar than this to be suppressed"
    )
    suppression_factor: float = Field(
        0.12, ge=0.0, lt=1.0, description="fraction of a competitor's stability removed"
    )
    max_suppressions_per_query: int = Field(5, ge=0, le=1000)
    immune_strength: float = Field(FLASHBULB_STRENGTH, ge=0.0, le=1.0, description="flashbulb immunity")
    min_strength: float = Field(
        DEAD_STRENGTH, ge=0.0, le=1.0, description="dead-trace protection: weaker traces are left alone"
    )


class InvoluntaryRecallConfig(_Config):
    """Now and then an old, unasked-for memory surfaces ("that reminds me of ...")."""

    enabled: bool = True
    probability: float = Field(0.08, ge=0.0, le=1.0, description="chance per prompt assembly")
    min_age_days: float = Field(14.0, ge=0.0, le=36_500.0, description="only memories held at least this long")
    min_strength: float = Field(0.15, ge=0.0, le=1.0, description="minimum encoding strength of a candidate")
    min_weight: float = Field(
        0.01, gt=0.0, le=1.0, description="selection weight floor, so emotionless memories can still surface"
    )


class FeelingOfKnowingConfig(_Config):
    """Tip-of-the-tongue signals for candidates that almost made the cut."""

    enabled: bool = True
    partial_activation_threshold: float = Field(
        0.3, ge=0.0, le=1.0, description="lower edge of the partial-activation zone"
    )
    retrieval_cutoff: float = Field(
        0.7, ge=0.0, le=1.0, description="upper edge of the zone when the caller gives no retrieval cutoff"
    )
    gap_weight: float = Field(0.4, ge=0.0, le=1.0, description="weight of closeness to the cutoff")
    similarity_weight: float = Field(0.3, ge=0.0, le=1.0, description="weight of raw query similarity")
    entity_weight: float = Field(0.3, ge=0.0, le=1.0, description="weight of entity overlap with the query")
    high_confidence_above: float = Field(
        0.6, ge=0.0, le=1.0, description="FOK above this is reported as high confidence"
    )
    surface_tip_of_tongue: bool = Field(True, description="whether the prompt assembler shows the signals")

    @model_validator(mode="after")
    def _zone(self) -> FeelingOfKnowingConfig:
        if self.partial_activation_threshold >= self.retrieval_cutoff:
            raise ValueError(
                "partial_activation_threshold must be below retrieval_cutoff "
                f"(got {self.partial_activation_threshold} >= {self.retrieval_cutoff})"
            )
        return self


class TemporalGistConfig(_Config):
    """Old, rarely used memories keep their meaning and lose their wording."""

    enabled: bool = True
    age_threshold_days: float = Field(60.0, ge=0.0, le=36_500.0, description="only memories held at least this long")
    protect_retrieval_count: int = Field(
        2, ge=0, description="traces retrieved at least this many times keep their verbatim content"
    )
    strength_factor: float = Field(
        0.8, ge=0.0, le=1.0, description="encoding strength multiplier on compression (verbatim detail lost)"
    )
    max_per_cycle: int = Field(20, ge=0, le=100_000, description="gists per consolidation cycle at most")
    max_gist_words: int = Field(30, ge=1, le=1_000, description="length of the extractive fallback gist")
    preserve_entities: bool = Field(True, description="entity names dropped by the gist are appended to it")
    immune_strength: float = Field(FLASHBULB_STRENGTH, ge=0.0, le=1.0, description="flashbulb immunity")
    index_original: bool = Field(
        True,
        description="the gisted memory stays findable by its original words: its vectors keep the verbatim "
        "text (archived for rehydrate) while its content becomes the gist (off, as the reference does: the "
        "gist is re-embedded and a question worded like the original no longer finds it)",
    )


class SchemaEncodingConfig(_Config):
    """Surprising experiences encode stronger; expected ones are discounted."""

    enabled: bool = True
    cluster_similarity_threshold: float = Field(
        0.75, ge=-1.0, le=1.0, description="cosine to the nearest schema at or above which a trace is congruent"
    )
    novelty_boost: float = Field(1.3, ge=1.0, le=10.0, description="strength multiplier for schema-violating input")
    congruency_discount: float = Field(
        0.85, ge=0.0, le=1.0, description="strength multiplier for schema-congruent input"
    )


def _default_half_lives() -> dict[SourceType, float]:
    # Ordered as the source-monitoring framework suggests: what the user said or a
    # tool returned is attributed reliably longest; the agent's own inferences and
    # reflections blur fastest. 40 days puts a user statement near 0.6 after four
    # weeks, the example the reference gives.
    return {
        SourceType.USER_STATEMENT: 40.0,
        SourceType.TOOL_RESULT: 40.0,
        SourceType.OBSERVATION: 30.0,
        SourceType.EXTERNAL: 15.0,
        SourceType.AGENT_INFERENCE: 8.0,
        SourceType.REFLECTION: 6.0,
    }


class SourceConfidenceDecayConfig(_Config):
    """Confidence in where a memory came from fades, at a rate set by its source type."""

    enabled: bool = True
    half_life_days: dict[SourceType, float] = Field(
        default_factory=_default_half_lives,
        description="per source type: days for confidence to halve (time-based, independent of cycle cadence)",
    )
    min_confidence: float = Field(
        0.1, ge=0.0, le=1.0, description="decay never pushes confidence below this (nor raises a lower one)"
    )
    min_interval_ms: int = Field(
        MS_PER_HOUR, ge=0, description="a trace decayed more recently than this is skipped"
    )

    @field_validator("half_life_days")
    @classmethod
    def _complete_and_positive(cls, v: dict[SourceType, float]) -> dict[SourceType, float]:
        merged = {**_default_half_lives(), **v}
        for source, days in merged.items():
            if not math.isfinite(days) or days <= 0.0:
                raise ValueError(f"half_life_days[{source.value}] must be a positive finite number of days")
        return merged


class EmotionRegulationConfig(_Config):
    """Intense memories lose their raw punch over consolidation cycles."""

    enabled: bool = True
    arousal_threshold: float = Field(0.8, ge=-1.0, le=1.0, description="traces more aroused than this are regulated")
    reappraisal_rate: float = Field(
        0.15, ge=0.0, le=1.0, description="fraction of valence, arousal and intensity removed per cycle"
    )
    max_regulation_per_cycle: int = Field(10, ge=0, le=100_000, description="most aroused first")
    suppression_strength_factor: float = Field(
        0.9, ge=0.0, le=1.0,
        description="encoding strength multiplier for traces still above the threshold after reappraisal",
    )
    immune_strength: float = Field(FLASHBULB_STRENGTH, ge=0.0, le=1.0, description="flashbulb immunity")


class MechanismsConfig(_Config):
    """All eight mechanisms; each can be disabled on its own."""

    reconsolidation: ReconsolidationConfig = Field(default_factory=ReconsolidationConfig)
    retrieval_induced_forgetting: RetrievalInducedForgettingConfig = Field(
        default_factory=RetrievalInducedForgettingConfig
    )
    involuntary_recall: InvoluntaryRecallConfig = Field(default_factory=InvoluntaryRecallConfig)
    feeling_of_knowing: FeelingOfKnowingConfig = Field(default_factory=FeelingOfKnowingConfig)
    temporal_gist: TemporalGistConfig = Field(default_factory=TemporalGistConfig)
    schema_encoding: SchemaEncodingConfig = Field(default_factory=SchemaEncodingConfig)
    source_confidence_decay: SourceConfidenceDecayConfig = Field(default_factory=SourceConfidenceDecayConfig)
    emotion_regulation: EmotionRegulationConfig = Field(default_factory=EmotionRegulationConfig)

    @classmethod
    def all_disabled(cls) -> MechanismsConfig:
        """Every mechanism off: the plain encode/decay/retrieve memory."""
        return cls.model_validate({name: {"enabled": False} for name in cls.model_fields})
