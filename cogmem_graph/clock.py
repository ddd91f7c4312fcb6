"""Injectable clocks. All times in cogmem-graph are epoch milliseconds (portable to
Neo4j and FalkorDB alike), and every time-dependent function takes a clock or a `now`
so decay and schedules can be tested without sleeping."""

from __future__ import annotations

import time
from typing import Protocol

from cogmem_graph.errors import InvalidArgument

MS_PER_SECOND = 1_000
MS_PER_MINUTE = 60 * MS_PER_SECOND
MS_PER_HOUR = 60 * MS_PER_MINUTE
MS_PER_DAY = 24 * MS_PER_HOUR


class Clock(Protocol):
    def now_ms(self) -> int:
        """Current time as epoch milliseconds."""
        ...


class SystemClock:
    """Wall-clock time."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def __repr__(self) -> str:
        return "SystemClock()"


class ManualClock:
    """A clock that only moves when told to: for tests, simulations and replays."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now = int(start_ms)

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int = 0, *, seconds: float = 0, hours: float = 0, days: float = 0) -> int:
        """Move forward; returns the new time. Going backwards is refused."""
        delta = ms + seconds * MS_PER_SECOND + hours * MS_PER_HOUR + days * MS_PER_DAY
        if delta < 0:
            raise InvalidArgument(f"ManualClock.advance: ms, seconds, hours and days add up to {delta!r} ms; "
                                  "time cannot go backwards", argument="ms")
        self._now += int(delta)
        return self._now

    def set(self, now_ms: int) -> None:
        self._now = int(now_ms)

    def __repr__(self) -> str:
        return f"ManualClock(now_ms={self._now})"
