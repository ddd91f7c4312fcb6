"""Pausing Python's cyclic garbage collector while a batch is encoded.

A 500-memory batch allocates hundreds of thousands of short-lived containers, which
reference counting frees; each allocation burst still triggers collections, and the
full ones walk the whole heap (the library's caches included) to find nothing: about a
sixth of `encode_many`'s time at 10k memories. The pause is process-wide, as the
collector is, so it is kept short (one batch), counted across threads (the collector
comes back when the last batch ends), and ends only what it began: a collector the
application had disabled stays disabled. Cycles made during a batch are collected
after it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_resume = False


@contextmanager
def collector_paused(enabled: bool = True) -> Iterator[None]:
    """Automatic collection off inside the block (a no-op when `enabled` is False)."""
    global _holders, _resume
    if not enabled:
        yield
        return
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()
