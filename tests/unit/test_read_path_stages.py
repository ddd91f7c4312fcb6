"""The read path's stages, each given its inputs and read by its own result: fusion
(`candidates.fuse` → `Fused`), scoring (`ranking.rank` → `Ranked`), selection
(`selection.select` → `Selected`) and the current facts first. The stages that read the
graph read the embedded store's."""

from __future__ import annotations

import dataclasses

import pytest

from cogmem_graph.clock import ManualClock
from cogmem_graph.cognition.scoring import RecallKind
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.query import IntentRoute
from cogmem_graph.context import MemoryContext
from cogmem_graph.graph.port import TraceVitals
from cogmem_graph.language.query_intent import QueryIntent
from cogmem_graph.model import MemoryTrace, Mood
from cogmem_graph.providers.embedders import HashEmbedder
from cogmem_graph.results import ScoredTrace
from cogmem_graph.retrieval.ask import NOW, Ask, When
from cogmem_graph.retrieval.candidates import Expanded, Fused, Searched, fuse
from cogmem_graph.retrieval.fusion import fuse_hits
from cogmem_graph.retrieval.query_plan import QueryPlan
from cogmem_graph.retrieval.ranking import Ranked, rank
from cogmem_graph.retrieval.selection import Selected, current_facts_first, select
from cogmem_graph.vectors.port import VectorHit

DAY = 86_400_000
NOW_MS = 400 * DAY
ROUTE = IntentRoute()


class _Recording:
    """A real graph store that also records which traces the selection stage loads whole."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.asked: list[list[str]] = []

    def __getattr__(self, name: str):
        return getattr(self.graph, name)

    def get_traces_later(self, ids, keys):
        self.asked.append(list(ids))
        return self.graph.get_traces_later(ids, keys)


def _stored(store, traces: list[MemoryTrace]) -> _Recording:
    store.graph.upsert_traces(traces)
    return _Recording(store.graph)


def _ctx(graph=None, **config) -> MemoryContext:
    return MemoryContext(graph=graph, vectors=None, embedder=HashEmbedder(), config=CogmemConfig(**config),
                         clock=ManualClock(NOW_MS))


def _ask(ctx: MemoryContext, query: str, top_k: int = 2, when: When = NOW) -> Ask:
    return Ask.of(ctx, query, top_k, "full", ["user:u1"], when, None)


def _vitals(tid: str, *, dormant: bool = False, created_at: int = NOW_MS - DAY) -> TraceVitals:
    return TraceVitals(id=tid, encoding_strength=0.6, stability=30.0, last_accessed_at=created_at, valence=0.0,
                       confidence=0.9, created_at=created_at, dormant=dormant)


def _trace(tid: str, content: str, created_at: int) -> MemoryTrace:
    return MemoryTrace(id=tid, scope_id="u1", scope_key="user:u1", agent_id="a", content=content,
                       created_at=created_at, recorded_at=created_at, last_accessed_at=created_at)


def test_fusion_joins_the_text_lists_and_says_what_found_each() -> None:
    ctx = _ctx()
    dense = [VectorHit("a", 0.9), VectorHit("b", 0.7)]
    lexical = [VectorHit("b", 12.0), VectorHit("c", 4.0)]
    searched = Searched(dense, lexical, False, None, {"a": 0.9, "b": 0.7})

    fused = fuse(ctx, _ask(ctx, "where does Ana live"), ROUTE, searched, None, False)

    assert isinstance(fused, Fused)
    assert fused.ranked == fuse_hits(dense, lexical, ctx.config.retrieval)
    assert fused.ids == [tid for tid, _ in fused.ranked]
    assert fused.ids[0] == "b"  # found by both
    assert fused.sources == {"a": {"dense"}, "b": {"dense", "lexical"}, "c": {"lexical"}}
    assert fused.entities is None  # no named-entity look-up asked
    with pytest.raises(dataclasses.FrozenInstanceError):
        fused.ids = []  # type: ignore[misc]


def _expanded(vitals: list[TraceVitals], relevance: dict[str, float], *, activation=None, versions=(),
              sources=None) -> Expanded:
    ids = [v.id for v in vitals]
    return Expanded(ids, relevance, activation or {}, sources or {tid: frozenset({"dense"}) for tid in ids},
                    list(versions), {v.id: v for v in vitals}, False)


def test_ranking_orders_by_relevance_and_keeps_a_weak_dormant_memory_out() -> None:
    ctx = _ctx()
    vitals = [_vitals("a"), _vitals("b"), _vitals("far", dormant=True)]
    relevance = {"a": 0.4, "b": 0.9, "far": 0.8}
    fused = Fused([("b", 0.9), ("a", 0.4)], ["b", "a"], {}, None)
    searched = Searched([], [], False, None, {"a": 0.3, "b": 0.5})
    # "far" came from the graph only, with no cosine: a dormant memory needs a strong match.
    expanded = _expanded(vitals, relevance, activation={"far": 0.5})

    ranked = rank(ctx, _ask(ctx, "where does Ana live"), ROUTE, searched, fused, expanded, NOW_MS, Mood())

    assert isinstance(ranked, Ranked)
    assert [c.vitals.id for c, _ in ranked.scored] == ["b", "a"]
    assert all(kind is RecallKind.RECALLED for _, kind in ranked.scored)
    best = ranked.scored[0][0]
    assert best.how is ranked.how and ranked.how.fused_rank == {"b": 1, "a": 2}
    assert best.signals.similarity == pytest.approx(0.9)
    # What a returned memory says of its score is read from the stage's result.
    scored = best.scored(_trace("b", "Ana lives in Lisbon", NOW_MS - DAY))
    composition = scored.composition
    assert composition is not None and composition.fused_rank == 1
    assert composition.base == ranked.how.base[best.row] == pytest.approx(best.score)
    assert sum(composition.contributions.values()) == pytest.approx(composition.base)


def test_ranking_puts_a_replaced_memory_below_its_newer_version() -> None:
    ctx = _ctx()
    vitals = [_vitals("old"), _vitals("new")]
    fused = Fused([("old", 0.9), ("new", 0.5)], ["old", "new"], {}, None)
    expanded = _expanded(vitals, {"old": 0.9, "new": 0.5}, versions=[("old", "new")])

    ranked = rank(ctx, _ask(ctx, "what is the gate"), ROUTE, Searched([], [], False, None, {}), fused, expanded,
                  NOW_MS, Mood())

    (first, _), (second, _) = ranked.scored
    assert (first.vitals.id, second.vitals.id) == ("new", "old")
    assert second.score == pytest.approx(first.score * (1 - ctx.config.retrieval.current_first_margin))
    assert ranked.how.base[second.row] > ranked.how.base[first.row]  # the signals alone ranked it first


def _ranked(ctx: MemoryContext, ids_scores: list[tuple[str, float]], created: dict[str, int]) -> tuple:
    vitals = [_vitals(tid, created_at=created[tid]) for tid, _ in ids_scores]
    relevance = dict(ids_scores)
    fused = Fused(ids_scores, [tid for tid, _ in ids_scores], {}, None)
    searched = Searched([], [], False, None, dict(ids_scores))
    expanded = _expanded(vitals, relevance)
    return searched, expanded, rank(ctx, _ask(ctx, "what did we cook"), ROUTE, searched, fused, expanded, NOW_MS,
                                    Mood())


def test_selection_returns_the_top_k_loaded_and_reads_nothing_more(embedded_store) -> None:
    created = {"a": NOW_MS - 3 * DAY, "b": NOW_MS - 2 * DAY, "c": NOW_MS - DAY}
    graph = _stored(embedded_store, [_trace("a", "We cooked pasta", created["a"]),
                                     _trace("b", "We cooked rice", created["b"]),
                                     _trace("c", "We went hiking", created["c"])])
    ctx = _ctx(graph, retrieval={"query": {"mmr_lambda": 1.0}})
    searched, expanded, ranked = _ranked(ctx, [("b", 0.9), ("a", 0.8), ("c", 0.1)], created)
    plan = QueryPlan(QueryIntent.GENERAL, ROUTE, ("what did we cook",))

    selected = select(ctx, _ask(ctx, "what did we cook"), plan, searched, expanded, ranked, NOW_MS,
                      record_access=False)

    assert isinstance(selected, Selected)
    assert [s.trace.id for s in selected.recalled] == ["b", "a"]
    assert [s.score for s in selected.recalled] == [c.score for c, _ in ranked.scored[:2]]
    assert selected.competitors == [] and selected.partial == []
    assert graph.asked == [["b", "a"]]  # whole traces only for what is returned


def test_selection_on_the_timeline_tells_the_best_in_the_order_they_happened(embedded_store) -> None:
    created = {"a": NOW_MS - 3 * DAY, "b": NOW_MS - 2 * DAY, "c": NOW_MS - DAY}
    graph = _stored(embedded_store, [_trace(t, f"We cooked dish {t}", c) for t, c in created.items()])
    ctx = _ctx(graph, retrieval={"query": {"mmr_lambda": 1.0}})
    searched, expanded, ranked = _ranked(ctx, [("c", 0.9), ("a", 0.8), ("b", 0.1)], created)
    plan = QueryPlan(QueryIntent.GENERAL, ROUTE, ("what did we cook",))

    selected = select(ctx, _ask(ctx, "what did we cook", when=When(timeline=True)), plan, searched, expanded,
                      ranked, NOW_MS, record_access=False)

    assert [s.trace.id for s in selected.recalled] == ["a", "c"]


def test_current_facts_first_puts_the_newer_contradicting_statement_first() -> None:
    ctx = _ctx()
    older = _trace("old", "My flight leaves from gate 12.", NOW_MS - 2 * DAY)
    newer = _trace("new", "My flight now leaves from gate 31.", NOW_MS - DAY)
    selected = Selected([ScoredTrace(older, 0.9, {}), ScoredTrace(newer, 0.8, {})], [], [], [])
    ask = _ask(ctx, "Which gate does my flight leave from?")
    expanded = _expanded([], {})

    settled = current_facts_first(ctx, ask, expanded, selected)

    assert [s.trace.id for s in settled.recalled] == ["new", "old"]
    assert settled.recalled[1].score == pytest.approx(0.8 * (1 - ctx.config.retrieval.current_first_margin))
    # On a question about the past the stage leaves the order alone.
    past = dataclasses.replace(expanded, history=True)
    assert current_facts_first(ctx, ask, past, selected) is selected
