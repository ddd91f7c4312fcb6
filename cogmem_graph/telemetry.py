"""What the backends and the store report to whoever watches this process (the server's
`/metrics`): graph statement and vector call round trips, restarts of the embedded graph
server, consolidation runs. Nothing here knows Prometheus: a watcher is any object with
the `Watcher` methods, added with `watch` and removed with `unwatch`.

Nobody watching costs a clock read and an empty loop per round trip. Labels are names the
code chooses (a statement's kind, a vector call's method, a trigger), never values of a
request, so nothing a tenant wrote can reach a watcher.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

now = time.perf_counter
"""The clock every duration here is read on (seconds)."""


class Watcher(Protocol):
    def graph_statement(self, kind: str, seconds: float) -> None:
        """A statement's round trip; `kind` is "read", "write" or "pipelined_read"."""

    def vector_call(self, call: str, seconds: float) -> None:
        """A vector index call (`call` names its method: "search_dense", "upsert", ...)."""

    def graph_restart(self, outcome: str) -> None:
        """The embedded graph server was started again after it died ("started" or "failed")."""

    def consolidation(self, trigger: str, seconds: float, outcome: str, counts: Mapping[str, int]) -> None:
        """A consolidation run ("ran", "skipped" or "failed") and what it changed."""


_watchers: tuple[Watcher, ...] = ()
_lock = threading.Lock()


def watch(watcher: Watcher) -> None:
    global _watchers
    with _lock:
        _watchers = (*_watchers, watcher)


def unwatch(watcher: Watcher) -> None:
    global _watchers
    with _lock:
        _watchers = tuple(w for w in _watchers if w is not watcher)


def graph_statement(kind: str, started: float) -> None:
    """Report a statement begun at `started` (`now()`) as finished now."""
    if _watchers:
        seconds = now() - started
        for watcher in _watchers:
            watcher.graph_statement(kind, seconds)


def graph_restart(outcome: str) -> None:
    for watcher in _watchers:
        watcher.graph_restart(outcome)


def consolidation(trigger: str, started: float, outcome: str, counts: Mapping[str, int] | None = None) -> None:
    seconds = now() - started
    for watcher in _watchers:
        watcher.consolidation(trigger, seconds, outcome, counts or {})


C = TypeVar("C", bound=type)


def timed_vector_calls(names: Iterable[str]) -> Callable[[C], C]:
    """A class decorator: each method of `names` reports its round trip (`vector_call`)."""

    def decorate(cls: C) -> C:
        for name in names:
            setattr(cls, name, _timed(name, getattr(cls, name)))
        return cls

    return decorate


def _timed(call: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = now()
        try:
            return method(*args, **kwargs)
        finally:
            if _watchers:
                seconds = now() - started
                for watcher in _watchers:
                    watcher.vector_call(call, seconds)

    return timed
