"""`benchmarks/value_changes_set.py` keeps its own promises: enough pairs, every slot kind and form,
halves that alternate within each form, values written where they are said to be, no statement twice,
and a confirm half whose moving verbs are not all those of the tune half. Only the data is checked."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from benchmark_scripts import load_benchmark

PARTICLES = {"to", "for", "up", "back", "forward"}
CUES = {"now", "moved", "changed", "instead", "rather", "anymore", "longer", "starting", "from", "as"}
"""Words a restatement goes without: with one of them it is a `move` or a `replace`."""


data = load_benchmark("value_changes_set")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower())


def test_there_are_enough_pairs() -> None:
    assert len(data.CHANGES) >= 60
    assert len(data.DISTINCT) >= 30


def test_fields_take_their_declared_values() -> None:
    for change in data.CHANGES:
        assert change.slot in data.SLOT_KINDS, change
        assert change.form in data.FORMS, change
        assert change.half in data.HALVES, change
    for pair in data.DISTINCT:
        assert pair.slot in data.SLOT_KINDS, pair
        assert pair.half in data.HALVES, pair


def test_every_slot_kind_changes_at_least_four_times() -> None:
    counts = Counter(change.slot for change in data.CHANGES)
    assert {slot: counts[slot] for slot in data.SLOT_KINDS if counts[slot] < 4} == {}


def test_every_form_is_present() -> None:
    assert {change.form for change in data.CHANGES} == set(data.FORMS)


@pytest.mark.parametrize("form", ["restate", "move", "replace", "relative"])
def test_halves_alternate_within_each_form(form: str) -> None:
    halves = [change.half for change in data.CHANGES if change.form == form]
    assert halves == [data.HALVES[i % 2] for i in range(len(halves))]
    counts = Counter(halves)
    assert abs(counts["tune"] - counts["confirm"]) <= 1


def test_halves_alternate_among_distinct_pairs() -> None:
    halves = [pair.half for pair in data.DISTINCT]
    assert halves == [data.HALVES[i % 2] for i in range(len(halves))]


def test_values_are_written_where_they_are_said_to_be() -> None:
    for change in data.CHANGES:
        assert change.old_value in change.old, change
        assert change.old_value != change.new_value, change
        if change.form == "relative":
            assert change.new_value not in change.new, change  # resolved, not read off
        else:
            assert change.new_value in change.new, change
    for pair in data.DISTINCT:
        assert pair.value_a in pair.a, pair
        assert pair.value_b in pair.b, pair
        assert pair.value_a != pair.value_b, pair


def test_no_statement_or_question_is_used_twice() -> None:
    statements = [s for c in data.CHANGES for s in (c.old, c.new)] + [s for d in data.DISTINCT for s in (d.a, d.b)]
    assert [s for s, n in Counter(statements).items() if n > 1] == []
    for change in data.CHANGES:
        assert change.old != change.new
    for pair in data.DISTINCT:
        assert pair.question_a != pair.question_b


def test_questions_are_questions() -> None:
    questions = [c.question for c in data.CHANGES] + [q for d in data.DISTINCT for q in (d.question_a, d.question_b)]
    assert [q for q in questions if not q.endswith("?")] == []


def test_restatements_carry_no_cue_of_change() -> None:
    for change in data.CHANGES:
        if change.form == "restate":
            assert CUES.isdisjoint(_words(change.new)), change


def _moving_verbs(half: str) -> set[str]:
    verbs = set()
    for change in data.CHANGES:
        if change.form == "move" and change.half == half:
            words = _words(change.new)
            verbs |= {w for w, nxt in zip(words, words[1:], strict=False) if w.endswith("ed") and nxt in PARTICLES}
    return verbs


def test_confirm_half_moves_with_verbs_the_tune_half_does_not_use() -> None:
    tune, confirm = _moving_verbs("tune"), _moving_verbs("confirm")
    assert len(confirm - tune) >= 5, sorted(confirm - tune)
