"""The store's causal chain of Neo4j bookmarks: what a new session starts from."""

from __future__ import annotations

import threading

from cogmem_graph.graph.bookmarks import Bookmarks


def test_a_session_s_bookmark_replaces_the_ones_it_started_from() -> None:
    chain = Bookmarks()
    assert chain.current() == frozenset()
    chain.advance(frozenset(), {"tx:1"})
    chain.advance(chain.current(), {"tx:2"})
    assert chain.current() == {"tx:2"}


def test_sessions_that_overlap_keep_each_other_s_bookmarks() -> None:
    """Two sessions open from the same point; the one that ends first must not be forgotten when
    the other ends (its write may be the newer one): both stay until a session covers them."""
    chain = Bookmarks()
    chain.advance(frozenset(), {"tx:1"})
    started = chain.current()
    chain.advance(started, {"tx:2"})  # the first to end
    chain.advance(started, {"tx:3"})  # started from tx:1 too: it covers tx:1, not tx:2
    assert chain.current() == {"tx:2", "tx:3"}
    chain.advance(chain.current(), {"tx:4"})
    assert chain.current() == {"tx:4"}


def test_a_session_that_reached_nothing_leaves_the_chain_alone() -> None:
    chain = Bookmarks()
    chain.advance(frozenset(), {"tx:1"})
    chain.advance(chain.current(), frozenset())
    assert chain.current() == {"tx:1"}


def test_threads_advancing_at_once_lose_no_bookmark() -> None:
    chain = Bookmarks()

    def session(i: int) -> None:
        chain.advance(frozenset(), {f"tx:{i}"})

    threads = [threading.Thread(target=session, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert chain.current() == {f"tx:{i}" for i in range(50)}
