"""A handle's method called from an event loop without holding it up, or from sync code.

From a loop (`acall`, `in_turn`): an async handle's (`cg.open_async`, `cg.connect_async`)
is awaited, a sync handle's (`cg.open`, `cg.connect`) runs on a worker thread, since its
calls block on the graph, the vectors or the network.

From sync code (`call`, `Blocking`): a sync handle's method is called as it is; an async
handle's coroutine is awaited by the loop of the sync code's caller when that code runs
bridged (`bridged`, `aio_bridge`), else run on one event loop kept on a thread of its own
for this purpose (an async handle's clients keep connections per loop, so one loop for
every sync call keeps one set). A sync call made on a thread whose event loop is running
would hold that loop until the call ends, so it is refused with a RuntimeError naming the
async method to await instead.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from cogmem_graph import aio_bridge

T = TypeVar("T")


def is_async(target: Any, name: str) -> bool:
    """True when `target.name` is a coroutine function (an async handle's or store's method)."""
    return inspect.iscoroutinefunction(getattr(target, name, None))


async def acall(agent: Any, name: str, /, *args: Any, **kwargs: Any) -> Any:
    method = getattr(agent, name)
    if inspect.iscoroutinefunction(method):
        return await method(*args, **kwargs)
    return await asyncio.to_thread(method, *args, **kwargs)


async def in_turn(agent: Any, calls: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    """Several calls of one handle, in order: awaited one by one on an async handle, or all on
    one worker thread for a sync one (one hand-off rather than one per call)."""
    if calls and inspect.iscoroutinefunction(getattr(agent, calls[0][0])):
        return [await getattr(agent, name)(*args) for name, args in calls]
    steps: list[Callable[[], Any]] = [functools.partial(getattr(agent, name), *args) for name, args in calls]
    return await asyncio.to_thread(lambda: [step() for step in steps])


def call(agent: Any, name: str, /, *args: Any, instead: str, **kwargs: Any) -> Any:
    """`agent.name(*args, **kwargs)` from sync code, on a sync or an async handle. `instead` names
    the async entry point the RuntimeError points to when this runs inside a running loop."""
    method = getattr(agent, name)
    if not inspect.iscoroutinefunction(method):
        return method(*args, **kwargs)
    return wait_for(functools.partial(method, *args, **kwargs), instead=instead)


def wait_for(make: Callable[[], Awaitable[T]], *, instead: str) -> T:
    """The result of the awaitable `make()` returns, for sync code (see the module's docstring).
    `make` is called only once the awaitable can be awaited, so a refused call leaves no
    coroutine behind.

    Raises:
        RuntimeError: called outside a bridged call on a thread whose event loop is running.
    """
    if aio_bridge.active():
        return aio_bridge.await_only(make())
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(f"a sync call on an async cogmem handle cannot run inside a running event loop "
                           f"(it would block the loop until it ends): await {instead} instead")
    return asyncio.run_coroutine_threadsafe(_awaited(make), _sync_calls_loop()).result()


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


class Blocking:
    """An async handle seen from sync code: each method call runs as `call` runs it. For code
    written once against the sync handle's methods (the LangGraph store)."""

    __slots__ = ("_handle", "_instead")

    def __init__(self, handle: Any, instead: str) -> None:
        self._handle = handle
        self._instead = instead

    def __repr__(self) -> str:
        return f"Blocking({self._handle!r})"

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._handle, name)
        if not inspect.iscoroutinefunction(value):
            return value
        return functools.partial(call, self._handle, name, instead=self._instead)


async def bridged(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, sync code, run on this loop's thread with its async handle calls
    (`call`) awaited by this loop (`aio_bridge.run_bridged`): no thread waits for them."""
    return await aio_bridge.run_bridged(_bridged_pool(), fn, *args, **kwargs)


_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pool: ThreadPoolExecutor | None = None
BRIDGED_WORKERS = 4
"""Threads for what a bridged call of an integration hands off (`aio_bridge.blocking`)."""


def _sync_calls_loop() -> asyncio.AbstractEventLoop:
    """The loop that runs async handles' calls made from sync code, started on first use (a
    daemon thread: it holds no work of its own when the program ends)."""
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="cogmem-sync-calls", daemon=True).start()
        return _loop


def _bridged_pool() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:  # threads start only when work is handed to them
            _pool = ThreadPoolExecutor(max_workers=BRIDGED_WORKERS, thread_name_prefix="cogmem-integrations")
        return _pool
