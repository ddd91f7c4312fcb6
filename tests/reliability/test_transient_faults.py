"""Transient faults are retried (bounded, tenacity); a backend that stays down gives an
error naming its URL within the retry budget, never a hang and never a bare driver error.

Graph faults are real: connections killed by the server (`CLIENT KILL`), a FalkorDB
server stopped and started again on the same port and data, servers that are not
there, an embedded server killed (the store starts it again). Qdrant local mode has no
network, so its transient faults are injected at the client boundary with the exception the
HTTP client raises for a refused connection.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import redis
from qdrant_client.http.exceptions import ResponseHandlingException

import cogmem_graph as cg
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import GraphStoreUnavailable, VectorStoreUnavailable
from cogmem_graph.graph.falkordb.launcher import SERVER_FILE, EmbeddedFalkorDB, find_binaries

from .conftest import REPO, assert_consistent, closed_port

AGENT = {"agent_id": "helper", "user_id": "u1"}


def _budget_s(attempts: int, max_wait_s: float, per_attempt_s: float) -> float:
    """An upper bound on how long giving up may take: every backoff at its cap, every
    attempt at its timeout, plus generous slack for a loaded machine. Not a speed claim."""
    return attempts * (max_wait_s + per_attempt_s) + 15.0


# ---------------------------------------------------------------- a FalkorDB we can stop and start


class ExternalFalkorDB:
    """A FalkorDB server run by the test (not by the library) on a fixed port and data dir,
    with the same flags the embedded launcher uses."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = closed_port()
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        spec = EmbeddedFalkorDB(self.data_dir, port=self.port)
        self.proc = subprocess.Popen(spec._command(*find_binaries()), cwd=self.data_dir,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 20
        try:
            while True:
                try:
                    client.execute_command("GRAPH.LIST")
                    return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: redis flushes the AOF and exits
            self.proc.wait(timeout=15)

    @property
    def url(self) -> str:
        return f"falkor://127.0.0.1:{self.port}"


@pytest.fixture
def store(embedded_store: cg.MemoryStore) -> cg.MemoryStore:
    """The embedded engine alone: these tests reach into its own server or count its statements."""
    return embedded_store


@pytest.fixture
def external_falkor(tmp_path: Path):
    server = ExternalFalkorDB(tmp_path / "external-graph")
    server.start()
    yield server
    server.stop()


# ---------------------------------------------------------------- dropped and restored


def test_connections_killed_by_the_server_are_retried_and_operations_succeed(store) -> None:
    agent = store.agent(**AGENT)
    ids = [agent.encode("The first note before any fault").id]
    admin = store.graph.embedded_server.client()
    try:
        for round_, topic in enumerate(["violin lessons", "garden tomatoes", "mountain cabin"]):
            killed = admin.client_kill_filter(_type="normal", skipme=True)
            assert killed >= 1, "the store's connection was dropped by the server"
            ids.append(agent.encode(f"Round {round_}: we talked about {topic}").id)
            admin.client_kill_filter(_type="normal", skipme=True)
            found = agent.retrieve(f"what did we say about {topic}", top_k=3).ids
            assert ids[-1] in found
    finally:
        admin.close()
    assert len(set(ids)) == 4
    assert store.stats().active_traces == len(ids) and store.stats().unindexed_traces == 0
    assert_consistent(store)


def test_graph_server_stopped_and_started_again_mid_use_is_waited_for(tmp_path, clock, external_falkor) -> None:
    config = CogmemConfig()
    config.graph.retry_attempts = 12
    config.graph.retry_max_wait_s = 1.0
    with cg.open(home=tmp_path / "home", graph=external_falkor.url, embedder="hash", clock=clock,
                 config=config) as store:
        agent = store.agent(**AGENT)
        before = agent.encode("Stored before the graph server restarted")
        external_falkor.stop()

        restarter = threading.Timer(0.5, external_falkor.start)
        restarter.start()
        try:
            during = agent.encode("Stored while the graph server was restarting")  # retried until it is back
        finally:
            restarter.join()
        assert store.stats().unindexed_traces == 0
        result = agent.retrieve("stored graph server restarted restarting", top_k=5)
        assert {before.id, during.id} <= set(result.ids), "the write before the restart survived it (AOF)"
        assert_consistent(store)


@pytest.fixture
def local_mode_store(tmp_path: Path, clock) -> cg.MemoryStore:
    """qdrant-client's local mode: the faults below are injected into that client."""
    config = CogmemConfig()
    config.vectors.embedded = "local"
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock, config=config) as s:
        yield s


def test_qdrant_faults_that_clear_are_retried_for_reads_and_writes(local_mode_store, monkeypatch) -> None:
    store = local_mode_store
    agent = store.agent(**AGENT)
    agent.encode("Biscuit is a golden retriever")
    client = store.vectors._client
    failures = {"upsert": 2, "query_points": 2}
    calls = {"upsert": 0, "query_points": 0}

    def flaky(name):
        real = getattr(client, name)

        def call(*args, **kwargs):
            calls[name] += 1
            if failures[name] > 0:
                failures[name] -= 1
                raise ResponseHandlingException(ConnectionResetError("connection reset by peer"))
            return real(*args, **kwargs)

        return call

    for name in failures:
        monkeypatch.setattr(client, name, flaky(name))
    trace = agent.encode("Biscuit loves the park by the lake")
    assert calls["upsert"] == 3, "two refused upserts, then the one that landed"
    assert store.stats().unindexed_traces == 0
    result = agent.retrieve("Biscuit park lake", top_k=2)
    assert result.ids[0] == trace.id
    assert calls["query_points"] >= 3
    assert_consistent(store)


# ---------------------------------------------------------------- down and staying down


def test_external_falkordb_that_is_down_is_named_within_the_retry_budget(tmp_path) -> None:
    port = closed_port()
    config = CogmemConfig()
    started = time.monotonic()
    with pytest.raises(GraphStoreUnavailable) as info:
        cg.open(home=tmp_path / "home", graph=f"falkor://127.0.0.1:{port}", vectors=":memory:", embedder="hash",
                config=config)
    elapsed = time.monotonic() - started
    assert f"127.0.0.1:{port}" in str(info.value) and info.value.url == f"falkor://127.0.0.1:{port}"
    assert "Start FalkorDB" in str(info.value)
    assert elapsed < _budget_s(config.graph.retry_attempts, config.graph.retry_max_wait_s, 2.0)


def test_external_falkordb_that_goes_down_mid_use_is_named_within_the_retry_budget(
        tmp_path, clock, external_falkor) -> None:
    config = CogmemConfig()
    with cg.open(home=tmp_path / "home", graph=external_falkor.url, embedder="hash", clock=clock,
                 config=config) as store:
        agent = store.agent(**AGENT)
        agent.encode("Stored while the server was up")
        external_falkor.stop()
        started = time.monotonic()
        with pytest.raises(GraphStoreUnavailable) as info:
            agent.retrieve("stored server up", top_k=3)
        elapsed = time.monotonic() - started
        assert external_falkor.url in str(info.value)
        assert f"after {config.graph.retry_attempts} attempts" in str(info.value)
        assert elapsed < _budget_s(config.graph.retry_attempts, config.graph.retry_max_wait_s, 2.0)


def test_embedded_server_killed_mid_use_is_started_again_and_the_store_still_closes(tmp_path, clock) -> None:
    """The store starts its dead server again by itself (the restart, its bounds and what a write
    the server died under becomes are in test_graph_server_restart.py)."""
    store = cg.open(home=tmp_path / "home", embedder="hash", clock=clock)
    agent = store.agent(**AGENT)
    agent.encode("Stored before the server died")
    pid = json.loads((tmp_path / "home" / "graph" / SERVER_FILE).read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    agent.encode("Stored after the server died")
    assert json.loads((tmp_path / "home" / "graph" / SERVER_FILE).read_text())["pid"] != pid
    store.close()
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as reopened:
        result = reopened.agent(**AGENT).retrieve("stored before after server died", top_k=3)
        assert sorted(t.trace.content for t in result.traces) == ["Stored after the server died",
                                                                  "Stored before the server died"]


def test_qdrant_server_that_is_down_is_named_and_the_embedded_graph_is_released(tmp_path) -> None:
    port = closed_port()
    config = CogmemConfig()
    config.vectors.retry_attempts = 2
    home = tmp_path / "home"
    started = time.monotonic()
    with pytest.raises(VectorStoreUnavailable) as info:
        cg.open(home=home, vectors=f"http://127.0.0.1:{port}", embedder="hash", config=config)
    elapsed = time.monotonic() - started
    assert f"http://127.0.0.1:{port}" in str(info.value) and info.value.url == f"http://127.0.0.1:{port}"
    assert "qdrant" in str(info.value).lower()
    assert elapsed < _budget_s(config.vectors.retry_attempts, 5.0, config.vectors.timeout_s)
    assert not (home / "graph" / SERVER_FILE).exists(), "the embedded graph server was stopped again"
    with cg.open(home=home, vectors=":memory:", embedder="hash"):
        pass  # and the home is free for the next open


def test_neo4j_that_is_down_is_named_within_the_retry_budget(tmp_path) -> None:
    """The neo4j driver retries managed transactions on its own for 30 s by default; nested
    inside our bounded retries that made a dead server take minutes to report. Run in a
    child so a regression costs the suite a bounded wait, not minutes."""
    port = closed_port()
    budget = 20.0  # 4 attempts x (5 s connection timeout) would be 20 s; a refused port takes well under 1 s
    code = textwrap.dedent(f"""
        import cogmem_graph as cg
        from cogmem_graph.errors import GraphStoreUnavailable
        try:
            cg.open(home={str(tmp_path / 'home')!r}, graph="bolt://127.0.0.1:{port}", vectors=":memory:",
                    embedder="hash")
        except GraphStoreUnavailable as exc:
            print("UNAVAILABLE", exc.url, "|", exc)
    """)
    try:
        child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=budget,
                               cwd=REPO)
    except subprocess.TimeoutExpired:
        pytest.fail(f"an unreachable Neo4j was not reported within {budget:.0f} s")
    assert child.stdout.startswith(f"UNAVAILABLE bolt://127.0.0.1:{port}"), child.stdout + child.stderr[-2000:]
    assert "Start Neo4j" in child.stdout
