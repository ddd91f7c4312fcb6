"""`benchmarks/value_changes_holdout.py` keeps its own promises: 32 changes and 16 distinct pairs, all in the
holdout half, values written where they are said to be, every question a question, and no statement taken
from `benchmarks/value_changes_set.py`. Only the data is checked."""

from __future__ import annotations

from collections import Counter

from benchmark_scripts import load_benchmark

data_set = load_benchmark("value_changes_set")
holdout = load_benchmark("value_changes_holdout")


def test_there_are_32_changes_and_16_distinct_pairs() -> None:
    assert len(holdout.HOLDOUT_CHANGES) == 32
    assert len(holdout.HOLDOUT_DISTINCT) == 16


def test_forms_and_slots_are_spread() -> None:
    forms = Counter(change.form for change in holdout.HOLDOUT_CHANGES)
    assert forms == {"restate": 6, "move": 16, "replace": 6, "relative": 4}
    slots = Counter(change.slot for change in holdout.HOLDOUT_CHANGES)
    assert {slot: slots[slot] for slot in data_set.SLOT_KINDS if slots[slot] < 2} == {}
    assert {pair.slot for pair in holdout.HOLDOUT_DISTINCT} <= set(data_set.SLOT_KINDS)


def test_every_pair_is_in_the_holdout_half() -> None:
    halves = {change.half for change in holdout.HOLDOUT_CHANGES} | {pair.half for pair in holdout.HOLDOUT_DISTINCT}
    assert halves == {"holdout"}


def test_values_are_written_where_they_are_said_to_be() -> None:
    for change in holdout.HOLDOUT_CHANGES:
        assert change.old_value in change.old, change
        assert change.old_value != change.new_value, change
        if change.form == "relative":
            assert change.new_value not in change.new, change  # resolved, not read off
        else:
            assert change.new_value in change.new, change
    for pair in holdout.HOLDOUT_DISTINCT:
        assert pair.value_a in pair.a, pair
        assert pair.value_b in pair.b, pair
        assert pair.value_a != pair.value_b, pair


def _statements(changes, distinct) -> list[str]:
    return [s for c in changes for s in (c.old, c.new)] + [s for d in distinct for s in (d.a, d.b)]


def test_no_statement_is_used_twice_or_taken_from_the_set() -> None:
    statements = _statements(holdout.HOLDOUT_CHANGES, holdout.HOLDOUT_DISTINCT)
    assert [s for s, n in Counter(statements).items() if n > 1] == []
    seen = set(_statements(data_set.CHANGES, data_set.DISTINCT))
    assert [s for s in statements if s in seen] == []


def test_questions_are_questions() -> None:
    questions = [c.question for c in holdout.HOLDOUT_CHANGES]
    questions += [q for d in holdout.HOLDOUT_DISTINCT for q in (d.question_a, d.question_b)]
    assert [q for q in questions if not q.endswith("?")] == []
    for pair in holdout.HOLDOUT_DISTINCT:
        assert pair.question_a != pair.question_b, pair
