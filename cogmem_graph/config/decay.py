"""Decay configuration: forgetting, spaced repetition, interference and pruning.

Defaults: FSRS-6 power-law forgetting and no strength boost on retrieval (recall lengthens
stability instead); `CogmemConfig.reference_preset()` restores the first reference's
Ebbinghaus curve and +0.1 boost. Reference values: Ebbinghaus S(t) = S0·e^(-Δt/stability); prune below 0.05
unless emotional intensity exceeds 0.3; interference above cosine 0.7
(retroactive loss up to 0.15 at similarity 1, proactive loss
capped at 0.3 in total); spaced repetition with difficulty bonus
max(0.1, 1 - S), diminishing returns 1/(1 + 0.1·n), emotional bonus
1 + 0.3·intensity, growth (1.5 + 2·difficulty)·…, interval ×2 per retrieval.
FSRS-6 alternative: R = (1 + t/(9·S))^(-1/0.5); memories with R < 0.3 are
rehearsed with stability ×1.5.

The recency half-life (24 h) is a retrieval-scoring fact and lives in `RetrievalConfig`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.config.graph import _Config


class DecayConfig(_Config):
    """Every number the decay model uses."""

    model: Literal["ebbinghaus", "fsrs6"] = Field(
        "fsrs6",
        description="forgetting curve: power law (FSRS-6, the default: a heavier tail for established memories) "
        "or exponential (Ebbinghaus, the first reference's)",
    )

    # pruning
    pruning_threshold: float = Field(0.05, ge=0.0, le=1.0, description="traces weaker than this may be pruned")
    emotional_protection_intensity: float = Field(
        0.3, ge=0.0, le=1.0, description="traces whose intensity exceeds this are never pruned"
    )

    # spaced repetition on retrieval (desirable difficulty)
    difficulty_floor: float = Field(
        0.1, ge=0.0, le=1.0, description="difficulty bonus = max(floor, 1 - current strength)")
    diminishing_rate: float = Field(0.1, ge=0.0, le=10.0, description="diminish = 1 / (1 + rate·retrieval count)")
    emotional_bonus_gain: float = Field(0.3, ge=0.0, le=10.0, description="emotional bonus = 1 + gain·intensity")
    growth_base: float = Field(
        1.5, ge=0.0, le=100.0, description="growth = (base + gain·difficulty)·diminish·emotional")
    difficulty_gain: float = Field(2.0, ge=0.0, le=100.0)
    min_growth_factor: float = Field(
        1.0, ge=1.0, le=100.0,
        description="floor on the stability growth factor: a retrieval never makes a memory less stable",
    )
    retrieval_strength_boost: float = Field(
        0.0, ge=0.0, le=1.0,
        description="added to encoding strength on each retrieval, capped at 1 (the first reference: 0.1; the "
        "default 0: a recall makes a memory last longer through stability, it does not make it louder)",
    )
    interval_multiplier: float = Field(2.0, ge=1.0, le=100.0, description="reinforcement interval growth per retrieval")
    max_reinforcement_interval_ms: int = Field(
        365 * MS_PER_DAY, gt=0, description="doubling stops here (keeps epoch-ms schedules inside int64)"
    )

    # interference between similar traces
    interference_threshold: float = Field(
        0.7, ge=0.0, lt=1.0, description="cosine similarity above which similar traces interfere"
    )
    retroactive_max_reduction: float = Field(
        0.15, ge=0.0, le=1.0, description="strength an old trace loses to an identical new one"
    )
    proactive_gain: float = Field(
        0.1, ge=0.0, le=1.0, description="per old trace: loss = gain·scaled overlap·its current strength"
    )
    proactive_cap: float = Field(0.3, ge=0.0, le=1.0, description="total proactive loss of a new trace at most")

    # FSRS-6 power-law retention R = (1 + t / (factor·S))^(-1/decay)
    fsrs_decay: float = Field(0.5, gt=0.0, le=10.0, description="decay constant; the exponent is -1/decay")
    fsrs_factor: float = Field(9.0, gt=0.0, le=1000.0, description="t is divided by factor·S")
    fsrs_rehearsal_threshold: float = Field(
        0.3, ge=0.0, le=1.0, description="retention below this marks a memory as endangered"
    )
    fsrs_rehearsal_boost: float = Field(
        1.5, ge=1.0, le=100.0, description="stability multiplier for a rehearsed memory")
