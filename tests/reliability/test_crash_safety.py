"""Crash safety: what `encode` acknowledged survives a SIGKILL of the graph server or of
the Python process, and nothing half-written is visible as a complete memory.

A child process ingests in small batches on the embedded default and prints the id
of every trace `encode_many` returned. The test kills something mid-run with SIGKILL,
reopens the home, and checks every acknowledged trace: in the graph (AOF with
`appendfsync always`), verbatim, active and indexed, with its vector in Qdrant (local
mode commits each point to its sqlite file before `upsert` returns), and
retrievable. Traces written but never acknowledged may exist; they must not be
visible as indexed without their vector, and `repair()` completes them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.graph.falkordb.launcher import SERVER_FILE

from ._workers import content_for
from .conftest import REPO, assert_consistent, owner_traces, python_child

WORKER = REPO / "tests" / "reliability" / "_workers.py"
ACKS_BEFORE_KILL = 12
AGENT = {"agent_id": "crash-agent", "user_id": "u1", "thread_id": "t1"}


class Child:
    """The ingesting child, its stdout collected line by line in a thread."""

    def __init__(self, home: Path, *extra: str) -> None:
        self.stderr_path = home.parent / "child.stderr"
        with open(self.stderr_path, "w") as stderr:  # a file, so a chatty child never blocks on a pipe
            self.proc = python_child(str(WORKER), "ingest", str(home), *extra,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.proc.poll() is not None and not self._reader.is_alive():
                raise AssertionError(f"child exited early ({self.proc.returncode}): {self.lines[-5:]} "
                                     f"{self.stderr_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; child said: {self.lines[-5:]}")
            time.sleep(0.005)

    def finish(self, timeout: float = 60.0) -> int:
        try:
            rc = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._reader.join(timeout=10)
        return rc

    @property
    def acked(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for line in self.lines:
            if line.startswith("ACK "):
                _, trace_id, index = line.split()
                out[trace_id] = int(index)
        return out

    @property
    def server_pid(self) -> int:
        return int(next(line.split()[1] for line in self.lines if line.startswith("READY ")))


def _server_pid_from_home(home: Path) -> int:
    return int(json.loads((home / "graph" / SERVER_FILE).read_text())["pid"])


def _is_redis_server(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _check_reopened_home(home: Path, acked: dict[str, int], old_server: int | None = None) -> None:
    assert acked, "the child acknowledged nothing before the crash"
    with cg.open(home=home, embedder="hash") as store:
        if old_server is not None:
            assert not _is_redis_server(old_server), (
                "a server left by the killed process still runs on the data directory the new "
                "server now writes: two writers on one AOF")
        before = owner_traces(store)
        for trace_id, index in acked.items():
            trace = before.get(trace_id)
            assert trace is not None, f"acknowledged trace {trace_id} (item {index}) lost from the graph"
            assert trace.content == content_for(index) and trace.metadata == {"index": index}
            assert trace.is_active and trace.indexed, "an acknowledged encode was confirmed in both stores"
        # A crash can leave traces the child never acknowledged: half-written ones must
        # not pass for complete (active + indexed without a vector).
        assert_consistent(store)
        assert store.vectors.existing_ids(list(acked)) == set(acked)

        store.repair()
        after = owner_traces(store)
        assert store.stats().unindexed_traces == 0, "repair indexed everything the crash left behind"
        assert_consistent(store)
        assert store.vectors.all_ids() <= set(after), "no vector without its trace"
        assert store.repair().changed == 0, "repair converged"

        agent = store.agent(**AGENT)
        for trace_id, index in list(acked.items())[:3]:
            found = agent.retrieve(content_for(index), top_k=3, record_access=False).ids
            assert trace_id in found


def test_sigkill_of_the_graph_server_mid_ingest_keeps_every_acknowledged_encode(tmp_path: Path) -> None:
    home = tmp_path / "home"
    child = Child(home)
    try:
        child.wait_for(lambda: len(child.acked) >= ACKS_BEFORE_KILL)
        pid = _server_pid_from_home(home)
        assert pid == child.server_pid and _is_redis_server(pid)
        os.kill(pid, signal.SIGKILL)
        at_kill = len(child.acked)
        # The child's store starts its server again on the same data and the ingest goes on.
        child.wait_for(lambda: len(child.acked) >= at_kill + ACKS_BEFORE_KILL)
        restarted = _server_pid_from_home(home)
        assert restarted != pid and _is_redis_server(restarted)
        os.kill(child.proc.pid, signal.SIGKILL)
        child.finish()
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
    assert not [line for line in child.lines if line.startswith("ERROR ")], child.lines[-5:]
    _check_reopened_home(home, child.acked, old_server=restarted)


@pytest.mark.parametrize(
    "how",
    [
        "python",  # the server started from the main thread gets SIGTERM from the kernel and flushes
        "python-from-a-thread",  # opened from a worker thread: the server dies with the process all the same
        "python-and-server",  # both die at once, no cleanup anywhere (as close to power loss as we get)
    ],
)
def test_sigkill_of_the_python_process_mid_ingest_keeps_every_acknowledged_encode(tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    child = Child(home, *(["--thread"] if how == "python-from-a-thread" else []))
    try:
        child.wait_for(lambda: len(child.acked) >= ACKS_BEFORE_KILL)
        server = child.server_pid
        if how == "python-and-server":
            os.kill(server, signal.SIGKILL)
        os.kill(child.proc.pid, signal.SIGKILL)
        rc = child.finish()
    finally:
        if child.proc.poll() is None:
            child.proc.kill()
    assert rc == -signal.SIGKILL
    acked = child.acked
    try:
        deadline = time.monotonic() + 5
        while _is_redis_server(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _is_redis_server(server), "the embedded server outlived its killed parent"
        _check_reopened_home(home, acked, old_server=server)
    finally:
        if _is_redis_server(server) and os.readlink(f"/proc/{server}/cwd").startswith(str(tmp_path)):
            os.kill(server, signal.SIGKILL)  # never leave our own orphan behind, even on failure
