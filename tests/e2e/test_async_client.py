"""`cg.connect_async` against a real `cogmem serve` process (embedded backends, hash embedder):
the async handle sends the requests the sync one sends and gets the same results and errors."""

from __future__ import annotations

import asyncio
import io
import math
from collections.abc import Iterator

import pytest

import cogmem_graph as cg
from cogmem_graph.client import RequestRejected, ServerError, UnsendableArgument
from cogmem_graph.errors import BackendUnavailable
from cogmem_graph.server.keys import KeyRing, default_keys_path

from .async_twins import refused_alike
from .server_harness import Server, free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("server") / "home"
    ring = KeyRing(default_keys_path(home))  # as `cogmem keys add` makes them, without a process each
    keys = {"dana": ring.add(agent_id="a1", user_id="dana", organization_id="acme")[0],
            "owner": ring.add(role="owner", name="operator")[0]}
    srv = Server(home, free_port()).start()
    try:
        yield srv, keys
    finally:
        srv.stop()


def test_the_async_handle_answers_what_the_sync_handle_answers(server) -> None:
    srv, keys = server
    sync = cg.connect(srv.url, keys["dana"])

    async def scenario() -> None:
        async with cg.connect_async(srv.url, keys["dana"]) as agent:
            me = await agent.whoami()
            assert me == sync.whoami() and agent.visible_scope_keys == sync.visible_scope_keys
            trace = await agent.encode("Dana's team ships on Thursdays", tags=["release"])
            assert isinstance(trace, cg.MemoryTrace) and trace.content == "Dana's team ships on Thursdays"
            many = await agent.encode_many([{"content": f"Release note {i}: the {w} service moved"}
                                            for i, w in enumerate(("billing", "search", "login"))], batch_size=2)
            assert [t.content for t in many] == [f"Release note {i}: the {w} service moved"
                                                 for i, w in enumerate(("billing", "search", "login"))]

            for query in ("when do we ship?", "which service moved?"):
                got = await agent.retrieve(query, record_access=False)
                want = sync.retrieve(query, record_access=False)
                assert isinstance(got, cg.RetrievalResult)
                assert [s.trace.id for s in got.traces] == [s.trace.id for s in want.traces]
                # The server's clock runs: recency moves the scores a little between the two calls.
                assert [s.score for s in got.traces] == pytest.approx([s.score for s in want.traces], rel=1e-4)
            assert (await agent.get(trace.id)) == sync.get(trace.id)
            assert (await agent.list({"tags_any": ["release"]})).items == sync.list({"tags_any": ["release"]}).items
            fixed = await agent.update(trace.id, content="Dana's team ships on Wednesdays")
            assert [r.trace.content for r in await agent.history(fixed.id)] == [
                r.trace.content for r in sync.history(fixed.id)]
            reminder = await agent.remind("Bring up the retro", on_keywords=["retro"])
            assert [i.id for i in await agent.reminders()] == [i.id for i in sync.reminders()] == [reminder.id]
            assert (await agent.pin(many[0].id)) == [many[0].id]

            # Calls at once share the client's connections (8: the server's in-flight limit per key).
            answers = await asyncio.gather(*(agent.retrieve(f"release note {i}", record_access=False)
                                             for i in range(8)))
            assert all(a.traces for a in answers)

            ours, theirs = io.StringIO(), io.StringIO()
            counts = await agent.export(ours)
            assert counts == sync.export(theirs) and counts.traces >= 4
            assert ours.getvalue().count("\n") == theirs.getvalue().count("\n")
            receipt = await agent.forget(many[1].id)
            assert receipt.forgotten == [many[1].id]
        sync.close()

    asyncio.run(scenario())


def test_the_async_handle_raises_what_the_sync_handle_raises(server) -> None:
    srv, keys = server
    sync = cg.connect(srv.url, keys["dana"])
    calls = [
        ("get", ("no-such-id",), {}),  # 404: RequestRejected
        ("retrieve", ("x",), {"top_k": 0}),  # 422 from the route's schema
        ("encode", ("x",), {"confidence": math.nan}),  # refused before sending: UnsendableArgument
        ("consolidate", (), {}),  # 403: an agent key is not the owner
        ("call", ("forget_everything",), {}),  # not in the table: ValueError
    ]

    async def scenario() -> None:
        async with cg.connect_async(srv.url, keys["dana"]) as agent:
            await refused_alike(sync, agent, calls)
            with pytest.raises(RuntimeError, match="await agent.whoami"):
                cg.AsyncRemoteAgent(srv.url, keys["dana"]).visible_scope_keys  # noqa: B018
        async with cg.connect_async(f"http://127.0.0.1:{free_port()}", keys["dana"], timeout=2) as nobody:
            with pytest.raises(BackendUnavailable, match="is unreachable"):
                await nobody.whoami()
        sync.close()

    asyncio.run(scenario())
    assert issubclass(RequestRejected, ServerError) and issubclass(UnsendableArgument, ValueError)
    with pytest.raises(ValueError, match="url must be an http"):
        cg.connect_async("ftp://example.org", "cgm_x")
    with pytest.raises(ValueError, match="key is required"):
        cg.connect_async(srv.url, "")


def test_an_owner_key_runs_the_owner_operations_asynchronously(server) -> None:
    srv, keys = server

    async def scenario() -> None:
        async with cg.connect_async(srv.url, keys["owner"]) as owner:
            stats = await owner.stats()
            assert stats["store"]["active_traces"] >= 0
            out = io.StringIO()
            counts = await owner.export_user(out, "dana", "acme")
            assert out.getvalue().endswith("\n") and counts.traces >= 0

    asyncio.run(scenario())
