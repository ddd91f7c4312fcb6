"""`cogmem serve` under clients that hold on to what they took: connections that never finish
their request, a flood of them past the file-descriptor limit, one key's burst of slow calls,
bad keys in a loop; and a server that loses its store or cannot bind its port.

Every server here is a real `cogmem serve` process on a loopback port (embedded backends,
hash embedder); traffic goes to 127.0.0.1 only, bounded in count and time. One test checks
in process that the warm-up (what keeps the first requests quick) writes nothing. The time bounds
are loose (a busy 2-CPU machine): they tell "within seconds" from "never".
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import cogmem_graph as cg
from cogmem_graph.graph.falkordb.launcher import SERVER_FILE

from .server_harness import (
    REPO,
    START_TIMEOUT_S,
    Server,
    add_key,
    auth,
    child_env,
    cogmem,
    free_port,
)

# fd limits, 100 client threads, keep-alive timing: run alone
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.serial]

TIMEOUT_S = 3.0  # header and body timeouts of the module's server (its clients are 100 threads on a busy
# machine: a thread may connect a good while before it sends its request)
KEEP_ALIVE_S = 2.0  # its keep-alive (uvicorn's default is 5 s)
CLOSE_DRIVER = REPO / "tests" / "e2e" / "_serve_then_close_store.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("limits") / "home"
    keys = {"busy": add_key(home, "--agent", "busy", "--user", "u1"),
            "other": add_key(home, "--agent", "other", "--user", "u2")}
    srv = Server(home, free_port(), ("--consolidate-every", "0", "--rate", "0",
                                     "--header-timeout", str(TIMEOUT_S), "--body-timeout", str(TIMEOUT_S),
                                     "--keep-alive", str(KEEP_ALIVE_S)))
    srv.start()
    try:
        yield srv, keys
    finally:
        code = srv.stop()
    assert code == 0, f"SIGTERM stops the server with exit code 0 (got {code}): {srv.log.read_text()[-2000:]}"


def raw(port: int, data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    if data:
        sock.sendall(data)
    return sock


def wait_closed(sock: socket.socket, within: float) -> tuple[bool, bytes, float]:
    """(closed by the server within `within` s, what it sent before, seconds it took)."""
    sock.settimeout(within)
    started = time.monotonic()
    received = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True, received, time.monotonic() - started
            received += chunk
    except ConnectionResetError:
        return True, received, time.monotonic() - started
    except TimeoutError:
        return False, received, time.monotonic() - started
    finally:
        sock.close()


# ---------------------------------------------------------------- point 3: what a connection may hold


def test_a_connection_that_never_finishes_its_headers_is_closed(server) -> None:
    srv, _ = server
    silent = raw(srv.port)
    half = raw(srv.port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    for sock, what in ((silent, "sent nothing"), (half, "sent half its headers")):
        closed, answer, took = wait_closed(sock, within=TIMEOUT_S + 9)
        assert closed and answer == b"", f"a connection that {what} is closed ({took:.1f} s; got {answer[:80]!r})"


def test_a_body_that_never_arrives_is_closed_without_running_the_request(server) -> None:
    srv, keys = server
    head = (f"POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {keys['busy']}\r\n"
            "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n").encode()
    closed, answer, took = wait_closed(raw(srv.port, head + b'{"content": "cut off'), within=TIMEOUT_S + 9)
    assert closed and answer == b"", f"closed with no answer ({took:.1f} s; got {answer[:120]!r})"
    listed = cg.connect(srv.url, keys["busy"]).list(limit=10)
    assert not [m for m in listed.items if "cut off" in m.content], "the cut-off body stored nothing"


def test_a_slow_client_within_the_timeouts_is_served_and_an_idle_one_is_let_go(server) -> None:
    srv, _ = server
    sock = raw(srv.port, b"GET /health HTTP/1.1\r\n")
    time.sleep(TIMEOUT_S / 3)
    sock.sendall(b"Host: 127.0.0.1\r\n\r\n")
    sock.settimeout(10)
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
        chunk = sock.recv(4096)
        assert chunk, f"answered before closing: {answer!r}"
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 200") and json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"status": "ok"}
    closed, more, took = wait_closed(sock, within=KEEP_ALIVE_S + 8)
    assert closed and more == b"", f"the kept-alive connection, idle, is closed ({took:.1f} s)"
    assert took < KEEP_ALIVE_S + 2, f"after --keep-alive {KEEP_ALIVE_S:g} s, not uvicorn's 5 s (took {took:.1f} s)"


def start_with_fd_limit(home: Path, port: int, limit: int, *args: str) -> subprocess.Popen:
    def lower_fd_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    log = open(home.parent / f"server-{port}.log", "a")  # noqa: SIM115 - the child writes it
    proc = subprocess.Popen(
        [sys.executable, "-m", "cogmem_graph.cli", "--home", str(home), "--embedder", "hash", "serve",
         "--port", str(port), *args], env=child_env(), cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=lower_fd_limit, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, (home.parent / f"server-{port}.log").read_text()[-3000:]
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("the fd-limited server did not start")


def test_450_slow_sockets_under_a_400_fd_limit_leave_the_server_serving_or_gone(tmp_path) -> None:
    """Today's failure: EMFILE in the accept loop stopped the event loop, `serve` closed the
    store, and the process stayed alive with the port bound, answering nothing."""
    home = tmp_path / "home"
    key = add_key(home, "--agent", "a", "--user", "u")
    port = free_port()
    proc = start_with_fd_limit(home, port, 400, "--consolidate-every", "0")
    slow: list[socket.socket] = []
    outcomes: list[object] = []
    try:
        for _ in range(450):
            with contextlib.suppress(OSError):  # the kernel's queue was full for a moment: the flood is the point
                slow.append(raw(port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
        deadline = time.monotonic() + 8  # within the default 10 s header timeout: the cap does the work
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                answer = httpx.post(f"http://127.0.0.1:{port}/v1/recall", json={"query": "anything"},
                                    headers=auth(key), timeout=5)
                outcomes.append(answer.status_code)
            except httpx.HTTPError as exc:
                outcomes.append(type(exc).__name__)
            time.sleep(0.25)
        if proc.poll() is None:
            assert outcomes and all(o == 200 for o in outcomes), f"alive, so serving every key holder: {outcomes}"
        else:
            assert proc.returncode != 0, "a server that stopped serving exits non-zero"
    finally:
        for sock in slow:
            sock.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    print(f"\n{len(slow)} slow sockets opened; {len(outcomes)} requests of a key holder: "
          f"{sum(o == 200 for o in outcomes)} answered 200")


def test_a_store_closed_under_the_server_makes_it_exit_non_zero(tmp_path) -> None:
    home = tmp_path / "home"
    key = add_key(home, "--agent", "a", "--user", "u")
    port = free_port()
    trigger = tmp_path / "close-the-store"
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, str(CLOSE_DRIVER), str(trigger), "--home", str(home), "--embedder",
                                 "hash", "serve", "--port", str(port), "--consolidate-every", "0"],
                                env=child_env(), cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _ready(url):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        assert cg.connect(url, key).whoami()["identity"]["agent_id"] == "a"
        trigger.touch()
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server outlived its store: {log.read_text()[-2000:]}")
        assert code == 3, log.read_text()[-2000:]
        assert "store was closed" in log.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ready", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


# ---------------------------------------------------------------- point 5: probes and one key's burst

POLL_HEALTH = """
import pathlib, sys, time, httpx
url, stop = sys.argv[1], pathlib.Path(sys.argv[2])
with httpx.Client(timeout=30) as client:
    client.get(url)
    print("polling", flush=True)
    while not stop.exists():
        started = time.monotonic()
        status = client.get(url).status_code
        print(status, time.monotonic() - started, flush=True)
        time.sleep(0.02)
"""


BURST = """
import concurrent.futures, json, sys, httpx
url, key = sys.argv[1], sys.argv[2]
people = [f"Person{i}" for i in range(12)]
with httpx.Client(timeout=120, limits=httpx.Limits(max_connections=100, max_keepalive_connections=0)) as client:
    def multi_hop(i):
        answer = client.post(f"{url}/v1/multi-hop", headers={"Authorization": f"Bearer {key}"},
                             json={"query": f"who did {people[i % 12]} meet about which project?", "hops": 3,
                                   "top_k": 50})
        return answer.status_code, answer.json()
    with concurrent.futures.ThreadPoolExecutor(max_workers=100) as pool:
        print(json.dumps(list(pool.map(multi_hop, range(100)))), flush=True)
"""


def test_health_answers_at_once_while_one_key_bursts_and_the_burst_is_capped(server) -> None:
    srv, keys = server
    agent = cg.connect(srv.url, keys["busy"])
    people = [f"Person{i}" for i in range(12)]
    items = [{"content": f"{people[i % 12]} met {people[(i * 5 + 1) % 12]} about project {i % 7} on day {i}",
              "entities": [people[i % 12], people[(i * 5 + 1) % 12], f"project {i % 7}"]} for i in range(240)]
    for start in range(0, len(items), 80):
        agent.encode_many(items[start:start + 80])

    # Probes and burst come from processes of their own, the burst's at a lower CPU priority: on
    # this machine its 100 client threads share two cores with the server, which in a deployment
    # they would not; what is measured is the server's delay, not theirs.
    stop = srv.home.parent / "stop-polling"
    poller = subprocess.Popen([sys.executable, "-c", POLL_HEALTH, f"{srv.url}/health", str(stop)],
                              env=child_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert poller.stdout is not None and poller.stdout.readline().strip() == "polling"
        burst = subprocess.run([sys.executable, "-c", BURST, srv.url, keys["busy"]], env=child_env(),
                               capture_output=True, text=True, timeout=240, preexec_fn=lambda: os.nice(10))
        assert burst.returncode == 0, burst.stderr[-2000:]
        answers = [(status, body) for status, body in json.loads(burst.stdout)]
        time.sleep(0.2)
    finally:
        stop.touch()
        polled, _ = poller.communicate(timeout=60)
    health = [(int(status), float(took)) for status, took in (line.split() for line in polled.splitlines())]

    latencies = sorted(t for _, t in health)
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    print(f"\n/health during the burst: {len(latencies)} probes, p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms; burst: "
          f"{sum(s == 200 for s, _ in answers)} answered, {sum(s == 429 for s, _ in answers)} refused (429)")
    assert health and all(status == 200 for status, _ in health), "every /health answered"
    assert latencies[-1] < 1.0, f"/health never waits for the store's workers (slowest {latencies[-1]:.2f} s)"
    refused = [body for status, body in answers if status == 429]
    assert refused, "past the key's requests in progress, the burst gets 429"
    assert all(set(body) == {"error", "status"} and body["status"] == 429 and "in progress" in body["error"]
               for body in refused)
    assert {status for status, _ in answers} <= {200, 429} and len(refused) < 100
    other = httpx.post(f"{srv.url}/v1/multi-hop", headers=auth(keys["other"]), json={"query": "projects"}, timeout=60)
    assert other.status_code == 200, "another key is not held to the busy key's requests"


def test_warm_up_runs_the_read_path_and_writes_nothing(tmp_path) -> None:
    from cogmem_graph.server.app import warm_up

    home = tmp_path / "home"
    store = cg.open(home=home, embedder="hash")
    try:
        store.agent("a", user_id="u").encode_many([{"content": f"Ada met Bo about project {i}",
                                                    "entities": ["Ada", "Bo"]} for i in range(5)])

        def graph_log() -> bytes:
            return b"".join(p.read_bytes() for p in sorted((home / "graph").rglob("*.aof")))

        stats, written = store.stats(), graph_log()
        warm_up(store)
        assert store.stats() == stats
        assert graph_log() == written, "the graph's append-only log is unchanged: nothing was written"
    finally:
        store.close()


# ---------------------------------------------------------------- point 10: bad keys, 503 bodies, passwords


def test_a_burst_of_bad_keys_from_one_address_gets_429_and_valid_keys_still_pass(server) -> None:
    srv, keys = server
    statuses: list[int] = []
    with httpx.Client(timeout=10) as client:
        for i in range(40):
            answer = client.get(f"{srv.url}/v1/whoami", headers=auth(f"cgm_guess_{i:04d}"))
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                body = answer.json()
                assert set(body) == {"error", "status"} and body["status"] == 429
                assert int(answer.headers["retry-after"]) >= 1 and "API key" in body["error"]
        assert statuses[0] == 401 and 429 in statuses, statuses
        assert client.get(f"{srv.url}/v1/whoami", headers=auth(keys["other"])).status_code == 200
        assert client.get(f"{srv.url}/v1/whoami").status_code == 429, "no key at all counts as a bad key"
        spoofed = client.get(f"{srv.url}/v1/whoami", headers={**auth("cgm_guess"), "X-Forwarded-For": "10.9.8.7"})
        assert spoofed.status_code == 429, "the address is the peer's, not one a header claims"
    first = statuses.index(429)
    assert 5 <= first <= 30 and all(s == 429 for s in statuses[first:]), statuses


def test_a_503_names_the_embedded_graph_by_its_home_not_its_port(tmp_path) -> None:
    """The embedded graph server is killed until a write fails (it may be started again a few
    times first); the 503 names the backend, never the loopback port it ran on."""
    home = tmp_path / "home"
    key = add_key(home, "--agent", "a", "--user", "u")
    srv = Server(home, free_port(), ("--consolidate-every", "0")).start()
    ports: set[int] = set()
    try:
        for _ in range(6):
            graph = json.loads((home / "graph" / SERVER_FILE).read_text())
            ports.add(int(graph["port"]))
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(graph["pid"]), signal.SIGKILL)
            answer = httpx.post(f"{srv.url}/v1/memories", headers=auth(key), json={"content": "lost"}, timeout=120)
            if answer.status_code != 200:
                break
        assert answer.status_code == 503, answer.text
        body = answer.json()
        assert set(body) == {"error", "status"} and body["status"] == 503
        assert "graph" in body["error"] and f"under {home}" in body["error"], body
        assert "127.0.0.1" not in body["error"] and not [p for p in ports if str(p) in body["error"]], body
        print(f"\n503 after {len(ports)} kills: {body['error']}")
    finally:
        srv.kill()


def test_serve_warns_of_a_password_in_its_own_arguments_and_not_of_one_in_the_environment(tmp_path) -> None:
    closed = free_port()  # nothing listens there: the store does not open, after the warning
    url = f"redis://cogmem:s3cret-pw@127.0.0.1:{closed}"
    given = cogmem("--home", str(tmp_path / "h1"), "--graph", url, "serve", "--port", str(free_port()), timeout=180)
    assert given.returncode == 1, given.stderr
    assert "--graph carries a password on the command line" in given.stderr and "COGMEM_GRAPH" in given.stderr
    assert "s3cret-pw" not in given.stderr + given.stdout
    from_env = cogmem("--home", str(tmp_path / "h2"), "serve", "--port", str(free_port()), timeout=180,
                      COGMEM_GRAPH=url)
    assert from_env.returncode == 1 and "carries a password" not in from_env.stderr, from_env.stderr
    assert "s3cret-pw" not in from_env.stderr + from_env.stdout


# ---------------------------------------------------------------- point 11: a busy port


def test_serve_on_a_busy_port_fails_at_once_naming_the_port(tmp_path) -> None:
    home = tmp_path / "home"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = cogmem("--home", str(home), "--embedder", "hash", "serve", "--port", str(port), timeout=120)
        took = time.monotonic() - started
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert f"port {port}" in done.stderr and "in use" in done.stderr, done.stderr
    assert "serving on" not in done.stderr, "nothing claims to serve"
    assert not (home / "graph").exists(), "the port is checked before the store opens"
    print(f"\nbusy port: exit {done.returncode} after {took:.1f} s")
