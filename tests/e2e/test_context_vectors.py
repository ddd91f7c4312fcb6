"""Index vectors with conversational context, through the public API: a reply is found by
what it answers, a turn whose predecessor was written in an earlier call gets it from the
graph, and the write path's duplicate checks still compare memories by their own text."""

from __future__ import annotations

import cogmem_graph as cg

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


def test_a_repeated_statement_in_another_conversation_is_still_a_duplicate(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    first = agent.encode_many([{"content": "Can you remind me of my blood type?"},
                               {"content": "My blood type is O negative."}])
    clock.advance(days=2)
    later = store.agent("helper", user_id="u1", thread_id="t2").encode_many([
        {"content": "We talked about the clinic visit and the waiting room."},
        {"content": "My blood type is O negative."}])
    assert later[1].id == first[1].id, "the same statement reinforces the memory it repeats"
