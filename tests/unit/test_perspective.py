"""Perspective encoding rules as pure functions: the three gates, prompt descriptions and
validation of the rewrite answer."""

from __future__ import annotations

import pytest

from cogmem_graph.cognition.perspective import (
    GateReason,
    WitnessTier,
    describe_mood,
    describe_personality,
    entity_overlap,
    parse_rewrite,
    perspective_gate,
    trait_level,
)
from cogmem_graph.config.perspective import PerspectiveConfig
from cogmem_graph.model import Hexaco, Mood

THRESHOLD = PerspectiveConfig().importance_threshold


def test_reference_gate_defaults() -> None:
    cfg = PerspectiveConfig()
    assert cfg.importance_threshold == 0.3 and cfg.require_entity_overlap is True


def test_entity_overlap_compares_entity_keys() -> None:
    assert entity_overlap(["Vex", "Millhaven "], ["vex", "Lyra"]) == {"vex"}
    assert entity_overlap(["Vex"], []) == set()
    assert entity_overlap(["  "], ["  "]) == set()


@pytest.mark.parametrize(("importance", "tier", "overlap", "remember", "rewrite", "reason"), [
    (0.8, "important", {"vex"}, True, True, GateReason.REWRITE),
    (THRESHOLD, "important", {"vex"}, True, True, GateReason.REWRITE),
    (0.29, "important", {"vex"}, True, False, GateReason.LOW_IMPORTANCE),
    (0.8, "combatant", {"vex"}, True, False, GateReason.TIER),
    (0.8, "important", set(), True, False, GateReason.NO_ENTITY_OVERLAP),
    (0.8, "background", {"vex"}, False, False, GateReason.BACKGROUND),
])
def test_the_three_gates(importance, tier, overlap, remember, rewrite, reason) -> None:
    gate = perspective_gate(importance, tier, overlap, threshold=THRESHOLD)
    assert (gate.remember, gate.rewrite, gate.reason) == (remember, rewrite, reason)


def test_overlap_can_be_waived_and_rewriting_disabled() -> None:
    assert perspective_gate(0.8, WitnessTier.IMPORTANT, [], threshold=0.3, require_overlap=False).rewrite
    disabled = perspective_gate(0.8, WitnessTier.IMPORTANT, ["vex"], threshold=0.3, enabled=False)
    assert (disabled.remember, disabled.rewrite, disabled.reason) == (True, False, GateReason.DISABLED)
    assert not perspective_gate(0.8, "background", [], threshold=0.3, enabled=False).remember


def test_bad_gate_input_is_refused() -> None:
    with pytest.raises(ValueError, match="importance"):
        perspective_gate(1.5, "important", ["vex"], threshold=0.3)
    with pytest.raises(ValueError):
        perspective_gate(0.5, "boss", ["vex"], threshold=0.3)


def test_personality_and_mood_in_words() -> None:
    assert [trait_level(v, 0.4, 0.6) for v in (0.1, 0.5, 0.9)] == ["low", "moderate", "high"]
    text = describe_personality(Hexaco(emotionality=0.9, honesty=0.2))
    assert "emotionality high (0.90)" in text and "honesty low (0.20)" in text and "openness moderate (0.50)" in text
    assert text.count(";") == 5
    mood = describe_mood(Mood(valence=-0.7, arousal=0.8, dominance=0.0))
    assert "unpleasant" in mood and "agitated" in mood and "dominance +0.00 (neutral)" in mood


def test_the_rewrite_answer_is_validated_and_bounded() -> None:
    assert parse_rewrite({"memory": "  I watched\n in horror. "}, 100) == "I watched in horror."
    clipped = parse_rewrite({"memory": "word " * 50}, 20)
    assert len(clipped) == 20 and clipped.endswith("…")
    for bad in ({}, {"memory": ""}, {"memory": 3}, ["I watched"]):
        with pytest.raises(ValueError):
            parse_rewrite(bad, 100)
