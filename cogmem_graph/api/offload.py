"""The sync facade's calls as awaitables, run on a bounded pool of threads or on the loop.

The store is thread-safe (`cogmem serve` calls it from many threads at once), so an
awaitable method is the sync method run on a worker thread while the event loop only
waits. The pool's size bounds the calls in progress; the others wait in its queue, at
no cost to the loop. A short call on a graph with an asyncio client may instead run on
the loop itself (`run_bridged`, `aio_bridge`), a bounded number at a time. A call whose
task is cancelled before it starts never runs; one already running ends (a thread cannot
be interrupted, and a call on the loop is not stopped between two round trips) and its
result is dropped. Each awaitable method is made here from the sync method of the same name, so
the two classes cannot drift apart and `help()` shows the sync signature and docstring.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import weakref
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from cogmem_graph import aio_bridge
from cogmem_graph.errors import InvalidArgument, StoreClosed

__all__ = ["CLOSED", "Offload", "add_twins", "checked_workers", "public_methods"]

CLOSED = "this memory store is closed; call cg.open_async() again"
MAX_WORKERS = 256
T = TypeVar("T")


def checked_workers(workers: object) -> int:
    """`workers` once it is known to be an integer in [1, MAX_WORKERS]."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise InvalidArgument(f"workers must be an integer in [1, {MAX_WORKERS}], got {workers!r}", argument="workers")
    return workers


class Offload:
    """A pool of `workers` threads that the event loop hands blocking calls to, and, when
    `native_calls` > 0, up to that many calls run on the loop itself (`run_bridged`)."""

    def __init__(self, workers: int, native_calls: int = 0) -> None:
        self.workers = checked_workers(workers)
        self.native_calls = native_calls
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="cogmem-async")
        self._accepting = True
        self._native_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary())
        self._bridged: set[asyncio.Future[Any]] = set()

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` on a worker thread, with the caller's context variables."""
        if not self._accepting:
            raise StoreClosed(CLOSED)
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        try:
            future = asyncio.get_running_loop().run_in_executor(self._pool, call)
        except RuntimeError:  # the pool shut down between the check and the submission
            raise StoreClosed(CLOSED) from None
        return await future

    async def run_bridged(self, fn: Callable[..., T], /, *args: Any, turn: asyncio.Lock | None = None,
                          **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` on the event loop's thread (`aio_bridge.run_bridged`): its graph
        round trips are awaited by the loop, its vector and embedder calls go to the pool. Only
        for calls whose own Python work between round trips is short (a retrieval, one write).

        It waits for one of `native_calls` places, then for `turn` if given (a handle's calls
        that run one at a time), in that order, as a call on the pool waits for a thread and
        then for the handle's lock. Both are let go when the call ends, not when a cancelled
        caller stops waiting for it."""
        # An asyncio lock belongs to one loop: a store used from two has places for each.
        places = self._native_turns.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(self.native_calls))
        held: list[asyncio.Semaphore | asyncio.Lock] = []
        try:
            await places.acquire()
            held.append(places)
            if turn is not None:
                await turn.acquire()
                held.append(turn)
            if not self._accepting:
                raise StoreClosed(CLOSED)
            call = aio_bridge.start(self._pool, fn, *args, **kwargs)
        except BaseException:
            for lock in held:
                lock.release()
            raise
        self._bridged.add(call)

        def ended(done: asyncio.Task[Any]) -> None:
            self._bridged.discard(done)
            for lock in held:
                lock.release()
        call.add_done_callback(ended)
        return await asyncio.shield(call)

    async def settle(self) -> None:
        """Wait for the calls running on the loop to end (`stop` first)."""
        while self._bridged:
            await asyncio.wait(set(self._bridged))

    @property
    def accepting(self) -> bool:
        return self._accepting

    def stop(self) -> None:
        """Refuse new calls (StoreClosed); those already submitted still run."""
        self._accepting = False

    def drain(self) -> None:
        """Wait for the submitted calls to end, then let the threads go: blocks, so call it on a thread."""
        self.stop()
        self._pool.shutdown(wait=True)


def public_methods(cls: type) -> dict[str, Callable[..., Any]]:
    """The public methods of `cls` and its bases (properties and attributes left out)."""
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__[:-1]):
        found.update({name: member for name, member in vars(klass).items()
                      if not name.startswith("_") and inspect.isfunction(member)})
    return found


def add_twins(sync_cls: type, *, plain: Collection[str] = ()) -> Callable[[type[T]], type[T]]:
    """A class decorator giving the class a twin of every public method of `sync_cls` that it
    does not define itself: a coroutine `await self._call(name, args, kwargs)`, or, for the
    names in `plain` (no I/O, no lock), a plain method returning `self._call_plain(...)`."""

    def decorate(cls: type[T]) -> type[T]:
        for name, method in public_methods(sync_cls).items():
            if name in vars(cls):
                continue
            twin = _plain_twin(name, method) if name in plain else _awaitable_twin(name, method)
            twin.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, twin)
        return cls

    return decorate


def _awaitable_twin(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    async def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await self._call(name, args, kwargs)

    return twin


def _plain_twin(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def twin(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._call_plain(name, args, kwargs)

    return twin
