"""Retention through the public API as a user runs it: time passes on a ManualClock,
`store.consolidate()` every night, the default `retrieve()`. What was told and matters
must still be found months later; what is forgotten goes dormant, not away."""

from __future__ import annotations

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

SMALL_TALK = [
    "Sounds good, thanks!", "Haha, that is funny.", "Okay, talk to you later.", "Nice, glad to hear it.",
    "Sure, no problem at all.", "Wow, really? Cool.", "Good morning!", "Yes, I agree with that.",
]
FILLER = [
    "The weather was grey and rainy all afternoon.", "We watched a documentary about whales last night.",
    "The bakery on the corner had fresh croissants.", "Traffic on the ring road was slow again.",
    "I finished reading a novel about a lighthouse keeper.", "The garden needs watering after the heat.",
    "We tried a new board game with friends.", "The train was delayed by twenty minutes.",
]


def _nights(store: cg.MemoryStore, clock: ManualClock, days: int, *, chat: cg.AgentMemory | None = None) -> None:
    """`days` days of life: some other conversation each day, consolidation each night."""
    for day in range(days):
        if chat is not None:
            chat.encode_many([{"content": f"{FILLER[(day + i) % len(FILLER)]} (day {day})", "scope": "user"}
                              for i in range(2)])
        clock.advance(hours=18)
        store.consolidate()
        clock.advance(hours=6)


def _top(agent: cg.AgentMemory, query: str, k: int = 5) -> list[str]:
    return [hit.trace.id for hit in agent.retrieve(query, top_k=k).traces]


def _state(store: cg.MemoryStore, agent: cg.AgentMemory, trace_id: str) -> cg.MemoryTrace:
    return store.graph.get_traces([trace_id], agent.visible_scope_keys)[0]


def test_a_stated_fact_survives_months_of_nightly_consolidation(store, clock) -> None:
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    facts = {
        agent.encode("I am allergic to peanuts.", scope="user").id: "Which food am I allergic to?",
        agent.encode("My daughter's name is Lina.", scope="user").id: "What is my daughter's name?",
        agent.encode("I prefer window seats when I fly.", scope="user").id: "Which seat do I prefer when I fly?",
    }
    _nights(store, clock, 120, chat=agent)
    for trace_id, question in facts.items():
        assert trace_id in _top(agent, question), question
        trace = _state(store, agent, trace_id)
        assert trace.is_active and not trace.dormant, "a preference or identity is never forgotten by decay"


def test_small_talk_goes_dormant_not_away(store, clock) -> None:
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    chat = agent.encode_many([{"content": text, "scope": "user"} for text in SMALL_TALK])
    _nights(store, clock, 90)
    states = [_state(store, agent, t.id) for t in chat]
    assert all(t.is_active for t in states), "forgetting never deletes by default"
    assert sum(t.dormant for t in states) >= len(states) // 2, "small talk fades"
    stats = store.stats()
    assert stats.dormant_traces == sum(t.dormant for t in states)


def test_the_reference_preset_deletes_what_it_forgets(tmp_path, clock) -> None:
    with cg.open(home=tmp_path / "ref", embedder="hash", clock=clock,
                 config=cg.CogmemConfig.reference_preset()) as store:
        agent = store.agent("assistant", user_id="u1")
        trace = agent.encode("I am allergic to peanuts.", scope="user")
        clock.advance(days=2)
        result = store.consolidate()
        assert result.pruned == 1 and result.dormant == 0
        assert not _state(store, agent, trace.id).is_active


def test_a_dormant_memory_comes_back_when_asked_for_directly_and_is_active_after(store, clock) -> None:
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    walk = agent.encode("We walked along the old harbour wall at sunset.", scope="user")
    _nights(store, clock, 60, chat=agent)
    assert _state(store, agent, walk.id).dormant, "sixty days unused: the walk has gone dormant"

    # An unrelated question does not bring it up, and looking does not wake it.
    assert walk.id not in _top(agent, "What did we watch on television?", k=10)
    assert walk.id in [h.trace.id for h in agent.retrieve(
        "old harbour wall at sunset", top_k=3, record_access=False).traces]
    assert _state(store, agent, walk.id).dormant

    # Asked for directly, it is recalled, and recall makes it active again.
    assert walk.id in _top(agent, "Where did we walk at sunset along the harbour wall?", k=3)
    assert not _state(store, agent, walk.id).dormant
    store.consolidate()
    assert not _state(store, agent, walk.id).dormant, "just recalled: not forgotten again the same night"


def test_a_pinned_memory_is_never_forgotten_merged_or_gisted(store, clock) -> None:
    config = store.config
    config.mechanisms.temporal_gist.age_threshold_days = 10
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    text = ("The ferry to the island leaves from pier four. It runs every two hours in summer and "
            "only twice a day in winter, and the last boat back is always at six in the evening.")
    pinned = agent.encode(text, scope="user", pinned=True)
    twin = agent.encode(text + " ", scope="user")  # the same words: a near-duplicate merge candidate
    other = agent.encode("Sounds good, thanks!", scope="user")
    assert agent.unpin(other.id) == [other.id]  # unpinning an unpinned memory is harmless

    totals = {"merged": 0, "gisted": 0}
    for _ in range(40):
        clock.advance(days=1)
        result = store.consolidate()
        totals["merged"] += result.merged
        totals["gisted"] += result.gisted
    after = _state(store, agent, pinned.id)
    assert after.pinned and after.is_active and not after.dormant
    assert after.content == text, "a pinned memory is never gisted"
    twin_after = _state(store, agent, twin.id)
    assert twin_after.is_active, "a pinned memory is never merged with its twin"
    assert _state(store, agent, other.id).dormant, "the unpinned small talk was forgotten meanwhile"

    # Unpinned, it is forgotten like any other memory.
    assert agent.unpin(pinned.id) == [pinned.id]
    for _ in range(40):
        clock.advance(days=1)
        store.consolidate()
    after = _state(store, agent, pinned.id)
    assert not after.pinned and (after.dormant or after.content != text or not after.is_active)


def test_pin_is_scoped_and_names_its_argument(store) -> None:
    mine = store.agent("assistant", user_id="u1")
    theirs = store.agent("assistant", user_id="u2")
    trace = mine.encode("My locker code is 4471.", scope="user")
    assert theirs.pin(trace.id) == [], "another user cannot pin my memory"
    assert not store.graph.get_traces([trace.id], mine.visible_scope_keys)[0].pinned
    with pytest.raises(ValueError, match="trace_ids"):
        mine.pin([])


@pytest.mark.parametrize("honesty", [0.9, 0.5])
def test_a_correction_outranks_what_it_corrects(tmp_path, clock, honesty) -> None:
    with cg.open(home=tmp_path / f"h{honesty}", embedder="hash", clock=clock) as store:
        agent = store.agent("assistant", user_id="u1", thread_id="t1", traits=cg.Hexaco(honesty=honesty))
        paris = agent.encode("I live in Paris.", scope="user")
        clock.advance(days=10)
        berlin = agent.encode("I moved to Berlin last month, I live in Berlin now.", scope="user")
        for _ in range(2):
            clock.advance(days=1)
            store.consolidate()
        reader = store.agent("assistant", user_id="u1")
        ranked = [h.trace.id for h in reader.retrieve("Where do I live?", top_k=5).traces]
        assert ranked[0] == berlin.id
        assert paris.id in ranked, "what was said before stays reachable, below the correction"
        old = _state(store, reader, paris.id)
        assert old.is_active
        if honesty > 0.6:  # an honest agent lets the newer statement supersede the older
            assert old.dormant and berlin.id in old.contradicted_by
        # Asked about the old city itself, the old statement is found, the current one first.
        ranked = [h.trace.id for h in reader.retrieve("Did I live in Paris?", top_k=5).traces]
        assert ranked.index(berlin.id) < ranked.index(paris.id)


def test_similar_facts_with_different_values_all_survive_consolidation(store, clock) -> None:
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    codes = [f"V{n:04d}" for n in range(10, 40)]
    traces = agent.encode_many([{"content": f"The launch code for site {i} is {code}.", "scope": "user"}
                                for i, code in enumerate(codes)])
    assert len({t.id for t in traces}) == len(codes), "none was taken for a near-duplicate of another"
    clock.advance(hours=1)
    result = store.consolidate()
    assert result.merged == 0
    clock.advance(days=1)
    store.consolidate()
    for trace, code in zip(traces, codes, strict=True):
        state = _state(store, agent, trace.id)
        assert state.is_active and not state.dormant
        hits = [h.trace.id for h in agent.retrieve(f"launch code {code}", top_k=3, record_access=False).traces]
        assert trace.id in hits, code


def test_recall_lengthens_stability_without_making_a_memory_louder(store, clock) -> None:
    agent = store.agent("assistant", user_id="u1")
    trace = agent.encode("The spare key is under the blue flower pot.", scope="user")
    before = _state(store, agent, trace.id)
    clock.advance(hours=2)
    agent.retrieve("Where is the spare key?", top_k=3)
    after = _state(store, agent, trace.id)
    assert after.retrieval_count == 1
    assert after.stability > before.stability
    assert after.encoding_strength == before.encoding_strength


def _strong_versus_relevant(store: cg.MemoryStore, clock: ManualClock) -> list[str]:
    agent = store.agent("assistant", user_id="u1")
    answer = agent.encode("The dentist appointment is on Friday at nine.", scope="user")
    clock.advance(days=20)
    loud = agent.encode("Great news today about the appointment of our new finance chief!", scope="user")
    for _ in range(5):  # recalled again and again: as strong and fresh as a memory gets
        agent.retrieve("great news today", top_k=1)
    ranked = [h.trace.id for h in agent.retrieve("When is the dentist appointment?", top_k=2).traces]
    return [{answer.id: "answer", loud.id: "loud"}.get(i, i) for i in ranked]


def test_a_strong_memory_does_not_outrank_a_relevant_one_on_strength_alone(store, clock) -> None:
    assert _strong_versus_relevant(store, clock)[0] == "answer"


def test_consolidation_uses_the_traits_of_the_agent_that_stated_the_correction(store, clock) -> None:
    honest = store.agent("assistant", user_id="u1", thread_id="t1", traits=cg.Hexaco(honesty=0.95))
    old = honest.encode("My phone number is 555-0101.", scope="user")
    clock.advance(days=5)
    honest.encode("My new phone number is 555-0199.", scope="user")
    clock.advance(days=1)
    assert store.consolidate().conflicts_resolved == 1
    assert _state(store, honest, old.id).dormant


def test_a_dormant_fact_the_user_stated_answers_a_question_about_them(store, clock) -> None:
    """On a question about the asker, a dormant memory that states something joins the ranking
    although other talk matches the words better (its category counts, not only its words);
    with the rule off, or asked about someone else, it stays dormant and out."""
    agent = store.agent("assistant", user_id="u1", thread_id="t1")
    fact = agent.encode("The bins go out on Tuesday and Friday mornings before 7.", scope="user")
    chat = agent.encode("Haha, the bins, sure.", scope="user")
    for _ in range(20):  # 200 days unused, consolidation every tenth night
        clock.advance(days=10)
        store.consolidate()
    assert _state(store, agent, fact.id).dormant and _state(store, agent, fact.id).category == "fact"
    assert _state(store, agent, chat.id).dormant and _state(store, agent, chat.id).category == "other"
    # Recent talk that shares more of the question's words than the fact does.
    agent.encode_many([{"content": f"Joanna: when my bins go out the foxes get in, night {night}", "scope": "user"}
                       for night in range(14)])

    def found(question: str) -> set[str]:
        return {h.trace.id for h in agent.retrieve(question, top_k=30, record_access=False).traces}

    assert fact.id in found("When do my bins go out?")
    assert chat.id not in found("When do my bins go out?"), "small talk states nothing: it stays asleep"
    assert fact.id not in found("When do Joanna's bins go out?"), "not a question about the asker"
    store.config.retention.dormant_recall_rank_about_self = 0
    assert fact.id not in found("When do my bins go out?"), "without the rule only the best 10 may wake"
    assert _state(store, agent, fact.id).dormant, "looking read-only wakes nothing"
