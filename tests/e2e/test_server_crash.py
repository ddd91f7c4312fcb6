"""Killing the server mid-load loses no acknowledged memory.

A client process writes batches through `cg.connect` and prints the id of every memory
the server acknowledged. The test SIGKILLs the server process (no shutdown code runs),
starts it again on the same home and checks, through the restarted server, that every
acknowledged memory is there verbatim, active, indexed and retrievable. Memories the
server wrote but never acknowledged may exist; `repair` completes them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.graph.falkordb.launcher import SERVER_FILE

from ._server_client import content_for
from .server_harness import REPO, Server, add_key, child_env, free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ACKS_BEFORE_KILL = 40
CLIENT = REPO / "tests" / "e2e" / "_server_client.py"


def graph_server_pid(home: Path) -> int:
    return int(json.loads((home / "graph" / SERVER_FILE).read_text())["pid"])


def is_running(pid: int) -> bool:
    try:
        return b"redis-server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class IngestingClient:
    def __init__(self, url: str, key: str, batch: int) -> None:
        self.proc = subprocess.Popen([sys.executable, str(CLIENT), url, "ingest", str(batch)],
                                     env=child_env(COGMEM_API_KEY=key), cwd=REPO, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def acked(self) -> dict[str, int]:
        return {parts[1]: int(parts[2]) for parts in (line.split() for line in list(self.lines))
                if len(parts) == 3 and parts[0] == "ACK"}

    def wait_for_acks(self, n: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acked) < n:
            assert self.proc.poll() is None or self._reader.is_alive(), f"client exited: {self.lines[-5:]}"
            assert time.monotonic() < deadline, f"timed out; client said {self.lines[-5:]}"
            time.sleep(0.01)

    def finish(self) -> int:
        try:
            return self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._reader.join(timeout=10)


@pytest.mark.parametrize("batch", [1, 5])
def test_sigkill_of_the_server_mid_load_loses_no_acknowledged_memory(tmp_path, batch: int) -> None:
    home = tmp_path / "home"
    key = add_key(home, "--agent", "crash-agent", "--user", "u1")
    owner = add_key(home, "--owner")
    port = free_port()
    server = Server(home, port, ("--consolidate-every", "0")).start()
    client = IngestingClient(server.url, key, batch)
    old_graph = graph_server_pid(home)
    try:
        client.wait_for_acks(ACKS_BEFORE_KILL)
        server.kill()
        assert client.finish() == 3, "the client saw the server go away"
        assert client.lines[-1].startswith("ERROR BackendUnavailable") or "server answered" in client.lines[-1]
    finally:
        server.kill()
        if client.proc.poll() is None:
            client.proc.kill()
    acked = client.acked
    assert len(acked) >= ACKS_BEFORE_KILL

    restarted = Server(home, port, ("--consolidate-every", "0")).start()
    try:
        assert not is_running(old_graph) or graph_server_pid(home) == old_graph, (
            "the graph server the killed process left is stopped or taken over, never run beside a new one")
        agent = cg.connect(restarted.url, key)
        for trace_id, index in acked.items():
            memory = agent.neighbourhood(trace_id, limit=0)["trace"]
            assert memory["content"] == content_for(index) and memory["metadata"] == {"index": index}
            assert memory["is_active"] and memory["indexed"], f"acknowledged item {index} is whole"
        for trace_id, index in list(acked.items())[:: max(1, len(acked) // 5)]:
            found = agent.retrieve(content_for(index), top_k=5, record_access=False)
            assert trace_id in found.ids, f"acknowledged item {index} is retrievable"
        admin = cg.connect(restarted.url, owner)
        admin.repair()
        assert admin.stats()["store"]["unindexed_traces"] == 0
    finally:
        restarted.stop()
