"""The held-out value-change sets keep their own promises: `benchmarks/value_changes_holdout.py` (32 changes
and 16 distinct pairs) and `benchmarks/value_changes_second_holdout.py` (32 changes and 12 distinct pairs),
each in its own half, values written where they are said to be, every question a question, and no
statement taken from `benchmarks/value_changes_set.py` or an earlier set. Only the data is checked."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from benchmark_scripts import load_benchmark

data_set = load_benchmark("value_changes_set")
first = load_benchmark("value_changes_holdout")
second = load_benchmark("value_changes_second_holdout")


@dataclass(frozen=True)
class HeldOut:
    half: str
    changes: tuple[Any, ...]
    distinct: tuple[Any, ...]
    forms: dict[str, int]
    distinct_pairs: int
    earlier: tuple[Any, ...] = ()
    """Sets written before this one: none of their statements may come back."""


SETS = [
    pytest.param(HeldOut("holdout", first.HOLDOUT_CHANGES, first.HOLDOUT_DISTINCT,
                         {"restate": 6, "move": 16, "replace": 6, "relative": 4}, 16), id="holdout"),
    pytest.param(HeldOut("holdout 2", second.SECOND_CHANGES, second.SECOND_DISTINCT,
                         {"restate": 8, "move": 8, "replace": 8, "relative": 8}, 12,
                         (*first.HOLDOUT_CHANGES, *first.HOLDOUT_DISTINCT)), id="holdout 2"),
]


@pytest.mark.parametrize("held", SETS)
def test_the_counts_forms_and_slots_are_as_promised(held: HeldOut) -> None:
    assert len(held.changes) == 32
    assert len(held.distinct) == held.distinct_pairs
    assert Counter(change.form for change in held.changes) == held.forms
    slots = Counter(change.slot for change in held.changes)
    assert {slot: slots[slot] for slot in data_set.SLOT_KINDS if slots[slot] < 2} == {}
    assert {pair.slot for pair in held.distinct} <= set(data_set.SLOT_KINDS)


@pytest.mark.parametrize("held", SETS)
def test_every_pair_is_in_its_half(held: HeldOut) -> None:
    assert {change.half for change in held.changes} | {pair.half for pair in held.distinct} == {held.half}


@pytest.mark.parametrize("held", SETS)
def test_values_are_written_where_they_are_said_to_be(held: HeldOut) -> None:
    for change in held.changes:
        assert change.old_value in change.old, change
        assert change.old_value != change.new_value, change
        if change.form == "relative":
            assert change.new_value not in change.new, change  # resolved, not read off
        else:
            assert change.new_value in change.new, change
    for pair in held.distinct:
        assert pair.value_a in pair.a, pair
        assert pair.value_b in pair.b, pair
        assert pair.value_a != pair.value_b, pair


def _statements(pairs) -> list[str]:
    return [s for p in pairs for s in ((p.old, p.new) if hasattr(p, "old") else (p.a, p.b))]


@pytest.mark.parametrize("held", SETS)
def test_no_statement_is_used_twice_or_taken_from_an_earlier_set(held: HeldOut) -> None:
    statements = _statements((*held.changes, *held.distinct))
    assert [s for s, n in Counter(statements).items() if n > 1] == []
    seen = set(_statements((*data_set.CHANGES, *data_set.DISTINCT, *held.earlier)))
    assert [s for s in statements if s in seen] == []


@pytest.mark.parametrize("held", SETS)
def test_questions_are_questions(held: HeldOut) -> None:
    questions = [c.question for c in held.changes]
    questions += [q for d in held.distinct for q in (d.question_a, d.question_b)]
    assert [q for q in questions if not q.endswith("?")] == []
    for pair in held.distinct:
        assert pair.question_a != pair.question_b, pair
