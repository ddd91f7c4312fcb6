"""Working-memory configuration (Baddeley's slot model).

Defaults are the reference values: Miller's 7 slots, +1 for openness > 0.6,
-1 for conscientiousness > 0.6, clamped to [5, 9]; a slot enters at activation
0.8, rehearsal adds 0.15 (capped at 1), every turn subtracts 0.1, and slots
below 0.15 are evicted. The label thresholds used when formatting for a prompt
([ACTIVE] / [fading] / [weak]) are this library's choice, picked to match the
reference's example (0.85 active, 0.52 fading, 0.20 weak).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from cogmem_graph.config.graph import _Config


class WorkingMemoryConfig(_Config):
    """Capacity and activation dynamics of the working-memory buffer."""

    base_capacity: int = Field(7, ge=1, le=100, description="slots before trait modulation")
    min_capacity: int = Field(5, ge=1, le=100, description="capacity never goes below this")
    max_capacity: int = Field(9, ge=1, le=100, description="capacity never goes above this")
    trait_threshold: float = Field(0.6, ge=0.0, le=1.0, description="a trait above this counts as high")
    openness_slots: int = Field(1, ge=-10, le=10, description="slots added by high openness")
    conscientiousness_slots: int = Field(-1, ge=-10, le=10, description="slots added by high conscientiousness")

    initial_activation: float = Field(0.8, gt=0.0, le=1.0, description="activation of a newly focused item")
    rehearsal_boost: float = Field(0.15, ge=0.0, le=1.0, description="activation added per rehearsal")
    decay_per_turn: float = Field(0.1, ge=0.0, le=1.0, description="activation lost every turn")
    eviction_threshold: float = Field(0.15, ge=0.0, le=1.0, description="slots below this activation are evicted")
    focus_per_retrieval: int = Field(
        3, ge=0, le=100, description="best hits of a retrieval brought into focus (an implementation choice)"
    )

    active_label_threshold: float = Field(0.7, ge=0.0, le=1.0, description="[ACTIVE] at or above this")
    fading_label_threshold: float = Field(0.4, ge=0.0, le=1.0, description="[fading] at or above this, else [weak]")

    @model_validator(mode="after")
    def _consistent(self) -> WorkingMemoryConfig:
        if not self.min_capacity <= self.base_capacity <= self.max_capacity:
            raise ValueError("base_capacity must lie within [min_capacity, max_capacity]")
        if self.eviction_threshold >= self.initial_activation:
            raise ValueError("eviction_threshold must be below initial_activation, or new items leave at once")
        if self.fading_label_threshold > self.active_label_threshold:
            raise ValueError("fading_label_threshold must not exceed active_label_threshold")
        return self
