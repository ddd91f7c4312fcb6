"""The async store's calls on the event loop (FalkorDB's asyncio client) beside the same calls
on threads only, on the embedded default.

A home is filled once; then rounds alternate the two ways (which goes first alternates too),
each opening the home with `cg.open_async` and sending `--calls` concurrent calls (four in five
a `retrieve`, one in five an `encode`; `--retrieve-only`: every one a `retrieve`) from
`--tasks` tasks at a time. For each way: calls per
second, the latency of one call, the event loop's lag (how late a task that sleeps 5 ms again
and again wakes up) and the most threads the process ran.

With `--rtt-ms N` the graph is a FalkorDB server across a network: the embedded server's
binary started by the benchmark, reached through a local relay that holds each message
N/2 ms each way, as a graph server in another machine of the same data centre would.

    python benchmarks/async_calls.py                            # 2,000 traces, 3 rounds
    python benchmarks/async_calls.py --traces 10000 --calls 400 --tasks 64 --rounds 4
    python benchmarks/async_calls.py --rtt-ms 2                 # a graph server 2 ms away
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.graph.falkordb.launcher import acquire_embedded, release_embedded

START_MS = 1_700_000_000_000
PROBE_S = 0.005
TOPICS = ("the deploy pipeline", "the billing export", "the office wifi", "the team offsite",
          "the database backup", "the release notes", "the hiring plan", "the on-call rota")
WAYS = ("on the loop", "threads only")


def fact(i: int) -> str:
    return f"Note {i}: {TOPICS[i % len(TOPICS)]} was discussed with colleague number {i * 7 % 31} on day {i % 90}"


class Relay:
    """A TCP relay on 127.0.0.1 to `port`, holding each chunk `delay_s` before passing it on."""

    def __init__(self, port: int, delay_s: float) -> None:
        self.upstream, self.delay_s = port, delay_s
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.port = 0

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()

        threading.Thread(target=serve, name="relay", daemon=True).start()
        ready.wait(10)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while chunk := await reader.read(1 << 16):
                await asyncio.sleep(self.delay_s)
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()


def fill(home: Path, traces: int, graph: str | None) -> None:
    with cg.open(home, graph=graph, embedder="hash", clock=ManualClock(START_MS)) as store:
        agent = store.agent("bench", user_id="u1")
        for start in range(0, traces, 1_000):
            agent.encode_many([{"content": fact(i), "scope": "user"} for i in range(start, min(traces, start + 1_000))])


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_round(home: Path, graph: str | None, native_calls: int | None, calls: int, tasks: int, workers: int,
                    offset: int, writes: bool = True) -> dict[str, float]:
    config = CogmemConfig() if native_calls is None else CogmemConfig(async_native_calls=native_calls)
    async with cg.open_async(home, graph=graph, embedder="hash", clock=ManualClock(START_MS), config=config,
                             workers=workers) as store:
        agents = [store.agent(f"bench-{i}", user_id="u1") for i in range(8)]
        await agents[0].retrieve("warm up", top_k=5)
        await agents[0].encode("warm up", scope="user")
        lags: list[float] = []
        most_threads = threading.active_count()
        stop = asyncio.Event()

        async def probe() -> None:
            nonlocal most_threads
            loop = asyncio.get_running_loop()
            while not stop.is_set():
                asked = loop.time()
                await asyncio.sleep(PROBE_S)
                lags.append(loop.time() - asked - PROBE_S)
                most_threads = max(most_threads, threading.active_count())

        turns = asyncio.Semaphore(tasks)
        latencies: list[float] = []

        async def call(i: int) -> None:
            async with turns:
                agent = agents[i % len(agents)]
                began = time.perf_counter()
                if writes and i % 5 == 4:
                    await agent.encode(fact(offset + i), scope="user")
                else:
                    await agent.retrieve(TOPICS[i % len(TOPICS)] + f" day {i % 90}", top_k=10)
                latencies.append(time.perf_counter() - began)

        prober = asyncio.create_task(probe())
        await asyncio.sleep(PROBE_S * 4)
        began = time.perf_counter()
        await asyncio.gather(*(call(i) for i in range(calls)))
        elapsed = time.perf_counter() - began
        stop.set()
        await prober
        return {"calls/s": calls / elapsed, "p50 ms": _p(latencies, 0.5) * 1000, "p95 ms": _p(latencies, 0.95) * 1000,
                "lag p99 ms": _p(lags, 0.99) * 1000, "lag max ms": max(lags) * 1000, "threads": most_threads,
                "native": store.native_calls}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=2_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=32, help="calls in progress at once, at most")
    parser.add_argument("--workers", type=int, default=4, help="the async store's threads")
    parser.add_argument("--native", type=int, help="calls on the loop at once (default: config.async_native_calls)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--home", type=Path, help="keep the home here (default: a temporary folder)")
    parser.add_argument("--retrieve-only", action="store_true", help="every call a retrieve (no encode)")
    parser.add_argument("--rtt-ms", type=float, default=0.0,
                        help="a graph server this far away (a relay's delay); 0: the embedded server")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or Path(scratch) / "home"
        server = acquire_embedded(Path(scratch) / "graph-server") if args.rtt_ms > 0 else None
        try:
            graph = near = None
            if server is not None:
                relay = Relay(server.port, args.rtt_ms / 2000)
                near = f"falkor://:{server.password}@127.0.0.1:{server.port}"
                graph = f"falkor://:{server.password}@127.0.0.1:{relay.port}"
            fill(home, args.traces, near)
            rows: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
            for r in range(args.rounds):
                order = list(WAYS) if r % 2 == 0 else list(reversed(WAYS))
                for way in order:
                    offset = 10_000_000 + (r * len(WAYS) + order.index(way)) * args.calls
                    native = (args.native if way == "on the loop" else 0)
                    rows[way].append(asyncio.run(one_round(home, graph, native, args.calls, args.tasks,
                                                           args.workers, offset, writes=not args.retrieve_only)))
        finally:
            if server is not None:
                release_embedded(server)

    where = f"a graph server {args.rtt_ms:g} ms away" if args.rtt_ms > 0 else "the embedded graph"
    kind = "retrievals" if args.retrieve_only else "calls"
    table = Table(title=f"{args.calls} concurrent {kind} ({args.tasks} at a time) on {args.traces:,} traces, "
                        f"{where}, {args.workers} worker threads: medians of {args.rounds} interleaved rounds")
    columns = ["calls/s", "p50 ms", "p95 ms", "lag p99 ms", "lag max ms", "threads"]
    table.add_column("calls run")
    for column in columns:
        table.add_column(column, justify="right")
    medians = {way: {c: statistics.median(run[c] for run in runs) for c in [*columns, "native"]}
               for way, runs in rows.items()}
    for way, values in medians.items():
        table.add_row(way, *(f"{values[c]:,.1f}" if c != "threads" else f"{values[c]:.0f}" for c in columns))
    console = Console(width=120)
    console.print(table)
    console.print(f"on the loop: up to {int(medians['on the loop']['native'])} calls at a time wait for the graph "
                  "through FalkorDB's asyncio client; threads only: async_native_calls=0. p50/p95: one call, "
                  "from its task's turn; lag: how late the loop wakes a task sleeping 5 ms.")
    return medians


if __name__ == "__main__":
    main()
