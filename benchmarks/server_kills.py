"""Kill `cogmem serve` under a write load, again and again, and check what the clients saw.

    python benchmarks/server_kills.py                       # 8 kills, 6 clients, 3 s of load between kills
    python benchmarks/server_kills.py --kills 40 --clients 8 --seconds 5
    python benchmarks/server_kills.py --mode server          # only the server process (graph: only its graph server)

Each client is a thread with its own key (its own user, one organization) writing over HTTP
(`POST /v1/memories` and `/v1/memories/batch` of 3 in turn) as fast as the server answers;
a request that failed is sent again, as an agent would, until it is acknowledged. Between
kills the load runs `--seconds`; then, in turn (`--mode both`), the server process is
SIGKILLed and started again on the same home, or its embedded graph server is SIGKILLed
(the store starts it again). The clients go on through every kill.

Every answer must be a success, a 503 with `Retry-After`, or a 4xx: anything else (a 500)
is counted and its body shown, with the lines of the server's log that hold a traceback.
At the end every acknowledged memory is read back through the server: there verbatim,
active and indexed. Prints the answers by status and the counts; exits 1 when an answer
was not allowed or an acknowledged memory is missing. Wall-clock times are this machine's.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

if __package__ in (None, ""):  # run as a script from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server_load import ORG, free_port, sentence, start_server  # noqa: E402

BATCH = 3
ANSWER_TIMEOUT_S = 60.0


def allowed(response: httpx.Response) -> bool:
    """A success, a retryable 503 that says when to retry, or a refusal of the request (4xx)."""
    status = response.status_code
    return status < 300 or 400 <= status < 500 or (status == 503 and "retry-after" in response.headers)


class Client(threading.Thread):
    """Writes until stopped, each item sent again until acknowledged; keeps every answer's status
    and every acknowledged memory (trace id -> content)."""

    def __init__(self, number: int, url: str, key: str) -> None:
        super().__init__(name=f"client{number}", daemon=True)
        self.number, self.url, self.key = number, url, key
        self.stop = threading.Event()
        self.acked: dict[str, str] = {}
        self.answers: Counter[str] = Counter()
        self.not_allowed: list[str] = []
        self.rng = random.Random(number)

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        pending: list[str] = []
        turn = 0
        with httpx.Client(timeout=ANSWER_TIMEOUT_S, headers=headers) as http:
            while not self.stop.is_set():
                if not pending:
                    turn += 1
                    pending = [f"{sentence(self.rng, turn)} [client {self.number}]"
                               for _ in range(BATCH if turn % 2 else 1)]
                try:
                    if len(pending) > 1:
                        response = http.post(f"{self.url}/v1/memories/batch",
                                             json={"items": [{"content": c} for c in pending]})
                    else:
                        response = http.post(f"{self.url}/v1/memories", json={"content": pending[0]})
                except httpx.HTTPError as exc:  # the server is down or was killed under the request
                    self.answers[type(exc).__name__] += 1
                    time.sleep(0.05)
                    continue
                status = str(response.status_code) + (" Retry-After" if "retry-after" in response.headers else "")
                self.answers[status] += 1
                if response.status_code == 200:
                    body = response.json()
                    for trace, content in zip(body if len(pending) > 1 else [body], pending, strict=True):
                        self.acked[trace["id"]] = content
                    pending = []
                    continue
                if not allowed(response):
                    kind = "batch" if len(pending) > 1 else "single"
                    self.not_allowed.append(f"{kind} write: {response.status_code} {response.text[:400]}")
                wait = response.headers.get("retry-after")
                time.sleep(min(float(wait), 2.0) if wait and wait.isdigit() else 0.05)


def graph_server_pids(server: subprocess.Popen) -> list[int]:
    """The embedded graph servers (redis-server) the server process runs."""
    found = subprocess.run(["pgrep", "-P", str(server.pid), "redis-server"], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


def tracebacks(logs: list[Path]) -> list[str]:
    """Each logged traceback, shortened to its last frames and the exception it ends with."""
    blocks: list[str] = []
    for log in logs:
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        at = 0
        while at < len(lines):
            if not lines[at].startswith("Traceback"):
                at += 1
                continue
            end = at + 1  # a traceback ends at its first line that is not indented (the exception)
            while end < len(lines) and (lines[end].startswith(" ") or lines[end].startswith("Traceback")):
                end += 1
            block = lines[max(at - 1, 0):end + 1]
            shown = block if len(block) <= 24 else [*block[:2], "  ...", *block[-20:]]
            blocks.append(f"{log.name}:{at + 1}:\n" + "\n".join(shown))
            at = end + 1
    return blocks


def read_back(url: str, clients: list[Client]) -> list[str]:
    """Every acknowledged memory through the server: what is missing or not whole."""
    problems: list[str] = []
    with httpx.Client(timeout=ANSWER_TIMEOUT_S) as http:
        for client in clients:
            for trace_id, content in client.acked.items():
                response = http.get(f"{url}/v1/memories/{trace_id}", headers={"Authorization": f"Bearer {client.key}"})
                trace = response.json().get("trace", {}) if response.status_code == 200 else {}
                if trace.get("content") != content or not trace.get("is_active") or not trace.get("indexed"):
                    what = trace or response.text[:200]
                    problems.append(f"{trace_id} of client {client.number}: {response.status_code} {what}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=3.0, help="load between kills")
    parser.add_argument("--mode", choices=("both", "server", "graph"), default="both",
                        help="what is killed: the server process, its graph server, or each in turn")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--home", type=Path, help="memory home (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.kills < 1 or args.clients < 1 or args.seconds <= 0:
        parser.error("--kills, --clients and --seconds must be positive")
    with tempfile.TemporaryDirectory(prefix="cogmem-server-kills-") as tmp:
        home = args.home or Path(tmp) / "home"
        logs = Path(tmp)
        return run(args, home, logs)


def run(args: argparse.Namespace, home: Path, logs: Path) -> int:
    from cogmem_graph.server.keys import KeyRing, default_keys_path

    ring = KeyRing(default_keys_path(home))
    keys = [ring.add(agent_id=f"agent{i}", user_id=f"user{i}", organization_id=ORG)[0] for i in range(args.clients)]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    server_logs = [logs / "server-0.log"]
    server = start_server(home, args.embedder, port, server_logs[-1])
    clients = [Client(i, url, key) for i, key in enumerate(keys)]
    kills: Counter[str] = Counter()
    problems: list[str] = []
    try:
        for client in clients:
            client.start()
        for number in range(args.kills):
            time.sleep(args.seconds)
            graph = args.mode == "graph" or (args.mode == "both" and number % 2 == 1)
            pids = graph_server_pids(server) if graph else []
            if pids:
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                kills["graph server"] += 1
            else:
                server.kill()
                server.wait()
                kills["server"] += 1
                server_logs.append(logs / f"server-{len(server_logs)}.log")
                server = start_server(home, args.embedder, port, server_logs[-1])
        time.sleep(args.seconds)
    finally:
        for client in clients:
            client.stop.set()
        for client in clients:
            client.join(ANSWER_TIMEOUT_S + 5)
    try:
        problems = read_back(url, clients)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    answers: Counter[str] = sum((c.answers for c in clients), Counter())
    not_allowed = [line for c in clients for line in c.not_allowed]
    acked = sum(len(c.acked) for c in clients)
    print(f"cogmem server kills: {sum(kills.values())} kills ({kills['server']} of the server, "
          f"{kills['graph server']} of its graph server), {args.clients} clients, {args.seconds:g} s of load between "
          f"kills, {time.monotonic() - started:.0f} s in all")
    print("answers: " + ", ".join(f"{name} x{count}" for name, count in sorted(answers.items())))
    print(f"not allowed: {len(not_allowed)}")
    for line in not_allowed[:10]:
        print(f"  {line}")
    for block in tracebacks(server_logs)[-6:]:
        print(block)
    print(f"acknowledged memories: {acked}, missing or not whole after the kills: {len(problems)}")
    for line in problems[:10]:
        print(f"  {line}")
    return 1 if not_allowed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
