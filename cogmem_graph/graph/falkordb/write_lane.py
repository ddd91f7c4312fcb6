"""The write lane of one FalkorDB graph in this process.

Writes to a graph go through its lane one at a time (concurrent MERGEs of a brand-new
relationship type could otherwise create parallel duplicate edges). A write may also
be *left unconfirmed*: sent, its reply not yet read, so the server applies it while the
caller goes on (a retrieval's access bookkeeping changes nothing in the answer the
caller is waiting for). Every later statement through the lane confirms it first —
reads its reply, raising if the engine rejected it — so no statement after it runs
without it. A connection dropped before the reply is read is logged, not raised: the
server has most likely applied the write, and sending it again could apply it twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class WriteLane:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held while a write is sent and, unless left unconfirmed, until its reply is read."""
        self._slot = threading.Lock()
        self._unconfirmed: Callable[[], None] | None = None
        self._arrived: Callable[[], bool] | None = None

    def leave_unconfirmed(self, confirm: Callable[[], None], arrived: Callable[[], bool] | None = None) -> None:
        """Register the reader of a write just sent (the caller holds `lock`), and what tells
        whether its reply is already there to read."""
        with self._slot:
            self._unconfirmed, self._arrived = confirm, arrived

    def has_unconfirmed(self) -> bool:
        """Whether a write waits for its reply to be read, or a reply is being read now: then
        `confirm` may wait on the network (a bridged call runs it off the event loop)."""
        return self._unconfirmed is not None or self._slot.locked()

    def confirm(self) -> None:
        """Read the reply of the write left unconfirmed, if any; raises what it raises."""
        with self._slot:  # held while reading: whoever comes next finds the write confirmed
            confirm, self._unconfirmed, self._arrived = self._unconfirmed, None, None
            if confirm is not None:
                confirm()

    def confirm_if_arrived(self) -> bool:
        """`confirm` when that waits for nothing: no write is left unconfirmed, or its reply has
        arrived. False when it would wait (for the reply, or for another reader): a caller on
        an event loop then confirms on a thread."""
        if not self._slot.acquire(blocking=False):
            return False
        try:
            if self._unconfirmed is None:
                return True
            if self._arrived is None or not self._arrived():
                return False
            confirm, self._unconfirmed, self._arrived = self._unconfirmed, None, None
            confirm()
            return True
        finally:
            self._slot.release()


_lanes: dict[tuple[str, str], WriteLane] = {}
_users: dict[tuple[str, str], int] = {}
"""Open stores per lane: a lane is dropped when its last store closes, so a process that
opens stores on ever new servers (each embedded home gets a port of its own) keeps none."""
_lanes_guard = threading.Lock()


def open_lane(url: str, graph: str) -> WriteLane:
    """The lane every open store of this process shares for one graph; `close_lane` when done."""
    with _lanes_guard:
        key = (url, graph)
        _users[key] = _users.get(key, 0) + 1
        return _lanes.setdefault(key, WriteLane())


def close_lane(url: str, graph: str) -> None:
    """One store of the lane closed; the last one drops it."""
    with _lanes_guard:
        key = (url, graph)
        left = _users.get(key, 0) - 1
        if left > 0:
            _users[key] = left
        else:
            _users.pop(key, None)
            _lanes.pop(key, None)
