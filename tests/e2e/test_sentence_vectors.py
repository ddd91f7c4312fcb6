"""A memory found by its best sentence (`write.sentence_vectors`,
`retrieval.gather.sentence_dense_weight`): a long message that mentions something in passing
is matched by that sentence, not by the average of everything it says; within the caller's
scopes and filter; one embedding pass per memory."""

from __future__ import annotations

from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, ManualClock

IN_PASSING = ("Work was hectic again, the printer jammed twice and the budget meeting ran long. The train home was "
              "late as usual and it rained the whole way. Anyway I finally signed up for a pottery course on Thursday "
              "evenings. Also the car needs new tyres before winter and the boiler is making that noise again.")
OTHERS = [
    "I really enjoy a good cup of coffee in the morning before anything else.",
    "Collecting stamps was what I did for fun as a kid.",
    "The neighbours are renovating and the noise is unbearable on weekends.",
    "I spent the afternoon reading about how porcelain is made, fascinating stuff.",
    "My sister paints watercolours and sells them at the market.",
    "The budget review at work got moved to next Tuesday.",
    "We watched a documentary about glassblowing in Venice last night.",
    "My son started guitar lessons at school this term.",
]
QUESTION = "What craft did I take up?"


def _ask(home: Path, weight: float, *, where: dict | None = None) -> cg.RetrievalResult:
    clock = ManualClock(1_700_000_000_000)
    config = cg.CogmemConfig(retrieval={"gather": {"sentence_dense_weight": weight}})
    with cg.open(home=home, embedder="local", clock=clock, config=config) as store:
        dana = store.agent("assistant", user_id="dana")
        for text in [IN_PASSING, *OTHERS]:
            dana.encode(text, tags=["diary"] if text == IN_PASSING else [])
            clock.advance(6 * MS_PER_HOUR)
        store.agent("assistant", user_id="eve").encode("Eve: I joined a pottery course and I love clay.")
        return dana.retrieve(QUESTION, top_k=5, record_access=False, where=where)


@pytest.fixture(scope="module")
def on_and_off(tmp_path_factory) -> tuple[cg.RetrievalResult, cg.RetrievalResult]:
    return (_ask(tmp_path_factory.mktemp("on") / "home", 0.5), _ask(tmp_path_factory.mktemp("off") / "home", 0.0))


def test_the_sentence_that_answers_lifts_the_message_it_is_in(on_and_off) -> None:
    on, off = on_and_off
    first = on.traces[0]
    assert first.trace.content == IN_PASSING and "sentence" in first.sources
    held = next(t for t in off.traces if t.trace.content == IN_PASSING)
    assert "sentence" not in held.sources
    assert first.signals["similarity"] > held.signals["similarity"]  # its relevance rose with its best sentence


def test_another_users_sentences_are_never_found(on_and_off) -> None:
    on, _ = on_and_off
    assert all("Eve" not in t.trace.content for t in on.traces)


def test_the_callers_filter_holds_for_the_sentence_search(tmp_path: Path) -> None:
    result = _ask(tmp_path / "home", 0.5, where={"tags_any": ["diary"]})
    assert [t.trace.content for t in result.traces] == [IN_PASSING]
