"""Load benchmark of `cogmem serve`: concurrent clients against the server beside the same
work in-process, and the CLI's per-command time with and without `--server`.

    python benchmarks/server_load.py                      # 16 clients, 60 s per phase, hash embedder
    python benchmarks/server_load.py --clients 8 --seconds 10
    python benchmarks/server_load.py --embedder local     # MiniLM (the server keeps it warm)

Two memory homes are seeded alike (one organization, a user per client). Phase 1 runs
the clients as threads on agent handles of one in-process store; phase 2 starts the
server on the other home and runs the clients as threads, each with its own
`cg.connect` key. Each client loops for `--seconds`: half `encode` of a new sentence,
half `retrieve` of a random topic. The CLI is timed running `cogmem recall` as a user
does (a fresh process each time): on the in-process home, then against the server.

Prints one table; wall-clock times on this machine (benchmarks never assert them). The
clients run in this process, so on a small machine they compete with the server for
the CPU: the overhead ratio is an upper bound.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

import cogmem_graph as cg

REPO = Path(__file__).resolve().parents[1]
ORG = "bench-org"
SEED_PER_CLIENT = 25
TOPICS = ["hiking", "the budget review", "the new office", "the release plan", "jazz concerts", "tax forms",
          "the database migration", "a trip to Lisbon", "the quarterly report", "sourdough baking",
          "the hiring plan", "marathon training", "the design review", "the API outage", "the garden"]
NAMES = ["Alice", "Bruno", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana", "Ivan", "Jun", "Kofi", "Lena"]


def sentence(rng: random.Random, i: int) -> str:
    return f"{rng.choice(NAMES)} talked about {rng.choice(TOPICS)} on day {i} ({rng.randrange(10**6)})"


def seed(agent, client: int) -> None:
    rng = random.Random(client)
    agent.encode_many([{"content": sentence(rng, i), "scope": "organization" if i % 5 == 0 else "user"}
                       for i in range(SEED_PER_CLIENT)])


def run_load(agents: list, seconds: float) -> dict[str, list[float]]:
    """Each agent in its own thread: encode or retrieve at random until time is up."""
    latencies: dict[str, list[float]] = {"remember": [], "recall": []}
    errors: list[str] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(index: int, agent) -> None:
        rng = random.Random(1000 + index)
        mine: dict[str, list[float]] = {"remember": [], "recall": []}
        i = 0
        while time.monotonic() < stop_at:
            op = "remember" if rng.random() < 0.5 else "recall"
            started = time.perf_counter()
            try:
                if op == "remember":
                    agent.encode(sentence(rng, 10_000 + i))
                else:
                    agent.retrieve(f"what about {rng.choice(TOPICS)}?", top_k=10)
            except Exception as exc:  # counted, shown under the table
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
                continue
            mine[op].append((time.perf_counter() - started) * 1000)
            i += 1
        with lock:
            for name, values in mine.items():
                latencies[name].extend(values)

    threads = [threading.Thread(target=client, args=(i, a)) for i, a in enumerate(agents)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies["errors"] = errors  # type: ignore[assignment]
    return latencies


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cogmem_cmd(*args: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cogmem_graph.cli", *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"cogmem {' '.join(args)} failed: {done.stderr[-500:]}")
    return elapsed


def median_of(runs: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(runs))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    for name in ("COGMEM_SERVER", "COGMEM_API_KEY", "COGMEM_HOME"):
        env.pop(name, None)
    return env


def start_server(home: Path, embedder: str, port: int, log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "cogmem_graph.cli", "--home", str(home), "--embedder", embedder,
                                 "serve", "--port", str(port), "--rate", "0", "--consolidate-every", "0"],
                                env=child_env(), cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server not ready in 300 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--cli-runs", type=int, default=3, help="CLI runs per mode (median)")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 150))
    tmp = Path(tempfile.mkdtemp(prefix="cogmem-server-load-"))
    local_home, server_home = tmp / "in-process", tmp / "server"
    identities = [{"agent_id": f"agent{i}", "user_id": f"user{i}", "organization_id": ORG} for i in range(args.clients)]

    # Phase 1: in-process.
    console.print(f"in-process: {args.clients} clients for {args.seconds:.0f} s …")
    with cg.open(home=local_home, embedder=args.embedder) as store:
        agents = [store.agent(**ident) for ident in identities]
        for i, agent in enumerate(agents):
            seed(agent, i)
        local = run_load(agents, args.seconds)
    env = child_env()
    cli_local = median_of(args.cli_runs, lambda: cogmem_cmd(
        "--home", str(local_home), "--embedder", args.embedder, "--agent", "agent0", "--user", "user0",
        "--org", ORG, "recall", "what about the garden?", "--json", env=env))

    # Phase 2: the server.
    from cogmem_graph.server.keys import KeyRing, default_keys_path

    ring = KeyRing(default_keys_path(server_home))
    keys = [ring.add(**ident)[0] for ident in identities]
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    console.print(f"server: starting on {url} …")
    proc = start_server(server_home, args.embedder, port, tmp / "server.log")
    try:
        remotes = [cg.connect(url, key) for key in keys]
        for i, remote in enumerate(remotes):
            seed(remote, i)
        console.print(f"server: {args.clients} clients for {args.seconds:.0f} s …")
        served = run_load(remotes, args.seconds)
        for remote in remotes:
            remote.close()
        cli_server = median_of(args.cli_runs, lambda: cogmem_cmd(
            "--server", url, "--key", keys[0], "recall", "what about the garden?", "--json", env=env))
    finally:
        stop_server(proc)

    table = Table(title=f"cogmem serve under load: {args.clients} clients, {args.seconds:.0f} s per mode, "
                        f"embedder {args.embedder}, {os.cpu_count()} CPUs")
    for column in ("mode", "ops", "ops/s", "remember p50", "remember p95", "recall p50", "recall p95",
                   "all p50", "all p95", "errors"):
        table.add_column(column, justify="right")
    rows = {}
    for name, data in (("in-process", local), ("server (REST)", served)):
        every = data["remember"] + data["recall"]
        rows[name] = (len(every) / args.seconds, pct(every, 0.5), pct(every, 0.95))
        table.add_row(name, str(len(every)), f"{len(every) / args.seconds:.1f}",
                      *(f"{pct(data[op], q):.1f} ms" for op in ("remember", "recall") for q in (0.5, 0.95)),
                      f"{pct(every, 0.5):.1f} ms", f"{pct(every, 0.95):.1f} ms", str(len(data["errors"])))
    (tl, p50l, p95l), (ts, p50s, p95s) = rows["in-process"], rows["server (REST)"]
    table.add_row("server / in-process", "", f"{ts / tl:.2f}×", "", "", "", "", f"{p50s / p50l:.2f}×",
                  f"{p95s / p95l:.2f}×", "")
    console.print(table)
    cli = Table(title=f"CLI: `cogmem recall` per command (median of {args.cli_runs}, a fresh process each)")
    cli.add_column("mode")
    cli.add_column("seconds", justify="right")
    cli.add_row("embedded store (opens it each time)", f"{cli_local:.2f}")
    cli.add_row("--server URL", f"{cli_server:.2f}")
    console.print(cli)
    for name, data in (("in-process", local), ("server", served)):
        for error in sorted(set(data["errors"]))[:5]:
            console.print(f"[red]{name} error:[/red] {error}")


if __name__ == "__main__":
    main()
