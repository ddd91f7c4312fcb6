"""A question about what is still to come is answered by the plan or the announcement,
not by a memory of the same kind of event long past, nor by whatever else "came up"."""

from __future__ import annotations

import cogmem_graph as cg

PAST = "The team offsite in Porto last spring was a lot of fun."
CHATTER = "New ideas kept coming up all day at the team offsite, and the roadmap got much better."
ANNOUNCED = "The next team offsite is in Porto on 12 May; flights are booked."


def _order(store: cg.MemoryStore, question: str) -> list[str]:
    agent = store.agent("assistant", user_id="maya")
    return [hit.trace.content for hit in agent.retrieve(question, top_k=3, record_access=False).traces]


def test_the_announcement_answers_what_is_coming_up(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": text, "scope": "user"} for text in (PAST, CHATTER, ANNOUNCED)])
    store.config.retrieval.query.ahead_boost = 0.0
    assert _order(store, "Which team offsite is coming up?")[0] == CHATTER  # "coming up" matched as words
    store.config.retrieval.query.ahead_boost = 0.5
    assert _order(store, "Which team offsite is coming up?")[0] == ANNOUNCED


def test_a_question_about_the_past_is_left_alone(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": text, "scope": "user"} for text in (PAST, ANNOUNCED)])
    with_rule = _order(store, "How was the team offsite in Porto last spring?")
    store.config.retrieval.query.ahead_boost = 0.0
    assert _order(store, "How was the team offsite in Porto last spring?") == with_rule
    assert with_rule[0] == PAST
