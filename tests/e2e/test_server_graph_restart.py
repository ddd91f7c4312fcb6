"""The embedded graph server dies under load (SIGKILL of the FalkorDB child, not of
`cogmem serve`): `/ready` answers 503 naming the graph while it is down, the server
starts it again by itself and `/ready` is 200 within 30 s, and every memory acknowledged
before and after is there."""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest

import cogmem_graph as cg

from ._server_client import content_for
from .server_harness import Server, add_key, free_port
from .test_server_crash import IngestingClient, graph_server_pid, is_running

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_killed_graph_server_is_started_again_and_ready_says_so(tmp_path) -> None:
    home = tmp_path / "home"
    key = add_key(home, "--agent", "crash-agent", "--user", "u1")
    checker = add_key(home, "--agent", "crash-agent", "--user", "u1", "--rate", "10000")
    server = Server(home, free_port(), ("--consolidate-every", "0")).start()
    client = IngestingClient(server.url, key, 5)
    try:
        client.wait_for_acks(30)
        old_graph = graph_server_pid(home)
        os.kill(old_graph, signal.SIGKILL)
        while is_running(old_graph):  # gone once the kernel has it (a zombie has no command line)
            time.sleep(0.01)
        answers: list[tuple[int, dict]] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            response = httpx.get(f"{server.url}/ready", timeout=10)
            answers.append((response.status_code, response.json()))
            # An answer cached from before the kill (a second at most) may still say ready.
            if response.status_code == 200 and graph_server_pid(home) != old_graph:
                break
            time.sleep(0.05)
        status, body = answers[-1]
        assert status == 200 and body == {"ready": True, "graph": "ok", "vectors": "ok"}, answers[-3:]
        for code, down in answers[:-1]:  # while it was down, the answer said what and kept the port private
            assert code == 200 or (down["graph"] != "ok" and "127.0.0.1" not in down["graph"]), down
        assert graph_server_pid(home) != old_graph and not is_running(old_graph)
        agent = cg.connect(server.url, checker)
        after = agent.encode("Written once the graph server was back")
        assert agent.get(after.id).trace.content == after.content
    finally:
        client.proc.kill()
        client.finish()
        server.stop()
    acked = client.acked
    restarted = Server(home, free_port(), ("--consolidate-every", "0")).start()
    try:
        agent = cg.connect(restarted.url, checker)
        for trace_id, index in acked.items():
            assert agent.get(trace_id).trace.content == content_for(index), f"acknowledged item {index} lost"
    finally:
        restarted.stop()
