"""The public API end to end on the embedded default: FalkorDB started by the
library, Qdrant local mode, the hash embedder (fast, deterministic)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, MS_PER_SECOND, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import GraphStoreUnavailable
from cogmem_graph.model import EdgeType


def test_encode_then_retrieve_returns_the_memory_with_its_metadata(store) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    trace = agent.encode("I prefer deploying with Docker Compose", type="semantic", tags=["deployment"],
                         metadata={"dia_id": "D1:3"}, created_at=1_600_000_000_000)
    agent.encode_many([{"content": "We had pasta for dinner on Friday"},
                       {"content": "The cat knocked a glass off the table"}])
    result = agent.retrieve("How do I prefer deploying?", top_k=3)
    top = result.traces[0]
    assert top.trace.id == trace.id
    assert top.trace.metadata == {"dia_id": "D1:3"}
    assert top.trace.created_at == 1_600_000_000_000, "created_at is the event time the caller gave"
    assert top.trace.tags == ["deployment"] and "Docker Compose" in top.trace.entities
    assert set(top.signals) == {"strength", "similarity", "recency", "emotional", "activation", "importance"}
    assert 0.0 <= top.score <= 1.0 and {"dense", "lexical"} <= set(top.sources)
    how = top.composition
    assert how is not None and how.scoring == "prior" and how.fused_rank == 1
    assert set(how.contributions) == set(top.signals) and sum(how.weights.values()) == pytest.approx(1.0)
    assert sum(how.contributions.values()) == pytest.approx(how.base) and how.base > 0
    assert how.contributions["similarity"] > 0, "the question's words and meaning made most of the score"


def test_agents_never_see_another_tenants_memory_but_share_their_organisation(store) -> None:
    alice = store.agent("helper", user_id="alice", organization_id="acme")
    bob = store.agent("helper", user_id="bob", organization_id="acme")
    mallory = store.agent("helper", user_id="alice", organization_id="evil")  # same user id, other org
    alice.encode("My locker code is 4711")
    alice.encode("Acme deploys every Tuesday", scope="organization")
    assert [t.trace.content for t in bob.retrieve("locker code", top_k=5).traces] == ["Acme deploys every Tuesday"]
    assert [t.trace.content for t in mallory.retrieve("locker code Tuesday deploys", top_k=5).traces] == []
    assert {t.trace.content for t in alice.retrieve("locker code deploys", top_k=5).traces} == {
        "My locker code is 4711", "Acme deploys every Tuesday"}


def test_identical_content_reinforces_instead_of_duplicating(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    first = agent.encode("The office wifi password changed")
    clock.advance(MS_PER_DAY)
    again = agent.encode_many([{"content": "The office wifi password changed"},
                               {"content": "The office wifi password changed"}])
    assert [t.id for t in again] == [first.id, first.id]
    stats = store.stats()
    assert stats.active_traces == 1
    stored = store.graph.get_traces([first.id], agent.visible_scope_keys)[0]
    assert stored.retrieval_count == 1 and stored.stability > first.stability


def test_encoding_leaves_the_garbage_collector_as_it_found_it(store, monkeypatch) -> None:
    """Batches and retrievals pause Python's cyclic collector (CogmemConfig.pause_gc); the
    collector is on again after them, after a failed batch, and stays off if the application
    had it off."""
    import gc

    agent = store.agent("helper", user_id="u1")
    was = gc.isenabled()
    try:
        gc.enable()
        agent.encode_many([{"content": "The garden needs water"}, {"content": "Tomatoes ripen in August"}])
        assert gc.isenabled()
        assert agent.retrieve("what does the garden need?").traces
        assert gc.isenabled()
        with monkeypatch.context() as patched:
            def graph_down(*args, **kwargs):
                raise ConnectionError("graph gone while the batch was written")
            patched.setattr(store.graph, "upsert_traces_later", graph_down)
            with pytest.raises(ConnectionError):
                agent.encode_many([{"content": "Peppers need a warm spot"}])
        assert gc.isenabled()
        gc.disable()
        agent.encode("Basil likes sun")
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_similar_new_memory_weakens_the_old_one(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    old = agent.encode("Sam likes to go hiking in the mountains on weekends")
    other = agent.encode("Sam likes to go hiking in the Alps on Sundays")  # another fact: other names, days
    clock.advance(MS_PER_SECOND)
    agent.encode("Sam really likes to go hiking in the mountains on weekends")
    after = store.graph.get_traces([old.id, other.id], agent.visible_scope_keys)
    strengths = {t.id: t.encoding_strength for t in after}
    assert strengths[old.id] < old.encoding_strength
    assert strengths[other.id] == other.encoding_strength, "a neighbour stating another fact is left alone"


def test_correction_makes_a_contradicts_edge(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    old = agent.encode("The team meeting is on Monday at 10")
    clock.advance(MS_PER_SECOND)
    new = agent.encode("Correction: actually the team meeting is not on Monday at 10, it moved")
    edges = store.graph.get_edges([new.id], agent.visible_scope_keys)
    assert any(e.type is EdgeType.CONTRADICTS and e.src == new.id and e.dst == old.id for e in edges)


def test_retrieval_reinforces_and_wires_the_returned_memories_together(store) -> None:
    agent = store.agent("helper", user_id="u1")
    a, b = agent.encode_many([{"content": "Lena plays the violin"}, {"content": "Lena plays the piano too"}])
    agent.retrieve("what instruments does Lena play", top_k=2, record_access=False)
    untouched = {t.id: t for t in store.graph.get_traces([a.id, b.id], agent.visible_scope_keys)}
    assert untouched[a.id].retrieval_count == 0
    result = agent.retrieve("what instruments does Lena play", top_k=2)
    assert set(result.ids) == {a.id, b.id}
    touched = {t.id: t for t in store.graph.get_traces([a.id, b.id], agent.visible_scope_keys)}
    assert touched[a.id].retrieval_count == 1 and touched[a.id].stability >= a.stability
    co = [e for e in store.graph.get_edges([a.id], agent.visible_scope_keys) if e.type is EdgeType.CO_ACTIVATED]
    assert co and co[0].weight == pytest.approx(0.1)


def test_graph_activation_brings_in_the_next_turn_of_the_conversation(tmp_path: Path, clock) -> None:
    config = CogmemConfig()
    config.graph.activation.max_seeds = 1  # only the best hit spreads, so the neighbour is not a seed
    store = cg.open(home=tmp_path / "home", embedder="hash", clock=clock, config=config)
    agent = store.agent("bench", user_id="u1", thread_id="s1")
    turns = ["Did you ever adopt that dog you talked about?",
             "Yes! We got him last month, his name is Biscuit.",
             "That's wonderful, what breed is he?",
             "A golden retriever, he loves the park."]
    ids = [t.id for t in agent.encode_many(
        [{"content": text, "created_at": clock.now_ms() + 30_000 * i} for i, text in enumerate(turns)])]
    result = agent.retrieve("adopt a dog", top_k=4, record_access=False)
    by_id = {t.trace.id: t for t in result.traces}
    assert ids[0] in by_id and "dense" in by_id[ids[0]].sources
    activated = [t for t in result.traces if "activation" in t.sources]
    assert activated and all(t.signals["activation"] > 0 for t in activated)
    assert ids[1] in {t.trace.id for t in activated}, "the answer follows the question in the thread"
    # TEMPORAL_SEQUENCE weight 0.3 x decay 0.5 per hop = 0.15 for the next turn
    assert {t.trace.id: t for t in activated}[ids[1]].signals["activation"] == pytest.approx(0.15)
    store.close()


def test_baseline_strategies_rank_as_the_vector_store_does(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode_many([{"content": "Biscuit is a golden retriever"}, {"content": "The park is near the lake"}])
    lexical = agent.retrieve("golden retriever", top_k=2, strategy="lexical")
    assert [t.trace.content for t in lexical.traces] == ["Biscuit is a golden retriever"]
    assert lexical.traces[0].sources == ("lexical",)
    dense = agent.retrieve("golden retriever", top_k=2, strategy="dense")
    assert dense.traces[0].trace.content == "Biscuit is a golden retriever"
    with pytest.raises(ValueError, match="strategy"):
        agent.retrieve("x", strategy="magic")


def test_vector_failure_leaves_traces_unindexed_and_repair_converges(store, monkeypatch) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode("Kept safely before the fault")

    def qdrant_down(points):
        raise ConnectionError("qdrant went away")

    monkeypatch.setattr(store.vectors, "upsert", qdrant_down)
    with pytest.raises(ConnectionError):
        agent.encode("Written to the graph while Qdrant was down")
    monkeypatch.undo()
    assert store.stats().unindexed_traces == 1
    assert [t.trace.content for t in agent.retrieve("written graph qdrant down", top_k=5).traces] == [
        "Kept safely before the fault"], "an unindexed trace is never returned"
    repaired = store.repair()
    assert repaired.reindexed == 1 and store.stats().unindexed_traces == 0
    contents = [t.trace.content for t in agent.retrieve("written graph qdrant down", top_k=5).traces]
    assert contents[0] == "Written to the graph while Qdrant was down"
    assert store.repair().changed == 0, "repair is idempotent"


def test_repair_deactivates_vectors_of_deleted_traces(store) -> None:
    agent = store.agent("helper", user_id="u1")
    trace = agent.encode("A memory that will be forgotten")
    store.graph.soft_delete([trace.id], agent.visible_scope_keys, reason="test")
    assert store.repair().deactivated_vectors == 1
    assert store.vectors.count(agent.visible_scope_keys) == 0
    assert agent.retrieve("memory forgotten", top_k=3).traces == []


def test_memories_survive_close_and_reopen(tmp_path: Path, clock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as first:
        first.agent("helper", user_id="u1").encode("Persisted across restarts")
    with cg.open(home=home, embedder="hash", clock=clock) as second:
        result = second.agent("helper", user_id="u1").retrieve("persisted restarts", top_k=1)
        assert [t.trace.content for t in result.traces] == ["Persisted across restarts"]


def test_assembled_context_stays_within_its_budget(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode_many([{"content": f"Fact number {i} about the deployment pipeline and its many stages " * 3,
                        "type": "semantic" if i % 2 else "episodic"} for i in range(30)])
    for budget in (20, 80, 400):
        ctx = agent.assemble_for_prompt("deployment pipeline stages", token_budget=budget)
        assert 0 < ctx.tokens_used <= budget and len(ctx.text) <= budget * 4
        assert ctx.trace_ids


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "ok", "confidence": 2.0}, "confidence"),
        ({"content": "ok", "type": "dream"}, "type"),
        ({"content": "ok", "scope": "galaxy"}, "scope"),
        ({"content": "ok", "created_at": -5}, "created_at"),
        ({"content": "bad \x00 byte"}, "content"),
        ({"content": "ok", "colour": "red"}, "colour"),
    ],
)
def test_bad_input_is_refused_naming_the_field(store, fields, field) -> None:
    agent = store.agent("helper", user_id="u1")
    with pytest.raises(ValueError, match=field):
        agent.encode_many([fields])
    assert store.stats().total_traces == 0


def test_bad_arguments_to_open_and_retrieve_are_named(tmp_path: Path, store) -> None:
    with pytest.raises(ValueError, match="embedder"):
        cg.open(home=tmp_path / "x", embedder="word2vec")
    with pytest.raises(ValueError, match="graph"):
        cg.open(home=tmp_path / "y", graph="mysql://localhost", embedder="hash")
    agent = store.agent("helper", user_id="u1")
    with pytest.raises(ValueError, match="top_k"):
        agent.retrieve("anything", top_k=0)
    with pytest.raises(ValueError, match="query"):
        agent.retrieve("   ")
    with pytest.raises(ValueError, match="organization_id"):
        agent.encode("x", scope="organization")
    store.close()
    with pytest.raises(cg.api.StoreClosed):
        agent.retrieve("anything")
    with pytest.raises(GraphStoreUnavailable, match="closed"):  # a retrieval already past its open-check
        store.graph.trace_vitals_later(["mt_x"], ["user:u1"])


def _store_with_one_seed(tmp_path: Path, clock: ManualClock) -> cg.MemoryStore:
    config = CogmemConfig()
    config.graph.activation.max_seeds = 1
    return cg.open(home=tmp_path / "seed1", embedder="hash", clock=clock, config=config)


def test_activation_surfaces_a_trace_sharing_an_entity_but_no_words_with_the_query(tmp_path, clock) -> None:
    with _store_with_one_seed(tmp_path, clock) as store:
        agent = store.agent("helper", user_id="u1")
        best = agent.encode("My dog Biscuit adores the beach")
        clock.advance(MS_PER_DAY)  # a day apart: no TEMPORAL_SEQUENCE, only the shared entity links them
        hidden = agent.encode("Biscuit has a chicken allergy")
        agent.encode_many([{"content": f"Filler note {i} about quarterly tax forms"} for i in range(8)])
        result = agent.retrieve("Which beach does my dog adore?", top_k=3, record_access=False)
        assert result.traces[0].trace.id == best.id
        by_id = {t.trace.id: t for t in result.traces}
        assert hidden.id in by_id, "reached through SHARED_ENTITY from the best hit"
        assert "activation" in by_id[hidden.id].sources
        assert by_id[hidden.id].signals["activation"] == pytest.approx(0.25)  # 0.5 weight x 0.5 decay


def test_a_word_that_only_starts_a_sentence_is_a_name_only_where_the_memory_knows_it(store) -> None:
    mine = store.agent("helper", user_id="u1")
    theirs = store.agent("helper", user_id="u2")
    assert mine.encode("Got it, thanks! Honestly that helps.").entities == []
    assert mine.encode("Biscuit chewed the sofa.").entities == [], "an ordinary word, as far as u1 knows"
    assert theirs.encode("My dog Biscuit adores the beach").entities == ["Biscuit"]
    assert mine.encode("Biscuit has a chicken allergy").entities == [], "another tenant's names do not count"
    assert mine.encode("My dog Biscuit adores the beach").entities == ["Biscuit"]
    assert mine.encode("Biscuit needs a new collar").entities == ["Biscuit"], "now u1's memory knows the name"
    together = mine.encode_many([{"content": "Pepper sleeps all day."}, {"content": "We adopted a cat called Pepper."}])
    assert [t.entities for t in together] == [["Pepper"], ["Pepper"]], "a name in the same batch counts too"
    assert mine.encode("Got the collar. Biscuit loves it.").entities == ["Biscuit"]


def test_decay_ranks_an_old_weak_memory_below_a_fresh_one(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    old = agent.encode("The team meeting room is B12")
    clock.advance(30 * MS_PER_DAY)
    fresh = agent.encode("The team meeting room is C7")
    ranked = agent.retrieve("team meeting room", top_k=2, record_access=False).traces
    assert [t.trace.id for t in ranked] == [fresh.id, old.id]
    assert ranked[0].signals["strength"] > ranked[1].signals["strength"]
    assert ranked[0].signals["recency"] > ranked[1].signals["recency"]


def test_repeated_co_retrieval_raises_co_activated_weight(store) -> None:
    agent = store.agent("helper", user_id="u1")
    a, b = agent.encode_many([{"content": "Nora bakes sourdough bread"}, {"content": "Nora bakes rye bread too"}])
    weights = []
    for _ in range(3):
        agent.retrieve("what bread does Nora bake", top_k=2)
        edge = [e for e in store.graph.get_edges([a.id], agent.visible_scope_keys) if e.type is EdgeType.CO_ACTIVATED]
        weights.append(edge[0].weight)
    assert weights == pytest.approx([0.1, 0.19, 0.271])  # w <- w + 0.1 (1 - w)


def test_retrieval_feeds_working_memory_and_reconsolidates_toward_the_mood(store) -> None:
    agent = store.agent("helper", user_id="u1", mood=cg.Mood(valence=0.9, arousal=0.5))
    trace = agent.encode("The quarterly review went fine", mood=cg.Mood())
    agent.retrieve("quarterly review", top_k=1)
    assert trace.id in agent.working_memory
    after = store.graph.get_traces([trace.id], agent.visible_scope_keys)[0]
    assert after.valence > trace.valence, "retrieval re-opens the memory and its tone drifts toward the mood"


def test_working_memory_lets_go_of_a_memory_that_was_deleted(store) -> None:
    agent = store.agent("helper", user_id="u1")
    gone = agent.encode("The old wifi password is tulip42")
    agent.retrieve("wifi password", top_k=1)
    assert gone.id in agent.working_memory
    store.graph.soft_delete([gone.id], agent.visible_scope_keys, reason="pruned")  # as consolidation would
    ctx = agent.assemble_for_prompt("what is for lunch", token_budget=500)
    assert gone.id not in agent.working_memory
    assert "tulip42" not in ctx.text


@pytest.mark.local_embedder
def test_local_minilm_finds_a_paraphrase(tmp_path, clock) -> None:
    pytest.importorskip("sentence_transformers", reason="the 'local' extra is not installed")
    with cg.open(home=tmp_path / "minilm", embedder="local", clock=clock) as store:
        agent = store.agent("helper", user_id="u1")
        car = agent.encode("I bought a new automobile last week")
        agent.encode_many([{"content": "The soup needs more salt"}, {"content": "Our cat sleeps all day"}])
        assert agent.retrieve("recent car purchase", top_k=1).traces[0].trace.id == car.id


def test_a_changed_fact_is_linked_as_a_contradiction_at_encode(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    paris = agent.encode("I live in Paris")
    clock.advance(MS_PER_DAY)
    berlin = agent.encode("I moved to Berlin")
    edges = store.graph.get_edges([berlin.id], agent.visible_scope_keys)
    assert any(e.type is EdgeType.CONTRADICTS and e.src == berlin.id and e.dst == paris.id for e in edges)


def test_entities_keep_the_kind_they_were_recognised_as(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode_many([
        {"content": 'Maya moved "Project Falcon" to Docker', "entities": ["Falcon team"]},
        {"content": "Maya likes Kubernetes"},
    ])
    # the kind is kept on each trace's mention (an Entity node is only the shared key)
    rows = store.graph.run("export_mentions", {"after": "", "limit": 100, "scopeKeys": None})
    kinds = {m["key"]: m["kind"] for row in rows for m in row["mentions"]}
    assert kinds == {"maya": "name", "project falcon": "quoted", "docker": "tech", "falcon team": "given",
                     "kubernetes": "tech"}


class _KeywordReranker:
    """A reranker by rule: documents naming the keyword score 1, the others 0."""

    name = "keyword"

    def __init__(self, keyword: str) -> None:
        self.keyword = keyword
        self.calls: list[tuple[str, list[str]]] = []

    def rerank(self, query: str, documents, top_n: int | None = None) -> list[tuple[int, float]]:
        self.calls.append((query, list(documents)))
        scores = [(i, 1.0 if self.keyword in doc else 0.0) for i, doc in enumerate(documents)]
        return sorted(scores, key=lambda pair: -pair[1])[:top_n]


@pytest.mark.parametrize("rerank", [True, False])
def test_the_reranker_reorders_the_fused_pool_only_when_the_config_asks(tmp_path: Path, clock, rerank) -> None:
    config = CogmemConfig()
    config.retrieval.rerank = rerank
    reranker = _KeywordReranker("Ansible")
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock, config=config, reranker=reranker) as store:
        agent = store.agent("ops", user_id="u1")
        agent.encode_many([{"content": "We deploy the web app with Docker Compose; deploy day is Friday"},
                           {"content": "Ansible playbooks configure the database servers"},
                           {"content": "The cat knocked a glass off the table"}])
        top = agent.retrieve("how do we deploy the web app", top_k=1, record_access=False).traces[0]
    if rerank:
        assert [query for query, _ in reranker.calls] == ["how do we deploy the web app"]
        assert "Ansible playbooks configure the database servers" in reranker.calls[0][1]
        assert top.trace.content.startswith("Ansible"), "the reranker's order decides the relevance"
    else:
        assert reranker.calls == [] and top.trace.content.startswith("We deploy")
