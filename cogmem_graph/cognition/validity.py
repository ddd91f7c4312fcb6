"""Bi-temporal validity (third reference): beside when an event happened (`createdAt`) and
when the memory learned it (`recordedAt`), each memory holds when what it says was true:
`validFrom` (its event time unless told otherwise) and `validUntil` (open-ended unless the
statement bounds itself, or a newer statement supersedes it).

A statement bounds itself in a few explicit forms only: "until Friday", "till tomorrow",
"until 12 June", "until the end of the month", "for the next two weeks". A bare future
("I'm going to ...") is not read as a bound: a plan can last. Times are epoch ms in UTC;
an end of day is its last millisecond.

Query modes: the current state (what is valid now), the full timeline (everything, in
event order) and a point in time T (what held true at T, by all the memory knows now: a
history replayed or corrected later answers for the time it describes).

Pure functions; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from cogmem_graph.language.caseless import Caseless

MS_PER_DAY = 86_400_000

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}
_UNTIL = r"\b(?:until|till|til|through|thru)\s+"
_BOUNDS = (
    ("weekday", Caseless(_UNTIL + r"(?:next\s+)?(?P<weekday>" + "|".join(_WEEKDAYS) + r")\b")),
    ("relative_day", Caseless(_UNTIL + r"(?P<day>tonight|today|tomorrow|the end of (?:the )?day)\b")),
    ("date", Caseless(_UNTIL + r"(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH +
                      r"\b(?:,?\s+(?P<year>(?:19|20)\d\d))?")),
    ("date", Caseless(_UNTIL + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<year>(?:19|20)\d\d))?")),
    ("period_end", Caseless(_UNTIL + r"the end of (?:the |this )?(?P<period>week|month|year)\b")),
    ("span", Caseless(r"\bfor the next\s+(?P<n>\d+|" + "|".join(_NUMBERS) + r")\s+(?P<unit>day|week|month)s?\b")),
)
"""The bounds a statement may state, each read case-insensitively (a match of an ASCII text
holds it lower-cased: every group is lower-cased or a number where it is read)."""
_BOUND_WORDS = ("til", "thr", "for the next")
"""What an ASCII text, lower-cased, holds when any of `_BOUNDS` matches it (until, till, til,
through, thru; "for the next"): most texts hold none and are not searched."""


@dataclass(frozen=True)
class Validity:
    """When what a memory says holds: from `valid_from` until `valid_until` (None: open)."""

    valid_from: int
    valid_until: int | None = None

    def holds_at(self, at: int) -> bool:
        return self.valid_from <= at and (self.valid_until is None or at < self.valid_until)


def _day(ms: int) -> date:
    return datetime.fromtimestamp(ms / 1000, UTC).date()


def _end_of(day: date) -> int:
    """The first millisecond after `day` ends (bounds are exclusive)."""
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000) + MS_PER_DAY


def stated_end(text: str, said_at: int) -> int | None:
    """When a statement said at `said_at` says it stops holding, or None when it sets no
    bound: "I'm in Lisbon until Friday" said on a Wednesday ends when that Friday ends."""
    if text.isascii() and not any(word in text.lower() for word in _BOUND_WORDS):
        return None
    today = _day(said_at)
    for kind, pattern in _BOUNDS:
        m = pattern.search(text)
        if m is None:
            continue
        if kind == "weekday":
            ahead = (_WEEKDAYS.index(m["weekday"].lower()) - today.weekday()) % 7
            return _end_of(today + timedelta(days=ahead))
        if kind == "relative_day":
            return _end_of(today + timedelta(days=1 if m["day"].lower() == "tomorrow" else 0))
        if kind == "date":
            month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m["month"].lower()[:3]))
            year = int(m["year"]) if m["year"] else today.year
            try:
                day = date(year, month, int(m["d"]))
            except ValueError:
                continue  # "until 31 February": no bound rather than a wrong one
            if day < today and not m["year"]:
                day = day.replace(year=day.year + 1)
            return _end_of(day)
        if kind == "period_end":
            return _end_of(_period_end(today, m["period"].lower()))
        n = int(m["n"]) if m["n"].isdigit() else _NUMBERS[m["n"].lower()]
        days = {"day": 1, "week": 7, "month": 30}[m["unit"].lower()] * n
        return said_at + days * MS_PER_DAY
    return None


def _period_end(today: date, period: str) -> date:
    if period == "week":
        return today + timedelta(days=6 - today.weekday())
    if period == "month":
        first_next = date(today.year + (today.month == 12), today.month % 12 + 1, 1)
        return first_next - timedelta(days=1)
    return date(today.year, 12, 31)


def validity_of(text: str, event_time: int, *, valid_from: int | None = None,
                valid_until: int | None = None) -> Validity:
    """A new memory's validity: the bounds the caller gave, else from its event time until
    the end its text states (if any)."""
    start = event_time if valid_from is None else valid_from
    end = stated_end(text, start) if valid_until is None else valid_until
    if end is not None and end <= start:
        end = None if valid_until is None else end
    return Validity(start, end)


def held_at(valid_from: int, valid_until: int | None, at: int) -> bool:
    """Point in time: what the memory says held at `at`."""
    return Validity(valid_from, valid_until).holds_at(at)


def expired(valid_until: int | None, now: int) -> bool:
    """Current state: a memory whose validity ended is history, not the present."""
    return valid_until is not None and valid_until <= now
