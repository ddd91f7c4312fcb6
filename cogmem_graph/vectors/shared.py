"""One handle per storage folder per process, shared by every index opened on it.

Both embedded engines hold their folder exclusively (qdrant-client's local mode locks
its SQLite file, a Qdrant Edge shard its write-ahead log) and neither is safe to call
from two threads at once, so every index on one folder shares the handle and one lock
that serialises calls; the last index to close it closes the handle.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

H = TypeVar("H")


class SharedHandles(Generic[H]):
    """Reference-counted handles by folder; `close_handle` runs when the last user releases."""

    def __init__(self, close_handle: Callable[[H], None]) -> None:
        self._close_handle = close_handle
        self._handles: dict[Path, tuple[H, int, threading.RLock]] = {}
        self._lock = threading.Lock()

    def acquire(self, path: Path, open_handle: Callable[[], H]) -> tuple[H, threading.RLock]:
        """The folder's handle (opened by `open_handle` on first use) and its call lock."""
        with self._lock:
            entry = self._handles.get(path)
            if entry is None:
                path.mkdir(parents=True, exist_ok=True)
                handle, refs, serial = open_handle(), 0, threading.RLock()
            else:
                handle, refs, serial = entry
            self._handles[path] = (handle, refs + 1, serial)
            return handle, serial

    def release(self, path: Path) -> None:
        with self._lock:
            entry = self._handles.get(path)
            if entry is None:
                return
            handle, refs, serial = entry
            if refs <= 1:
                del self._handles[path]
                self._close_handle(handle)
            else:
                self._handles[path] = (handle, refs - 1, serial)
