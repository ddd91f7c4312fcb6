"""Reading a query before the search: its intent and route, its parts, its vector.

The rules are English-language heuristics (`language/query_intent.py`, `language/hyde.py`);
this module applies the store's settings (`RetrievalConfig.query`) and, where configured,
asks the store's LLM (intent, or one hypothetical answer for HyDE), falling back to the
rules when it has none or it fails.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cogmem_graph.cognition.embedding_space import centroid
from cogmem_graph.config.query import IntentRoute
from cogmem_graph.language.hyde import hypothetical_documents
from cogmem_graph.language.query_intent import QueryIntent, classify_intent, decompose_query

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

_INTENT_SYSTEM = (
    "Classify the user's question to a memory system. Answer with one word: factual, temporal, causal, "
    "entity_profile, preference or general."
)
_HYDE_SYSTEM = (
    "Write one short, plausible first-person statement that would answer the question, as if it were a "
    "remembered message. Invent the details. Answer with the statement only."
)
_PLAIN = IntentRoute()


@dataclass(frozen=True)
class QueryPlan:
    """What the read path does with one query."""

    intent: QueryIntent
    route: IntentRoute
    parts: tuple[str, ...]
    """The questions a compound query holds (one part for a simple query)."""


def plan_query(ctx: MemoryContext, query: str) -> QueryPlan:
    """The intent, its route and the parts of `query` under the store's settings."""
    qcfg = ctx.config.retrieval.query
    parts = tuple(decompose_query(query, qcfg.max_sub_queries)) if qcfg.decompose else (query,)
    if not qcfg.intent_routing:
        return QueryPlan(QueryIntent.GENERAL, _PLAIN, parts)
    intent = _classify(ctx, query)
    return QueryPlan(intent, getattr(qcfg.intents, intent.value), parts)


def _classify(ctx: MemoryContext, query: str) -> QueryIntent:
    if ctx.config.retrieval.query.classifier == "llm" and ctx.llm is not None:
        try:
            answer = ctx.llm.complete(_INTENT_SYSTEM, query, max_tokens=8, temperature=0.0)
            word = answer.strip().strip(".").lower().replace(" ", "_")
            if word in QueryIntent.__members__.values():
                return QueryIntent(word)
            log.warning("the LLM named no known intent (%r); using the keyword rules", answer[:40])
        except Exception as exc:  # every LLM step degrades to its heuristic
            log.warning("intent classification by the LLM failed (%s: %s); using the keyword rules",
                        type(exc).__name__, exc)
    return classify_intent(query)


def query_vector(ctx: MemoryContext, query: str, plan: QueryPlan) -> list[float]:
    """The vector the dense search uses: the query's own, or with HyDE on for its route the
    centroid of the query and its hypothetical answers."""
    plain = ctx.embedder.embed_query(query)
    if not plan.route.hyde:
        return plain
    answers = _llm_hypothesis(ctx, query) if ctx.config.retrieval.query.hyde == "llm" else []
    answers = answers or hypothetical_documents(query, plan.intent)
    if not answers:
        return plain
    return centroid([plain, *ctx.embedder.embed(answers)])


def _llm_hypothesis(ctx: MemoryContext, query: str) -> list[str]:
    if ctx.llm is None:
        return []
    try:
        text = ctx.llm.complete(_HYDE_SYSTEM, query, max_tokens=80).strip()
        return [text] if text else []
    except Exception as exc:  # every LLM step degrades to its heuristic
        log.warning("HyDE by the LLM failed (%s: %s); using the templates", type(exc).__name__, exc)
        return []
