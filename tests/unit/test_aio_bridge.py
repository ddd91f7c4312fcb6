"""`aio_bridge`: sync code run on the event loop, its waits handed to the loop. No backend:
the behaviours the async store relies on, each with a real loop, real threads and real locks."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from cogmem_graph import aio_bridge

REQUEST = contextvars.ContextVar("REQUEST", default="none")


@pytest.fixture
def pool():
    executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="bridge-pool")
    yield executor
    executor.shutdown(wait=True)


def test_sync_code_awaits_through_the_loop_and_sees_results_and_errors(pool) -> None:
    async def answer(value: int) -> int:
        await asyncio.sleep(0)
        return value * 2

    async def refuse() -> None:
        await asyncio.sleep(0)
        raise KeyError("refused")

    def sync_code(value: int) -> tuple[int, str]:
        doubled = aio_bridge.await_only(answer(value))
        try:
            aio_bridge.await_only(refuse())
        except KeyError as exc:
            return doubled, str(exc)
        raise AssertionError("the awaited error reached the sync code")

    assert asyncio.run(aio_bridge.run_bridged(pool, sync_code, 21)) == (42, "'refused'")


def test_an_error_the_sync_code_raises_reaches_the_awaiting_caller(pool) -> None:
    def fails() -> None:
        raise ValueError("top_k must be positive")

    with pytest.raises(ValueError, match="top_k must be positive"):
        asyncio.run(aio_bridge.run_bridged(pool, fails))


def test_outside_a_bridged_call_the_helpers_act_as_sync_code(pool) -> None:
    async def nothing() -> None:
        return None

    assert not aio_bridge.active()
    with pytest.raises(RuntimeError, match="run_bridged"):
        aio_bridge.await_only(nothing())
    assert aio_bridge.blocking(threading.current_thread) is threading.current_thread()
    lock = threading.Lock()
    aio_bridge.acquire(lock)
    assert lock.locked()
    lock.release()


def test_blocking_work_runs_on_the_pool_and_the_loop_runs_meanwhile(pool) -> None:
    """The pool's thread waits until another task on the loop has run: it could not, were the
    work holding the loop."""
    ran_meanwhile = threading.Event()

    def slow_work() -> tuple[str, bool]:
        return threading.current_thread().name, ran_meanwhile.wait(5)

    async def scenario() -> tuple[str, bool]:
        async def other() -> None:
            await asyncio.sleep(0.01)
            ran_meanwhile.set()

        other_task = asyncio.ensure_future(other())
        result = await aio_bridge.run_bridged(pool, aio_bridge.blocking, slow_work)
        await other_task
        return result

    thread_name, loop_ran = asyncio.run(scenario())
    assert thread_name.startswith("bridge-pool") and loop_ran


@pytest.mark.timeout(30)
def test_a_lock_a_thread_holds_is_waited_for_without_holding_the_loop(pool) -> None:
    """The holder lets go once the loop has ticked five times (or after 5 s): waiting on the
    loop's thread, the ticks would come only after the lock was taken."""
    lock = threading.Lock()
    lock.acquire()
    ticked = threading.Event()

    def holder() -> None:
        ticked.wait(5)
        lock.release()

    async def scenario() -> list[str]:
        order: list[str] = []

        async def ticks() -> None:
            for _ in range(5):
                await asyncio.sleep(0.005)
                order.append("tick")
            ticked.set()

        def sync_code() -> None:
            aio_bridge.acquire(lock)
            order.append("acquired")
            lock.release()

        ticker = asyncio.ensure_future(ticks())
        await asyncio.sleep(0)
        await aio_bridge.run_bridged(pool, sync_code)
        await ticker
        return order

    threading.Thread(target=holder, daemon=True).start()
    assert asyncio.run(scenario()) == ["tick"] * 5 + ["acquired"]


@pytest.mark.timeout(30)
def test_two_bridged_calls_contending_for_one_lock_both_finish(pool) -> None:
    """One call holds the lock across an await (a write's round trip); the other polls on the loop
    instead of blocking its thread, which is the thread the holder resumes on."""
    lock = threading.Lock()
    order: list[str] = []

    def writer(name: str) -> None:
        aio_bridge.acquire(lock)
        try:
            order.append(f"{name} in")
            aio_bridge.sleep(0.01)  # the round trip, on the loop
            order.append(f"{name} out")
        finally:
            lock.release()

    async def scenario() -> None:
        await asyncio.gather(aio_bridge.run_bridged(pool, writer, "a"), aio_bridge.run_bridged(pool, writer, "b"))

    asyncio.run(scenario())
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


def test_a_cancelled_caller_leaves_the_call_to_finish(pool) -> None:
    finished = threading.Event()

    def write_in_two_steps() -> None:
        aio_bridge.sleep(0.02)
        aio_bridge.sleep(0.02)
        finished.set()

    async def scenario() -> None:
        caller = asyncio.ensure_future(aio_bridge.run_bridged(pool, write_in_two_steps))
        await asyncio.sleep(0.01)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        for _ in range(200):
            if finished.is_set():
                return
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert finished.is_set(), "the call ran to its end though its caller stopped waiting"


def test_the_callers_context_variables_are_seen_by_the_sync_code_and_its_pool_work(pool) -> None:
    def sync_code() -> tuple[str, str]:
        return REQUEST.get(), aio_bridge.blocking(REQUEST.get)

    async def scenario() -> tuple[str, str]:
        REQUEST.set("request-7")
        return await aio_bridge.run_bridged(pool, sync_code)

    assert asyncio.run(scenario()) == ("request-7", "request-7")


def test_off_loop_sends_method_calls_to_the_pool_and_leaves_attributes_alone(pool) -> None:
    class Index:
        size = 3

        def where(self) -> str:
            return threading.current_thread().name

    index = aio_bridge.OffLoop(Index())
    assert index.size == 3 and index.where() == threading.current_thread().name  # outside: direct

    def sync_code() -> str:
        return index.where()

    assert asyncio.run(aio_bridge.run_bridged(pool, sync_code)).startswith("bridge-pool")


def test_per_loop_makes_one_client_a_loop_and_closes_it_on_that_loop() -> None:
    made: list[int] = []
    closed: list[int] = []

    async def close(client: int) -> None:
        closed.append(client)

    clients = aio_bridge.PerLoop(lambda: made.append(len(made)) or made[-1], close)

    async def on_a_loop() -> tuple[int, int]:
        first, again = clients.get(), clients.get()
        await clients.aclose()
        await clients.aclose()  # nothing left to close
        return first, again

    assert asyncio.run(on_a_loop()) == (0, 0)
    assert asyncio.run(on_a_loop()) == (1, 1), "another loop gets a client of its own"
    assert made == [0, 1] and closed == [0, 1]

    async def left_open() -> int:
        return clients.get()

    asyncio.run(left_open())
    clients.forget()
    assert closed == [0, 1]
