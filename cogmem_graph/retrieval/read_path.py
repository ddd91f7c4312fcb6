"""The read path, as named stages sharing one `_Found` (the question's candidates):

- plan: the pre-retrieval gate (small talk and slash commands stop here, unembedded), the
  query's intent and route, a compound question split into parts (`query_plan`);
- candidates (`_search`, `_fuse`): dense hits (embedding cache, the caller's scopes and
  filter), BM25 hits, the lists gathered around the question's entities, fused (and
  reranked when a reranker is on);
- expand (`_expand`): activation spread from the best matches through the graph, the
  multi-hop walk, causes and effects, the current versions of matched memories, then
  every candidate's ranking fields; the graph reads are sent before the first is waited for;
- score (`_ranked`): the six signals, HEXACO-modulated, the category and version rules;
- select (`_select`): the rules that read the best memories' words, diversity, the top_k,
  tip-of-the-tongue partials and feeling-of-knowing, the whole traces loaded;
- after-retrieval (`_after_retrieval`): access update (spaced repetition), Hebbian
  CO_ACTIVATED among the returned set and the mechanisms' changes, one statement.

`strategy="dense"` and `"lexical"` return a single candidate list ranked as the
vector store ranked it: the plain baselines the full pipeline is measured against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from cogmem_graph.cognition.decay import current_strengths, update_on_retrieval
from cogmem_graph.cognition.diversity import maximal_marginal_relevance
from cogmem_graph.cognition.mechanisms import (
    detect_feeling_of_knowing,
    reconsolidate,
    retrieval_induced_forgetting,
)
from cogmem_graph.cognition.scoring import (
    RecallKind,
    Signals,
    SignalTable,
    composite_scores,
    emotional_congruences,
    importance_signals,
    modulated_weights,
    prior_weighted_scores,
    recency_signals,
    signal_contributions,
    tip_of_tongue_mask,
)
from cogmem_graph.cognition.validity import expired, held_at
from cogmem_graph.config.multihop import GatherConfig, GatherQuestions
from cogmem_graph.config.query import IntentRoute
from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import (
    PAYLOAD_ENTITIES,
    MemoryFilter,
    PayloadCondition,
    payload_conditions,
)
from cogmem_graph.gc_pause import collector_paused
from cogmem_graph.graph.port import AccessUpdate, CausalNeighbour, Later, TraceVitals
from cogmem_graph.language.asked_value import disagree_on_asked_value
from cogmem_graph.language.contradiction import replaced_among
from cogmem_graph.language.entities import extract_entities
from cogmem_graph.language.memory_kind import tells_of_what_is_ahead
from cogmem_graph.language.query_gate import skips_retrieval
from cogmem_graph.language.query_intent import (
    asks_about_self,
    asks_about_the_past,
    asks_about_what_is_ahead,
    asks_for_several,
    said_by_someone_else,
    without_names,
    without_time_cues,
)
from cogmem_graph.language.query_names import query_entity_keys
from cogmem_graph.language.speakers import speaker_of
from cogmem_graph.lexical import bm25_query_vector
from cogmem_graph.model import MemoryCategory, MemoryTrace, Mood, entity_key
from cogmem_graph.providers.cache import CachedEmbedder
from cogmem_graph.providers.embedders import gives_sentences
from cogmem_graph.results import RetrievalResult, ScoreComposition, ScoredTrace
from cogmem_graph.retrieval.fusion import fuse_hits, reciprocal_rank_fusion
from cogmem_graph.retrieval.multihop import walk as multihop_walk
from cogmem_graph.retrieval.query_plan import QueryPlan, plan_query, query_vector
from cogmem_graph.vectors.port import VectorHit

if TYPE_CHECKING:
    from cogmem_graph.config.retrieval import SignalWeights
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.providers.rerank import Reranker

Strategy = Literal["full", "dense", "lexical"]
STRATEGIES: tuple[str, ...] = ("full", "dense", "lexical")


@dataclass(frozen=True)
class When:
    """Which state of the memory a retrieval asks about: now (the default), a point in time
    (`as_of`: what held true then), or the whole timeline."""

    as_of: int | None = None
    timeline: bool = False


NOW = When()


def retrieve(
    ctx: MemoryContext, query: str, *, top_k: int, strategy: Strategy = "full",
    record_access: bool = True, mood: Mood | None = None, when: When = NOW, where: MemoryFilter | None = None,
    gather_for: GatherQuestions | None = None,
) -> RetrievalResult:
    """One retrieval, with the cyclic garbage collector paused (`CogmemConfig.pause_gc`): a
    full collection inside it would add 60-110 ms at 10k memories and find nothing.
    `where` filters the candidates where they are found (see `Filtered`); `gather_for`
    overrides which questions the entity search serves (`GatherConfig.entity_dense_questions`):
    `multi_hop` gathers for every question naming a known entity."""
    with collector_paused(ctx.config.pause_gc):
        return _retrieve(ctx, query, top_k=top_k, strategy=strategy, record_access=record_access, mood=mood,
                         when=when, where=Filtered.of(ctx, where), gather_for=gather_for)


@dataclass(frozen=True)
class Filtered:
    """A caller's filter as the read path applies it: in the vector searches' payload filter,
    and on every candidate that came from the graph (activation, multi-hop, versions) by one
    graph read before ranking, so the top-k returned all match whenever that many exist."""

    scope_keys: tuple[str, ...]
    payload: tuple[PayloadCondition, ...]
    graph_params: dict

    @staticmethod
    def of(ctx: MemoryContext, where: MemoryFilter | None) -> Filtered | None:
        if where is None or where.is_empty:
            return None
        entity_keys = [entity_key(n) for n in where.entity] if where.entity else None
        return Filtered(tuple(where.narrow_scope_keys(ctx.visible_scope_keys)),
                        tuple(payload_conditions(where, entity_keys)), where.graph_params(entity_keys))

    def keep(self, ctx: MemoryContext, ids: list[str]) -> list[str]:
        allowed = ctx.graph.filter_ids(ids, self.scope_keys, self.graph_params)
        return [i for i in ids if i in allowed]


def _nothing() -> list:
    """The pending read (`Later`) of a read that was not needed."""
    return []


@dataclass(frozen=True)
class _Ask:
    """One question as every stage takes it: what may be read, and how far to look."""

    query: str
    top_k: int
    strategy: Strategy
    keys: list[str]
    payload: tuple[PayloadCondition, ...]
    pool: int
    """Hits each source brings."""
    depth: int
    """What a longer list would rank: its first top_k are returned."""
    when: When
    where: Filtered | None


@dataclass
class _Found:
    """The candidates of one question, filled stage by stage: found by text, then by the
    graph (activation, multi-hop, causes, newer versions), then their ranking fields."""

    dense: list[VectorHit]
    lexical: list[VectorHit]
    ahead: bool
    """The question asks about what is still to come."""
    query_vector: list[float] | None = None
    """The vector the dense search asked with (the question's, or as its intent reads it)."""
    fused: list[tuple[str, float]] = field(default_factory=list)
    relevance: dict[str, float] = field(default_factory=dict)
    sources: dict[str, set[str]] = field(default_factory=dict)
    activation: dict[str, float] = field(default_factory=dict)
    versions: list[tuple[str, str]] = field(default_factory=list)
    """(old, new): the current version of a matched memory."""
    ids: list[str] = field(default_factory=list)
    """Every candidate, the fused ones first."""
    vitals: dict[str, TraceVitals] = field(default_factory=dict)
    history: bool = False
    """The question asks how things were: replaced and expired memories rank at their own place."""

    fused_ids: list[str] = field(default_factory=list)
    cosine: dict[str, float] = field(init=False)
    """Each dense hit's cosine to the question."""

    def __post_init__(self) -> None:
        self.cosine = {h.trace_id: h.score for h in self.dense}

    def fused_as(self, fused: list[tuple[str, float]]) -> None:
        self.fused, self.fused_ids = fused, [tid for tid, _ in fused]

    def found_by(self, source: str, ids) -> None:
        for tid in ids:
            self.sources.setdefault(tid, set()).add(source)

    def join(self, source: str, scores: dict[str, float]) -> None:
        """Candidates the graph found, as relevant as the score it gave them."""
        for tid, score in scores.items():
            self.relevance[tid] = max(self.relevance.get(tid, 0.0), score)
        self.found_by(source, scores)


def _retrieve(
    ctx: MemoryContext, query: str, *, top_k: int, strategy: Strategy = "full",
    record_access: bool = True, mood: Mood | None = None, when: When = NOW, where: Filtered | None = None,
    gather_for: GatherQuestions | None = None,
) -> RetrievalResult:
    """The stages in order: plan, candidates, expand, score, select, after-retrieval."""
    if strategy not in STRATEGIES:
        raise InvalidArgument(f"strategy must be one of {STRATEGIES}, not {strategy!r}", argument="strategy")
    cfg = ctx.config.retrieval
    keys = list(where.scope_keys) if where is not None else ctx.visible_scope_keys
    if not keys:  # the filter's scopes are none the caller sees
        return RetrievalResult(query=query, strategy=strategy)
    ask = _Ask(query, top_k, strategy, keys, where.payload if where is not None else (), cfg.pool_for(top_k),
               cfg.depth_for(top_k), when, where)
    if strategy == "full" and cfg.query.gate and skips_retrieval(query):
        return RetrievalResult(query=query, strategy=strategy, gated=True)
    plan = plan_query(ctx, query) if strategy == "full" else None
    if plan is not None and len(plan.parts) > 1:
        return _retrieve_parts(ctx, query, plan, top_k=top_k, record_access=record_access, mood=mood, when=when,
                               where=where, gather_for=gather_for)
    # The graph looks up the entities the query names while the vector store finds candidates.
    named = multihop_walk.query_entities_later(ctx, query) if plan is not None and cfg.multi_hop_blend else None
    entity_search = named is not None and _entity_search_asked(cfg.gather, gather_for, query)
    found = _search(ctx, ask, plan, named, entity_search)
    if plan is None:
        return _baseline(ctx, ask, found)
    entities = _fuse(ctx, ask, plan.route, found, named, entity_search)
    _expand(ctx, ask, plan.route, found, named, entities)
    now = ctx.clock.now_ms()
    mood = mood or ctx.current_mood()
    scored = _ranked(ctx, ask, plan.route, found, now, mood)
    return _select(ctx, ask, plan, found, scored, now, mood, record_access)


def _search(ctx: MemoryContext, ask: _Ask, plan: QueryPlan | None, named: Callable[[], list] | None,
            entity_search: bool) -> _Found:
    """Candidates by text: the dense and BM25 searches the strategy asks for."""
    cfg = ctx.config.retrieval
    dense = lexical = []
    found = None
    if ask.strategy in ("full", "dense"):
        gather = cfg.gather
        if (entity_search and gather.entity_dense_aspect) or (named is not None and gather.aspect_dense_weight):
            _embed_with_aspect(ctx, ask.query)
        vector = query_vector(ctx, ask.query, plan) if plan is not None else ctx.embedder.embed_query(ask.query)
        dense = ctx.vectors.search_dense(vector, ask.keys, ask.pool, where=ask.payload)
        found = _Found(dense, [], False, query_vector=vector)
    # A question about what is still to come (the what-is-ahead rule, read once here).
    ahead = ask.strategy == "full" and bool(cfg.query.ahead_boost) and asks_about_what_is_ahead(ask.query)
    if ask.strategy in ("full", "lexical"):
        # "coming up" is when, not what: searched as words it finds everything that came up.
        words = without_time_cues(ask.query) if ahead else ask.query
        lexical = ctx.vectors.search_sparse(bm25_query_vector(words), ask.keys, ask.pool, where=ask.payload)
    if found is None:
        return _Found(dense, lexical, ahead)
    found.lexical, found.ahead = lexical, ahead
    return found


def _baseline(ctx: MemoryContext, ask: _Ask, found: _Found) -> RetrievalResult:
    """`strategy="dense"` or `"lexical"`: one list, ranked as the vector store ranked it."""
    hits = found.dense or found.lexical
    if ask.where is not None:
        kept = set(ask.where.keep(ctx, [h.trace_id for h in hits]))
        hits = [h for h in hits if h.trace_id in kept]
    top = hits[: ask.top_k]
    traces = {t.id: t for t in ctx.graph.get_traces([h.trace_id for h in top], ask.keys)}
    baseline = [ScoredTrace(traces[h.trace_id], h.score, {"similarity": h.score}, (ask.strategy,))
                for h in top if h.trace_id in traces and traces[h.trace_id].is_active]
    return RetrievalResult(query=ask.query, traces=baseline, strategy=ask.strategy)


def _fuse(ctx: MemoryContext, ask: _Ask, route: IntentRoute, found: _Found, named: Callable[[], list] | None,
          entity_search: bool) -> list | None:
    """The text candidates fused into one list (with the lists gathered around the question's
    entities, and reranked when a reranker is on); returns the entities it looked up, if any."""
    cfg = ctx.config.retrieval
    gather = cfg.gather
    # Gathering around the question's entities: the question without their names, and a dense
    # search among the memories that mention them (RetrievalConfig.gather).
    wanted = gather.aspect_dense_weight or entity_search or gather.sentence_dense_weight
    entities = named() if named is not None and wanted else None
    extra = _gathered(ctx, ask.query, entities or [], ask.keys, ask.pool, ask.payload, entity_search,
                      query_vector=found.query_vector)
    found.fused_as(fuse_hits(found.dense, found.lexical, cfg, lexical_weight=route.lexical_weight,
                             dense_weight=route.dense_weight, extra=[(h, w) for _, h, w in extra]
                             )[: cfg.ranked_for(ask.top_k)])
    reranker = ctx.reranker if cfg.rerank and found.fused else None
    if reranker is not None:
        found.fused_as(_rerank(ctx, reranker, ask.query, found.fused_ids, ask.keys))
    for name, hits in (("dense", found.dense), ("lexical", found.lexical), *((n, h) for n, h, _ in extra)):
        found.found_by(name, [h.trace_id for h in hits])
    return entities


def _expand(ctx: MemoryContext, ask: _Ask, route: IntentRoute, found: _Found, named: Callable[[], list] | None,
            entities: list | None) -> None:
    """Candidates by the graph: activation spread from the best matches, the multi-hop walk,
    causes and effects, the current versions of matched memories; then every candidate's
    ranking fields. The reads are sent before the first is waited for."""
    cfg = ctx.config.retrieval
    fused_ids = found.fused_ids
    # A question about how things were reads replaced and expired memories at their own rank;
    # "When is the meeting?" still asks about now.
    found.history = route.include_superseded and asks_about_the_past(ask.query)
    # The fused candidates' ranking fields are read while activation spreads (the graph
    # answers both at once); activation returns those of the traces it reaches.
    fused_vitals = ctx.graph.trace_vitals_later(fused_ids, ask.keys)
    newer: Later[list[tuple[str, str]]] = ctx.graph.newer_versions_later(fused_ids, ask.keys) \
        if cfg.current_facts_first and not found.history and not ask.when.timeline and fused_ids else _nothing
    # Seeds spread as much activation as retrieval found them relevant (ACT-R source activation).
    found.relevance = dict(found.fused)
    seeds = fused_ids[: ctx.config.graph.activation.max_seeds]
    causal: Later[list[CausalNeighbour]] = ctx.graph.causal_neighbours_later(seeds, ask.keys, route.causal_hops) \
        if route.causal_hops and seeds else _nothing
    reached = ctx.graph.spread_activation(seeds, ask.keys, seed_activation={s: found.relevance[s] for s in seeds})
    found.activation = {a.trace_id: a.activation for a in reached}
    found.found_by("activation", found.activation)
    # Queries naming several entities: multi-hop candidates join; their walk score counts as relevance.
    if entities is None and named is not None:
        entities = named()
    blended = multihop_walk.blend_candidates(ctx, ask.query, found.relevance, ask.pool, entities,
                                        min_entities=1 if route.entity_hub else None)
    found.join("multi_hop", blended)
    caused = _caused(ctx, found.relevance, causal())
    found.join("causal", caused)
    # The current version of a matched memory joins the candidates, as relevant as the old one.
    found.versions = newer()
    for old, new in found.versions:
        found.join("newer_version", {new: found.relevance.get(old, 0.0)})
    ids = list(dict.fromkeys(
        fused_ids + list(found.activation) + list(blended) + list(caused) + [n for _, n in found.versions]))
    if ask.where is not None:  # the vector hits passed the payload filter; the graph's candidates pass here
        ids = ask.where.keep(ctx, ids)
    found.ids = ids
    _read_vitals(ctx, ask, found, fused_vitals, reached)


def _caused(ctx: MemoryContext, relevance: dict[str, float], rows: list[CausalNeighbour]) -> dict[str, float]:
    """Causal questions: what caused the best matches, or what they caused, scored by the
    seed's relevance fading per causal step."""
    hop_decay = ctx.config.graph.activation.decay_per_hop
    caused: dict[str, float] = {}
    for near in rows:
        score = relevance.get(near.seed, 0.0) * hop_decay ** near.steps
        caused[near.trace_id] = max(caused.get(near.trace_id, 0.0), score)
    return caused


def _read_vitals(ctx: MemoryContext, ask: _Ask, found: _Found, fused_vitals: Later[list[TraceVitals]],
                 reached: list) -> None:
    """The candidates' ranking fields (active, indexed traces only): the fused ones' read,
    those activation brought, and one more read for what neither covered. Whole traces are
    loaded only for what is returned."""
    vitals = {v.id: v for v in fused_vitals()}
    vitals.update({a.trace_id: a.vitals for a in reached if a.vitals is not None and a.trace_id not in vitals})
    known = set(found.fused_ids) | set(found.activation)
    unread = [tid for tid in found.ids if tid not in known and tid not in vitals]
    if unread:  # multi-hop candidates the other reads did not cover
        vitals.update({v.id: v for v in ctx.graph.trace_vitals(unread, ask.keys)})
    found.vitals = vitals


def _ranked(ctx: MemoryContext, ask: _Ask, route: IntentRoute, found: _Found, now: int, mood: Mood) -> list:
    """Every recallable candidate scored (the six signals, the category and version rules, the
    rules that read the best ones' words), best first, as (candidate, recall kind) pairs."""
    versions = found.versions
    cosine = found.cosine
    # Forgetting is about the present: a question about the past may find dormant memories.
    recallable = _dormant_filter(ctx.config.retention, found.fused_ids, cosine, {n for _, n in versions},
                                 about_asker=asks_about_self(ask.query)) if ask.when == NOW else (lambda v: True)
    valid = _validity_filter(ctx, ask.when, now, current_only=not found.history,
                             replaced={o for o, _ in versions})
    vitals = found.vitals
    ranked = [vitals[tid] for tid in found.ids if tid in vitals and recallable(vitals[tid]) and valid(vitals[tid])]
    table, scores, tip_of_tongue, weights = _score(ctx, ranked, found.relevance, found.activation, cosine, mood,
                                                   now)
    how = _How(ctx.config.retrieval.scoring, weights, ctx.config.retrieval.prior_weight,
               {tid: rank for rank, tid in enumerate(found.fused_ids, 1)}, table, scores)
    boosts = _category_boosts(ctx, ask.query, route)
    if boosts:
        scores = _boost_categories(ranked, scores, boosts)
    if versions:
        scores = _current_first([v.id for v in ranked], scores, versions, ctx.config.retrieval.current_first_margin)
    scored = [
        (_Candidate(v, score, table, i, found.sources[v.id], how),
         RecallKind.TIP_OF_TONGUE if tot else RecallKind.RECALLED)
        for i, (v, score, tot) in enumerate(zip(ranked, scores, tip_of_tongue, strict=True))
    ]
    scored.sort(key=lambda pair: (-pair[0].score, pair[0].vitals.id))
    return scored


def _select(ctx: MemoryContext, ask: _Ask, plan: QueryPlan, found: _Found, scored: list, now: int, mood: Mood,
            record_access: bool) -> RetrievalResult:
    """The best top_k, whatever their strength: hiding the best match because it is weak
    would surprise every caller. Tip-of-the-tongue partials are the candidates that missed
    the cut although the cue matches them well (cosine > 0.6): weak or untrusted memories the
    agent "almost" has, to be re-cued. Then the after-retrieval writes."""
    cfg = ctx.config.retrieval
    top_k, keys, cosine = ask.top_k, ask.keys, found.cosine
    read: dict[str, str] = {}  # texts read on the way, not read again
    scored = _reweigh_head(ctx, ask.query, found.ahead, scored, ask.depth, keys, read, found.versions)
    if cfg.query.mmr_lambda < 1.0 and plan.route.diversify and len(scored) > top_k:
        scored = _diversified(ctx, scored, top_k, ask.depth, keys, read)
    best = [c for c, _ in scored[:top_k]]
    if ask.when.timeline:  # the best matches, told in the order they happened
        best.sort(key=lambda c: (c.vitals.created_at, c.vitals.id))
    almost = [c for c, kind in scored[top_k:] if kind is RecallKind.TIP_OF_TONGUE][:top_k]
    returned = {c.vitals.id for c in best}
    # Retrieval-induced forgetting can only suppress losers more similar than its threshold.
    rif = ctx.config.mechanisms.retrieval_induced_forgetting
    competitor_ids = ([c.vitals.id for c, _ in scored[top_k:]
                       if cosine.get(c.vitals.id, -1.0) > rif.similarity_threshold]
                      if record_access and best and rif.enabled else [])
    # The whole traces are read while the feeling-of-knowing signals are worked out.
    unread = list(dict.fromkeys([c.vitals.id for c in best + almost] + competitor_ids))
    loading = ctx.graph.get_traces_later(unread, keys) if unread else _nothing
    cutoff = best[-1].score if len(best) == top_k else None
    fok = detect_feeling_of_knowing(
        ((c.vitals, c.score, cosine.get(c.vitals.id, 0.0)) for c, _ in scored if c.vitals.id not in returned),
        ctx.config.mechanisms.feeling_of_knowing, now, retrieval_cutoff=cutoff,
        query_entities=[e.name for e in extract_entities(ask.query)],
    )
    traces = {t.id: t for t in loading()}
    recalled = [c.scored(traces[c.vitals.id]) for c in best if c.vitals.id in traces]
    if ctx.config.retrieval.current_facts_first and ask.when == NOW and not found.history:
        recalled = _newer_statement_first(ctx, recalled, ask.query)
    partial = [c.scored(traces[c.vitals.id]) for c in almost if c.vitals.id in traces]
    if record_access and recalled:
        competitors = [(traces[tid], cosine[tid]) for tid in competitor_ids if tid in traces]
        _after_retrieval(ctx, recalled, competitors, keys, now, mood)
    return RetrievalResult(query=ask.query, traces=recalled, partial=partial, feeling_of_knowing=fok,
                           strategy=ask.strategy, intent=plan.intent.value, as_of=ask.when.as_of,
                           timeline=ask.when.timeline)


def _retrieve_parts(
    ctx: MemoryContext, query: str, plan: QueryPlan, *, top_k: int, record_access: bool,
    mood: Mood | None, when: When, where: Filtered | None = None, gather_for: GatherQuestions | None = None,
) -> RetrievalResult:
    """A compound question: each part retrieved on its own (read-only), each part's best
    answer first, then the rest as reciprocal rank fusion of the parts' lists ranks them (RRF
    alone would put a memory loosely matching every part above each part's answer); the
    after-retrieval writes run once, for what is returned."""
    depth = ctx.config.retrieval.depth_for(top_k)  # each part's list as long as any top_k's
    results = [_retrieve(ctx, part, top_k=depth, record_access=False, mood=mood, when=when, where=where,
                         gather_for=gather_for) for part in plan.parts]
    fused = reciprocal_rank_fusion([[item.trace.id for item in r.traces] for r in results],
                                   k=ctx.config.retrieval.rrf_k)
    found: dict[str, ScoredTrace] = {}
    for r in results:
        for item in r.traces:
            found.setdefault(item.trace.id, item)
    order = dict.fromkeys([r.traces[0].trace.id for r in results if r.traces] + [tid for tid, _ in fused])
    recalled = [found[tid] for tid in list(order)[:top_k]]
    returned = {item.trace.id for item in recalled}
    partial = list({item.trace.id: item for r in results for item in r.partial
                    if item.trace.id not in returned}.values())[:top_k]
    fok = [signal for r in results for signal in r.feeling_of_knowing]
    if record_access and recalled:
        now = ctx.clock.now_ms()
        _after_retrieval(ctx, recalled, [], ctx.visible_scope_keys, now, mood or ctx.current_mood())
    return RetrievalResult(query=query, traces=recalled, partial=partial, feeling_of_knowing=fok, strategy="full",
                           intent=plan.intent.value, parts=plan.parts, as_of=when.as_of, timeline=when.timeline)


def _entity_search_asked(gather: GatherConfig, gather_for: GatherQuestions | None, query: str) -> bool:
    """Whether the entity search serves this question, if it names a known entity."""
    return bool(gather.entity_dense_weight) and (
        (gather_for or gather.entity_dense_questions) == "all" or asks_for_several(query))


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


def _category_boosts(ctx: MemoryContext, query: str, route: IntentRoute) -> dict[str, float]:
    """Score gain per memory category: the route's (preference questions: stated preferences
    and corrections first) and, for a question about the asker, what they stated about
    themselves."""
    qcfg = ctx.config.retrieval.query
    gains = dict.fromkeys(route.boost_categories, route.category_boost) if route.category_boost else {}
    if qcfg.self_boost and asks_about_self(query):
        for category in qcfg.self_categories:
            gains[category] = max(gains.get(category, 0.0), qcfg.self_boost)
    return {str(category): gain for category, gain in gains.items() if gain}


def _boost_categories(ranked: list[TraceVitals], scores: list[float], gains: dict[str, float]) -> list[float]:
    """Score × (1 + gain) for each memory of a boosted category."""
    return [score * (1.0 + gains.get(v.category, 0.0)) for v, score in zip(ranked, scores, strict=True)]


def _read_texts(ctx: MemoryContext, ids: list[str], keys: list[str], texts: dict[str, str]) -> dict[str, str]:
    """The texts of these traces, reading only those not yet in `texts` (which keeps them)."""
    unread = [tid for tid in ids if tid not in texts]
    if unread:
        texts.update(ctx.graph.trace_texts(unread, keys))
    return {tid: texts[tid] for tid in ids if tid in texts}


def _reweigh_head(
    ctx: MemoryContext, query: str, ahead: bool, scored: list, depth: int, keys: list[str], read: dict[str, str],
    versions: Sequence[tuple[str, str]] = (),
) -> list:
    """Rules that read the memories' words, applied to the best `depth` (who spoke from
    their leads, the whole texts read only for what is ahead), then that head is sorted again:

    * whose words: on a question about the asker, what another named person said scores
      × (1 - other_speaker_discount); on a question naming someone who speaks in these
      memories, what a speaker it does not name said scores × (1 - unnamed_speaker_discount);
    * what is ahead: on a question about what is still to come, a memory that spoke of
      something ahead (a plan, an announced event) scores × (1 + ahead_boost).
    """
    qcfg = ctx.config.retrieval.query
    about_self = asks_about_self(query)
    about_asker = bool(qcfg.other_speaker_discount) and about_self
    named = _named_in(ctx, query) if qcfg.unnamed_speaker_discount and not about_self else frozenset()
    if not (about_asker or ahead or named):
        return scored
    head = scored[:depth]
    texts = _read_texts(ctx, [c.vitals.id for c, _ in head], keys, read) if ahead else {}
    identity = ctx.identity
    asker = frozenset(n.lower() for n in (identity.user_id,) if n) if identity is not None else frozenset()
    speakers = _speakers(ctx, [c.vitals for c, _ in head], keys, read)
    # Only a name that speaks here says whose words answer: "What did we do in Paris?" names no speaker.
    named &= {s.lower() for s in speakers.values() if s}
    if not (about_asker or ahead or named):
        return scored

    def factor(tid: str) -> float:
        text, speaker = texts.get(tid, ""), speakers.get(tid)
        gain = 1.0
        if about_asker and said_by_someone_else(speaker, asker):
            gain *= 1.0 - qcfg.other_speaker_discount
        if named and said_by_someone_else(speaker, named):
            gain *= 1.0 - qcfg.unnamed_speaker_discount
        if ahead and tells_of_what_is_ahead(text):
            gain *= 1.0 + qcfg.ahead_boost
        return gain

    head = [(replace(c, score=c.score * factor(c.vitals.id)), kind) for c, kind in head]
    if versions:  # a replaced memory stays below its newer version whatever the rules did
        kept = _current_first([c.vitals.id for c, _ in head], [c.score for c, _ in head], list(versions),
                              ctx.config.retrieval.current_first_margin)
        head = [(replace(c, score=score), kind) for (c, kind), score in zip(head, kept, strict=True)]
    head.sort(key=lambda pair: (-pair[0].score, pair[0].vitals.id))
    return head + scored[len(head):]


def _speakers(ctx: MemoryContext, vitals: list[TraceVitals], keys: list[str],
              read: dict[str, str]) -> dict[str, str | None]:
    """Who spoke each of these memories (None: said plainly), read from its lead (its text up to
    the first ": "); a memory's whole text is read only when that opening is too long to carry.
    The lead and ": " are the start of the text, and a speaker's name ends at the text's first
    colon, so they name the same speaker as the whole text."""
    speakers: dict[str, str | None] = {}
    unsure: list[str] = []
    for v in vitals:
        if v.lead is None:
            unsure.append(v.id)
        else:
            speakers[v.id] = speaker_of(v.lead if v.lead_is_whole else v.lead + ": ")
    if unsure:
        speakers.update({tid: speaker_of(text) for tid, text in _read_texts(ctx, unsure, keys, read).items()})
    return speakers


def _named_in(ctx: MemoryContext, query: str) -> frozenset[str]:
    """The names a question holds, lower case, as the entity search reads them."""
    limit = ctx.config.retrieval.multi_hop.max_query_entities
    return frozenset(name.lower() for _, name in query_entity_keys(query, limit))


def _diversified(ctx: MemoryContext, scored: list, top_k: int, depth: int, keys: list[str],
                 read: dict[str, str]) -> list:
    """MMR over the best depth × mmr_pool: the top_k it picks first (greedy picks, so the first
    of a longer list), then the rest in score order."""
    qcfg = ctx.config.retrieval.query
    pool = scored[: depth * qcfg.mmr_pool]
    texts = _read_texts(ctx, [c.vitals.id for c, _ in pool], keys, read)
    order = maximal_marginal_relevance([c.score for c, _ in pool], [texts.get(c.vitals.id, "") for c, _ in pool],
                                       top_k, qcfg.mmr_lambda)
    picked = set(order)
    return [pool[i] for i in order] + [pair for i, pair in enumerate(pool) if i not in picked] + scored[len(pool):]


def _score(
    ctx: MemoryContext, ranked: list[TraceVitals], relevance: dict[str, float], activation: dict[str, float],
    cosine: dict[str, float], mood: Mood, now: int,
) -> tuple[SignalTable, list[float], list[bool], SignalWeights]:
    """The six signals, composite score and tip-of-the-tongue flag of every candidate,
    computed over arrays (one element per candidate), and the weights they were scored with."""
    cfg = ctx.config.retrieval
    ids = [v.id for v in ranked]

    def column(values) -> np.ndarray:
        return np.fromiter(values, np.float64, len(ranked))

    last_accessed = np.fromiter((v.last_accessed_at for v in ranked), np.int64, len(ranked))
    confidence = column(v.confidence for v in ranked)
    encoding = column(v.encoding_strength for v in ranked)
    strength = current_strengths(encoding, column(v.stability for v in ranked), last_accessed, now,
                                 ctx.config.decay)
    # What decay never forgets does not fade either (the second reference: no decay for
    # preferences, identities, corrections), nor does a pinned memory.
    permanent = set(ctx.config.retention.permanent_categories)
    lasting = np.fromiter((v.pinned or v.category in permanent for v in ranked), bool, len(ranked))
    strength = np.where(lasting, encoding, strength)
    table = SignalTable(
        strength=strength,
        similarity=column(relevance.get(tid, 0.0) for tid in ids),
        recency=recency_signals(now - last_accessed, half_life_ms=cfg.recency_half_life_ms),
        emotional=emotional_congruences(mood.valence, column(v.valence for v in ranked)),
        activation=column(activation.get(tid, 0.0) for tid in ids),
        importance=importance_signals(confidence, config=cfg),
    )
    weights = modulated_weights(cfg.weights, ctx.traits, config=cfg)
    scores = prior_weighted_scores(table, weights, cfg.prior_weight) if cfg.scoring == "prior" \
        else composite_scores(table, weights)
    tip_of_tongue = tip_of_tongue_mask(column(cosine.get(tid, 0.0) for tid in ids), strength, confidence, config=cfg)
    return table, scores.tolist(), tip_of_tongue.tolist(), weights


def _dormant_filter(retention: RetentionConfig, fused_ids: list[str], cosine: dict[str, float],
                    always: set[str], *, about_asker: bool = False):
    """Which candidates may be ranked: every active one; a dormant one only when the query
    matches it strongly (among the best `dormant_recall_rank` by relevance, or by cosine above
    `dormant_recall_similarity`), or when it is the current version of a matched memory. On a
    question about the asker, a dormant memory that states something (not small talk) also
    joins when it is among the best `dormant_recall_rank_about_self`: its category counts,
    not only how well its words match."""
    strong = set(fused_ids[: retention.dormant_recall_rank])
    stated = set(fused_ids[: retention.dormant_recall_rank_about_self]) if about_asker else set()

    def recallable(v: TraceVitals) -> bool:
        return (not v.dormant or v.id in strong or v.id in always
                or (v.id in stated and v.category != MemoryCategory.OTHER)
                or cosine.get(v.id, -1.0) > retention.dormant_recall_similarity)
    return recallable


def _validity_filter(ctx: MemoryContext, when: When, now: int, *, current_only: bool, replaced: set[str]):
    """Which candidates the asked-for state holds. At a point in time: what held then. Now
    (unless the route asks for history, as temporal questions do): not what has expired,
    except a replaced memory whose newer version is a candidate too (it ranks
    just below it, reachable for "what did I say before?"). The timeline: everything."""
    if when.as_of is not None:
        at = when.as_of

        def held_then(v: TraceVitals) -> bool:
            return held_at(v.valid_from if v.valid_from is not None else v.created_at, v.valid_until, at)
        return held_then
    if when.timeline or not current_only or not ctx.config.validity.current_state:
        return lambda v: True
    return lambda v: v.id in replaced or not expired(v.valid_until, now)


def _newer_statement_first(ctx: MemoryContext, recalled: list[ScoredTrace], question: str) -> list[ScoredTrace]:
    """Among what is returned, a statement that a newer one contradicts ranks below it even
    when no edge says so (the write path did not see the two together): the same rule the
    write path applies (`language.contradiction.replaced_among`), read from the texts at hand,
    and two that give the value the question asks for differently (see `replaced_in_view`)."""
    pairs = replaced_in_view(ctx, [s.trace for s in recalled], question=question)
    if not pairs:
        return recalled
    scores = _current_first([s.trace.id for s in recalled], [s.score for s in recalled], pairs,
                            ctx.config.retrieval.current_first_margin)
    out = [replace(s, score=score) for s, score in zip(recalled, scores, strict=True)]
    return sorted(out, key=lambda s: (-s.score, s.trace.id))


def replaced_in_view(ctx: MemoryContext, shown: Sequence[MemoryTrace],
                     known: Sequence[tuple[str, str]] = (), question: str | None = None) -> list[tuple[str, str]]:
    """(older id, newer id) among memories shown together where the newer contradicts the older
    and no edge (`known`) says so yet: what a prompt marks outdated though the write path missed
    it. With the `question` they answer (not one about the past), also where the two give
    different values of what it asks for (`language.asked_value`), however the change was worded."""
    cfg = ctx.config.retrieval
    if not cfg.current_facts_first:
        return []
    oldest_first = [(t.id, t.content) for t in sorted(shown, key=lambda t: (t.created_at, t.recorded_at, t.id))]
    have = set(known)
    pairs = replaced_among(oldest_first, ctx.config.write.contradiction_min_confidence)
    if question and cfg.asked_value_first and not asks_about_the_past(question):
        pairs += disagree_on_asked_value(question, oldest_first)
    return [pair for pair in dict.fromkeys(pairs) if pair not in have]


def _current_first(ranked: Sequence[str], scores: list[float],
                   versions: Sequence[tuple[str, str]], margin: float) -> list[float]:
    """Each memory scores at least `margin` (relative) below its newer version (chains settle
    in a few passes), so the current fact comes first and the one it replaced stays reachable
    after it."""
    index = {tid: i for i, tid in enumerate(ranked)}
    pairs = [(index[o], index[n]) for o, n in versions if o in index and n in index and o != n]
    both_ways = set(pairs)
    pairs = [(o, n) for o, n in pairs if (n, o) not in both_ways]  # each replaces the other: neither is sure
    out = list(scores)
    keep = 1.0 - margin
    for _ in range(len(pairs) + 1):
        changed = False
        for old, new in pairs:
            if out[old] > out[new] * keep:
                out[old] = out[new] * keep
                changed = True
        if not changed:
            break
    return out


def newer_versions(ctx: MemoryContext, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(old, new) for each of `ids` that a visible active memory replaces: one that contradicts
    it from a later event time, or superseded it in a resolved contradiction (see
    `cypher/newer_versions.cypher`). One read."""
    if not ids:
        return []
    return ctx.graph.newer_versions_later(list(dict.fromkeys(ids)), ctx.visible_scope_keys)()


@dataclass(frozen=True)
class _How:
    """What one question's candidates were scored with: the explanation each returned memory
    carries (`ScoreComposition`) is read from here, not worked out again."""

    scoring: str
    weights: SignalWeights
    prior_weight: float
    fused_rank: dict[str, int]
    table: SignalTable
    base: list[float]


@dataclass(frozen=True)
class _Candidate:
    """A ranked candidate before its whole trace is loaded."""

    vitals: TraceVitals
    score: float
    table: SignalTable
    row: int
    sources: set[str]
    how: _How | None = None

    @property
    def signals(self) -> Signals:
        return self.table.row(self.row)

    def scored(self, trace: MemoryTrace) -> ScoredTrace:
        """The returned form (signals as a dict, sources sorted, how the score was made): built
        only for what is returned."""
        signals = self.signals
        how = self.how
        composition = None if how is None else ScoreComposition(
            scoring=how.scoring, weights=how.weights.as_dict(),
            contributions=signal_contributions(signals, how.weights, how.scoring, how.prior_weight),
            base=how.base[self.row], fused_rank=how.fused_rank.get(self.vitals.id), prior_weight=how.prior_weight)
        return ScoredTrace(trace, self.score, signals.as_dict(), tuple(sorted(self.sources)), composition)


def _rerank(
    ctx: MemoryContext, reranker: Reranker, query: str, ids: list[str], keys: list[str],
) -> list[tuple[str, float]]:
    traces = {t.id: t for t in ctx.graph.get_traces(ids, keys)}
    ordered = [tid for tid in ids if tid in traces]
    ranked = reranker.rerank(query, [traces[t].content for t in ordered], top_n=len(ordered))
    return [(ordered[index], float(score)) for index, score in ranked]


def _after_retrieval(
    ctx: MemoryContext, recalled: list[ScoredTrace], competitors: list[tuple[MemoryTrace, float]],
    keys: list[str], now: int, mood: Mood,
) -> None:
    """Retrieval strengthens what it returns (spaced repetition), wires it together
    (Hebbian), re-opens it to the current mood (reconsolidation), and suppresses
    similar competitors that lost (retrieval-induced forgetting). One statement for all four."""
    mechanisms = ctx.config.mechanisms
    updates = []
    for item in recalled:
        u = update_on_retrieval(item.trace, now, ctx.config.decay)
        updates.append(AccessUpdate(item.trace.id, u.last_accessed_at, u.stability, u.reinforcement_interval,
                                    u.next_reinforcement_at, u.encoding_strength))
    wired = recalled[: ctx.config.graph.edges.hebbian_max_co_retrieved]
    rows: list[dict] = []
    for item in recalled:
        after = reconsolidate(item.trace, mood, mechanisms.reconsolidation, now)
        if after is not item.trace:
            rows.append({"id": after.id, "valence": after.valence, "arousal": after.arousal,
                         "dominance": after.dominance, "structuredData": after.structured_data_json()})
    rif = retrieval_induced_forgetting(competitors, {i.trace.id for i in recalled},
                                       mechanisms.retrieval_induced_forgetting, now)
    suppressed = set(rif.suppressed_ids)
    rows += [{"id": t.id, "stability": t.stability} for t in rif.traces if t.id in suppressed]
    co_retrieved = [item.trace.id for item in wired] if len(wired) > 1 else []
    ctx.graph.after_retrieval(updates, co_retrieved, rows, keys, wait=not ctx.config.retrieval.defer_access_writes)
