"""Prompt-assembly configuration: the token budget and how it is split.

Defaults are the reference values: a 1000-token budget split working memory
15 %, semantic recall 45 %, recent episodic 25 %, prospective alerts 5 %, graph
associations 5 %, observation notes 5 %; unused budget flows to semantic recall
first; tokens are estimated at ~4 characters each; the formatting style follows
the dominant HEXACO trait unless one is forced.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from cogmem_graph.config.graph import _Config

SECTION_NAMES: tuple[str, ...] = (
    "working_memory",
    "semantic_recall",
    "recent_episodic",
    "prospective_alerts",
    "graph_associations",
    "observation_notes",
)
"""The six prompt sections, in the order they appear in the assembled text."""

PromptStyleName = Literal["auto", "structured", "narrative", "emotional", "plain"]


class BudgetSplit(_Config):
    """Fraction of the token budget each section may use; the six must sum to 1."""

    working_memory: float = Field(0.15, ge=0.0, le=1.0)
    semantic_recall: float = Field(0.45, ge=0.0, le=1.0)
    recent_episodic: float = Field(0.25, ge=0.0, le=1.0)
    prospective_alerts: float = Field(0.05, ge=0.0, le=1.0)
    graph_associations: float = Field(0.05, ge=0.0, le=1.0)
    observation_notes: float = Field(0.05, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _sums_to_one(self) -> BudgetSplit:
        total = sum(self.as_dict().values())
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(
                f"budget_split fractions ({', '.join(SECTION_NAMES)}) must sum to 1, got {total:.6g}"
            )
        return self

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SECTION_NAMES}


class InjectionGate(_Config):
    """Confidence-gated injection (third reference): how much of a retrieved memory the prompt
    shows, by its retrieval score (relative to the query's best match, in [0, 1])."""

    enabled: bool = Field(False, description="gate memories by score; off: every retrieved memory is shown whole")
    full_at: float = Field(0.7, ge=0.0, le=1.0, description="at or above: the whole text with its metadata")
    abbreviated_at: float = Field(
        0.4, ge=0.0, le=1.0, description="at or above (and below full_at): the text abbreviated, no metadata; "
        "below: left out of the prompt and counted in `AssembledContext.left_out`")
    abbreviated_chars: int = Field(120, ge=16, le=10_000, description="an abbreviated memory's text at most")

    @model_validator(mode="after")
    def _ordered(self) -> InjectionGate:
        if self.abbreviated_at > self.full_at:
            raise ValueError(f"injection.abbreviated_at ({self.abbreviated_at}) must not exceed "
                             f"injection.full_at ({self.full_at})")
        return self


class PromptConfig(_Config):
    """Token budget, its split, and formatting."""

    token_budget: int = Field(1000, ge=0, le=10_000_000, description="default tokens for the memory context")
    chars_per_token: float = Field(4.0, gt=0.0, le=100.0, description="token estimate: characters per token")
    budget_split: BudgetSplit = Field(default_factory=BudgetSplit)
    overflow_order: tuple[str, ...] = Field(
        (
            "semantic_recall",
            "recent_episodic",
            "working_memory",
            "prospective_alerts",
            "graph_associations",
            "observation_notes",
        ),
        description="sections offered unused budget, first to last (semantic recall first)",
    )
    style: PromptStyleName = Field("auto", description="'auto' picks the style from the dominant HEXACO trait")
    min_item_chars: int = Field(
        16, ge=1, le=10_000, description="an item is cut to fit only if at least this much of its text survives"
    )
    injection: InjectionGate = Field(default_factory=InjectionGate)
    min_share_of_best: float = Field(
        0.2, ge=0.0, le=1.0,
        description="a retrieved memory scoring below this share of the best match is left out of the prompt "
        "(counted in `AssembledContext.left_out`): a filler line at a tenth of the answer's score only costs "
        "tokens; 0 shows every retrieved memory")
    replacement_quote_chars: int = Field(
        60, ge=16, le=10_000,
        description="a memory marked outdated quotes its replacement in at most this many characters, when the "
        "replacement is not the line above it")

    @field_validator("overflow_order")
    @classmethod
    def _known_sections(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in v if name not in SECTION_NAMES]
        if unknown:
            raise ValueError(f"overflow_order has unknown sections {unknown}; known: {list(SECTION_NAMES)}")
        if len(set(v)) != len(v):
            raise ValueError("overflow_order must not repeat a section")
        return v
