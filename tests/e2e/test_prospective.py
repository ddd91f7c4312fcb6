"""Prospective memory end to end on the embedded default (FalkorDB started by the library,
Qdrant local mode, the hash embedder) with a controlled clock: reminders are stored in the
graph, checked every turn by `assemble_for_prompt` and shown under "Reminders"."""

from __future__ import annotations

import threading

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, MS_PER_MINUTE
from cogmem_graph.cognition.prospective import TriggerKind
from cogmem_graph.providers.embedders import HashEmbedder

START = 1_700_000_000_000
PRICING_CUE = "we discuss the pricing of the enterprise plan"
PRICING_TURN = "What should the pricing of the enterprise plan be?"
UNRELATED_TURN = "My cat sleeps all day on the sofa"


def _fired(ctx) -> list[str]:
    return [f.intention.content for f in ctx.reminders]


def test_a_time_trigger_fires_once_into_the_reminders_section(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.encode("The PR for the billing service is open")
    reminder = agent.remind("Ask whether the PR review is done", at=START + MS_PER_HOUR, importance=0.8)
    assert reminder.kind is TriggerKind.TIME and reminder.active

    early = agent.assemble_for_prompt("billing service")
    assert _fired(early) == [] and "## Reminders" not in early.text

    clock.advance(hours=1)
    due = agent.assemble_for_prompt("billing service")
    assert _fired(due) == ["Ask whether the PR review is done"]
    assert "## Reminders" in due.text and "Ask whether the PR review is done" in due.text
    assert due.sections["prospective_alerts"] > 0

    for _ in range(2):
        clock.advance(hours=24)
        later = agent.assemble_for_prompt("billing service")
        assert _fired(later) == [] and "PR review" not in later.text, "a one-shot fires once, then never"
    assert agent.reminders() == []
    [spent] = agent.reminders(include_inactive=True)
    assert (spent.id, spent.active, spent.fired_count, spent.last_fired_at) == (
        reminder.id, False, 1, START + MS_PER_HOUR)


def test_a_recurring_time_trigger_fires_again_after_its_interval(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.remind("Stand-up in five minutes", every=MS_PER_HOUR)
    assert agent.check_reminders() == []
    clock.advance(hours=1)
    assert [f.intention.fired_count for f in agent.check_reminders()] == [1]
    assert agent.check_reminders() == [], "not twice for the same occurrence"
    clock.advance(59 * MS_PER_MINUTE)
    assert agent.check_reminders() == []
    clock.advance(MS_PER_MINUTE)
    assert _fired(agent.assemble_for_prompt("anything new?")) == ["Stand-up in five minutes"]
    clock.advance(hours=5.5)
    [caught_up] = agent.check_reminders()
    assert caught_up.intention.fired_count == 3, "missed occurrences fire once, not five times"
    assert caught_up.intention.next_fire_at == START + 8 * MS_PER_HOUR
    assert agent.check_reminders() == []
    [pending] = agent.reminders()
    assert pending.active and pending.fired_count == 3


def test_a_keyword_trigger_fires_when_the_turn_mentions_it(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    once = agent.remind("Tell them the deploy freeze starts Friday", on_keywords=["deployment", "release"])
    assert _fired(agent.assemble_for_prompt("What is for lunch today?")) == []
    ctx = agent.assemble_for_prompt("When are we deploying the new version?")
    assert _fired(ctx) == [once.content] and ctx.reminders[0].matched_keywords == ("deployment",)
    assert "deploy freeze" in ctx.text
    assert _fired(agent.assemble_for_prompt("Deployment again please")) == [], "one-shot"

    agent.remind("Berlin office has a new address", on_keywords=["Berlin"], recurring=True, cooldown=10 * MS_PER_MINUTE)
    assert _fired(agent.assemble_for_prompt("any news?", events=["trip to Berlin booked"])) == [
        "Berlin office has a new address"], "named events count as the turn"
    clock.advance(5 * MS_PER_MINUTE)
    assert agent.check_reminders("I land in Berlin at noon") == [], "within the cooldown"
    clock.advance(5 * MS_PER_MINUTE)
    [again] = agent.check_reminders("I land in Berlin at noon")
    assert again.intention.fired_count == 2 and again.intention.active


def test_a_context_trigger_fires_on_a_similar_turn_only(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    reminder = agent.remind("Mention the 20% discount for non-profits", on_context=PRICING_CUE, recurring=True,
                            cooldown=0)
    assert reminder.similarity_threshold == store.config.prospective.similarity_threshold == 0.7
    assert agent.check_reminders(UNRELATED_TURN) == []
    ctx = agent.assemble_for_prompt(PRICING_TURN)
    [fired] = ctx.reminders
    assert fired.intention.id == reminder.id and fired.similarity >= 0.7
    assert "20% discount" in ctx.text
    [again] = agent.check_reminders(PRICING_TURN)
    assert again.intention.fired_count == 2, "recurring with no cooldown fires on every similar turn"
    strict = agent.remind("Only on a near-verbatim match", on_context=PRICING_CUE, threshold=0.99)
    assert strict.id not in {f.intention.id for f in agent.check_reminders(PRICING_TURN)}


@pytest.mark.local_embedder
def test_a_context_trigger_fires_on_a_paraphrase_with_minilm(tmp_path, clock) -> None:
    pytest.importorskip("sentence_transformers", reason="the 'local' extra is not installed")
    with cg.open(home=tmp_path / "minilm", embedder="local", clock=clock) as store:
        agent = store.agent("helper", user_id="u1")
        agent.remind("Offer the dealership discount code", on_context="buying a new car", threshold=0.55)
        assert agent.check_reminders("The soup needs more salt") == []
        assert agent.check_reminders("I am thinking about buying a new house") == [], "same words, other topic"
        [fired] = agent.check_reminders("I am thinking about purchasing an automobile")
        assert fired.similarity >= 0.55


def test_reminders_never_cross_tenants(store, clock) -> None:
    alice = store.agent("helper", user_id="alice", organization_id="acme")
    bob = store.agent("helper", user_id="bob", organization_id="acme")
    mallory = store.agent("helper", user_id="alice", organization_id="evil")  # same ids, other org
    private = alice.remind("Alice's locker code changes", on_keywords=["locker"])
    shared = alice.remind("Acme all-hands on Tuesday", on_keywords=["locker"], scope="organization")
    due = alice.remind("Alice's private deadline", at=START)

    assert mallory.reminders() == []
    assert mallory.check_reminders("where is my locker?") == []
    assert mallory.cancel_reminder(private.id) is False
    assert not _fired(mallory.assemble_for_prompt("locker deadline")), "nothing due, nothing matched"
    assert {r.id for r in bob.reminders()} == {shared.id}
    assert [f.intention.id for f in bob.check_reminders("my locker is stuck")] == [shared.id]
    assert bob.cancel_reminder(private.id) is False

    fired = {f.intention.id for f in alice.check_reminders("my locker is stuck")}
    assert fired == {private.id, due.id}, "the organization's one-shot fired once, for bob"
    assert {r.id: r.fired_count for r in alice.reminders(include_inactive=True)} == {
        private.id: 1, shared.id: 1, due.id: 1}


def test_cancelled_reminders_never_fire(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    reminder = agent.remind("Water the plants", every=MS_PER_HOUR)
    assert agent.cancel_reminder(reminder.id) is True
    assert agent.cancel_reminder(reminder.id) is False
    assert agent.cancel_reminder("pm_unknown") is False
    clock.advance(hours=3)
    assert agent.check_reminders() == [] and agent.reminders() == []
    [cancelled] = agent.reminders(include_inactive=True)
    assert cancelled.cancelled_at == START and cancelled.fired_count == 0


def test_bad_input_raises_errors_naming_the_field(store) -> None:
    agent = store.agent("helper", user_id="u1")
    cases = [
        (lambda: agent.remind("x", at="soon"), "at"),
        (lambda: agent.remind("", at=START), "content"),
        (lambda: agent.remind("x", every=-5), "every"),
        (lambda: agent.remind("x", on_keywords=["ok", "  "]), r"on_keywords\[1\]"),
        (lambda: agent.remind("x", on_context="pricing", threshold=2), "threshold"),
        (lambda: agent.remind("x", at=START, scope="galaxy"), "scope"),
        (lambda: agent.remind("x", at=START, scope="organization"), "organization_id"),
        (lambda: agent.remind("x"), "trigger"),
        (lambda: agent.cancel_reminder(5), "reminder_id"),
        (lambda: agent.check_reminders(5), "text"),
        (lambda: agent.check_reminders("hi", events=[3]), r"events\[0\]"),
        (lambda: agent.assemble_for_prompt("hi", events=["ok", None]), r"events\[1\]"),
        (lambda: agent.reminders(limit=-1), "limit"),
    ]
    for call, field in cases:
        with pytest.raises(ValueError, match=field):
            call()
    assert agent.reminders(include_inactive=True) == [], "a refused request stores nothing"


def test_only_one_of_many_concurrent_turns_fires_a_one_shot(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.remind("Say happy birthday", at=START)
    results: list[list] = []
    barrier = threading.Barrier(6)

    def turn() -> None:
        barrier.wait()
        results.append(agent.check_reminders("hello"))

    threads = [threading.Thread(target=turn) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(len(r) for r in results) == [0, 0, 0, 0, 0, 1]


def test_reminders_survive_reopening_the_store_even_with_another_embedder(tmp_path, clock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        agent = store.agent("helper", user_id="u1")
        created = []
        for content, trigger in [
            ("Renew the TLS certificate", {"at": START + MS_PER_HOUR}),
            ("Check the backups", {"every": 2 * MS_PER_HOUR}),
            ("Mention the discount", {"on_context": PRICING_CUE}),
            ("Freeze starts Friday", {"on_keywords": ["deployment"], "recurring": True, "importance": 0.9}),
        ]:
            created.append(agent.remind(content, **trigger))
            clock.advance(1)  # a distinct creation time each: the listing order is creation order
    clock.advance(hours=3)
    with cg.open(home=home, embedder=HashEmbedder(dim=256), clock=clock) as store:
        agent = store.agent("helper", user_id="u1")
        assert agent.reminders() == created, "every field as it was written"
        fired = agent.check_reminders(PRICING_TURN, events=["deployment started"])
        assert [f.intention.content for f in fired] == [
            "Freeze starts Friday", "Renew the TLS certificate", "Check the backups", "Mention the discount"]
        assert fired[3].similarity >= 0.7, "the cue was embedded again for the new embedder"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        left = store.agent("helper", user_id="u1").reminders()
        assert {(r.content, r.fired_count) for r in left} == {("Check the backups", 1), ("Freeze starts Friday", 1)}
