"""Perspective encoding configuration: one event, a memory per witness.

Reference values: only witnesses of the important tier get an
LLM rewrite, only for events of importance at least 0.3, and only when the
witness relates to someone or something in the event (entity overlap); every
other witness gets the objective event. Background-tier witnesses keep no
memory of it. The rewritten traces drift at half rate on retrieval
(`ReconsolidationConfig.perspective_drift_factor`).
"""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.config.graph import _Config


class PerspectiveConfig(_Config):
    enabled: bool = Field(True, description="False: every witness gets the objective event, no LLM call")
    importance_threshold: float = Field(
        0.3, ge=0.0, le=1.0, description="events below this importance are encoded objectively"
    )
    require_entity_overlap: bool = Field(
        True, description="rewrite only for witnesses related to an entity of the event"
    )
    default_importance: float = Field(
        0.5, ge=0.0, le=1.0, description="importance of an event whose caller gives none"
    )
    high_trait: float = Field(0.6, ge=0.0, le=1.0, description="a trait above this is described as high to the LLM")
    low_trait: float = Field(0.4, ge=0.0, le=1.0, description="a trait below this is described as low to the LLM")
    max_memory_chars: int = Field(4_000, ge=20, le=1_000_000, description="a rewritten memory is cut at this length")
    llm_max_tokens: int = Field(400, ge=16, le=100_000, description="answer budget of one rewrite")
