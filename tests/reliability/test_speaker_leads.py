"""The read path's speaker rules tell who spoke a memory from the lead its ranking fields carry
(`TraceVitals.lead`, the text up to its first ": "): no read of whole texts, unless that opening
is too long to carry."""

from __future__ import annotations

import pytest

import cogmem_graph as cg
from cogmem_graph.graph.port import VITALS_LEAD_CHARS

from ._work import count_work

OWN = "I am allergic to peanuts since I was a child, my doctor confirmed it."
LONG_NAME = "-".join(["Joanna"] * 24) + " Lee"  # one speaker, named past the lead


@pytest.fixture
def store(embedded_store: cg.MemoryStore) -> cg.MemoryStore:
    """The embedded engine alone: these tests reach into its own server or count its statements."""
    return embedded_store


def _first(agent: cg.AgentMemory, question: str) -> str:
    return agent.retrieve(question, top_k=5, record_access=False).traces[0].trace.content


def test_speakers_come_from_the_leads_without_reading_texts(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": "Caroline: Melanie, what do you do on weekends?", "scope": "user"},
                       {"content": "Melanie: On weekends I do pottery with the kids.", "scope": "user"},
                       {"content": "Joanna: I am allergic to dogs.", "scope": "user"},
                       {"content": OWN, "scope": "user"}])
    store.config.retrieval.query.unnamed_speaker_discount = 0.5
    with count_work(store) as work:
        assert _first(agent, "What does Melanie do on weekends?").startswith("Melanie:")
        assert _first(agent, "What am I allergic to?") == OWN
    assert work.statements["trace_texts"] == 0, work.summary()


def test_a_speaker_named_past_the_lead_is_read_from_the_whole_text(store: cg.MemoryStore) -> None:
    colleague = f"{LONG_NAME}: I am allergic to dogs, cats and dust, allergic since forever."
    assert colleague.index(":") > VITALS_LEAD_CHARS
    agent = store.agent("assistant", user_id="maya", thread_id="t1")
    agent.encode_many([{"content": colleague, "scope": "user"}, {"content": OWN, "scope": "user"}])

    def scores() -> dict[str, float]:
        result = agent.retrieve("What am I allergic to?", top_k=5, record_access=False)
        return {item.trace.content: item.score for item in result.traces}

    store.config.retrieval.query.other_speaker_discount = 0.0
    off = scores()
    store.config.retrieval.query.other_speaker_discount = 0.5
    with count_work(store) as work:
        on = scores()
    assert work.statements["trace_texts"] == 1, work.summary()
    assert on[colleague] == pytest.approx(off[colleague] * 0.5)  # someone else said it: discounted
    assert on[OWN] == pytest.approx(off[OWN])
