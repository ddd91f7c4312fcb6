"""The causal chain of one store's Neo4j transactions, across sessions, threads and event loops.

On a Neo4j cluster a read transaction may go to a member that has not yet applied the latest
write. Each transaction's session returns a bookmark (the point it reached); a session opened
with bookmarks waits, on whichever member serves it, until that member has applied them. The
store opens a session per statement, so without help a retrieval right after an encode could
be answered by a member that lacks the new memory. `Bookmarks` holds the bookmarks of the
store's newest transactions: each session starts from them and hands back its own, the merge
the driver's own bookmark manager does (the session's starting bookmarks out, its new one in),
kept here so that the sync driver and each event loop's asyncio driver share one chain. On a
single server every transaction is already applied when it commits, and waiting costs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

__all__ = ["Bookmarks"]


class Bookmarks:
    """The raw bookmark values every new session of the store starts from (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: frozenset[str] = frozenset()

    def current(self) -> frozenset[str]:
        """What a session opening now must see: the bookmarks of the newest transactions."""
        with self._lock:
            return self._values

    def advance(self, started_from: Iterable[str], reached: Iterable[str]) -> None:
        """A session that started from `started_from` ended at `reached`: those it started from
        are covered by what it reached (the server said so), the others' stay."""
        reached = frozenset(reached)
        if not reached:
            return
        with self._lock:
            self._values = (self._values - frozenset(started_from)) | reached
