"""Consolidation on an interval inside the server (hourly by default).

A daemon thread calls `store.consolidate()`, which takes the store's consolidation
mutex: a run requested through the API while the scheduled one works is refused as
`skipped`, never run twice over. The last result, its time and any error are kept for
`stats`.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.server.wire import to_jsonable

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore

DEFAULT_INTERVAL_S = 3600.0
log = logging.getLogger("cogmem.server")


class ConsolidationScheduler:
    def __init__(self, store: MemoryStore, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        if interval_s < 0:
            raise InvalidArgument(f"interval_s must be >= 0 (0 turns scheduling off), got {interval_s!r}",
                                  argument="interval_s")
        self.store = store
        self.interval_s = float(interval_s)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._last: dict[str, Any] | None = None
        self._runs = 0
        self._next_at: float | None = None

    def start(self) -> None:
        if self.interval_s == 0 or self._thread is not None:
            return
        self._next_at = time.time() + self.interval_s
        self._thread = threading.Thread(target=self._loop, name="cogmem-consolidation", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.wait(max(0.0, (self._next_at or 0) - time.time())):
            self.run_once()
            self._next_at = time.time() + self.interval_s

    def run_once(self) -> None:
        started = time.time()
        try:
            result = self.store.consolidate(trigger="schedule")
        except Exception as exc:  # the server goes on; the error is shown in stats
            log.warning("scheduled consolidation failed: %s: %s", type(exc).__name__, exc)
            with self._lock:
                self._last = {"trigger": "schedule", "at": started, "error": f"{type(exc).__name__}: {exc}"}
            return
        self.record(result, trigger="schedule", at=started)

    def record(self, result: Any, *, trigger: str, at: float | None = None) -> None:
        with self._lock:
            self._runs += 1
            self._last = {"trigger": trigger, "at": at or time.time(), "result": to_jsonable(result)}

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {"interval_s": self.interval_s, "runs": self._runs, "next_at": self._next_at,
                    "last": self._last}
