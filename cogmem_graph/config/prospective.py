"""Prospective-memory configuration: when a remembered intention comes back to mind.

From the reference: three trigger kinds (time, event, context), one-shot or
recurring, checked every turn before the prompt is built; a context trigger
fires when the cosine similarity of the current turn to the intention's cue
reaches `similarity_threshold` (0.7). The reference gives no default importance
nor a pause between firings of a recurring cue-triggered intention; those two
defaults are this library's choice (the neutral midpoint, and one hour).
"""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.clock import MS_PER_HOUR
from cogmem_graph.config.graph import _Config


class ProspectiveConfig(_Config):
    """Defaults of `agent.remind(...)` and the per-turn check."""

    similarity_threshold: float = Field(
        0.7, gt=0.0, le=1.0,
        description="a context trigger fires when cosine(turn, cue) is at least this (reference default)",
    )
    default_importance: float = Field(
        0.5, ge=0.0, le=1.0, description="importance of an intention when the caller gives none; orders reminders",
    )
    cooldown_ms: int = Field(
        MS_PER_HOUR, ge=0, le=365 * 24 * MS_PER_HOUR,
        description="a recurring keyword or context intention fires at most once per this many ms",
    )
    max_checked: int = Field(
        1_000, ge=1, le=100_000,
        description="due intentions examined per turn (most important first): bounds the cost of a check",
    )
