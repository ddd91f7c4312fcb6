"""Soak benchmark: a bounded mixed workload against the embedded store, watching for
growth in latency and memory over time.

    python benchmarks/soak.py                          # 2000 operations, hash embedder
    python benchmarks/soak.py --ops 20000 --seconds 600
    python benchmarks/soak.py --embedder local         # MiniLM, as users get it by default

The mix: encode (one memory), encode_many (a batch), retrieve, assemble_for_prompt,
and `store.consolidate()` every `--consolidate-every` operations when the store has it.
Several agents across users and one organization take turns. The last
`--read-fraction` of the operations only read (retrieve, assemble): the store stops
growing there, so memory that still grows in that phase is a leak, not data. The run
stops after `--ops` operations or `--seconds`, whichever comes first.

Prints, per operation kind, count, p50, p95 and max latency; per window of the run,
throughput, p95, the Python process RSS and the graph server RSS (psutil when
installed, else /proc), the traces stored; and the memory at the start and the end
with the growth per 1000 operations after warm-up. Numbers are wall-clock on this
machine; nothing is asserted here.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cogmem_graph as cg  # noqa: E402

WORDS = (
    "amber basalt cedar delta ember falcon garnet harbor indigo juniper kettle lantern meadow nectar orchid "
    "pepper quartz raven saffron timber umber velvet willow yarrow zephyr anchor bramble canyon dune estuary "
    "fjord glacier heather island jasmine kelp lagoon marsh nutmeg oasis pebble quill reef sierra tundra"
).split()
NAMES = ["Biscuit", "Lena", "Omar", "Priya", "Tokyo", "Lisbon", "Acme", "Quartz Lake"]
WINDOWS = 5


def rss_mb(pid: int | None = None) -> float | None:
    """Resident set size in MB of a process (this one by default), or None if unknown."""
    pid = pid or os.getpid()
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2**20
    except ImportError:
        pass
    except Exception:
        return None
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def fmt(value: float | None, spec: str = ".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(NAMES)} " + " ".join(rng.sample(WORDS, rng.randint(5, 12))) + f" {rng.randrange(10**6)}"


class Soak:
    def __init__(self, store: cg.MemoryStore, args: argparse.Namespace) -> None:
        self.store = store
        self.args = args
        self.rng = random.Random(args.seed)
        self.agents = [
            store.agent(f"agent{i % 3}", user_id=f"user{i}", thread_id=f"t{i}", organization_id="acme")
            for i in range(args.agents)
        ]
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.windows: list[dict] = []
        server = getattr(store.graph, "embedded_server", None)
        self.server_pid = server.process.pid if server is not None and server.process is not None else None
        self.can_consolidate = callable(getattr(store, "consolidate", None)) and args.consolidate_every > 0

    def op(self, index: int, *, read_only: bool = False) -> str:
        agent = self.agents[index % len(self.agents)]
        if self.can_consolidate and not read_only and index and index % self.args.consolidate_every == 0:
            self.store.consolidate()
            return "consolidate"
        roll = 0.5 + self.rng.random() / 2 if read_only else self.rng.random()
        if roll < 0.40:
            agent.encode(sentence(self.rng), scope="organization" if self.rng.random() < 0.1 else None)
            return "encode"
        if roll < 0.50:
            agent.encode_many([{"content": sentence(self.rng)} for _ in range(self.args.batch)])
            return "encode_many"
        if roll < 0.90:
            agent.retrieve(" ".join(self.rng.sample(WORDS + NAMES, 4)), top_k=10)
            return "retrieve"
        agent.assemble_for_prompt(" ".join(self.rng.sample(WORDS + NAMES, 4)), token_budget=500)
        return "assemble_for_prompt"

    def sample(self, label: str, ops: int, seconds: float, window_latencies: list[float], phase: str) -> None:
        self.windows.append({
            "label": label, "phase": phase, "ops": ops, "seconds": seconds,
            "p95": percentile(window_latencies, 0.95) * 1000 if window_latencies else None,
            "py_rss": rss_mb(), "graph_rss": rss_mb(self.server_pid) if self.server_pid else None,
            "traces": self.store.stats().active_traces,
        })

    def run(self) -> tuple[int, float]:
        args = self.args
        for i in range(min(20, args.ops)):  # warm-up: imports, caches, first statements compiled
            self.op(i)
        self.latency.clear()
        self.sample("start", 0, 0.0, [], "-")
        mixed = args.ops - int(args.ops * args.read_fraction)
        window_size = max(1, args.ops // WINDOWS)
        deadline = time.monotonic() + args.seconds if args.seconds else None
        started = time.perf_counter()
        window_start, window_lat, done = started, [], 0
        for index in range(args.ops):
            read_only = index >= mixed
            t0 = time.perf_counter()
            kind = self.op(index, read_only=read_only)
            elapsed = time.perf_counter() - t0
            self.latency[kind].append(elapsed)
            window_lat.append(elapsed)
            done += 1
            last = done == args.ops or (deadline is not None and time.monotonic() >= deadline)
            if done % window_size == 0 or done == mixed or last:
                now = time.perf_counter()
                self.sample(f"w{len(self.windows)}", len(window_lat), now - window_start, window_lat,
                            "read" if read_only else "mixed")
                window_start, window_lat = now, []
            if last:
                break
        return done, time.perf_counter() - started

    def report(self, done: int, total_s: float) -> None:
        print(f"\ncogmem soak: {done} operations in {total_s:.1f} s = {done / total_s:.1f} ops/s "
              f"({len(self.agents)} agents, embedder {self.store.embedder.name}, home {self.store.home})")
        print(f"\n{'operation':<22}{'count':>7}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
        for kind in ("encode", "encode_many", "retrieve", "assemble_for_prompt", "consolidate"):
            values = self.latency.get(kind)
            if not values:
                continue
            print(f"{kind:<22}{len(values):>7}{percentile(values, 0.5) * 1000:>10.1f}"
                  f"{percentile(values, 0.95) * 1000:>10.1f}{max(values) * 1000:>10.1f}")
        print(f"\n{'window':<8}{'phase':>6}{'ops':>6}{'ops/s':>9}{'p95 ms':>9}{'python RSS MB':>15}"
              f"{'graph RSS MB':>14}{'traces':>8}")
        for w in self.windows:
            rate = w["ops"] / w["seconds"] if w["seconds"] else None
            print(f"{w['label']:<8}{w['phase']:>6}{w['ops']:>6}{fmt(rate):>9}{fmt(w['p95']):>9}"
                  f"{fmt(w['py_rss']):>15}{fmt(w['graph_rss']):>14}{w['traces']:>8}")
        first, last = self.windows[0], self.windows[-1]
        print(f"\nmemory: python RSS start {fmt(first['py_rss'])} MB -> end {fmt(last['py_rss'])} MB; "
              f"graph server RSS start {fmt(first['graph_rss'])} MB -> end {fmt(last['graph_rss'])} MB")
        for phase, note in (("mixed", "the store grows with the memories written"),
                            ("read", "no new memories: growth here would be a leak")):
            windows = [w for w in self.windows if w["phase"] == phase]
            before = self.windows[self.windows.index(windows[0]) - 1] if windows else None
            ops = sum(w["ops"] for w in windows)
            if not windows or not ops:
                continue
            parts = []
            for key, name in (("py_rss", "python"), ("graph_rss", "graph server")):
                a, b = before[key], windows[-1][key]
                if a is not None and b is not None:
                    parts.append(f"{name} {(b - a) / ops * 1000:+.1f} MB")
            print(f"growth per 1000 ops, {phase} phase ({ops} ops, traces {before['traces']} -> "
                  f"{windows[-1]['traces']}): {', '.join(parts) or 'n/a'} ({note})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=2000, help="operations to run (after a short warm-up)")
    parser.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds (0: no limit)")
    parser.add_argument("--agents", type=int, default=6)
    parser.add_argument("--batch", type=int, default=10, help="memories per encode_many")
    parser.add_argument("--read-fraction", type=float, default=0.2, help="share of read-only operations at the end")
    parser.add_argument("--consolidate-every", type=int, default=500, help="0 disables consolidation")
    parser.add_argument("--embedder", default="hash", help="hash (default), local, or any cg.open() spec")
    parser.add_argument("--home", type=Path, help="memory home (default: a temporary folder)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.ops < 1 or args.agents < 1 or args.batch < 1:
        parser.error("--ops, --agents and --batch must be positive")
    if not 0.0 <= args.read_fraction < 1.0:
        parser.error("--read-fraction must be in [0, 1)")
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        with cg.open(home=home, embedder=args.embedder) as store:
            soak = Soak(store, args)
            done, total = soak.run()
            soak.report(done, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
