"""What the public API returns: plain dataclasses a caller can print, log or serialise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cogmem_graph.model import MemoryTrace

if TYPE_CHECKING:  # annotations only: a client that reads results need not load the cognition modules
    from cogmem_graph.cognition.mechanisms import FeelingOfKnowing
    from cogmem_graph.cognition.prospective import FiredReminder


@dataclass(frozen=True)
class ScoreComposition:
    """How the read path composed a score, so a caller (or the dashboard) can show why a
    memory ranked where it did without scoring it again.

    `contributions` is what each signal added to `base`: they sum to it. With additive scoring
    a signal adds weight x signal; with prior scoring (the default) a relevance signal adds
    weight x signal x (1 - prior_weight) and a prior signal adds relevance x prior_weight x
    weight x signal. `base` is the score the signals alone gave; the returned score differs
    from it when a rule moved it (a category boost, a newer version ranked first).
    """

    scoring: str
    """"prior" or "additive" (`RetrievalConfig.scoring`)."""
    weights: dict[str, float]
    """The weights used, personality-tilted and normalised (prior scoring normalises each part again)."""
    contributions: dict[str, float]
    base: float
    fused_rank: int | None = None
    """1-based rank in the fused dense/BM25/entity list; None when only the graph reached it."""
    prior_weight: float = 0.0


@dataclass(frozen=True)
class ScoredTrace:
    """A retrieved memory with its composite score and the six signals behind it.

    `sources` says how it was found: "dense", "lexical", "activation" (reached
    through the graph from a seed) — the answer to "why was this retrieved?".
    """

    trace: MemoryTrace
    score: float
    signals: dict[str, float]
    sources: tuple[str, ...] = ()
    composition: ScoreComposition | None = None
    """How the score was made (None for the plain dense and lexical strategies and multi-hop)."""


@dataclass
class RetrievalResult:
    query: str
    traces: list[ScoredTrace] = field(default_factory=list)
    partial: list[ScoredTrace] = field(default_factory=list)
    """Tip-of-the-tongue: the cue matches well but the memory is weak or untrusted."""
    feeling_of_knowing: list[FeelingOfKnowing] = field(default_factory=list)
    """Candidates left out whose score was close: a wider or re-cued retrieval may pay off."""
    strategy: str = "full"
    intent: str | None = None
    """How the query was read (`language.query_intent.QueryIntent`; None for the plain strategies)."""
    parts: tuple[str, ...] = ()
    """The questions a compound query was split into, each retrieved on its own (empty: not split)."""
    as_of: int | None = None
    """The point in time asked about (epoch ms): what held true then, by all the memory knows now."""
    timeline: bool = False
    """Every version, expired and superseded ones included, returned in event order."""
    gated: bool = False
    """The pre-retrieval gate found the query needs no memory (small talk, a slash command): nothing was searched."""

    @property
    def ids(self) -> list[str]:
        return [t.trace.id for t in self.traces]

    def __len__(self) -> int:
        return len(self.traces)


@dataclass(frozen=True)
class AssembledContext:
    """Memory rendered for a prompt, never longer than its token budget."""

    text: str
    tokens_used: int
    token_budget: int
    sections: dict[str, int]
    """Tokens used per section."""
    trace_ids: tuple[str, ...]
    reminders: tuple[FiredReminder, ...] = ()
    """Intentions (prospective memory) this turn triggered, shown under "Reminders"."""
    abbreviated: tuple[str, ...] = ()
    """Retrieved memories shown abbreviated, without metadata (confidence-gated injection)."""
    left_out: tuple[str, ...] = ()
    """Retrieved memories not shown: their score was below `prompt.injection.abbreviated_at`."""
    outdated: tuple[str, ...] = ()
    """Memories shown marked "(outdated: …)": a newer memory replaced them, or their validity ended."""


@dataclass
class RepairResult:
    reindexed: int = 0
    reembedded: int = 0
    """Memories embedded again (`repair(reembed=True)`)."""
    deactivated_vectors: int = 0
    removed_vectors: int = 0
    reactivated_vectors: int = 0

    @property
    def changed(self) -> int:
        return (self.reindexed + self.reembedded + self.deactivated_vectors + self.removed_vectors
                + self.reactivated_vectors)
