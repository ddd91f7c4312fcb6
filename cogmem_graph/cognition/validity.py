"""Bi-temporal validity (third reference): beside when an event happened (`createdAt`) and
when the memory learned it (`recordedAt`), each memory holds when what it says was true:
`validFrom` (its event time unless told otherwise) and `validUntil` (open-ended unless the
statement bounds itself, or a newer statement supersedes it).

A statement bounds itself in a few explicit forms only ("until Friday", "for the next two
weeks"), read by `language/stated_bounds.py`. Times are epoch ms in UTC.

Query modes: the current state (what is valid now), the full timeline (everything, in
event order) and a point in time T (what held true at T, by all the memory knows now: a
history replayed or corrected later answers for the time it describes).

Pure functions; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from cogmem_graph.language.stated_bounds import stated_end


@dataclass(frozen=True)
class Validity:
    """When what a memory says holds: from `valid_from` until `valid_until` (None: open)."""

    valid_from: int
    valid_until: int | None = None

    def holds_at(self, at: int) -> bool:
        return self.valid_from <= at and (self.valid_until is None or at < self.valid_until)


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
