"""A `cogmem serve` killed with SIGKILL takes its embedded graph server with it: the server's
process is gone and its port closed within seconds, whether it is the one the store started
with or one the store started again after the first died (a restart runs on a thread that
ends right after, and the server must neither die with that thread nor outlive the process).
Real processes and real SIGKILLs."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from cogmem_graph.graph.falkordb.launcher import SERVER_FILE

from .server_harness import Server, free_port
from .test_server_crash import graph_server_pid, is_running

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

GONE_WITHIN_S = 5.0


def graph_server_port(home: Path) -> int:
    return int(json.loads((home / "graph" / SERVER_FILE).read_text())["port"])


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def restart_graph_server(server: Server, home: Path) -> int:
    """SIGKILL the graph server and wait until `/ready` says a new one runs; the new pid."""
    old = graph_server_pid(home)
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ready = httpx.get(f"{server.url}/ready", timeout=10).status_code == 200
        if ready and graph_server_pid(home) != old and is_running(graph_server_pid(home)):
            return graph_server_pid(home)
        time.sleep(0.05)
    raise AssertionError(f"the graph server was not started again within 30 s: {server.log.read_text()[-2000:]}")


@pytest.mark.parametrize("restarted", [False, True], ids=["first-server", "restarted-server"])
def test_a_killed_serve_leaves_no_graph_server_behind(tmp_path, restarted: bool) -> None:
    home = tmp_path / "home"
    server = Server(home, free_port(), ("--consolidate-every", "0")).start()
    graph = graph_server_pid(home)
    try:
        if restarted:
            graph = restart_graph_server(server, home)
            time.sleep(1.0)  # the thread that restarted it has ended by now
            assert is_running(graph), "the restarted graph server died with the thread that started it"
            assert httpx.get(f"{server.url}/ready", timeout=10).status_code == 200
        port = graph_server_port(home)
        assert listening(port)
        server.kill()
        deadline = time.monotonic() + GONE_WITHIN_S
        while (is_running(graph) or listening(port)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not is_running(graph), f"graph server {graph} outlived the killed `cogmem serve`"
        assert not listening(port), f"port {port} still listens after `cogmem serve` was killed"
    finally:
        server.kill()
        if is_running(graph) and os.readlink(f"/proc/{graph}/cwd").startswith(str(tmp_path)):
            os.kill(graph, signal.SIGKILL)  # never leave an orphan of this test behind, even on failure
