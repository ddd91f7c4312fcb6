"""The async store on each backend whose own asyncio client it awaits: the embedded FalkorDB
always, Neo4j (its async driver) and a Qdrant server (`AsyncQdrantClient`) when present.
Calls on the loop answer what the sync store answers. Where no server is reachable, what can
be checked offline is: every request the Qdrant adapter sends has an awaitable twin on
`AsyncQdrantClient` taking the same arguments, since the loop sends it there by name."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient, QdrantClient

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.vectors import qdrant as qdrant_adapter

FACTS = ["Dana leads the payments team in Porto", "The payments team ships on Thursdays",
         "Porto's office opened in 2021", "Eli moved from payments to search last spring"]
QUESTIONS = ["who leads payments", "when does payments ship", "where is Eli now"]


def test_every_request_of_the_qdrant_adapter_has_an_awaitable_twin() -> None:
    called = set(re.findall(r"self\._client\.(\w+)", inspect.getsource(qdrant_adapter.QdrantVectorIndex)))
    called.discard("close")  # the sync client's own; the loop's client is closed by `aclose_native`
    assert {"query_points", "upsert", "retrieve", "count"} <= called
    for name in sorted(called):
        sync, twin = getattr(QdrantClient, name), getattr(AsyncQdrantClient, name, None)
        assert twin is not None and inspect.iscoroutinefunction(twin), f"AsyncQdrantClient.{name} is awaitable"
        assert list(inspect.signature(twin).parameters) == list(inspect.signature(sync).parameters), name


@pytest.fixture(params=["falkordb", "neo4j", "qdrant-server"])
def backends(request) -> dict[str, str | None]:
    if request.param == "falkordb":
        return {"graph": None, "vectors": None}
    if request.param == "neo4j":
        return {"graph": request.getfixturevalue("neo4j_uri"), "vectors": None}
    url = os.environ.get("COGMEM_TEST_QDRANT_URL")
    if not url:
        pytest.skip("Qdrant server backend skipped: set COGMEM_TEST_QDRANT_URL to a Qdrant server")
    return {"graph": None, "vectors": url}


def test_calls_on_the_loop_answer_as_the_sync_store(backends, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with cg.open_async(tmp_path / "home", graph=backends["graph"], vectors=backends["vectors"],
                                 embedder="hash", clock=ManualClock(1_700_000_000_000)) as store:
            store.sync.graph.clear()
            store.sync.graph.setup_schema()
            assert store.native_calls > 0
            agent = store.agent("helper", user_id=f"u-{tmp_path.name}")
            stored = [await agent.encode(fact, scope="user") for fact in FACTS]
            assert (await agent.get(stored[0].id)).trace.content == FACTS[0]
            for question in QUESTIONS:
                got = await agent.retrieve(question, top_k=3, record_access=False)
                want = agent.sync.retrieve(question, top_k=3, record_access=False)
                assert got.traces and [s.trace.id for s in got.traces] == [s.trace.id for s in want.traces]
            if backends["vectors"]:
                assert store.sync.vectors.native_async

    asyncio.run(scenario())
