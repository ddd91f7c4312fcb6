"""A question about the asker is answered by what the asker said, not by what another
named person said in a transcript the memory also holds."""

from __future__ import annotations

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
