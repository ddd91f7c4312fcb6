"""`cogmem serve` killed under a write load answers every client with a success, a 503 that
says when to retry (`Retry-After`), or a 4xx, never a 500; and keeps what it acknowledged.

The load runs through `benchmarks/server_kills.py` (its small setting here; the benchmark
repeats it as long as asked): clients writing single memories and batches over HTTP while
the server process, and in turn its embedded graph server, is SIGKILLed and started again.
Real processes, real kills, real HTTP clients.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

import cogmem_graph as cg
from tests.e2e.server_harness import Server, add_key, free_port

from .conftest import REPO, assert_consistent, owner_traces

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_kills_under_load_answer_success_retryable_503_or_4xx_and_lose_nothing(tmp_path) -> None:
    child = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "server_kills.py"), "--kills", "4", "--clients", "6",
         "--seconds", "2", "--home", str(tmp_path / "home")],
        capture_output=True, text=True, timeout=280, cwd=REPO)
    out = child.stdout
    assert child.returncode == 0, out[-6000:] + child.stderr[-3000:]
    assert re.search(r"4 kills \(2 of the server, 2 of its graph server\), 6 clients", out), out
    assert "not allowed: 0" in out and "Traceback" not in out, out
    acked = re.search(r"acknowledged memories: (\d+), missing or not whole after the kills: 0", out)
    assert acked and int(acked.group(1)) > 0, out
    assert re.search(r"ConnectError|RemoteProtocolError|ReadError", out), "the clients wrote through the kills"


def graph_server_pids(server: Server) -> list[int]:
    assert server.proc is not None
    found = subprocess.run(["pgrep", "-P", str(server.proc.pid), "redis-server"], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def test_a_503_says_when_to_retry(tmp_path) -> None:
    """Past its restart budget the embedded graph server is not started again for a while:
    a write is a 503 naming it, whose Retry-After is when the next restart may be tried."""
    home = tmp_path / "home"
    key = add_key(home, "--agent", "kills-agent", "--user", "u1")
    server = Server(home, free_port(), ("--consolidate-every", "0", "--rate", "0")).start()
    write = lambda text: httpx.post(f"{server.url}/v1/memories", json={"content": text},  # noqa: E731
                                    headers={"Authorization": f"Bearer {key}"}, timeout=60)
    try:
        for kill in range(4):  # three restarts are allowed in a minute; the fourth death is not restarted
            [old] = graph_server_pids(server)
            os.kill(old, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while True:
                answer = write(f"written after graph server kill {kill}")
                assert answer.status_code in (200, 503), answer.text
                if answer.status_code == 503:
                    assert answer.headers.get("retry-after", "").isdigit(), (answer.headers, answer.text)
                if kill == 3 and answer.status_code == 503 and "not started again for now" in answer.text:
                    break
                if kill < 3 and answer.status_code == 200 and graph_server_pids(server) not in ([], [old]):
                    break
                assert time.monotonic() < deadline, answer.text
                time.sleep(0.05)
        assert int(answer.headers["retry-after"]) > 10, "the next restart is tens of seconds away"
        assert "the embedded graph server under" in answer.text and "127.0.0.1" not in answer.text
    finally:
        server.stop()


def test_a_repeated_memory_whose_write_was_cut_off_is_completed_when_acknowledged(tmp_path) -> None:
    """A kill between a memory's vector and its indexed mark leaves it unindexed (invisible to
    reads). A client that sends it again gets the old memory back, reinforced: it is then
    indexed, so what was acknowledged can be read."""
    with cg.open(home=tmp_path / "home", embedder="hash") as store:
        agent = store.agent("kills-agent", user_id="u1")
        first = agent.encode("Priya moved the standup to nine thirty on Tuesdays")
        store.graph.set_indexed([first.id], False)  # the state a kill after the vector upsert leaves
        again = agent.encode("Priya moved the standup to nine thirty on Tuesdays")
        assert again.id == first.id and again.indexed
        assert owner_traces(store)[first.id].indexed
        assert first.id in agent.retrieve("When is the standup?", top_k=5, record_access=False).ids
        assert_consistent(store)
