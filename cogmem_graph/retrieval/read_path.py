"""The read path, as named stages, each taking what it needs and returning its own result:

- plan: the pre-retrieval gate (small talk and slash commands stop here, unembedded), the
  query's intent and route, a compound question split into parts (`query_plan`);
- candidates (`candidates.search` → `Searched`, `candidates.fuse` → `Fused`): dense hits
  (embedding cache, the caller's scopes and filter), BM25 hits, the lists gathered around
  the question's entities, fused (and reranked when a reranker is on);
- expand (`candidates.expand` → `Expanded`): activation spread from the best matches through
  the graph, the multi-hop walk, causes and effects, the current versions of matched
  memories, then every candidate's ranking fields; the graph reads are sent before the first
  is waited for;
- score (`ranking.rank` → `Ranked`): the six signals, HEXACO-modulated, the category and
  version rules; what they were scored with (`ranking.Scoring`) is what each returned
  memory's `ScoreComposition` reads;
- select (`selection.select` → `Selected`): the rules that read the best memories' words,
  diversity, the top_k, tip-of-the-tongue partials and feeling-of-knowing, the whole traces
  loaded; then `selection.current_facts_first`: a statement a newer one contradicts below it;
- after-retrieval (`_after_retrieval`): access update (spaced repetition), Hebbian
  CO_ACTIVATED among the returned set and the mechanisms' changes, one statement.

A compound question runs the stages once per part (`_answer_parts`) and writes once.
`strategy="dense"` and `"lexical"` return a single candidate list ranked as the
vector store ranked it: the plain baselines the full pipeline is measured against.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.cognition.decay import update_on_retrieval
from cogmem_graph.cognition.mechanisms import reconsolidate, retrieval_induced_forgetting
from cogmem_graph.config.multihop import GatherQuestions
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.gc_pause import collector_paused
from cogmem_graph.graph.port import AccessUpdate
from cogmem_graph.language.query_gate import skips_retrieval
from cogmem_graph.model import MemoryTrace, Mood
from cogmem_graph.results import RetrievalResult, ScoredTrace
from cogmem_graph.retrieval.ask import NOW as NOW
from cogmem_graph.retrieval.ask import STRATEGIES as STRATEGIES
from cogmem_graph.retrieval.ask import Ask
from cogmem_graph.retrieval.ask import Filtered as Filtered
from cogmem_graph.retrieval.ask import Strategy as Strategy
from cogmem_graph.retrieval.ask import When as When
from cogmem_graph.retrieval.candidates import Searched, entity_search_asked, expand, fuse, search
from cogmem_graph.retrieval.fusion import reciprocal_rank_fusion
from cogmem_graph.retrieval.multihop import walk as multihop_walk
from cogmem_graph.retrieval.query_plan import QueryPlan, plan_query
from cogmem_graph.retrieval.ranking import rank
from cogmem_graph.retrieval.selection import NOTHING_SELECTED, Selected, current_facts_first, select
from cogmem_graph.retrieval.selection import replaced_in_view as replaced_in_view

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


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


def _retrieve(
    ctx: MemoryContext, query: str, *, top_k: int, strategy: Strategy = "full",
    record_access: bool = True, mood: Mood | None = None, when: When = NOW, where: Filtered | None = None,
    gather_for: GatherQuestions | None = None,
) -> RetrievalResult:
    """The arguments checked, the gate and the plan, then the stages (`_answer`, or
    `_answer_parts` for a compound question)."""
    if strategy not in STRATEGIES:
        raise InvalidArgument(f"strategy must be one of {STRATEGIES}, not {strategy!r}", argument="strategy")
    cfg = ctx.config.retrieval
    keys = list(where.scope_keys) if where is not None else ctx.visible_scope_keys
    if not keys:  # the filter's scopes are none the caller sees
        return RetrievalResult(query=query, strategy=strategy)
    ask = Ask.of(ctx, query, top_k, strategy, keys, when, where)
    if strategy == "full" and cfg.query.gate and skips_retrieval(query):
        return RetrievalResult(query=query, strategy=strategy, gated=True)
    if strategy != "full":
        return _baseline(ctx, ask, search(ctx, ask, None, None, False))
    plan = plan_query(ctx, query)
    parts = plan.parts if len(plan.parts) > 1 else ()
    if not parts:
        selected = _answer(ctx, ask, plan, mood=mood, gather_for=gather_for, record_access=record_access)
    else:
        selected = _answer_parts(ctx, ask, plan, mood=mood, gather_for=gather_for)
        if record_access and selected.recalled:
            _after_retrieval(ctx, selected.recalled, [], ctx.visible_scope_keys, ctx.clock.now_ms(),
                             mood or ctx.current_mood())
    return RetrievalResult(query=query, traces=selected.recalled, partial=selected.partial,
                           feeling_of_knowing=selected.feeling_of_knowing, strategy=strategy,
                           intent=plan.intent.value, parts=parts, as_of=when.as_of, timeline=when.timeline)


def _answer(ctx: MemoryContext, ask: Ask, plan: QueryPlan, *, mood: Mood | None,
            gather_for: GatherQuestions | None, record_access: bool) -> Selected:
    """One planned question through the stages: search, fuse, expand, rank, select, current
    facts first; then, when access is recorded, the after-retrieval writes."""
    cfg = ctx.config.retrieval
    # The graph looks up the entities the query names while the vector store finds candidates.
    named = multihop_walk.query_entities_later(ctx, ask.query) if cfg.multi_hop_blend else None
    entity_search = named is not None and entity_search_asked(cfg.gather, gather_for, ask.query)
    searched = search(ctx, ask, plan, named, entity_search)
    fused = fuse(ctx, ask, plan.route, searched, named, entity_search)
    expanded = expand(ctx, ask, plan.route, fused, named)
    now = ctx.clock.now_ms()
    mood = mood or ctx.current_mood()
    ranked = rank(ctx, ask, plan.route, searched, fused, expanded, now, mood)
    selected = current_facts_first(ctx, ask, expanded, select(ctx, ask, plan, searched, expanded, ranked, now,
                                                              record_access))
    if record_access and selected.recalled:
        _after_retrieval(ctx, selected.recalled, selected.competitors, ask.keys, now, mood)
    return selected


def _answer_parts(ctx: MemoryContext, ask: Ask, plan: QueryPlan, *, mood: Mood | None,
                  gather_for: GatherQuestions | None) -> Selected:
    """A compound question: each part through the stages on its own (read-only, its list as
    long as any top_k's), each part's best answer first, then the rest as reciprocal rank
    fusion of the parts' lists ranks them (RRF alone would put a memory loosely matching every
    part above each part's answer). The caller writes once, for what is returned."""
    depth = ctx.config.retrieval.depth_for(ask.top_k)
    results = [_answer_part(ctx, Ask.of(ctx, part, depth, "full", ask.keys, ask.when, ask.where), mood=mood,
                            gather_for=gather_for) for part in plan.parts]
    fused = reciprocal_rank_fusion([[item.trace.id for item in r.recalled] for r in results],
                                   k=ctx.config.retrieval.rrf_k)
    found: dict[str, ScoredTrace] = {}
    for r in results:
        for item in r.recalled:
            found.setdefault(item.trace.id, item)
    order = dict.fromkeys([r.recalled[0].trace.id for r in results if r.recalled] + [tid for tid, _ in fused])
    recalled = [found[tid] for tid in list(order)[: ask.top_k]]
    returned = {item.trace.id for item in recalled}
    partial = list({item.trace.id: item for r in results for item in r.partial
                    if item.trace.id not in returned}.values())[: ask.top_k]
    return Selected(recalled, partial, [signal for r in results for signal in r.feeling_of_knowing], [])


def _answer_part(ctx: MemoryContext, ask: Ask, *, mood: Mood | None,
                 gather_for: GatherQuestions | None) -> Selected:
    """One part of a compound question, gated and planned as a question of its own."""
    if ctx.config.retrieval.query.gate and skips_retrieval(ask.query):
        return NOTHING_SELECTED
    plan = plan_query(ctx, ask.query)
    if len(plan.parts) > 1:
        return _answer_parts(ctx, ask, plan, mood=mood, gather_for=gather_for)
    return _answer(ctx, ask, plan, mood=mood, gather_for=gather_for, record_access=False)


def _baseline(ctx: MemoryContext, ask: Ask, searched: Searched) -> RetrievalResult:
    """`strategy="dense"` or `"lexical"`: one list, ranked as the vector store ranked it."""
    hits = searched.dense or searched.lexical
    if ask.where is not None:
        kept = set(ask.where.keep(ctx, [h.trace_id for h in hits]))
        hits = [h for h in hits if h.trace_id in kept]
    top = hits[: ask.top_k]
    traces = {t.id: t for t in ctx.graph.get_traces([h.trace_id for h in top], ask.keys)}
    baseline = [ScoredTrace(traces[h.trace_id], h.score, {"similarity": h.score}, (ask.strategy,))
                for h in top if h.trace_id in traces and traces[h.trace_id].is_active]
    return RetrievalResult(query=ask.query, traces=baseline, strategy=ask.strategy)


def newer_versions(ctx: MemoryContext, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(old, new) for each of `ids` that a visible active memory replaces: one that contradicts
    it from a later event time, or superseded it in a resolved contradiction (see
    `cypher/newer_versions.cypher`). One read."""
    if not ids:
        return []
    return ctx.graph.newer_versions_later(list(dict.fromkeys(ids)), ctx.visible_scope_keys)()


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
