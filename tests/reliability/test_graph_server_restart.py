"""A dead embedded FalkorDB is started again by the store itself, and nothing it acknowledged
is lost.

The embedded graph server is a child process of the store. When it dies (killed, out of
memory, crashed) the store starts it again through the launcher's start path on the same data
directory (its append-only log replayed, `appendfsync always`), reconnects, and goes on:
`store.health()` says it is not ready meanwhile and ready again after, and every write
`encode` / `encode_many` returned is there. A read the server died under runs again; a write
it died under is not sent again (it may have been applied and logged just before), the error
says so. Restarting is bounded: a server that dies at every start ends in a clear error naming
its data directory, not in a loop. Real servers and real SIGKILLs; nothing is mocked.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
import redis

import cogmem_graph as cg
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import BackendUnavailable, EmbeddedServerError, GraphStoreUnavailable
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.graph.falkordb import launcher

from ._load import Writer
from ._workers import content_for
from .conftest import TEST_CYPHER, assert_consistent, owner_traces

pytestmark = pytest.mark.timeout(300)

AGENT = {"agent_id": "restart-agent", "user_id": "u1", "thread_id": "t1"}
HEAL_S = 30.0
"""What the issue promises: ready again within 30 s of the kill."""
PORT = re.compile(r"127\.0\.0\.1:\d+")


def kill_graph_server(store: cg.MemoryStore) -> int:
    """SIGKILL the store's embedded FalkorDB child (no shutdown code runs); its pid."""
    server = store.graph.embedded_server
    assert server is not None and server.process is not None
    pid = server.process.pid
    os.kill(pid, signal.SIGKILL)
    return pid


def wait_until(predicate, timeout: float, what: str, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(poll)


def assert_no_port(answer: dict) -> None:
    for key in ("graph", "vectors"):
        assert not PORT.search(answer[key]), f"health names the embedded server's internal port: {answer}"


class Reader:
    """Retrieves in a loop from a thread; keeps what failed, with when."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.reads_after: list[float] = []
        self.failures: list[tuple[float, BaseException]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="reader", daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                self.agent.retrieve("crash record amber harbor lantern", top_k=5)
                self.reads_after.append(time.monotonic())
            except Exception as exc:  # noqa: BLE001
                self.failures.append((time.monotonic(), exc))
                time.sleep(0.05)


# ---------------------------------------------------------------- under load


def test_sigkill_of_the_graph_server_under_load_heals_and_keeps_every_acknowledged_write(tmp_path, clock) -> None:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        agent = store.agent(**AGENT)
        assert store.health() == {"ready": True, "graph": "ok", "vectors": "ok"}
        writer, reader = Writer(agent), Reader(agent)
        writer.thread.start()
        reader.thread.start()
        health: list[tuple[float, dict]] = []
        try:
            wait_until(lambda: len(writer.acked) >= 20, 60, "the writer acknowledged 20 memories")
            old = store.graph.embedded_server.process
            killed_at = time.monotonic()
            kill_graph_server(store)
            # Probe as a readiness endpoint would, while the writer and the reader go on.
            while time.monotonic() - killed_at < HEAL_S:
                answer = store.health()
                health.append((time.monotonic(), answer))
                assert set(answer) == {"ready", "graph", "vectors"}
                assert_no_port(answer)
                if answer["ready"] and writer.acks_after(killed_at) >= 5 and reader.reads_after[-1:] > [killed_at]:
                    break
                time.sleep(0.1)
            healed_at = time.monotonic()
        finally:
            writer.stop.set()
            reader.stop.set()
            writer.thread.join(60)
            reader.thread.join(60)
        failures = [(failed, exc) for _, failed, exc in writer.failures] + reader.failures
        assert writer.acks_after(killed_at) >= 5, (
            f"no write was acknowledged for {HEAL_S:.0f} s after the graph server was killed; "
            f"the last failures: {[repr(e) for _, e in failures[-3:]]}")
        assert reader.reads_after and reader.reads_after[-1] > killed_at, "reads work again after the kill"
        assert health[-1][1]["ready"], f"health is ready again within {HEAL_S:.0f} s: {health[-3:]}"
        assert healed_at - killed_at < HEAL_S
        # What failed in between failed briefly, and said what failed.
        assert all(isinstance(exc, BackendUnavailable) for _, exc in failures), [repr(e) for _, e in failures]
        if failures:
            assert max(t for t, _ in failures) - killed_at < HEAL_S
        not_ready = [a for _, a in health if not a["ready"]]
        assert not_ready or len(failures) <= 5, "the kill showed in health, or cost only a few calls"
        for answer in not_ready:
            assert answer["vectors"] == "ok" and "graph" in answer["graph"], answer
        # The dead server was replaced, and reaped (no zombie left behind).
        server = store.graph.embedded_server
        assert old.returncode == -signal.SIGKILL
        assert server.process.pid != old.pid and server.process.poll() is None
        assert not Path(f"/proc/{old.pid}").exists() or b"redis" not in Path(f"/proc/{old.pid}/cmdline").read_bytes()
        assert store.graph.url == server.url, "the store talks to the server where it runs now"
        assert launcher.running_server(tmp_path / "home" / "graph").port == server.port

        # Every acknowledged write is there, verbatim, active and indexed, with its vector.
        acked = dict(writer.acked)
        traces = owner_traces(store)
        for trace_id, index in acked.items():
            trace = traces.get(trace_id)
            assert trace is not None, f"acknowledged memory {index} ({trace_id}) was lost"
            assert trace.content == content_for(index) and trace.metadata == {"index": index}
            assert trace.is_active and trace.indexed
        assert store.vectors.existing_ids(list(acked)) == set(acked)
        assert_consistent(store)
        by_index = {index: trace_id for trace_id, index in acked.items()}
        for index in sorted(by_index)[:: max(1, len(by_index) // 5)]:
            found = agent.retrieve(content_for(index), top_k=5, record_access=False).ids
            assert by_index[index] in found, f"acknowledged memory {index} is retrievable"
        store.repair()
        assert store.repair().changed == 0


# ---------------------------------------------------------------- idle


def test_an_idle_store_whose_graph_server_was_killed_heals_through_health_alone(tmp_path, clock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        before = store.agent(**AGENT).encode("Stored before the graph server was killed")
        assert store.health()["ready"]
        old = kill_graph_server(store)
        time.sleep(1.1)  # the answer before the kill is reused for a second
        down = wait_until(lambda: (a := store.health()) and not a["ready"] and a, 5, "health says not ready")
        assert down["vectors"] == "ok"
        assert f"embedded graph server under {home / 'graph'}" in down["graph"] and "SIGKILL" in down["graph"], down
        assert_no_port(down)
        # No operation runs: health alone has the server started again.
        up = wait_until(lambda: store.health()["ready"], HEAL_S, "health is ready again")
        assert up and store.graph.embedded_server.process.pid != old
        assert store.health() == {"ready": True, "graph": "ok", "vectors": "ok"}
        agent = store.agent(**AGENT)
        after = agent.encode("Stored after the graph server came back")
        ids = agent.retrieve("stored graph server killed came back", top_k=5).ids
        assert {before.id, after.id} <= set(ids)


def test_health_is_cached_for_a_second_and_bounded(tmp_path, clock) -> None:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        pings = []
        real = store.graph.ping
        store.graph.ping = lambda: (pings.append(time.monotonic()), real())[1]
        try:
            started = time.monotonic()
            while time.monotonic() - started < 2.5:
                assert store.health()["ready"]
            assert 2 <= len(pings) <= 4, f"a probe storm of 2.5 s cost {len(pings)} graph checks"
        finally:
            del store.graph.ping
        store.close()
        assert store.health() == {"ready": False, "graph": "the store is closed", "vectors": "the store is closed"}


# ---------------------------------------------------------------- reads again, writes never twice


def _slow(name: str, store: cg.MemoryStore) -> str:
    return CypherLibrary(store.graph.dialect, root=TEST_CYPHER).get(name)


def _kill_while_running(store: cg.MemoryStore, run) -> dict:
    """Start `run` on a thread, SIGKILL the server once it runs the statement, and return what
    `run` returned or raised."""
    outcome: dict = {}

    def call() -> None:
        try:
            outcome["rows"] = run()
        except Exception as exc:  # noqa: BLE001
            outcome["error"] = exc

    admin = store.graph.embedded_server.client()
    thread = threading.Thread(target=call)
    thread.start()
    try:
        wait_until(lambda: _statement_running(admin), 30, "the statement runs on the server", poll=0.01)
    finally:
        admin.close()
    kill_graph_server(store)
    thread.join(120)
    assert not thread.is_alive()
    return outcome


def _statement_running(admin: redis.Redis) -> bool:
    """A client of the server is in the middle of a graph query (blocked on its reply)."""
    return any(str(c.get("cmd", "")).lower() in ("graph.query", "graph.ro_query") and "b" in str(c.get("flags", ""))
               for c in admin.client_list())


def test_a_read_the_server_died_under_runs_again_after_the_restart(tmp_path, clock) -> None:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        text = _slow("fault_slow_read", store)
        outcome = _kill_while_running(store, lambda: store.graph._run_text(text, {"n": 10_000_000}, write=False,
                                                                             name="test_slow_read"))
        assert "error" not in outcome, repr(outcome.get("error"))
        assert outcome["rows"] == [{"n": 10_000_000}]


def test_a_write_the_server_died_under_is_not_sent_again(tmp_path, clock) -> None:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        agent = store.agent(**AGENT)
        trace = agent.encode("A memory whose retrievals are counted")
        count = owner_traces(store)[trace.id].retrieval_count
        text = _slow("fault_slow_increment", store)
        outcome = _kill_while_running(store, lambda: store.graph._run_text(
            text, {"id": trace.id, "n": 10_000_000}, write=True, name="test_slow_increment"))
        error = outcome.get("error")
        assert isinstance(error, GraphStoreUnavailable), f"the write was sent again: {outcome}"
        assert "test_slow_increment" in str(error) and "not sent again" in str(error) and "Call again" in str(error)
        after = owner_traces(store)[trace.id].retrieval_count
        assert after in (count, count + 1), "applied at most once"
        assert store.health()["ready"] or wait_until(lambda: store.health()["ready"], HEAL_S, "ready again")


ASSIGNMENT = re.compile(r"\b(\w+\.\w+)\s*=(?![=~])")


def _counts_on_itself(text: str) -> list[str]:
    """Assignments whose new value is computed from the old one with arithmetic (x.n = x.n + 1)."""
    found = []
    for m in ASSIGNMENT.finditer(text):
        depth, end = 0, m.end()
        while end < len(text) and text[end] != "\n" and not (text[end] == "," and depth == 0):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        value = text[m.end():end]
        if re.search(rf"\b{re.escape(m[1])}\b", value) and re.search(r"[-+*/^]", value):
            found.append(f"{m[1]} ={value}")
    return found


def test_writes_sent_again_after_a_restart_give_the_same_result_twice() -> None:
    """What `REPEATABLE_WRITES` lists is sent again after the server died under it: none of them
    may compute a value from the one it replaces (as hebbian_update and record_access do)."""
    from cogmem_graph.graph.cypher_store.graph_store import REPEATABLE_WRITES

    library = CypherLibrary("falkordb")
    assert _counts_on_itself(library.get("hebbian_update")) and _counts_on_itself(library.get("record_access"))
    for name in REPEATABLE_WRITES:
        text = library.get(name) if name not in ("upsert_traces", "merge_edges") else \
            (Path(__file__).resolve().parents[2] / "cypher" / f"{name}.cypher").read_text()
        assert not _counts_on_itself(text), f"{name} computes a value from the one it replaces"
        assert "CREATE" not in text.replace("ON CREATE", ""), f"{name} creates unconditionally"


# ---------------------------------------------------------------- bounded


DYING_SERVER = """\
import sys
from pathlib import Path
with open(Path(sys.argv[sys.argv.index("--dir") + 1]) / "starts", "a") as starts:
    starts.write("start\\n")
sys.exit(1)  # dies at every start, before it listens
"""


def test_a_server_that_dies_at_every_start_ends_in_a_clear_error_not_a_loop(tmp_path, clock, monkeypatch) -> None:
    home = tmp_path / "home"
    graph_dir = home / "graph"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        agent = store.agent(**AGENT)
        kept = agent.encode("Stored before the server started dying")
        # From now on the server binary dies at every start.
        _server, module = launcher.find_binaries()
        script = tmp_path / "dying-redis-server"
        script.write_text(f"#!{sys.executable}\n" + DYING_SERVER)
        script.chmod(0o755)
        monkeypatch.setattr(launcher, "find_binaries", lambda: (script, module))
        kill_graph_server(store)

        errors = []
        started = time.monotonic()
        for i in range(8):
            with pytest.raises(GraphStoreUnavailable) as info:
                agent.encode(f"Stored while the server cannot start, try {i}")
            errors.append(str(info.value))
            store.health()
        elapsed = time.monotonic() - started
        starts = (graph_dir / "starts").read_text().count("start")
        limit = launcher.RESTARTS_PER_WINDOW * 3  # three tries per restart
        assert 1 <= starts <= limit, f"{starts} starts of a server that dies at every start"
        assert elapsed < 120
        # The first failures say it could not be started again; the last that it is not tried again.
        assert "could not be started again" in errors[0] and str(graph_dir) in errors[0]
        assert isinstance(info.value, EmbeddedServerError)
        assert "not started again for now" in errors[-1] and str(graph_dir) in errors[-1]
        assert "server.log" in errors[-1] and "reopen the store" in errors[-1]
        # Health says so too, without a port, and asking again starts nothing.
        time.sleep(1.1)
        answer = store.health()
        assert not answer["ready"] and answer["vectors"] == "ok"
        assert "not started again for now" in answer["graph"] and str(graph_dir) in answer["graph"], answer
        assert_no_port(answer)
        for _ in range(3):
            time.sleep(0.4)
            store.health()
            with pytest.raises(GraphStoreUnavailable):
                agent.retrieve("anything", top_k=3)
        assert (graph_dir / "starts").read_text().count("start") == starts, "no more starts once exhausted"
    monkeypatch.undo()
    # The home is free and whole: the next open starts a real server on the same data.
    with cg.open(home=home, embedder="hash", clock=clock) as reopened:
        assert kept.id in reopened.agent(**AGENT).retrieve("stored before server started dying", top_k=3).ids


def test_a_server_killed_after_every_restart_is_restarted_a_bounded_number_of_times(tmp_path, clock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        agent = store.agent(**AGENT)
        ids = [agent.encode("Stored before the first kill").id]
        for i in range(launcher.RESTARTS_PER_WINDOW):
            kill_graph_server(store)
            ids.append(agent.encode(f"Stored after restart {i + 1}").id)  # started again before it was sent
        kill_graph_server(store)
        with pytest.raises(EmbeddedServerError) as info:
            agent.encode("Stored after one kill too many")
        message = str(info.value)
        assert f"after {launcher.RESTARTS_PER_WINDOW} restarts in" in message and str(home / "graph") in message
        assert "not started again for now" in message and "reopen the store" in message
    with cg.open(home=home, embedder="hash", clock=clock) as reopened:
        found = set(owner_traces(reopened))
        assert set(ids) <= found, "every acknowledged write survived every kill"


# ---------------------------------------------------------------- not ours to restart


def test_an_external_falkordb_is_never_restarted(tmp_path, clock) -> None:
    owner = cg.open(home=tmp_path / "owner", embedder="hash", clock=clock)
    try:
        running = launcher.running_server(tmp_path / "owner" / "graph")
        config = CogmemConfig()
        config.graph.falkor_password = running.password
        config.graph.retry_attempts = 2
        config.graph.retry_max_wait_s = 0.05
        with cg.open(home=tmp_path / "client", graph=running.url, vectors=":memory:", embedder="hash",
                     clock=clock, config=config) as client:
            assert client.health()["ready"]
            pid = owner.graph.embedded_server.process.pid
            os.kill(pid, signal.SIGKILL)
            wait_until(lambda: owner.graph.embedded_server.process.poll() is not None, 10, "the server is dead")
            time.sleep(1.1)
            answer = client.health()
            assert not answer["ready"] and running.url in answer["graph"], answer
            with pytest.raises(GraphStoreUnavailable) as info:
                client.agent(**AGENT).retrieve("anything", top_k=3)
            assert running.url in str(info.value) and "Start FalkorDB" in str(info.value)
            assert launcher.running_server(tmp_path / "owner" / "graph") is None, "nobody started it again"
    finally:
        owner.close()
