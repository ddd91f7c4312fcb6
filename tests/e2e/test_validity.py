"""Bi-temporal validity through the public API: a memory that bounds itself expires into
the timeline, a correction ends what it corrects, and a point-in-time question sees what
the memory knew and held true then."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

WEDNESDAY = int(datetime(2026, 11, 25, 10, tzinfo=UTC).timestamp() * 1000)
FILLER = ["The bakery on the corner had fresh croissants.", "Traffic on the ring road was slow again.",
          "We watched a documentary about whales last night.", "The garden needs watering after the heat."]


@pytest.fixture
def week(tmp_path) -> tuple[cg.MemoryStore, ManualClock]:
    clock = ManualClock(WEDNESDAY)
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        yield store, clock


def test_a_stay_until_friday_is_current_until_friday_then_history(week) -> None:
    store, clock = week
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    stay = agent.encode("I'm staying at a hotel in Lisbon until Friday.", scope="user")
    agent.encode_many([{"content": text, "scope": "user"} for text in FILLER])
    assert stay.valid_until == int(datetime(2026, 11, 28, tzinfo=UTC).timestamp() * 1000)
    question = "Which hotel city am I staying in?"
    clock.advance(days=1)  # Thursday
    assert stay.id in agent.retrieve(question, top_k=3, record_access=False).ids
    clock.advance(days=2)  # Saturday: the stay is over
    now = agent.retrieve(question, top_k=3, record_access=False)
    assert stay.id not in now.ids, "an expired memory is not the current state"
    timeline = agent.retrieve(question, top_k=3, record_access=False, timeline=True)
    assert stay.id in timeline.ids and timeline.timeline
    thursday = datetime(2026, 11, 26, 12, tzinfo=UTC)
    then = agent.retrieve(question, top_k=3, record_access=False, as_of=thursday)
    assert then.ids[0] == stay.id and then.as_of == int(thursday.timestamp() * 1000)
    assert stay.id in agent.retrieve("Where was I staying before?", top_k=3, record_access=False).ids, \
        "a temporal question reads the history"
    store.config.validity.current_state = False
    assert stay.id in agent.retrieve(question, top_k=3, record_access=False).ids


def _corrected(store, clock, fact: str, correction: str):
    """An honest agent states `fact` among filler, corrects it ten days later, and the store
    consolidates a day after: (agent, fact trace, correction trace, consolidation result)."""
    agent = store.agent("assistant", user_id="u1", thread_id="t1", traits=cg.Hexaco(honesty=0.9))
    old = agent.encode(fact, scope="user")
    agent.encode_many([{"content": text, "scope": "user"} for text in FILLER])
    clock.advance(days=10)
    new = agent.encode(correction, scope="user")
    clock.advance(days=1)
    return agent, old, new, store.consolidate()


def test_a_correction_ends_the_old_fact_and_each_time_sees_its_own_truth(week) -> None:
    store, clock = week
    agent, paris, berlin, consolidated = _corrected(store, clock, "I live in Paris.",
                                                     "I moved to Berlin last month, I live in Berlin now.")
    assert consolidated.conflicts_resolved == 1
    old = store.graph.get_traces([paris.id], agent.visible_scope_keys)[0]
    assert old.valid_until == berlin.created_at, "superseded: it held until the correction"

    now = agent.retrieve("Where do I live?", top_k=3, record_access=False).ids
    assert now[0] == berlin.id and paris.id in now, "current first, the old still reachable below it"
    before = agent.retrieve("Where do I live?", top_k=3, record_access=False, as_of=WEDNESDAY + 5 * 86_400_000)
    assert before.ids[0] == paris.id and berlin.id not in before.ids, "five days in, Paris held"
    story = agent.retrieve("Where do I live?", top_k=5, record_access=False, timeline=True).ids
    assert story.index(paris.id) < story.index(berlin.id), "the timeline is told in event order"


def test_bounds_given_by_the_caller_and_bad_arguments(week) -> None:
    store, clock = week
    agent = store.agent("assistant", user_id="u1")
    trial = agent.encode("The trial licence key is TRIAL-77.", valid_until=WEDNESDAY + 3_600_000)
    assert (trial.valid_from, trial.valid_until) == (WEDNESDAY, WEDNESDAY + 3_600_000)
    clock.advance(hours=2)
    assert trial.id not in agent.retrieve("trial licence key", record_access=False).ids
    with pytest.raises(ValueError, match="valid_until"):
        agent.encode("bounded before it starts", created_at=WEDNESDAY, valid_until=WEDNESDAY - 1)
    with pytest.raises(ValueError, match="as_of and timeline"):
        agent.retrieve("key", as_of=WEDNESDAY, timeline=True)
    with pytest.raises(ValueError, match="aware datetime"):
        agent.retrieve("key", as_of=datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="as_of"):
        agent.retrieve("key", as_of=-1)
    with pytest.raises(ValueError, match="timeline"):
        agent.retrieve("key", timeline="yes")
    assert agent.retrieve("key", as_of=datetime(2026, 11, 25, 11, tzinfo=UTC) + timedelta(minutes=1)).as_of


def test_when_is_asks_about_now_and_when_did_about_then(week) -> None:
    store, clock = week
    agent, monday, wednesday, _ = _corrected(store, clock, "The team meeting is on Mondays at 9.",
                                             "The team meeting moved to Wednesdays at 11.")
    assert agent.retrieve("When is the team meeting?", top_k=3, record_access=False).ids[0] == wednesday.id
    assert monday.id in agent.retrieve("When was the team meeting before?", top_k=3, record_access=False).ids
