"""The read path's candidates, three stages each returning its own result:

- `search` (`Searched`): dense and BM25 hits of the question, within the caller's scopes
  and filter;
- `fuse` (`Fused`): those lists and the ones gathered around the question's entities, fused
  into one (and reranked when a reranker is on), with what found each candidate;
- `expand` (`Expanded`): candidates by the graph (activation spread from the best matches,
  the multi-hop walk, causes and effects, the current versions of matched memories), and
  every candidate's ranking fields; the graph reads are sent before the first is waited for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cogmem_graph.config.multihop import GatherConfig, GatherQuestions
from cogmem_graph.config.query import IntentRoute
from cogmem_graph.filters import PAYLOAD_ENTITIES, PayloadCondition
from cogmem_graph.graph.port import CausalNeighbour, Later, TraceVitals
from cogmem_graph.language.query_intent import (
    asks_about_the_past,
    asks_about_what_is_ahead,
    asks_for_several,
    without_names,
    without_time_cues,
)
from cogmem_graph.language.query_names import query_entity_keys
from cogmem_graph.language.relation_words import with_relation_words
from cogmem_graph.lexical import bm25_query_vector
from cogmem_graph.providers.cache import CachedEmbedder
from cogmem_graph.providers.embedders import gives_sentences
from cogmem_graph.retrieval.ask import Ask, nothing
from cogmem_graph.retrieval.fusion import fuse_hits
from cogmem_graph.retrieval.multihop import walk as multihop_walk
from cogmem_graph.retrieval.query_plan import QueryPlan, query_vector
from cogmem_graph.vectors.port import VectorHit

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.providers.rerank import Reranker

Sources = dict[str, frozenset[str]]
"""What found each candidate ("dense", "lexical", "gathered", "activation", ...)."""


@dataclass(frozen=True)
class Searched:
    """The question's candidates by text."""

    dense: list[VectorHit]
    lexical: list[VectorHit]
    ahead: bool
    """The question asks about what is still to come."""
    query_vector: list[float] | None
    """The vector the dense search asked with (the question's, or as its intent reads it)."""
    cosine: dict[str, float]
    """Each dense hit's cosine to the question."""


@dataclass(frozen=True)
class Fused:
    """The text candidates fused into one list, best first."""

    ranked: list[tuple[str, float]]
    """(trace id, fused relevance)."""
    ids: list[str]
    """The same ids, in that order."""
    sources: Sources
    entities: list | None
    """The entities the question names, when the gathering looked them up."""


@dataclass(frozen=True)
class Expanded:
    """Every candidate, the fused ones first and then those the graph found, with their
    ranking fields."""

    ids: list[str]
    relevance: dict[str, float]
    """The fused relevance, and for a candidate the graph found the score it gave it."""
    activation: dict[str, float]
    sources: Sources
    versions: list[tuple[str, str]]
    """(old, new): the current version of a matched memory."""
    vitals: dict[str, TraceVitals]
    history: bool
    """The question asks how things were: replaced and expired memories rank at their own place."""


def entity_search_asked(gather: GatherConfig, gather_for: GatherQuestions | None, query: str) -> bool:
    """Whether the entity search serves this question, if it names a known entity."""
    return bool(gather.entity_dense_weight) and (
        (gather_for or gather.entity_dense_questions) == "all" or asks_for_several(query))


def search(ctx: MemoryContext, ask: Ask, plan: QueryPlan | None, named: Callable[[], list] | None,
           entity_search: bool) -> Searched:
    """Candidates by text: the dense and BM25 searches the strategy asks for."""
    cfg = ctx.config.retrieval
    dense: list[VectorHit] = []
    lexical: list[VectorHit] = []
    vector = None
    if ask.strategy in ("full", "dense"):
        gather = cfg.gather
        if (entity_search and gather.entity_dense_aspect) or (named is not None and gather.aspect_dense_weight):
            _embed_with_aspect(ctx, ask.query)
        vector = query_vector(ctx, ask.query, plan) if plan is not None else ctx.embedder.embed_query(ask.query)
        dense = ctx.vectors.search_dense(vector, ask.keys, ask.pool, where=ask.payload)
    # A question about what is still to come (the what-is-ahead rule, read once here).
    ahead = ask.strategy == "full" and bool(cfg.query.ahead_boost) and asks_about_what_is_ahead(ask.query)
    if ask.strategy in ("full", "lexical"):
        # "coming up" is when, not what: searched as words it finds everything that came up.
        words = without_time_cues(ask.query) if ahead else ask.query
        if cfg.query.relation_words:  # "my sibling's job" is searched for "brother" and "sister" too
            words = with_relation_words(words)
        lexical = ctx.vectors.search_sparse(bm25_query_vector(words), ask.keys, ask.pool, where=ask.payload)
    return Searched(dense, lexical, ahead, vector,
                    {h.trace_id: h.score for h in dense})


def fuse(ctx: MemoryContext, ask: Ask, route: IntentRoute, searched: Searched, named: Callable[[], list] | None,
         entity_search: bool) -> Fused:
    """The text candidates fused into one list (with the lists gathered around the question's
    entities, and reranked when a reranker is on)."""
    cfg = ctx.config.retrieval
    gather = cfg.gather
    # Gathering around the question's entities: the question without their names, and a dense
    # search among the memories that mention them (RetrievalConfig.gather).
    wanted = gather.aspect_dense_weight or entity_search or gather.sentence_dense_weight
    entities = named() if named is not None and wanted else None
    extra = _gathered(ctx, ask.query, entities or [], ask.keys, ask.pool, ask.payload, entity_search,
                      query_vector=searched.query_vector)
    ranked = fuse_hits(searched.dense, searched.lexical, cfg, lexical_weight=route.lexical_weight,
                       dense_weight=route.dense_weight, extra=[(h, w) for _, h, w in extra]
                       )[: cfg.ranked_for(ask.top_k)]
    reranker = ctx.reranker if cfg.rerank and ranked else None
    if reranker is not None:
        ranked = _rerank(ctx, reranker, ask.query, [tid for tid, _ in ranked], ask.keys)
    found: dict[str, set[str]] = {}
    for name, hits in (("dense", searched.dense), ("lexical", searched.lexical), *((n, h) for n, h, _ in extra)):
        for h in hits:
            found.setdefault(h.trace_id, set()).add(name)
    return Fused(ranked, [tid for tid, _ in ranked], {tid: frozenset(s) for tid, s in found.items()}, entities)


def expand(ctx: MemoryContext, ask: Ask, route: IntentRoute, fused: Fused,
           named: Callable[[], list] | None) -> Expanded:
    """Candidates by the graph: activation spread from the best matches, the multi-hop walk,
    causes and effects, the current versions of matched memories; then every candidate's
    ranking fields. The reads are sent before the first is waited for."""
    cfg = ctx.config.retrieval
    fused_ids = fused.ids
    # A question about how things were reads replaced and expired memories at their own rank;
    # "When is the meeting?" still asks about now.
    history = route.include_superseded and asks_about_the_past(ask.query)
    # The fused candidates' ranking fields are read while activation spreads (the graph
    # answers both at once); activation returns those of the traces it reaches.
    fused_vitals = ctx.graph.trace_vitals_later(fused_ids, ask.keys)
    newer: Later[list[tuple[str, str]]] = ctx.graph.newer_versions_later(fused_ids, ask.keys) \
        if cfg.current_facts_first and not history and not ask.when.timeline and fused_ids else nothing
    # Seeds spread as much activation as retrieval found them relevant (ACT-R source activation).
    relevance = dict(fused.ranked)
    sources = dict(fused.sources)
    seeds = fused_ids[: ctx.config.graph.activation.max_seeds]
    causal: Later[list[CausalNeighbour]] = ctx.graph.causal_neighbours_later(seeds, ask.keys, route.causal_hops) \
        if route.causal_hops and seeds else nothing
    reached = ctx.graph.spread_activation(seeds, ask.keys, seed_activation={s: relevance[s] for s in seeds})
    activation = {a.trace_id: a.activation for a in reached}
    _found_by(sources, "activation", activation)
    # Queries naming several entities: multi-hop candidates join; their walk score counts as relevance.
    entities = fused.entities
    if entities is None and named is not None:
        entities = named()
    blended = multihop_walk.blend_candidates(ctx, ask.query, relevance, ask.pool, entities,
                                             min_entities=1 if route.entity_hub else None)
    _join(relevance, sources, "multi_hop", blended)
    caused = _caused(ctx, relevance, causal())
    _join(relevance, sources, "causal", caused)
    # The current version of a matched memory joins the candidates, as relevant as the old one.
    versions = newer()
    for old, new in versions:
        _join(relevance, sources, "newer_version", {new: relevance.get(old, 0.0)})
    ids = list(dict.fromkeys(fused_ids + list(activation) + list(blended) + list(caused) + [n for _, n in versions]))
    if ask.where is not None:  # the vector hits passed the payload filter; the graph's candidates pass here
        ids = ask.where.keep(ctx, ids)
    vitals = _read_vitals(ctx, ask, ids, set(fused_ids) | set(activation), fused_vitals, reached)
    return Expanded(ids, relevance, activation, sources, versions, vitals, history)


def _found_by(sources: dict[str, frozenset[str]], source: str, ids: Iterable[str]) -> None:
    for tid in ids:
        had = sources.get(tid)
        sources[tid] = frozenset((source,)) if had is None else had | {source}


def _join(relevance: dict[str, float], sources: dict[str, frozenset[str]], source: str,
          scores: dict[str, float]) -> None:
    """Candidates the graph found, as relevant as the score it gave them."""
    for tid, score in scores.items():
        relevance[tid] = max(relevance.get(tid, 0.0), score)
    _found_by(sources, source, scores)


def _caused(ctx: MemoryContext, relevance: dict[str, float], rows: list[CausalNeighbour]) -> dict[str, float]:
    """Causal questions: what caused the best matches, or what they caused, scored by the
    seed's relevance fading per causal step."""
    hop_decay = ctx.config.graph.activation.decay_per_hop
    caused: dict[str, float] = {}
    for near in rows:
        score = relevance.get(near.seed, 0.0) * hop_decay ** near.steps
        caused[near.trace_id] = max(caused.get(near.trace_id, 0.0), score)
    return caused


def _read_vitals(ctx: MemoryContext, ask: Ask, ids: list[str], known: set[str],
                 fused_vitals: Later[list[TraceVitals]], reached: list) -> dict[str, TraceVitals]:
    """The candidates' ranking fields (active, indexed traces only): the fused ones' read,
    those activation brought (`known`: both), and one more read for what neither covered.
    Whole traces are loaded only for what is returned."""
    vitals = {v.id: v for v in fused_vitals()}
    vitals.update({a.trace_id: a.vitals for a in reached if a.vitals is not None and a.trace_id not in vitals})
    unread = [tid for tid in ids if tid not in known and tid not in vitals]
    if unread:  # multi-hop candidates the other reads did not cover
        vitals.update({v.id: v for v in ctx.graph.trace_vitals(unread, ask.keys)})
    return vitals


def _rerank(
    ctx: MemoryContext, reranker: Reranker, query: str, ids: list[str], keys: list[str],
) -> list[tuple[str, float]]:
    traces = {t.id: t for t in ctx.graph.get_traces(ids, keys)}
    ordered = [tid for tid in ids if tid in traces]
    ranked = reranker.rerank(query, [traces[t].content for t in ordered], top_n=len(ordered))
    return [(ordered[index], float(score)) for index, score in ranked]


def _embed_with_aspect(ctx: MemoryContext, query: str) -> None:
    """The query and its aspect (the query without the names it holds, as the gathered lists
    search by it) embedded in one call, so each search finds its vector cached: one forward
    pass or one request instead of two. The names are the query's own; the entities the graph
    confirms are nearly always the same, and when not, the aspect is embedded on its own.
    Without the store's embedding cache there is nowhere to keep the aspect: nothing is done."""
    if not isinstance(ctx.embedder, CachedEmbedder):
        return
    names = [name for _, name in query_entity_keys(query, ctx.config.retrieval.multi_hop.max_query_entities)]
    aspect = without_names(query, names) if names else ""
    if aspect and aspect != query:
        ctx.embedder.embed_queries([query, aspect])


def _gathered(ctx: MemoryContext, query: str, entities: list, keys: list[str], pool: int,
              payload: Sequence[PayloadCondition], entity_search: bool, *,
              query_vector: list[float] | None = None) -> list[tuple[str, list, float]]:
    """The further dense lists of `RetrievalConfig.gather`, named, with their fusion weights,
    all within the caller's scopes and filter and by the aspect (the query without the names
    of its `entities`; `query_vector`, the dense search's, when it names none): over every
    memory, their own vectors; among the memories that mention one of the entities (the
    vector store's payload filter on entity keys), by that
    aspect or by the whole query; last, the memories' best sentences. Fusion adds the lists
    in this order, each averaged into what came before (`fusion.with_relative_list`): the
    last one weighs most."""
    gather = ctx.config.retrieval.gather
    aspect = (without_names(query, [e.name for e in entities]) or query) if entities else query
    out = []
    if entities and gather.aspect_dense_weight:
        out.append(("gathered", ctx.vectors.search_dense(ctx.embedder.embed_query(aspect), keys, pool, where=payload),
                    gather.aspect_dense_weight))
    if entities and entity_search:
        vector = ctx.embedder.embed_query(aspect if gather.entity_dense_aspect else query)
        condition = PayloadCondition(PAYLOAD_ENTITIES, "any", tuple(e.key for e in entities))
        out.append(("gathered", ctx.vectors.search_dense(vector, keys, pool, where=(*payload, condition)),
                    gather.entity_dense_weight))
    if gather.sentence_dense_weight and ctx.config.write.sentence_vectors and gives_sentences(ctx.embedder):
        # A question naming nothing is its own aspect: searched with the vector the dense search used.
        vector = query_vector if aspect == query and query_vector is not None else ctx.embedder.embed_query(aspect)
        out.append(("sentence", ctx.vectors.search_sentences(vector, keys, pool, where=payload),
                    gather.sentence_dense_weight))
    return out
