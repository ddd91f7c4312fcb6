"""Bi-temporal validity: the bounds a statement states, and which state holds when."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cogmem_graph.cognition.validity import Validity, expired, held_at, validity_of
from cogmem_graph.language.stated_bounds import stated_end


def ms(*parts: int) -> int:
    return int(datetime(*parts, tzinfo=UTC).timestamp() * 1000)


WEDNESDAY = ms(2026, 11, 25, 10)


@pytest.mark.parametrize(("text", "end"), [
    ("I'm in Lisbon until Friday.", ms(2026, 11, 28)),
    ("I'm working from the Berlin office till next Monday", ms(2026, 12, 1)),
    ("Out of office until Wednesday", ms(2026, 11, 26)),  # said on a Wednesday: today
    ("The staging server is down until tomorrow", ms(2026, 11, 27)),
    ("Please use the backup line until tonight", ms(2026, 11, 26)),
    ("My mother stays with us until 12 December", ms(2026, 12, 13)),
    ("The discount code works until March 3rd, 2027", ms(2027, 3, 4)),
    ("We rent the flat until June 1", ms(2027, 6, 2)),  # a past date this year: next year
    ("I'm on call until the end of the week", ms(2026, 11, 30)),
    ("The freeze holds until the end of the month", ms(2026, 12, 1)),
    ("I'm vegetarian for the next two weeks", WEDNESDAY + 14 * 86_400_000),
    ("I'll be in Tokyo for the next 3 days", WEDNESDAY + 3 * 86_400_000),
])
def test_a_statement_that_bounds_itself(text: str, end: int) -> None:
    assert stated_end(text, WEDNESDAY) == end


@pytest.mark.parametrize("text", [
    "I live in Berlin.", "I'm going to learn Japanese.", "I will always prefer window seats.",
    "We waited until the rain stopped.", "The shop is open until 31 February", "Friday was great",
])
def test_statements_without_a_stated_end_stay_open(text: str) -> None:
    assert stated_end(text, WEDNESDAY) is None


def test_the_caller_s_bounds_win_and_a_bound_before_the_start_is_ignored() -> None:
    assert validity_of("until Friday", WEDNESDAY, valid_until=WEDNESDAY + 5) == Validity(WEDNESDAY, WEDNESDAY + 5)
    assert validity_of("in Lisbon", WEDNESDAY, valid_from=ms(2026, 1, 1)) == Validity(ms(2026, 1, 1), None)
    assert validity_of("until Friday", ms(2027, 1, 1), valid_from=ms(2027, 1, 1)).valid_until is not None
    assert validity_of("until the end of the day", WEDNESDAY).valid_until == ms(2026, 11, 26)


def test_which_memories_hold_at_a_time_and_now() -> None:
    assert not held_at(ms(2026, 2, 1), ms(2026, 6, 1), at=ms(2026, 1, 31)), "not yet"
    assert held_at(ms(2026, 2, 1), ms(2026, 6, 1), at=ms(2026, 2, 1))
    assert not held_at(ms(2026, 2, 1), ms(2026, 6, 1), at=ms(2026, 6, 1)), "the end is exclusive"
    assert held_at(0, None, at=ms(2030, 1, 1))
    assert expired(ms(2026, 6, 1), ms(2026, 6, 1)) and not expired(ms(2026, 6, 1), ms(2026, 5, 31))
    assert not expired(None, ms(2099, 1, 1))
