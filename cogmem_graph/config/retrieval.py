"""Retrieval configuration: candidate gathering, the six-signal composite and the
metacognitive signals (tip-of-the-tongue, feeling-of-knowing).

Scoring defaults to `prior` (relevance times a bounded prior; see `scoring` below and
docs/retention.md); `additive`, the reference's weighted sum, is kept as a preset.
Signal weights are the reference values: weights strength 0.25, similarity 0.35,
recency 0.10, emotional congruence 0.15, graph activation 0.10, importance 0.05;
recency half-life 24 h; importance = 0.5 + 0.5 * confidence; tip-of-the-tongue
when similarity > 0.6 and (strength < 0.3 or confidence < 0.4) (feeling-of-knowing
is a mechanism: `MechanismsConfig.feeling_of_knowing`); dense candidate pool top_k x 5
(the reference preset; the default gathers max(top_k, 50) x 2 from each source);
reciprocal rank fusion k = 60; cross-encoder rerank optional (off).

The reference gives only the direction of the HEXACO weight modulation (openness
raises graph activation, conscientiousness raises importance, low emotionality
flattens emotional congruence); `hexaco_weight_gain` is this library's choice of
how far a trait at 0 or 1 moves its weight (x0.5 .. x1.5 at the default 0.5).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.config.graph import _Config
from cogmem_graph.config.multihop import GatherConfig, MultiHopConfig
from cogmem_graph.config.query import QueryConfig
from cogmem_graph.errors import InvalidArgument

SIGNAL_NAMES: tuple[str, ...] = (
    "strength",
    "similarity",
    "recency",
    "emotional",
    "activation",
    "importance",
)
"""The six retrieval signals, in the order the reference lists them."""


class SignalWeights(_Config):
    """Weight of each retrieval signal in the composite score.

    Any non-negative weights are accepted (they are renormalised to sum 1 when
    HEXACO-modulated); all zero is refused because it would rank nothing.
    """

    strength: float = Field(0.25, ge=0.0, le=1.0, description="current Ebbinghaus strength")
    similarity: float = Field(0.35, ge=0.0, le=1.0, description="query similarity (cosine or rerank)")
    recency: float = Field(0.10, ge=0.0, le=1.0, description="time since the trace was last touched")
    emotional: float = Field(0.15, ge=0.0, le=1.0, description="mood-congruence with the agent's mood")
    activation: float = Field(0.10, ge=0.0, le=1.0, description="spreading activation from the graph")
    importance: float = Field(0.05, ge=0.0, le=1.0, description="confidence-derived importance")

    @model_validator(mode="after")
    def _not_all_zero(self) -> SignalWeights:
        if self.total() <= 0.0:
            raise ValueError("weights: at least one signal weight must be positive")
        return self

    def total(self) -> float:
        return sum(getattr(self, name) for name in SIGNAL_NAMES)

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SIGNAL_NAMES}


MAX_TOP_K = 1_000
"""The largest `top_k` a call may ask for, declared once: the default of
`RetrievalConfig.max_top_k` (which a deployment may lower), the limit of the operations'
argument models (REST, MCP, the client, the CLI's `--top-k`) and of the LangChain retriever."""


class RetrievalConfig(_Config):
    """How candidates are gathered and scored."""

    top_k: int = Field(10, ge=1, le=MAX_TOP_K, description="traces returned by default")
    max_top_k: int = Field(
        MAX_TOP_K, ge=1, le=MAX_TOP_K,
        description="the largest top_k a call may ask for (retrieve, multi_hop, assemble_for_prompt, viz); a "
        "larger one is refused at once: the candidate pools, the activation and the scoring grow with it. A "
        "deployment may lower it below MAX_TOP_K, the limit every surface declares, not raise it",
    )
    candidate_multiplier: int = Field(
        2, ge=1, le=100,
        description="dense and lexical candidate pools hold max(top_k, rank_depth) x this many (the reference's "
        "top_k x 5 is the reference preset; with rank_depth 50, x 2 measured as good on LoCoMo dev data and "
        "cheaper, see docs/read_path.md)",
    )
    ranked_multiplier: int = Field(
        1, ge=1, le=100,
        description="of the fused dense and lexical candidates, the best max(top_k, rank_depth) x this many are "
        "ranked (their ranking fields read from the graph, activation spread from them): the wide pools find "
        "the candidates, this bounds what reading them costs (x 1 and x 2 gave the same LoCoMo recall on both "
        "halves of the dev split; x 1 is ~1.09x faster at 10k, see docs/read_path.md)",
    )
    rank_depth: int = Field(
        50, ge=1, le=MAX_TOP_K,
        description="candidates are gathered and ranked as if top_k were at least this, so a smaller top_k "
        "returns the first top_k of what top_k=rank_depth returns: a fact ranked first for a long list is "
        "never missing from a short one",
    )
    fusion: Literal["score", "rrf"] = Field(
        "score",
        description="how dense and lexical candidates are merged: weighted normalised scores (measured best on "
        "LoCoMo dev data: R@10 0.646 vs 0.559 for RRF with MiniLM) or reciprocal rank fusion",
    )
    lexical_weight: float = Field(1.0, ge=0.0, le=10.0, description="weight of BM25 in score fusion")
    dense_weight: float = Field(
        0.3, ge=0.0, le=10.0,
        description="weight of the embedding cosine in score fusion (0.3 measured on LoCoMo dev data with MiniLM; "
        "raise it for stronger embedders)",
    )
    dense_floor: float = Field(
        0.7, ge=0.0, le=1.0,
        description="score fusion: a dense hit's relevance is at least this × where its cosine lies between the "
        "pool's worst and best dense hit, so a close paraphrase sharing no word with the query is not buried "
        "under weak word matches (0: off; measured on LoCoMo dev data, see docs/read_path.md)",
    )
    rrf_k: int = Field(60, ge=0, le=10_000, description="reciprocal rank fusion constant")
    rerank: bool = Field(False, description="run the optional cross-encoder rerank on the fused pool")
    defer_access_writes: bool = Field(
        True,
        description="retrieve returns while the graph applies its access/Hebbian/reconsolidation write, where the "
        "engine allows (embedded FalkorDB); the store's next statement confirms that write first and raises if it "
        "failed, so nothing this process runs afterwards sees the graph without it (off: retrieve waits for it)",
    )
    multi_hop: MultiHopConfig = Field(default_factory=MultiHopConfig)
    gather: GatherConfig = Field(default_factory=GatherConfig)
    query: QueryConfig = Field(default_factory=QueryConfig)
    multi_hop_blend: bool = Field(
        True,
        description="retrieve adds multi-hop candidates (the entity walk of `multi_hop`, scored as relevance) when "
        "the query names several entities its memories mention (MultiHopConfig.blend_min_entities); measured on "
        "LoCoMo dev data, categories 1-4: R@10 0.678 with MiniLM and 0.656 with the hash embedder, on or off; "
        "a chain across two named entities is found that plain retrieve misses",
    )

    weights: SignalWeights = Field(default_factory=SignalWeights)
    scoring: Literal["prior", "additive"] = Field(
        "prior",
        description="prior: score = relevance (similarity, activation) × (1 - prior_weight + prior_weight · prior), "
        "the prior being the weighted strength, recency, emotional congruence and importance, so a strong memory "
        "never outranks a relevant one on strength alone; additive: the reference's weighted sum of all six",
    )
    prior_weight: float = Field(
        0.3, ge=0.0, le=1.0,
        description="how much the query-independent signals can lower a relevant memory's score (prior scoring)",
    )
    current_facts_first: bool = Field(
        True,
        description="a memory that a newer one contradicts or supersedes ranks just below it, and the newer one "
        "joins the candidates whenever the older one does (the current fact first, the old still reachable)",
    )
    asked_value_first: bool = Field(
        True,
        description="with current_facts_first, of two returned memories that give different values of what the "
        "question asks for (a day, a time, an amount, a person, a place) about the same thing, the newer ranks "
        "first and the prompt marks the older outdated, however the change was worded",
    )
    current_first_margin: float = Field(
        0.1, ge=0.0, lt=1.0,
        description="with current_facts_first, a replaced memory scores at most (1 - margin) x its newer "
        "version's score: the correction outranks what it corrects clearly, not by a rounding error",
    )
    hexaco_weight_gain: float = Field(
        0.5, ge=0.0, le=1.0,
        description="a trait at 1 multiplies its weight by 1 + gain, at 0 by 1 - gain (then renormalised)",
    )

    recency_half_life_ms: int = Field(
        MS_PER_DAY, gt=0, description="time constant of the recency signal e^(-elapsed / half-life)"
    )
    importance_base: float = Field(
        0.5, ge=0.0, le=1.0, description="importance = base + (1 - base) * confidence"
    )

    tot_min_similarity: float = Field(
        0.6, ge=-1.0, le=1.0, description="tip-of-the-tongue: similarity must exceed this"
    )
    tot_max_strength: float = Field(
        0.3, ge=0.0, le=1.0, description="tip-of-the-tongue: current strength below this"
    )
    tot_max_confidence: float = Field(
        0.4, ge=0.0, le=1.0, description="tip-of-the-tongue: or source confidence below this"
    )

    @property
    def candidate_pool(self) -> int:
        """Candidates fetched from each source for the default top_k."""
        return self.pool_for(self.top_k)

    def depth_for(self, top_k: int) -> int:
        """How many results a call of this top_k ranks before it keeps the first top_k."""
        return max(top_k, self.rank_depth)

    def ranked_for(self, top_k: int) -> int:
        """Fused candidates ranked for a call of this top_k."""
        return self.depth_for(top_k) * self.ranked_multiplier

    def pool_for(self, top_k: int) -> int:
        """Candidates fetched from each source for a call of this top_k."""
        return self.depth_for(top_k) * self.candidate_multiplier

    def checked_top_k(self, top_k: Any) -> int:
        """`top_k` if it is a positive integer within `max_top_k`, else a ValueError naming both."""
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise InvalidArgument(f"top_k must be a positive integer, got {top_k!r}", argument="top_k")
        if top_k > self.max_top_k:
            raise InvalidArgument(f"top_k must be at most {self.max_top_k:,} (config.retrieval.max_top_k), "
                                  f"got {top_k:,}", argument="top_k")
        return top_k
