"""Backends for the contract suite: every test here runs on each graph backend present.

- the embedded FalkorDB always (started by the library, as users get it);
- Neo4j through the `neo4j_uri` fixture of tests/conftest.py (the server `make test` starts).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cogmem_graph.clock import ManualClock
from cogmem_graph.graph.falkordb.store import FalkorGraphStore


@pytest.fixture(scope="session")
def embedded_falkor(tmp_path_factory) -> Iterator[FalkorGraphStore]:
    store = FalkorGraphStore(data_dir=tmp_path_factory.mktemp("home") / "graph")
    yield store
    store.close()


@pytest.fixture(params=["falkordb", "neo4j"])
def graph(request) -> Iterator:
    """A clean graph store with its schema, on each backend, driven by a manual clock."""
    clock = ManualClock(1_700_000_000_000)
    if request.param == "falkordb":
        store = request.getfixturevalue("embedded_falkor")
        store.clock = clock
        store.clear()
        store.setup_schema()
        yield store
        return
    from cogmem_graph.graph.neo4j import Neo4jGraphStore

    uri = request.getfixturevalue("neo4j_uri")
    store = Neo4jGraphStore(uri, clock=clock)
    store.clear()
    store.setup_schema()
    yield store
    store.close()
