"""Index vectors with conversational context, through the public API: a reply is found by
what it answers, a turn whose predecessor was written in an earlier call gets it from the
graph, and the write path's duplicate checks still compare memories by their own text."""

from __future__ import annotations

import io

import pytest

import cogmem_graph as cg
from cogmem_graph.portable import export_store, import_store
from cogmem_graph.providers.embedders import HashEmbedder

CONVERSATION = [
    "Melanie: How was the pottery class you signed up for in spring?",
    "Caroline: Honestly, it was the best thing I did all year!",
    "Melanie: That's great. The weather was grey and rainy all afternoon here.",
    "Caroline: Traffic on the ring road was slow again this morning.",
    "Melanie: We watched a documentary about whales last night.",
    "Caroline: The bakery on the corner had fresh croissants.",
]
QUESTION = "What did Caroline think of the pottery class?"


def _ingest(store: cg.MemoryStore, user: str, one_call: bool) -> list[cg.MemoryTrace]:
    agent = store.agent("bench", user_id=user, thread_id="session-1")
    items = [{"content": text, "created_at": 1_700_000_000_000 + 30_000 * i} for i, text in enumerate(CONVERSATION)]
    if one_call:
        return agent.encode_many(items)
    return [agent.encode(**item) for item in items]


def _reply_rank(store: cg.MemoryStore, user: str, reply_id: str) -> int:
    ids = store.agent("bench", user_id=user).retrieve(QUESTION, top_k=6, strategy="dense", record_access=False).ids
    return ids.index(reply_id)


def test_a_reply_is_found_by_what_it_answers(store) -> None:
    store.config.write.context_vectors = False
    alone = _ingest(store, "u-alone", one_call=True)
    store.config.write.context_vectors = True
    batch = _ingest(store, "u-batch", one_call=True)
    turn_by_turn = _ingest(store, "u-turns", one_call=False)
    assert _reply_rank(store, "u-alone", alone[1].id) > 1, "alone, the reply shares no word with the question"
    assert _reply_rank(store, "u-batch", batch[1].id) <= 1
    assert _reply_rank(store, "u-turns", turn_by_turn[1].id) <= 1, "the predecessor came from the graph"


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the texts it is asked to embed (below the store's cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return super().embed(texts)


@pytest.mark.parametrize("one_call", [True, False], ids=["one batch", "turn by turn"])
def test_each_memory_is_embedded_once_whatever_its_context(tmp_path, clock, one_call: bool) -> None:
    """A turn's context comes from vectors already computed: the batch's own, or the stored
    previous turn's, so a paid embedder bills each memory once."""
    embedder = CountingEmbedder()
    with cg.open(home=tmp_path / "home", embedder=embedder, clock=clock) as store:
        traces = _ingest(store, "u1", one_call=one_call)
        assert embedder.texts == len(CONVERSATION)
        assert _reply_rank(store, "u1", traces[1].id) <= 1
        assert all(_self_similarity(store, trace) < 0.99 for trace in traces[1:]), "indexed with context"


def test_a_lost_previous_vector_is_stood_in_for_by_its_text(tmp_path, clock) -> None:
    """The index lost the previous turn's vector (a failed upsert, not yet repaired): the
    next turn still gets its context, from that turn's text embedded once."""
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        first = store.agent("bench", user_id="u1", thread_id="session-1").encode(
            CONVERSATION[0], created_at=1_700_000_000_000)
        store.vectors.delete([first.id])
    embedder = CountingEmbedder()  # a fresh process: nothing cached
    with cg.open(home=tmp_path / "home", embedder=embedder, clock=clock) as store:
        reply = store.agent("bench", user_id="u1", thread_id="session-1").encode(
            CONVERSATION[1], created_at=1_700_000_030_000)
        assert embedder.texts == 2, "the reply, and its lost predecessor's text"
        assert _self_similarity(store, reply) < 0.99


def test_a_repeated_statement_in_another_conversation_is_still_a_duplicate(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    first = agent.encode_many([{"content": "Can you remind me of my blood type?"},
                               {"content": "My blood type is O negative."}])
    clock.advance(days=2)
    later = store.agent("helper", user_id="u1", thread_id="t2").encode_many([
        {"content": "We talked about the clinic visit and the waiting room."},
        {"content": "My blood type is O negative."}])
    assert later[1].id == first[1].id, "the same statement reinforces the memory it repeats"


def _self_similarity(store: cg.MemoryStore, trace: cg.MemoryTrace) -> float:
    """Cosine between a trace's own-text vector and the vector its index holds for it."""
    hits = store.vectors.search_dense(store.embedder.embed_query(trace.content), [trace.scope_key], 10)
    return next(h.score for h in hits if h.trace_id == trace.id)


def test_a_shared_memory_never_carries_a_private_turn_as_context(store) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1", organization_id="acme")
    private, shared, mine = agent.encode_many([
        {"content": "My salary review is on Friday and I expect a raise.", "scope": "user"},
        {"content": "The team offsite is booked at the lake hotel.", "scope": "organization"},
        {"content": "I should prepare numbers for the review.", "scope": "user"},
    ])
    assert _self_similarity(store, shared) > 0.999, "indexed alone: its predecessor is in another scope"
    assert _self_similarity(store, mine) < 0.99, "indexed with the private turn before it, same scope"


def test_repair_and_import_index_the_way_the_write_path_does(store, tmp_path) -> None:
    traces = _ingest(store, "u1", one_call=False)
    before = {t.id: _self_similarity(store, t) for t in traces}
    assert sum(score < 0.99 for score in before.values()) == len(traces) - 1, "all but the first have context"
    store.vectors.delete([t.id for t in traces])
    assert store.repair().reindexed == len(traces)
    assert all(abs(_self_similarity(store, t) - before[t.id]) < 1e-6 for t in traces)
    dump = io.StringIO()
    export_store(store, dump, batch_size=2)  # small pages: a turn's predecessor may be in another batch
    with cg.open(home=tmp_path / "copy", embedder="hash") as copy:
        import_store(copy, io.StringIO(dump.getvalue()).readlines(), batch_size=2)
        assert all(abs(_self_similarity(copy, t) - before[t.id]) < 1e-6 for t in traces)


def test_a_fact_said_after_other_talk_keeps_more_of_its_own_meaning(store) -> None:
    """A turn that carries a fact of its own takes `write.fact_context_weight` of the talk
    before it, a reply without one `write.context_weight`: the fact is asked about by what
    it states, the reply by what it answers."""
    talk = ["The ring road was gridlocked again, forty minutes to get in.",
            "The printer on our floor jammed twice before lunch."]
    fact, reply = "My gym locker is number 38.", "Honestly, it was awful."

    def indexed(user: str) -> tuple[float, float]:
        agent = store.agent("helper", user_id=user, thread_id="t1")
        traces = agent.encode_many([{"content": t} for t in (*talk, fact, *talk, reply)])
        return _self_similarity(store, traces[2]), _self_similarity(store, traces[5])

    store.config.write.fact_context_weight = store.config.write.context_weight
    fact_same, reply_same = indexed("u-same")
    store.config.write.fact_context_weight = 0.4
    fact_less, reply_less = indexed("u-less")
    assert fact_same < fact_less < 0.99, "the fact keeps more of its own vector, and still some context"
    assert reply_less == pytest.approx(reply_same, abs=1e-3), "a reply takes the talk's full share"
