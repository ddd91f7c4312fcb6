"""Shared helpers of the reliability suite.

Everything runs on the embedded backends users get by default (FalkorDB started
by the library, Qdrant local mode) with the hash embedder: fast, deterministic,
no model download. Nothing is mocked except the one fault a test injects.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import cogmem_graph as cg
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.model import MemoryTrace

REPO = Path(__file__).resolve().parents[2]
TEST_CYPHER = REPO / "tests" / "cypher"
START_MS = 1_700_000_000_000  # the shared clock fixture's start (tests/conftest.py)


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_test_cypher(store: cg.MemoryStore, name: str, params: dict | None = None, *,
                    write: bool = False) -> list[dict]:
    """Run a test-only statement from tests/cypher/ by name, in the store's dialect. These
    bypass the scope filter on purpose, so they live apart from the library's cypher/."""
    text = CypherLibrary(store.graph.dialect, root=TEST_CYPHER).get(name)
    return store.graph._run_text(text, params or {}, write=write, name=f"test_{name}")


def owner_traces(store: cg.MemoryStore) -> dict[str, MemoryTrace]:
    """Every trace in the graph, whatever its scope or state: the store owner's view,
    used only to check what an agent's operations did (or did not) touch."""
    rows = run_test_cypher(store, "owner_traces")
    return {r["trace"]["id"]: MemoryTrace.from_graph_props(r["trace"]) for r in rows}


def scope_keys_of(store: cg.MemoryStore, ids) -> dict[str, str]:
    """id -> scope key of the given traces (owner view, without loading their content)."""
    rows = run_test_cypher(store, "owner_scope_keys", {"ids": list(ids)})
    return {r["id"]: r["scopeKey"] for r in rows}


def owner_edges(store: cg.MemoryStore) -> set[tuple[str, str, str, float]]:
    """Every associative edge between traces (src, dst, type, weight)."""
    rows = run_test_cypher(store, "owner_edges")
    return {(r["src"], r["dst"], r["type"], float(r["weight"])) for r in rows}


def assert_consistent(store: cg.MemoryStore) -> None:
    """The invariant the write protocol keeps: a trace the graph shows as active and
    indexed has its vector in Qdrant, flagged active, under the same scope key."""
    traces = owner_traces(store)
    live = [t for t in traces.values() if t.is_active and t.indexed]
    with_vector = store.vectors.existing_ids([t.id for t in live])
    missing = [t.id for t in live if t.id not in with_vector]
    assert not missing, f"active+indexed traces without a vector: {missing[:5]}"
    active_vectors = store.vectors.all_ids(active=True)
    orphans = [i for i in active_vectors if i in traces and traces[i].indexed and not traces[i].is_active]
    assert not orphans, f"inactive traces whose vector is still active: {orphans[:5]}"


def python_child(*args: str, **popen: object) -> subprocess.Popen:
    """A child process running this interpreter with `args`, from the repository root."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}
    return subprocess.Popen([sys.executable, *args], env=env, cwd=REPO, **popen)  # type: ignore[arg-type]
