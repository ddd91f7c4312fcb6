"""How the read path reads a query before searching: its intent and the settings each
intent routes to, HyDE, compound-question decomposition and MMR diversity (second
reference: intent router, template HyDE, multi-query decomposition, MMR λ = 0.7).

Defaults are chosen from the lifecycle and LoCoMo measurements (`benchmarks/lifecycle.py`,
variants such as `default+retrieval.query.mmr_lambda=0.7`); the README's retrieval section
lists what is on and why.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cogmem_graph.config.graph import _Config
from cogmem_graph.model import MemoryCategory


class IntentRoute(_Config):
    """The read path's settings for one intent."""

    hyde: bool = Field(False, description="search with the HyDE centroid instead of the plain query vector")
    lexical_weight: float | None = Field(
        None, ge=0.0, le=10.0, description="BM25 weight in score fusion (None: RetrievalConfig.lexical_weight)")
    dense_weight: float | None = Field(
        None, ge=0.0, le=10.0, description="cosine weight in score fusion (None: RetrievalConfig.dense_weight)")
    include_superseded: bool = Field(
        False, description="for a question about the past (did, was, before, used to, ...), replaced and expired "
        "memories keep their own rank instead of ranking just below the current one")
    boost_categories: tuple[MemoryCategory, ...] = Field(
        (), description="memories of these categories have their score raised by `category_boost`")
    category_boost: float = Field(0.0, ge=0.0, le=1.0, description="score × (1 + boost) for boost_categories")
    entity_hub: bool = Field(
        False, description="a query naming one entity gets that entity's memories as candidates (the multi-hop "
        "walk, which otherwise joins only for several entities)")
    diversify: bool = Field(True, description="MMR applies to this intent's results (when mmr_lambda < 1)")
    causal_hops: int = Field(
        0, ge=0, le=3, description="CAUSED_BY hops from the best matches whose traces join the candidates")


def _route(**fields) -> IntentRoute:
    return IntentRoute(**fields)


class IntentRoutes(_Config):
    """One route per intent (`language.query_intent.QueryIntent`)."""

    factual: IntentRoute = Field(default_factory=IntentRoute)
    temporal: IntentRoute = Field(default_factory=lambda: _route(include_superseded=True))
    causal: IntentRoute = Field(default_factory=lambda: _route(causal_hops=2))
    entity_profile: IntentRoute = Field(default_factory=lambda: _route(entity_hub=True))
    preference: IntentRoute = Field(default_factory=lambda: _route(
        boost_categories=(MemoryCategory.PREFERENCE, MemoryCategory.CORRECTION), category_boost=0.2))
    general: IntentRoute = Field(default_factory=IntentRoute)


class QueryConfig(_Config):
    """What happens to a query before the search."""

    gate: bool = Field(
        True, description="small talk, acknowledgements and slash commands skip retrieval, embedding included "
        "(`language.query_gate`); the result is empty and says `gated`")
    intent_routing: bool = Field(True, description="classify each query's intent and use that intent's route")
    classifier: Literal["keyword", "llm"] = Field(
        "keyword", description="keyword rules, or the store's LLM (falls back to the rules when it fails)")
    intents: IntentRoutes = Field(default_factory=IntentRoutes)
    hyde: Literal["templates", "llm"] = Field(
        "templates", description="how the hypothetical answers of routes with hyde=true are written: by the "
        "intent's templates (no LLM call) or by the store's LLM (templates when there is none)")
    self_categories: tuple[MemoryCategory, ...] = Field(
        (MemoryCategory.IDENTITY, MemoryCategory.PREFERENCE, MemoryCategory.CORRECTION, MemoryCategory.COMMITMENT),
        description="what the asker stated about themselves: raised by `self_boost` when a question is about the "
        "asker (first person: I, my, our, ...)")
    self_boost: float = Field(
        0.2, ge=0.0, le=1.0, description="score × (1 + boost) for `self_categories` on a question about the asker")
    other_speaker_discount: float = Field(
        0.5, ge=0.0, le=1.0,
        description="on a question about the asker, a memory another named person said (a transcript's "
        "\"Name: ...\" other than the user's role or user id) scores × (1 - discount) among the best "
        "max(top_k, retrieval.rank_depth): a colleague's \"I'm allergic to cats\" does not answer "
        "\"What am I allergic to?\"")
    unnamed_speaker_discount: float = Field(
        0.15, ge=0.0, le=1.0,
        description="on a question naming someone who speaks in the memory (a transcript's \"Name: ...\"), and "
        "not about the asker, a memory a speaker the question does not name said scores × (1 - discount) among "
        "the best max(top_k, retrieval.rank_depth): \"What activities does Melanie partake in?\" is answered by "
        "what Melanie told, not by Caroline's \"Wow, Melanie!\" (chosen on the LoCoMo tune half from 0.1, 0.15, "
        "0.2 and 0.3: above 0.15 the questions naming the wrong person on purpose lose more than the multi-hop "
        "ones gain; docs/read_path.md, \"Whose words\"; 0: off)")
    ahead_boost: float = Field(
        0.5, ge=0.0, le=2.0,
        description="on a question about what is still to come (coming up, upcoming, next week, plans, will, "
        "...), a memory that spoke of something ahead when it was said (a plan, a promise, an announced event) "
        "scores × (1 + boost) among the best max(top_k, retrieval.rank_depth): "
        "\"Whose wedding is coming up?\" is answered "
        "by the announcement, not by memories of a wedding long past. The cue words themselves (coming up, "
        "upcoming, ahead, soon) are then left out of the lexical search; 0 turns both off")
    relation_words: bool = Field(
        True, description="the lexical search of a question naming a relation (a sibling, a partner, a parent, "
        "a boss, a dog, ...) also looks for the other words of that relation (\"my sibling's job\" for "
        "\"brother\" and \"sister\"; language/relation_words.py); the question's vector is left as asked")
    decompose: bool = Field(True, description="split compound questions, retrieve each part, fuse with RRF")
    max_sub_queries: int = Field(4, ge=1, le=8, description="parts a compound question is split into at most")
    mmr_lambda: float = Field(
        1.0, ge=0.0, le=1.0, description="maximal marginal relevance in the final selection: λ·relevance − "
        "(1−λ)·similarity to what is already selected; 1 turns it off (the reference uses 0.7)")
    mmr_pool: int = Field(
        3, ge=1, le=10,
        description="MMR chooses the top_k among the best max(top_k, retrieval.rank_depth) × this many")
