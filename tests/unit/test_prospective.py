"""Prospective memory triggers as pure functions, with hand-computed cases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cogmem_graph.cognition.embedding_space import cosine
from cogmem_graph.cognition.prospective import (
    Intention,
    TriggerKind,
    after_firing,
    context_trigger_fires,
    evaluate,
    is_eligible,
    matched_keywords,
    new_intention,
    next_occurrence,
    time_trigger_fires,
)
from cogmem_graph.config.prospective import ProspectiveConfig

NOW = 1_700_000_000_000


def _new(content: str = "Ask about the PR review", **trigger) -> Intention:
    return new_intention(content, scope_key="user:u1", agent_id="helper", now=NOW, **trigger)


def _intention(kind: TriggerKind, **fields) -> Intention:
    return Intention(id="pm_1", scope_key="user:u1", agent_id="helper", content="do it", kind=kind, **fields)


# ---------------------------------------------------------------- time


def test_a_time_trigger_fires_at_its_time_and_after_but_not_before() -> None:
    assert time_trigger_fires(1_000, 999) is False
    assert time_trigger_fires(1_000, 1_000) is True
    assert time_trigger_fires(1_000, 1_001) is True


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (1_000, 1_600),  # fired on time: one interval later
        (1_599, 1_600),
        (1_600, 2_200),  # exactly on an occurrence: the one after it
        (2_500, 2_800),  # (2500 - 1000) // 600 = 2 intervals passed, the 3rd is next: 1000 + 3 * 600
        (999, 1_000),  # before the anchor: the anchor itself
    ],
)
def test_next_occurrence_is_the_first_one_strictly_after_now(now: int, expected: int) -> None:
    assert next_occurrence(1_000, 600, now) == expected


def test_next_occurrence_needs_a_positive_interval() -> None:
    with pytest.raises(ValueError, match="interval_ms"):
        next_occurrence(1_000, 0, 2_000)


def test_a_one_shot_time_intention_is_spent_by_firing() -> None:
    one_shot = _intention(TriggerKind.TIME, trigger_at=1_000, next_fire_at=1_000)
    assert evaluate(one_shot, 999) is None
    fired = evaluate(one_shot, 1_200)
    assert fired is not None and fired.fired_at == 1_200
    spent = after_firing(one_shot, 1_200)
    assert (spent.active, spent.fired_count, spent.last_fired_at) == (False, 1, 1_200)
    assert evaluate(spent, 10**15) is None, "a one-shot never fires again"


def test_a_recurring_time_intention_moves_to_its_next_occurrence_skipping_missed_ones() -> None:
    every = _intention(TriggerKind.TIME, trigger_at=1_000, interval_ms=600, recurring=True, next_fire_at=1_000)
    first = after_firing(every, 2_500)
    assert (first.active, first.fired_count, first.next_fire_at) == (True, 1, 2_800)
    assert evaluate(first, 2_799) is None
    assert evaluate(first, 2_800) is not None
    second = after_firing(first, 2_800)
    assert (second.fired_count, second.next_fire_at, second.last_fired_at) == (2, 3_400, 2_800)


# ---------------------------------------------------------------- event


def test_keywords_match_whole_words_by_stem_in_the_turn_or_its_events() -> None:
    assert matched_keywords(["deployment"], "We are deploying on Friday") == ("deployment",)
    assert matched_keywords(["PR"], "Please prepare the slides") == (), "no match inside a longer word"
    assert matched_keywords(["PR", "Berlin"], "the PR is ready") == ("PR",)
    assert matched_keywords(["Berlin"], "hello", events=["trip to Berlin booked"]) == ("Berlin",)
    assert matched_keywords(["pull request"], "your pull requests are merged") == ("pull request",)
    assert matched_keywords(["pull request"], "a request to pull the plug") == (), "words in order, adjacent"
    assert matched_keywords(["Docker Compose"], "DOCKER compose it is") == ("Docker Compose",)


def test_an_event_intention_fires_when_a_keyword_appears_then_waits_its_cooldown() -> None:
    cue = _intention(TriggerKind.EVENT, keywords=("deployment",), recurring=True, cooldown_ms=300, next_fire_at=0)
    assert evaluate(cue, 5_000, "what is for lunch?") is None
    fired = evaluate(cue, 5_000, "the deployment failed")
    assert fired is not None and fired.matched_keywords == ("deployment",)
    cooling = after_firing(cue, 5_000)
    assert (cooling.active, cooling.next_fire_at) == (True, 5_300)
    assert evaluate(cooling, 5_299, "deploying again") is None, "inside the cooldown"
    assert evaluate(cooling, 5_300, "deploying again") is not None


def test_a_one_shot_event_intention_is_spent_by_firing() -> None:
    cue = _intention(TriggerKind.EVENT, keywords=("Berlin",))
    spent = after_firing(cue, 7)
    assert spent.active is False and evaluate(spent, 8, "Berlin again") is None


# ---------------------------------------------------------------- context


def test_a_context_trigger_fires_when_similarity_reaches_the_threshold() -> None:
    assert context_trigger_fires(0.7, 0.7) is True
    assert context_trigger_fires(0.69, 0.7) is False
    cue = _intention(TriggerKind.CONTEXT, cue="pricing", similarity_threshold=0.7)
    similarity = cosine([1.0, 0.0], [1.0, 1.0])  # 0.7071
    fired = evaluate(cue, 0, "turn", similarity=similarity)
    assert fired is not None and fired.similarity == pytest.approx(0.7071, abs=1e-4)
    stricter = _intention(TriggerKind.CONTEXT, cue="pricing", similarity_threshold=0.75)
    assert evaluate(stricter, 0, "turn", similarity=similarity) is None
    assert evaluate(cue, 0, "", similarity=None) is None, "no turn text, nothing to compare"


def test_an_intention_is_not_eligible_before_its_next_fire_time_or_when_inactive() -> None:
    cue = _intention(TriggerKind.EVENT, keywords=("x",), next_fire_at=100)
    assert (is_eligible(cue, 99), is_eligible(cue, 100)) == (False, True)
    assert is_eligible(_intention(TriggerKind.EVENT, keywords=("x",), active=False), 10**15) is False


# ---------------------------------------------------------------- building from a request


def test_new_time_intentions_take_at_and_every_as_ints_datetimes_or_timedeltas() -> None:
    at = _new(at=datetime(2023, 11, 14, 23, 13, 20, tzinfo=UTC))
    assert at.kind is TriggerKind.TIME and at.trigger_at == NOW + 3_600_000 and at.next_fire_at == at.trigger_at
    assert at.recurring is False and at.interval_ms is None
    hourly = _new(every=timedelta(hours=1))
    assert hourly.recurring is True and hourly.interval_ms == 3_600_000
    assert hourly.trigger_at == NOW + 3_600_000, "every without at: the first occurrence is one interval away"
    both = _new(at=NOW + 5, every=10)
    assert (both.trigger_at, both.interval_ms, both.recurring) == (NOW + 5, 10, True)


def test_new_cue_intentions_take_the_reference_defaults() -> None:
    cfg = ProspectiveConfig()
    keywords = _new(on_keywords=["deployment", "  Berlin ", "Berlin"])
    assert keywords.kind is TriggerKind.EVENT and keywords.keywords == ("deployment", "Berlin")
    assert keywords.next_fire_at == NOW and keywords.importance == cfg.default_importance == 0.5
    assert keywords.recurring is False and keywords.cooldown_ms == 0
    context = _new(on_context="we discuss pricing", recurring=True)
    assert context.kind is TriggerKind.CONTEXT and context.similarity_threshold == cfg.similarity_threshold == 0.7
    assert context.cooldown_ms == cfg.cooldown_ms
    later = _new(on_keywords="launch", at=NOW + 99, recurring=True, cooldown=0, importance=0.9)
    assert (later.next_fire_at, later.cooldown_ms, later.importance) == (NOW + 99, 0, 0.9)


@pytest.mark.parametrize(
    ("content", "trigger", "field"),
    [
        ("", {"at": NOW}, "content"),
        (42, {"at": NOW}, "content"),
        ("x", {}, "trigger"),
        ("x", {"at": "tomorrow"}, "at"),
        ("x", {"at": -1}, "at"),
        ("x", {"at": True}, "at"),
        ("x", {"at": datetime(2024, 1, 1)}, "at must be .*naive datetime"),
        ("x", {"every": 0}, "every"),
        ("x", {"every": timedelta(seconds=-1)}, "every"),
        ("x", {"every": 1.5}, "every"),
        ("x", {"on_keywords": []}, "on_keywords"),
        ("x", {"on_keywords": ["ok", ""]}, r"on_keywords\[1\]"),
        ("x", {"on_keywords": ["the"]}, r"on_keywords\[0\]"),
        ("x", {"on_keywords": [3]}, r"on_keywords\[0\]"),
        ("x", {"on_context": ""}, "on_context"),
        ("x", {"on_context": "pricing", "threshold": 1.5}, "threshold"),
        ("x", {"on_context": "pricing", "threshold": 0}, "threshold"),
        ("x", {"on_keywords": ["a b"], "threshold": 0.5}, "threshold"),
        ("x", {"at": NOW, "threshold": 0.5}, "threshold"),
        ("x", {"at": NOW, "importance": 2}, "importance"),
        ("x", {"at": NOW, "importance": float("nan")}, "importance"),
        ("x", {"at": NOW, "recurring": "yes"}, "recurring"),
        ("x", {"at": NOW, "recurring": True}, "every"),
        ("x", {"every": 10, "recurring": False}, "every"),
        ("x", {"on_keywords": ["deploy"], "every": 10}, "every"),
        ("x", {"on_keywords": ["deploy"], "cooldown": 10}, "cooldown"),
        ("x", {"on_keywords": ["deploy"], "recurring": True, "cooldown": -1}, "cooldown"),
        ("x", {"on_keywords": ["deploy"], "on_context": "deploying"}, "on_keywords or on_context"),
    ],
)
def test_bad_requests_raise_errors_naming_the_argument(content, trigger, field) -> None:
    with pytest.raises(ValueError, match=field):
        _new(content, **trigger)


def test_graph_properties_round_trip_and_ignore_the_cue_vector() -> None:
    original = _new(on_context="we discuss pricing", recurring=True, importance=0.8)
    props = original.to_props()
    assert props["triggerKind"] == "context_based" and props["similarityThreshold"] == 0.7
    assert props["firedCount"] == 0 and props["nextFireAt"] == NOW and props["keywords"] == []
    assert Intention.from_props({**props, "cueEmbedding": [0.1, 0.2], "embedModel": "hash-384"}) == original
    stored = {k: v for k, v in props.items() if v is not None}  # the graph keeps no nulls
    assert Intention.from_props(stored) == original


def test_cue_vectors_pack_into_one_string_and_back_at_float32_precision() -> None:
    from cogmem_graph.between_turns.prospective import pack_vector, unpack_vector

    vector = [0.1, -0.25, 1 / 3, 0.0]
    packed = pack_vector(vector)
    assert isinstance(packed, str) and len(packed) == 24  # 4 floats x 4 bytes, base64
    assert unpack_vector(packed) == pytest.approx(vector, abs=1e-7)
    assert unpack_vector(packed)[1] == -0.25, "exactly representable values survive exactly"
    assert unpack_vector("not base64!") == [] and unpack_vector("AAA=") == []
