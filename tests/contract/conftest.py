"""Backends for the contract suite: every test here runs on each graph backend present.

- the embedded FalkorDB always (started by the library, as users get it);
- Neo4j when `COGMEM_TEST_NEO4J_URI` points at a server, or through
  testcontainers (`neo4j:5` with GDS) when a Docker engine answers; otherwise
  the Neo4j parametrisation is skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from cogmem_graph.clock import ManualClock
from cogmem_graph.graph.falkordb.store import FalkorGraphStore

NEO4J_IMAGE = "neo4j:5"


def _docker_unavailable_reason() -> str | None:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:  # any failure means: no engine we can use
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    return None


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    uri = os.environ.get("COGMEM_TEST_NEO4J_URI")
    if uri:
        yield uri
        return
    reason = _docker_unavailable_reason()
    if reason is not None:
        pytest.skip(
            "Neo4j backend skipped: set COGMEM_TEST_NEO4J_URI to a Neo4j 5 server, or provide a "
            f"Docker engine for testcontainers ({reason})"
        )
    from testcontainers.neo4j import Neo4jContainer

    container = (
        Neo4jContainer(NEO4J_IMAGE, password="cogmem-test-pw")
        .with_env("NEO4J_PLUGINS", '["graph-data-science","apoc"]')
    )
    with container:
        os.environ.setdefault("NEO4J_USER", "neo4j")
        os.environ["NEO4J_PASSWORD"] = "cogmem-test-pw"
        yield container.get_connection_url()


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
