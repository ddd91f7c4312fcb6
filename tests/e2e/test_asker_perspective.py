"""A question about the asker is answered by what the asker said, not by what another
named person said in a transcript the memory also holds."""

from __future__ import annotations

import pytest

import cogmem_graph as cg

COLLEAGUE = "Joanna: I am allergic to dogs."
OWN = "I am allergic to peanuts since I was a child, my doctor confirmed it."


def _first(store: cg.MemoryStore, question: str) -> str:
    agent = store.agent("assistant", user_id="maya")
    return agent.retrieve(question, top_k=5, record_access=False).traces[0].trace.content


def test_the_askers_own_statement_outranks_a_colleagues(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": COLLEAGUE, "scope": "user"}, {"content": OWN, "scope": "user"}])
    store.config.retrieval.query.other_speaker_discount = 0.0
    assert _first(store, "What am I allergic to?") == COLLEAGUE  # the closer word match, without the rule
    store.config.retrieval.query.other_speaker_discount = 0.5
    assert _first(store, "What am I allergic to?") == OWN
    # a third-person question is not about the asker: Joanna's words stay first
    assert _first(store, "What is Joanna allergic to?") == COLLEAGUE


def test_the_asker_named_as_speaker_is_the_asker(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": "Maya: I am allergic to dogs.", "scope": "user"},
                       {"content": OWN, "scope": "user"}])
    assert _first(store, "What am I allergic to?") == "Maya: I am allergic to dogs."



FRIEND = "Caroline: Melanie, what do you do on weekends?"
MELANIE = "Melanie: On weekends I do pottery with the kids."
WEEKENDS = "What does Melanie do on weekends?"


def _scores(store: cg.MemoryStore, question: str, discount: float) -> dict[str, float]:
    store.config.retrieval.query.unnamed_speaker_discount = discount
    agent = store.agent("assistant", user_id="maya")
    return {item.trace.content: item.score for item in agent.retrieve(question, top_k=5, record_access=False).traces}


def test_a_question_naming_a_speaker_is_answered_by_their_own_words(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": FRIEND, "scope": "user"}, {"content": MELANIE, "scope": "user"}])
    off = _scores(store, WEEKENDS, 0.0)
    assert max(off, key=off.get) == FRIEND  # the closer word match, without the rule
    default = cg.CogmemConfig().retrieval.query.unnamed_speaker_discount
    assert default > 0
    on = _scores(store, WEEKENDS, default)
    assert on[FRIEND] == pytest.approx(off[FRIEND] * (1 - default))
    assert on[MELANIE] == pytest.approx(off[MELANIE])
    strong = _scores(store, WEEKENDS, 0.5)
    assert max(strong, key=strong.get) == MELANIE
    # a name that speaks nowhere in the memory says nothing about whose words answer
    assert _scores(store, "What do people in Lisbon do on weekends?", 0.5) == \
        _scores(store, "What do people in Lisbon do on weekends?", 0.0)
