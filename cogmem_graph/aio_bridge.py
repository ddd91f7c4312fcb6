"""The sync core run on an event loop, its waits handed to the loop (as SQLAlchemy's asyncio
extension runs its sync ORM).

`run_bridged(fn, ...)` runs `fn` in a greenlet on the loop's thread. Where the code below it
would wait for a backend whose own asyncio client exists (FalkorDB's, Neo4j's async driver,
a Qdrant server's `AsyncQdrantClient`), the adapter hands the loop an awaitable with
`await_only` instead: the greenlet is suspended, the loop runs other tasks meanwhile, and
the greenlet resumes with the result. So many concurrent calls wait on the network without
a thread each. Work without an asyncio client (the embedded vector index, a local embedder)
goes to a bounded pool of threads (`blocking`), never onto the loop.

Outside a bridged call every helper here does what sync code does (`sleep` sleeps, `acquire`
blocks): the same adapters serve `cg.open()`, `cogmem serve` and the async store.

What switches greenlets is only `await_only`, so a lock taken and released between two of
them is safe; one held across an `await_only` (the graph's write lane) is taken with
`acquire`, which tries it again between the loop's other tasks rather than blocking the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any, Generic, TypeVar

import greenlet

__all__ = ["OffLoop", "PerLoop", "acquire", "active", "await_only", "blocking", "poll_until", "run_bridged", "sleep",
           "start", "wait_on_thread"]

T = TypeVar("T")
C = TypeVar("C")
LOCK_POLL_S = 0.0005
LOCK_POLL_MAX_S = 0.005
"""How often a bridged call asks again whether it may go on (`poll_until`): a lock another
holds (`acquire`), a reply not yet arrived."""


class _Bridged(greenlet.greenlet):
    """A greenlet running sync code for a coroutine of `run_bridged`, which is its parent."""

    def __init__(self, fn: Callable[..., Any], parent: greenlet.greenlet, loop: asyncio.AbstractEventLoop,
                 executor: Executor) -> None:
        super().__init__(fn, parent)
        self.loop = loop
        self.executor = executor


def _current() -> _Bridged | None:
    current = greenlet.getcurrent()
    return current if isinstance(current, _Bridged) else None


def active() -> bool:
    """True inside a call started by `run_bridged`: I/O must then go through the helpers here."""
    return _current() is not None


def await_only(awaitable: Awaitable[T]) -> T:
    """The result of `awaitable`, awaited by the loop while this call is suspended.

    Raises:
        RuntimeError: not inside a bridged call (sync code has no loop to hand it to).
    """
    current = _current()
    if current is None:
        if asyncio.iscoroutine(awaitable):
            awaitable.close()  # never awaited: do not leave a warning behind
        raise RuntimeError("await_only is for code run by run_bridged")
    return current.parent.switch(awaitable)


def blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`: on the bridged call's worker threads when inside one (the loop
    keeps running), else here."""
    current = _current()
    if current is None:
        return fn(*args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await_only(current.loop.run_in_executor(current.executor, call))


def wait_on_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, for a wait that never depends on a bridged call (reading a reply
    another thread left, starting a server again): on the loop's default executor inside a
    bridged call, so the store's pool may be full meanwhile; else here."""
    current = _current()
    if current is None:
        return fn(*args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await_only(current.loop.run_in_executor(None, call))


class OffLoop:
    """`target` whose method calls run through `blocking`: on the pool inside a bridged call,
    directly outside one. For a backend without an asyncio client (the embedded vector
    index, a reranker's or a chat model's sync client)."""

    __slots__ = ("_target",)

    def __init__(self, target: Any) -> None:
        self._target = target

    def __repr__(self) -> str:
        return repr(self._target)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if name.startswith("__") or not callable(value):
            return value
        return functools.partial(blocking, value)


class PerLoop(Generic[C]):
    """A backend's asyncio client for each event loop that uses it (its connections belong to the
    loop they were made on): `make()`, which does no I/O, on first use; `aclose` on that loop."""

    def __init__(self, make: Callable[[], C], close: Callable[[C], Awaitable[Any]]) -> None:
        self._make, self._close = make, close
        self._clients: dict[asyncio.AbstractEventLoop, C] = {}

    def get(self) -> C:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self._make()
        return client

    async def aclose(self) -> None:
        """Close the running loop's client, if it made one (errors on the way out are dropped)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            with contextlib.suppress(Exception):
                await self._close(client)

    def forget(self) -> None:
        """Drop every loop's client without closing it (the sync store closes; each loop's own
        connections go with it)."""
        self._clients.clear()


def sleep(seconds: float) -> None:
    """Wait `seconds`: on the loop inside a bridged call (tenacity's `sleep=`), else `time.sleep`."""
    if _current() is None:
        time.sleep(seconds)
    else:
        await_only(asyncio.sleep(seconds))


def acquire(lock: threading.Lock) -> None:
    """Take `lock`, which a thread or another bridged call may hold across its own I/O.

    Outside a bridged call this blocks, as `lock.acquire()` does. Inside one, a free lock is
    taken at once, and a held one is tried again after a short sleep on the loop (LOCK_POLL_S,
    doubling to LOCK_POLL_MAX_S) while other tasks run. No thread waits for it: a pool of
    threads waiting for locks that suspended calls hold, while those calls wait for a thread,
    would never move. A plain `threading.Lock` belongs to no thread, so the bridged call
    releases it as usual."""
    if _current() is None:
        lock.acquire()
        return
    poll_until(functools.partial(lock.acquire, blocking=False))


def poll_until(done: Callable[[], bool], timeout_s: float | None = None) -> bool:
    """Inside a bridged call: ask `done()` again after short sleeps on the loop (LOCK_POLL_S,
    doubling to LOCK_POLL_MAX_S) until it answers True, or `timeout_s` has passed (False).
    For waits that a thread would otherwise sit through: no thread, and the loop goes on."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    pause = LOCK_POLL_S
    while not done():
        if deadline is not None and time.monotonic() >= deadline:
            return False
        await_only(asyncio.sleep(pause))
        pause = min(pause * 2, LOCK_POLL_MAX_S)
    return True


async def run_bridged(executor: Executor, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` run on this loop's thread, every `await_only` below it awaited here.

    `executor` is where `blocking` sends work. The caller's context variables are seen by `fn`.
    Cancelling the task that awaits this does not stop `fn` midway (a write half done would be
    worse than a result dropped): it runs to its end and its result is dropped, as a call run
    on a thread does."""
    return await asyncio.shield(start(executor, fn, *args, **kwargs))


def start(executor: Executor, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> asyncio.Task[T]:
    """The task running `fn` as `run_bridged` does (it is not cancelled with whoever awaits it
    through `asyncio.shield`): for a caller that tracks the calls it started."""
    loop = asyncio.get_running_loop()
    return loop.create_task(_drive(loop, executor, fn, args, kwargs))


async def _drive(loop: asyncio.AbstractEventLoop, executor: Executor, fn: Callable[..., T],
                 args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    bridged = _Bridged(functools.partial(fn, *args, **kwargs), greenlet.getcurrent(), loop, executor)
    bridged.gr_context = contextvars.copy_context()
    asked = bridged.switch()
    while not bridged.dead:
        try:
            value = await asked
        except BaseException as exc:  # noqa: BLE001 - handed back to the code that awaited it
            asked = bridged.throw(exc)
        else:
            asked = bridged.switch(value)
    return asked
