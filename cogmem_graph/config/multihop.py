"""GraphRAG multi-hop retrieval configuration (`agent.multi_hop`).

The walk goes query → entities the query names → traces that mention them →
entities those traces co-mention → their traces, for `hops` entity crossings.
It is ranked like a personalised PageRank: a unit of activation starts on the
query's entities, on the read path's best matches for the query and, for global
questions, on the community summaries (Schema nodes); each entity-to-trace step
keeps `decay` (the reference's 0.5 per hop, taken from the graph activation
config) divided among the entity's mentions (fan ^ fan_exponent). GDS personalised
PageRank on Neo4j uses GDS's own default damping factor, 0.85.

Numbers marked "measured" were chosen on the LoCoMo development data
(`benchmarks/locomo.py`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cogmem_graph.config.graph import _Config

GLOBAL_CUES: tuple[str, ...] = (
    "overall", "in general", "generally", "summarise", "summarize", "summary", "overview", "main themes",
    "main topics", "what topics", "which topics", "recurring", "big picture", "everything", "all the",
    "common themes", "patterns",
)
"""Phrases that make a question global (about the memory as a whole, not one thing in it)."""

GatherQuestions = Literal["all", "several"]
"""Which questions the read path's entity search serves (`GatherConfig.entity_dense_questions`)."""


class MultiHopConfig(_Config):
    """How `multi_hop` seeds, spreads and ranks."""

    default_hops: int = Field(2, ge=1, le=4, description="entity crossings when the caller does not say")
    max_hops: int = Field(4, ge=1, le=6, description="largest `hops` accepted (each hop is two round trips)")
    fan_exponent: float = Field(
        1.5, ge=0.0, le=3.0,
        description="an entity's activation is divided by (visible mentions) ^ this: 1 is a random walk's "
        "even split, 0 ignores how common a name is; measured: 1.5 (LoCoMo multi-hop R@10 0.445 vs 0.416 at 1 "
        "with MiniLM, 0.419 vs 0.384 with the hash embedder)",
    )
    query_fan_exponent: float = Field(
        1.0, ge=0.0, le=3.0,
        description="fan exponent for the entities the query itself names: below fan_exponent, a person the "
        "question is about lends weight to all their memories even when they have many",
    )
    entity_share: float = Field(
        1.0, ge=0.0, le=10.0, description="starting activation of the query's entities (relative, see text_share)"
    )
    text_share: float = Field(
        1.0, ge=0.0, le=10.0,
        description="starting activation of the traces the query matches as text (dense + BM25), split in "
        "proportion to their relevance",
    )
    schema_share: float = Field(
        1.0, ge=0.0, le=10.0, description="starting activation of the matching community summaries (global questions)"
    )
    seed_source: Literal["retrieve", "hybrid"] = Field(
        "retrieve",
        description="where the text seeds come from: the read path's ranking (hybrid candidates, graph "
        "activation, the six signals), which is then fused with the walk's, or the hybrid dense + BM25 "
        "relevance alone, the walk's ranking then standing alone",
    )
    seed_sharpness: float = Field(
        6.0, ge=0.0, le=20.0,
        description="seeds start with activation in proportion to score ^ this, so the best matches lead the "
        "walk; measured: 6 (LoCoMo multi-hop R@10 0.445 vs 0.333 at 1 with MiniLM)",
    )
    gather_for: GatherQuestions = Field(
        "all",
        description="which questions the read path's entity search serves inside multi_hop: all that name a "
        "known entity (the caller asks about what is connected to them), or those asking for several things; "
        "it overrides `RetrievalConfig.gather.entity_dense_questions` for multi_hop",
    )
    read_weight: float = Field(
        2.0, ge=0.0, le=10.0,
        description="weight of the read path's ranking in the rank fusion with the walk's (weight 1): with "
        "fusion_k 10 the walk's first lands near the read path's 12th, so the head stays the read path's and the "
        "walk fills the tail",
    )
    walk_weight: float = Field(
        1.0, ge=0.0, le=10.0, description="weight of the walk's ranking in the rank fusion with the read path's"
    )
    fusion_k: int = Field(
        10, ge=0, le=10_000,
        description="reciprocal rank fusion constant of the read path's and the walk's rankings; small, so each "
        "list's first places count (measured: LoCoMo multi-hop R@25 0.676 at 10 vs 0.618 at 60, tune half)",
    )
    seeds: int = Field(25, ge=0, le=500, description="text-matched seed traces (at least top_k are used)")
    seed_min_similarity: float = Field(
        0.5, ge=-1.0, le=1.0,
        description="a seed the query shares no word with must be at least this similar to it (embedding "
        "cosine) to count as a match; below it, a memory is only the nearest of unrelated ones and is left "
        "out, so a query that reaches few memories returns fewer than top_k. Not measured: unrelated text "
        "sits at 0.1-0.3 with MiniLM, close paraphrases above 0.5",
    )
    max_query_entities: int = Field(8, ge=1, le=50, description="entities taken from the query at most")
    max_entities_per_hop: int = Field(
        50, ge=1, le=1000, description="entities expanded per hop, the most telling first (activation / fan)"
    )
    max_traces_per_hop: int = Field(200, ge=1, le=10_000, description="traces reached per hop at most")
    min_activation: float = Field(
        1e-4, ge=0.0, le=1.0, description="a trace reached with less activation than this is dropped"
    )
    max_schemas: int = Field(3, ge=0, le=50, description="community summaries used for a global question")
    schema_candidates: int = Field(200, ge=1, le=10_000, description="visible schemas scored per global question")
    global_cues: tuple[str, ...] = Field(
        GLOBAL_CUES, description="phrases that make a question global, answered from the community summaries"
    )
    evidence_min_share: float = Field(
        0.5, gt=0.0, le=1.0,
        description="a trace's evidence path is the shortest chain that brought at least this share of what its "
        "strongest chain brought",
    )
    pagerank_damping: float = Field(0.85, gt=0.0, lt=1.0, description="GDS personalised PageRank damping factor")
    pagerank_iterations: int = Field(20, ge=1, le=1000, description="GDS personalised PageRank iterations at most")
    use_gds: bool = Field(
        True, description="on Neo4j with GDS, rank the reached neighbourhood by personalised PageRank"
    )
    blend_min_entities: int = Field(
        2, ge=1, le=20,
        description="retrieve blends multi-hop candidates in when the query names at least this many entities "
        "known to the graph (and `RetrievalConfig.multi_hop_blend` is on)",
    )


class GatherConfig(_Config):
    """How `retrieve` gathers an answer spread over several conversations (LoCoMo's
    multi-hop questions: "What activities does Melanie partake in?", answered by remarks
    weeks apart). The entity search is on; the aspect list is off (its gain rests on every
    LoCoMo line naming its speaker). Measured in docs/read_path.md ("Gathering an answer
    spread over conversations")."""

    aspect_dense_weight: float = Field(
        0.0, ge=0.0, le=10.0,
        description="when the query names entities the caller's memories mention, a second dense search over "
        "every memory by the query without those names (the aspect: \"What activities does partake in?\") joins "
        "score fusion as a further list with this weight: in a conversation where every memory names its "
        "speaker, the names dominate a small embedder's vector of the question (0: off)",
    )
    entity_dense_weight: float = Field(
        0.5, ge=0.0, le=10.0,
        description="when the query names entities the caller's memories mention, a second dense search "
        "restricted to the memories mentioning one of them (a speaker's own statements included: "
        "\"Melanie: ...\" mentions Melanie) joins score fusion as a further list with this weight (0: off; "
        "chosen on the LoCoMo tune half from 0.3-0.75 with the entity search on every such question: "
        "docs/read_path.md, \"Gathering an answer spread over conversations\")",
    )
    sentence_dense_weight: float = Field(
        0.5, ge=0.0, le=10.0,
        description="a dense search by the query's aspect (without the names of the entities it names) over the "
        "memories' sentence vectors, each memory scored by its best sentence (`write.sentence_vectors`), joins "
        "score fusion as a further list with this weight (0: off; chosen on the LoCoMo tune half from 0.3, 0.5, "
        "0.75 and 1: docs/read_path.md, \"A memory found by its best sentence\")",
    )
    entity_dense_aspect: bool = Field(
        True,
        description="the entity-restricted dense search uses the query without the entity names (the aspect: "
        "\"What activities does partake in?\"), since the filter already says whose memories they are",
    )
    entity_dense_questions: GatherQuestions = Field(
        "all",
        description="which questions the entity search serves: all that name a known entity, or only those "
        "asking for several things (`language.query_intent.asks_for_several`)",
    )
