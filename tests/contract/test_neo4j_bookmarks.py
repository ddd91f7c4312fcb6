"""On Neo4j every session of a store starts from the bookmarks of its newest transactions, sync
and on the event loop alike, so on a cluster a read is answered by a member that has applied
the writes before it. A single server applies each write as it commits, so what is checked
here is the chain itself: each statement's session hands its bookmark on, and the next
session, wherever it runs, starts from it and sees the write."""

from __future__ import annotations

import asyncio
from pathlib import Path

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock


def test_each_statement_starts_from_the_bookmark_of_the_one_before(neo4j_uri: str, tmp_path: Path) -> None:
    with cg.open(home=tmp_path / "home", graph=neo4j_uri, embedder="hash",
                 clock=ManualClock(1_700_000_000_000)) as store:
        chain = store.graph.bookmarks
        agent = store.agent("helper", user_id=f"u-{tmp_path.name}")
        agent.encode("The boiler service is due in March", scope="user")
        store.graph.confirm_writes()
        after_write = chain.current()
        assert after_write, "a write's session hands its bookmark on"
        fact = agent.encode("My gym locker is number 38", scope="user")
        store.graph.confirm_writes()
        assert chain.current() and chain.current() != after_write, "the next write's bookmark replaces it"
        assert len(chain.current()) == 1, "one statement at a time leaves one bookmark: the newest covers the rest"
        assert agent.get(fact.id).trace.content == fact.content  # a new session, started from that bookmark

        async def on_the_loop() -> str:
            async with cg.open_async(tmp_path / "other", graph=neo4j_uri, embedder="hash") as other:
                other_chain = other.sync.graph.bookmarks
                reader = other.agent("helper", user_id=f"u-{tmp_path.name}")
                record = await reader.get(fact.id)
                assert other_chain.current(), "a session on the event loop hands its bookmark on too"
                return record.trace.content

        assert asyncio.run(on_the_loop()) == fact.content
