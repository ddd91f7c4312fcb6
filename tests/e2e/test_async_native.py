"""The async store's calls on the event loop itself, through FalkorDB's asyncio client, on the
embedded store: what runs where (the server's own list of clients says), that waits overlap
without a thread each, that the sync path's writes and a killed server are handled, and that
the threads-only setting still works."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
import redis

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.graph.falkordb.store import ASYNCIO_CLIENT_NAME

pytestmark = pytest.mark.timeout(300)

START_MS = 1_700_000_000_000
FACTS = [f"Project {name} ships on {day} and is owned by {owner}"
         for name, day, owner in [("kestrel", "Monday", "Ana"), ("heron", "Tuesday", "Bo"), ("osprey", "Friday", "Cy"),
                                  ("wren", "Sunday", "Dee"), ("finch", "Thursday", "Eli"), ("lark", "Monday", "Fay")]]
QUESTIONS = ["when does kestrel ship", "who owns osprey", "projects shipping on Monday", "wren owner"]


def _server_clients(store: cg.AsyncMemoryStore) -> list[dict[str, Any]]:
    """The embedded server's own list of its clients (`CLIENT LIST`), asked on a connection of
    the test's."""
    server = store.sync.graph.embedded_server
    assert server is not None
    with redis.Redis(host="127.0.0.1", port=server.port, password=server.password, decode_responses=True) as admin:
        return [c for c in admin.client_list() if c.get("cmd") != "client|list"]


def _commands(clients: list[dict[str, Any]], *, asyncio_client: bool) -> int:
    return sum(int(c.get("tot-cmds", 0)) for c in clients
               if (c.get("name") == ASYNCIO_CLIENT_NAME) == asyncio_client)


def test_the_loops_calls_go_through_falkordbs_asyncio_client_and_answer_as_the_sync_ones(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            assert store.native_calls == store.config.async_native_calls > 0
            agent = store.agent("helper", user_id="u1")
            await agent.encode_many([{"content": f, "scope": "user"} for f in FACTS])  # a batch: on the threads
            before = _server_clients(store)

            stored = await agent.encode("Project egret ships on Wednesday and is owned by Gus", scope="user")
            got = [await agent.retrieve(q, top_k=3, record_access=False) for q in QUESTIONS]
            record = await agent.get(stored.id)
            after = _server_clients(store)

            assert any(c.get("name") == ASYNCIO_CLIENT_NAME for c in after), "the asyncio client is connected"
            assert _commands(after, asyncio_client=True) - _commands(before, asyncio_client=True) >= 2 + len(QUESTIONS)
            assert _commands(after, asyncio_client=False) == _commands(before, asyncio_client=False), (
                "the sync client sent nothing while the loop's calls ran")
            assert record.trace.content == stored.content

            sync = agent.sync
            for question, result in zip(QUESTIONS, got, strict=True):
                want = sync.retrieve(question, top_k=3, record_access=False)
                assert [(s.trace.id, s.score) for s in result.traces] == [(s.trace.id, s.score) for s in want.traces]

    asyncio.run(scenario())


def test_waits_overlap_on_the_loop_without_a_thread_each(tmp_path: Path) -> None:
    """One worker thread, and the graph still has several statements of the loop's calls in
    flight at once: the server saw them on several connections of the asyncio client."""
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS),
                                 workers=1) as store:
            agents = [store.agent(f"helper-{i}", user_id="u1") for i in range(4)]
            await agents[0].encode_many([{"content": f, "scope": "user"} for f in FACTS])
            results = await asyncio.gather(*(agents[i % 4].retrieve(QUESTIONS[i % len(QUESTIONS)], top_k=3)
                                             for i in range(24)))
            assert all(r.traces for r in results)
            connections = [c for c in _server_clients(store) if c.get("name") == ASYNCIO_CLIENT_NAME]
            assert len(connections) >= 2, "statements were in flight together on one thread"

    asyncio.run(scenario())


def test_the_loops_reads_see_what_the_sync_path_left_unconfirmed(tmp_path: Path) -> None:
    """A sync retrieval leaves its access bookkeeping in flight (graph/falkordb/write_lane.py); a
    read on the loop right after confirms it first, so it sees the count."""
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            agent = store.agent("helper", user_id="u1")
            (trace,) = await agent.encode_many([{"content": FACTS[0], "scope": "user"}])
            for _ in range(3):
                assert trace.id in agent.sync.retrieve("kestrel ships", top_k=1).ids
            record = await agent.get(trace.id)
            assert record.trace.retrieval_count == 3

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_what_a_retrieval_on_the_loop_leaves_in_flight_is_seen_by_the_next_call_either_way(tmp_path: Path) -> None:
    """Its access bookkeeping goes out as a task of the loop and the retrieval returns; the next
    statement, on the loop or on a thread, waits for that write first."""
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            agent = store.agent("helper", user_id="u1")
            trace = await agent.encode(FACTS[1], scope="user")
            assert trace.id in (await agent.retrieve("heron ships", top_k=1)).ids
            assert (await agent.get(trace.id)).trace.retrieval_count == 1
            assert trace.id in (await agent.retrieve("heron ships", top_k=1)).ids
            on_a_thread = await asyncio.to_thread(agent.sync.get, trace.id)
            assert on_a_thread.trace.retrieval_count == 2
            assert trace.id in (await agent.retrieve("heron ships", top_k=1)).ids
            # A sync call made on the loop's own thread (it holds the loop, but must not hang on it).
            assert agent.sync.get(trace.id).trace.retrieval_count == 3

    asyncio.run(scenario())


def test_closing_right_after_a_retrieval_keeps_what_it_left_in_flight(tmp_path: Path, caplog) -> None:
    home = tmp_path / "home"

    async def scenario() -> str:
        async with cg.open_async(home, embedder="hash", clock=ManualClock(START_MS)) as store:
            agent = store.agent("helper", user_id="u1")
            trace = await agent.encode(FACTS[4], scope="user")
            for _ in range(2):
                assert trace.id in (await agent.retrieve("finch ships", top_k=1)).ids
            return trace.id  # closed at once: the second retrieval's bookkeeping is still on its way

    with caplog.at_level("WARNING"):
        trace_id = asyncio.run(scenario())
    assert "may not have been applied" not in caplog.text
    with cg.open(home, embedder="hash", clock=ManualClock(START_MS)) as store:
        assert store.agent("helper", user_id="u1").get(trace_id).trace.retrieval_count == 2


def test_a_killed_graph_server_is_started_again_for_the_loops_calls(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            agent = store.agent("helper", user_id="u1")
            kept = await agent.encode(FACTS[2], scope="user")
            assert kept.id in (await agent.retrieve("osprey owner", top_k=3)).ids
            server = store.sync.graph.embedded_server
            old_pid = server.process.pid
            os.kill(old_pid, signal.SIGKILL)
            server.process.wait(timeout=10)

            found = await agent.retrieve("osprey owner", top_k=3)  # meets the dead server: started again
            assert kept.id in found.ids
            assert server.process.pid != old_pid and server.process.poll() is None
            again = await agent.encode(FACTS[3], scope="user")
            assert (await agent.get(again.id)).trace.content == FACTS[3]

    asyncio.run(scenario())


def test_with_native_calls_off_every_call_runs_on_the_threads(tmp_path: Path) -> None:
    config = CogmemConfig(async_native_calls=0)

    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS),
                                 config=config) as store:
            assert store.native_calls == 0
            agent = store.agent("helper", user_id="u1")
            await agent.encode_many([{"content": f, "scope": "user"} for f in FACTS])
            assert (await agent.retrieve("who owns osprey", top_k=3)).traces
            assert not any(c.get("name") == ASYNCIO_CLIENT_NAME for c in _server_clients(store))

    asyncio.run(scenario())


def test_a_mood_provider_is_asked_on_a_worker_thread_not_on_the_loop(tmp_path: Path) -> None:
    """What the caller passes may do I/O (a sentiment service): the calls on the loop ask it on the pool."""
    asked_on: list[str] = []

    def mood() -> cg.Mood:
        asked_on.append(threading.current_thread().name)
        return cg.Mood(valence=0.4, arousal=0.3)

    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", embedder="hash", clock=ManualClock(START_MS)) as store:
            agent = store.agent("helper", user_id="u1", mood=mood)
            await agent.encode(FACTS[0], scope="user")
            assert (await agent.retrieve("kestrel ships", top_k=1)).traces

    asyncio.run(scenario())
    assert asked_on and all(name.startswith("cogmem-async") for name in asked_on), asked_on
