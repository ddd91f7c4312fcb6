"""`cg.open_async()` end to end on the embedded store (hash embedder, manual clock): many
concurrent calls never stall the event loop, the results and errors are the sync API's,
and a closed store refuses every call."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

import cogmem_graph as cg
from cogmem_graph.api.governance import MemoryNotFound
from cogmem_graph.between_turns.archive import ArchiveNotFound
from cogmem_graph.clock import MS_PER_SECOND, ManualClock
from cogmem_graph.errors import StoreClosed
from cogmem_graph.providers.embedders import HashEmbedder

from .async_twins import refused_alike
from .server_harness import child_env

START_MS = 1_700_000_000_000
MAX_LAG_S = 0.050
PROBE_S = 0.005
TOPICS = ("the deploy pipeline", "the billing export", "the office wifi", "the team offsite",
          "the database backup", "the release notes", "the hiring plan")


def _fact(i: int) -> str:
    return f"Note {i}: {TOPICS[i % len(TOPICS)]} was discussed with colleague number {i * 7 % 31}"


async def _probe_lag(stop: asyncio.Event, lags: list[float]) -> None:
    """How late the loop wakes a task that sleeps PROBE_S, again and again: its stalls."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        asserted = loop.time()
        await asyncio.sleep(PROBE_S)
        lags.append(loop.time() - asserted - PROBE_S)


async def _with_lag_probe(work: Awaitable[Any]) -> tuple[Any, list[float]]:
    stop, lags = asyncio.Event(), []
    probe = asyncio.create_task(_probe_lag(stop, lags))
    await asyncio.sleep(PROBE_S * 4)  # the probe is running before the work starts
    try:
        return await work, lags
    finally:
        stop.set()
        await probe


@pytest.mark.serial  # it times the event loop: a busy neighbour on the cores would skew it
def test_100_concurrent_encodes_and_retrieves_never_stall_the_event_loop(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            agents = [store.agent(f"helper-{i}", user_id="u1") for i in range(5)]
            await agents[0].encode_many([{"content": _fact(i), "scope": "user"} for i in range(40)])

            async def task(i: int) -> Any:
                agent = agents[i % len(agents)]
                if i % 2:
                    return await agent.encode(_fact(100 + i), scope="user")
                return await agent.retrieve(TOPICS[i % len(TOPICS)], top_k=5)

            results, lags = await _with_lag_probe(asyncio.gather(*(task(i) for i in range(100))))
            assert len(lags) > 20, "the probe ran while the calls did"
            assert max(lags) < MAX_LAG_S, f"the event loop stalled {max(lags) * 1000:.0f} ms"

            written = [r for r in results if isinstance(r, cg.MemoryTrace)]
            assert [t.content for t in written] == [_fact(100 + i) for i in range(1, 100, 2)]
            recalled = [r for r in results if isinstance(r, cg.RetrievalResult)]
            assert len(recalled) == 50 and all(r.traces for r in recalled)

            # Everything written is there, and the async handle answers what the sync one answers.
            sync = agents[0].sync
            assert {t.id for t in written} <= {r.id for r in sync.list(limit=1000).items}
            for topic in TOPICS:
                got = await agents[0].retrieve(topic, top_k=10, record_access=False)
                want = sync.retrieve(topic, top_k=10, record_access=False)
                assert [(s.trace.id, s.score) for s in got.traces] == [(s.trace.id, s.score) for s in want.traces]

    asyncio.run(scenario())


@pytest.mark.serial  # it times the event loop
def test_new_users_first_writes_on_a_new_home_never_stall_the_event_loop(tmp_path: Path) -> None:
    """Sixteen users nobody has written for yet, on a home just made: their first writes land in
    every partition of the vector index, none of which the opening left to be created then."""
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            vectors = Path(store.sync.vectors.location)
            assert sorted(p.name for p in vectors.iterdir() if p.is_dir()) == [f"p{i}" for i in range(8)]
            agents = [store.agent("assistant", user_id=f"newcomer-{i}") for i in range(16)]

            async def task(i: int) -> Any:
                agent = agents[i % len(agents)]
                if i < len(agents) or i % 2:
                    return await agent.encode(_fact(i), scope="user")
                return await agent.retrieve(TOPICS[i % len(TOPICS)], top_k=5)

            results, lags = await _with_lag_probe(asyncio.gather(*(task(i) for i in range(64))))
            assert len(lags) > 20, "the probe ran while the calls did"
            assert max(lags) < MAX_LAG_S, f"the event loop stalled {max(lags) * 1000:.0f} ms"
            assert sum(isinstance(r, cg.MemoryTrace) for r in results) == 16 + 24

    asyncio.run(scenario())


def _stored(traces: list[cg.MemoryTrace]) -> list[dict[str, Any]]:
    return [t.model_dump(exclude={"id"}) for t in traces]  # ids are random; the rest follows from the calls


def test_the_async_api_stores_what_the_sync_api_stores(tmp_path: Path) -> None:
    """The same calls at the same clock times on two fresh stores, one sync and one async,
    store the same memories. (Rankings are compared on one store, below: two fresh stores
    rank the tail of a result alike but not to the last digit, their trace ids differing.)"""

    def with_sync() -> list[Any]:
        clock = ManualClock(START_MS)
        with cg.open(tmp_path / "sync", embedder="hash", clock=clock) as store:
            agent = store.agent("helper", user_id="u1")
            traces = agent.encode_many([{"content": _fact(i)} for i in range(20)])
            clock.advance(60 * MS_PER_SECOND)
            traces.append(agent.encode("The deploy pipeline moved to Thursdays", tags=["deploy"]))
            page = agent.list({"tags_any": ["deploy"]})
            return [_stored(traces), [r.trace.content for r in page.items], store.stats().active_traces]

    async def with_async() -> list[Any]:
        clock = ManualClock(START_MS)
        async with cg.open_async(tmp_path / "async", embedder="hash", clock=clock) as store:
            agent = store.agent("helper", user_id="u1")
            traces = await agent.encode_many([{"content": _fact(i)} for i in range(20)])
            clock.advance(60 * MS_PER_SECOND)
            traces.append(await agent.encode("The deploy pipeline moved to Thursdays", tags=["deploy"]))
            page = await agent.list({"tags_any": ["deploy"]})
            return [_stored(traces), [r.trace.content for r in page.items], (await store.stats()).active_traces]

    want = with_sync()
    assert want[2] == 21
    assert asyncio.run(with_async()) == want


def test_on_one_store_the_async_handle_reads_what_the_sync_handle_reads(store: cg.MemoryStore) -> None:
    sync = store.agent("helper", user_id="u1")
    traces = sync.encode_many([{"content": _fact(i), "tags": [f"t{i % 3}"]} for i in range(12)])
    sync.update(traces[0].id, content="Note 0: the deploy pipeline now runs nightly")
    sync.remind("Ask about the offsite", on_keywords=["offsite"])

    async def scenario() -> None:
        astore = cg.AsyncMemoryStore(store, workers=2)
        agent = astore.agent("helper", user_id="u1")
        for query in ("deploy pipeline", "billing export", "colleague"):
            got, want = (await agent.retrieve(query, record_access=False)), sync.retrieve(query, record_access=False)
            assert [(s.trace.id, s.score) for s in got.traces] == [(s.trace.id, s.score) for s in want.traces]
        assert (await agent.get(traces[3].id)) == sync.get(traces[3].id)
        assert (await agent.history(traces[0].id)) == sync.history(traces[0].id)
        assert (await agent.list({"tags_any": ["t1"]})).items == sync.list({"tags_any": ["t1"]}).items
        assert [i.id for i in await agent.reminders()] == [i.id for i in sync.reminders()]
        assert (await agent.neighbourhood(traces[5].id)) == sync.neighbourhood(traces[5].id)
        assert (await astore.stats()) == store.stats()
        assert (await astore.health())["ready"] is True
        out = io.StringIO()
        await agent.export(out)
        assert out.getvalue().count("\n") > 12
        await astore.close()

    asyncio.run(scenario())
    assert store.closed, "closing the async store closed the store it wraps"


def test_errors_are_the_sync_apis_errors(store: cg.MemoryStore) -> None:
    sync = store.agent("helper", user_id="u1")
    calls = [
        ("retrieve", ("",), {}),  # ValueError: query must be a non-empty string
        ("retrieve", ("x",), {"top_k": 0}),
        ("encode", ("x",), {"confidence": 7}),
        ("get", ("no-such-id",), {}),  # MemoryNotFound
        ("rehydrate", ("no-such-id",), {}),  # ArchiveNotFound
        ("list", ({"state": "asleep"},), {}),
    ]

    async def scenario() -> None:
        astore = cg.AsyncMemoryStore(store)
        agent = astore.agent("helper", user_id="u1")
        await refused_alike(sync, agent, calls)
        with pytest.raises(ValueError, match="not a valid agent identity"):
            astore.agent("")
        with pytest.raises(ValueError, match="witnesses must be a non-empty list"):
            await astore.encode_event("The roof leaked", [])

    asyncio.run(scenario())
    assert issubclass(MemoryNotFound, LookupError) and issubclass(ArchiveNotFound, LookupError)


def test_closing_waits_for_the_calls_in_progress_then_refuses_every_call(store: cg.MemoryStore) -> None:
    async def scenario() -> None:
        astore = cg.AsyncMemoryStore(store, workers=2)
        agent = astore.agent("helper", user_id="u1")
        in_progress = [asyncio.create_task(agent.encode(_fact(i))) for i in range(8)]
        await asyncio.sleep(0)  # the calls are handed to the workers
        await astore.close()
        assert all(task.done() for task in in_progress), "close() returned only once the calls ended"
        assert [t.result().content for t in in_progress] == [_fact(i) for i in range(8)]
        assert astore.closed and store.closed

        for call in (agent.encode("too late"), agent.retrieve("anything"), astore.stats(), astore.consolidate()):
            with pytest.raises(StoreClosed):
                await call
        with pytest.raises(StoreClosed):
            astore.agent("another")
        assert await astore.health() == {"ready": False, "graph": "the store is closed",
                                         "vectors": "the store is closed"}
        await astore.close()  # again: nothing to do

    asyncio.run(scenario())


def test_async_handles_can_witness_an_event(store: cg.MemoryStore) -> None:
    async def scenario() -> None:
        astore = cg.AsyncMemoryStore(store)
        guard, cook = astore.agent("guard", user_id="u1"), astore.agent("cook", user_id="u1")
        encoding = await astore.encode_event("The storeroom door was left open overnight",
                                             [guard, cg.Witness(cook, tier="background")], importance=0.9)
        assert [w.agent_id for w in encoding.witnesses] == ["guard", "cook"]
        await astore.close()

    asyncio.run(scenario())


OPEN_IN_ANOTHER_PROCESS = """
import sys
import cogmem_graph as cg
from cogmem_graph.errors import HomeLocked
try:
    cg.open(sys.argv[1], embedder="hash").close()
except HomeLocked:
    sys.exit(3)
"""


class HeldEmbedder:
    """The hash embedder, whose dimension is given only once the test says go on."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.name = self.inner.name
        self.embed, self.embed_query = self.inner.embed, self.inner.embed_query
        self.asked, self.go_on = threading.Event(), threading.Event()

    @property
    def dim(self) -> int:
        self.asked.set()
        self.go_on.wait(60)
        return self.inner.dim


def test_a_cancelled_open_closes_what_it_opened(tmp_path: Path) -> None:
    """The opening runs on its own thread and cannot be interrupted: it ends there, and the
    store it opened is closed, so another process may open the home."""
    home = tmp_path / "home"
    embedder = HeldEmbedder()

    async def scenario() -> None:
        opening = asyncio.ensure_future(cg.open_async(home, embedder=embedder))
        # The opening waits for the cancel half-way: the graph server is up and the home is
        # held when the vector index asks the embedder for its dimension.
        assert await asyncio.to_thread(embedder.asked.wait, 60), "the opening never reached the vector index"
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        embedder.go_on.set()

    asyncio.run(scenario())
    deadline = time.monotonic() + 60
    while True:
        other = subprocess.run([sys.executable, "-c", OPEN_IN_ANOTHER_PROCESS, str(home)], env=child_env(),
                               capture_output=True, text=True, timeout=120)
        if other.returncode != 3:
            assert other.returncode == 0, other.stderr[-2000:]
            return
        assert time.monotonic() < deadline, "the store the cancelled opening opened was never closed"
        time.sleep(0.2)
