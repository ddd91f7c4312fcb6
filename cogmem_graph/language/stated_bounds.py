"""The bound a statement sets on its own truth: "until Friday", "till tomorrow", "until 12
June", "until the end of the month", "for the next two weeks" — only these explicit forms.
A bare future ("I'm going to ...") is not read as a bound: a plan can last. Times are
epoch ms in UTC; an end of day is its last millisecond. What a memory's validity is, and
how it is queried, is `cognition/validity.py`'s.
"""

from __future__ import annotations

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
