"""Consolidation step by step, cold and after a day's writes: what each step costs and how
many rows its statements read, so a step whose cost follows the store's size (rather than
what changed since the last run) shows.

    python benchmarks/consolidation_steps.py                       # N = 10k
    python benchmarks/consolidation_steps.py --sizes 10000 100000 --days 2

For each N: ingest N traces (the corpus of `consolidation_bench.py`: hash embedder,
`encode_many`, ManualClock, CONTRADICTS edges), move the clock two hours, run
`store.consolidate()` once (cold); then, `--days` times, a day's writes — `--day-share`
(1 %) of N new traces spread over the users through the day, a few retrievals, a few
contradictions among the day's traces — the clock at the day's end, and one run. Each
step is timed by wrapping the functions of the consolidator's list of steps; the figure in
brackets counts the rows its graph statements returned; "swept" counts the traces the decay
sweep read (the due ones where it keeps a schedule, every active one where it does not).
Prints one table; wall-clock times on this machine.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from consolidation_bench import corpus  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.api.store import consolidator_for  # noqa: E402
from cogmem_graph.between_turns.consolidation.steps import STEPS, AllKeys, EachKey  # noqa: E402
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, ManualClock  # noqa: E402
from cogmem_graph.config import CogmemConfig  # noqa: E402
from cogmem_graph.graph.port import Edge  # noqa: E402
from cogmem_graph.model import EdgeType, Hexaco  # noqa: E402

STEP_NAMES = tuple(f.__name__ for step in STEPS for f in step.functions)


class StepWatch:
    """Times each consolidation step and counts the graph rows it read."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)
        self.rows: dict[str, int] = defaultdict(int)
        self.current = "other"
        self.scheduled = 0

    def wrap(self, fn: Callable) -> Callable:
        def timed(sc, *args, **kwargs):
            previous, self.current = self.current, fn.__name__
            start = time.perf_counter()
            try:
                return fn(sc, *args, **kwargs)
            finally:
                self.ms[self.current] += (time.perf_counter() - start) * 1000
                self.current = previous
        return timed

    def watch_graph(self, graph) -> None:
        run = graph.run

        def counting(name, params=None, **kwargs):
            rows = run(name, params, **kwargs)
            self.rows[self.current] += len(rows)
            if name == "consolidation_sweep_schedule" and rows:
                self.scheduled += int(rows[0]["scheduled"])
            return rows
        graph.run = counting

    def reset(self) -> None:
        self.ms.clear()
        self.rows.clear()
        self.scheduled = 0


def install(watch: StepWatch, store) -> None:
    """Time each step function of the store's consolidator."""
    consolidator_for(store).steps = tuple(
        replace(step, functions=tuple(watch.wrap(f) for f in step.functions)) if isinstance(step, EachKey)
        else replace(step, function=watch.wrap(step.function)) if isinstance(step, AllKeys) else step
        for step in STEPS)


def timed_run(store, watch: StepWatch, traits: Hexaco) -> tuple[float, dict[str, float], dict[str, int], object]:
    watch.reset()
    start = time.perf_counter()
    result = store.consolidate(traits=traits)
    total = (time.perf_counter() - start) * 1000
    steps = dict(watch.ms)
    steps["other"] = total - sum(v for k, v in watch.ms.items() if k != "other")
    rows = dict(watch.rows)
    # Traces the decay sweep read: the due ones where it keeps a schedule, else every active one.
    rows["swept"] = watch.scheduled or result.total_processed
    return total, steps, rows, result


def day_of_writes(store, agents, n_new: int, clock: ManualClock, rng: random.Random, day: int) -> None:
    """`n_new` traces spread over the agents and the day, a few retrievals, and a few
    contradictions among the day's own traces."""
    items = corpus(n_new, rng)
    for item in items:
        item["content"] = f"{item['content']} (day {day})"
    slices = 24
    per_slice = max(1, -(-n_new // slices))
    written: dict[int, list[str]] = defaultdict(list)
    for s in range(slices):
        chunk = items[s * per_slice:(s + 1) * per_slice]
        for u, agent in enumerate(agents):
            part = chunk[u::len(agents)]
            if part:
                written[u].extend(t.id for t in agent.encode_many(part))
        if s % 6 == 0:
            for agent in agents[:3]:
                agent.retrieve("the budget review with Alice", top_k=5)
        clock.advance(MS_PER_DAY // slices)
    for ids in written.values():
        pairs = {(ids[i], ids[i - 5]) for i in range(5, len(ids), 40)}
        store.graph.merge_edges(EdgeType.CONTRADICTS, [Edge(a, b, 0.9) for a, b in pairs])


def run_size(n: int, args, rng: random.Random, watch: StepWatch) -> list[dict]:
    clock = ManualClock(1_700_000_000_000)
    config = CogmemConfig()
    config.write.neighbours = 0
    out = []
    with (tempfile.TemporaryDirectory() as tmp,
          cg.open(home=Path(tmp) / "home", embedder="hash", clock=clock, config=config) as store):
        watch.watch_graph(store.graph)
        install(watch, store)
        traits = Hexaco(honesty=0.8)
        agents = [store.agent("bench", user_id=f"u{u}", traits=traits) for u in range(args.users)]
        items = corpus(n, rng)
        ids_by_agent: dict[int, list[str]] = defaultdict(list)
        start = time.perf_counter()
        for offset in range(0, n, args.batch):
            for u, agent in enumerate(agents):
                chunk = items[offset:offset + args.batch][u::len(agents)]
                if chunk:
                    ids_by_agent[u].extend(t.id for t in agent.encode_many(chunk))
            clock.advance(MS_PER_MINUTE)
        ingest_s = time.perf_counter() - start
        for ids in ids_by_agent.values():
            pairs = {(ids[i], ids[i - 100]) for i in range(100, len(ids), 200) if ids[i] != ids[i - 100]}
            store.graph.merge_edges(EdgeType.CONTRADICTS, [Edge(a, b, 0.9) for a, b in pairs])
        clock.advance(2 * MS_PER_HOUR)
        total, steps, rows, result = timed_run(store, watch, traits)
        out.append({"n": n, "run": "cold", "ingest_s": ingest_s, "total": total, "steps": steps, "rows": rows,
                    "result": result})
        for day in range(1, args.days + 1):
            day_of_writes(store, agents, max(1, int(n * args.day_share)), clock, rng, day)
            total, steps, rows, result = timed_run(store, watch, traits)
            out.append({"n": n, "run": f"day {day}", "ingest_s": ingest_s, "total": total, "steps": steps,
                        "rows": rows, "result": result})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--users", type=int, default=10, help="scope keys the traces are spread over")
    parser.add_argument("--batch", type=int, default=500, help="encode_many batch size")
    parser.add_argument("--days", type=int, default=1, help="days of writes after the cold run")
    parser.add_argument("--day-share", type=float, default=0.01, help="a day's new traces, as a share of N")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.users < 1 or args.batch < 1 or args.days < 0 or any(n < 1 for n in args.sizes) \
            or not 0 < args.day_share <= 1:
        parser.error("--sizes, --users, --batch must be positive, --days at least 0, --day-share in (0, 1]")
    watch = StepWatch()
    console = Console(width=260)
    names = [*STEP_NAMES, "other"]
    table = Table(title=f"store.consolidate() per step, ms (rows read) — {args.users} scope keys, hash embedder")
    for column in ("traces", "ingest s", "run", "total ms", *names,
                   "swept", "dormant", "merged", "schemas", "resolved"):
        table.add_column(column, justify="right")
    for n in args.sizes:
        console.print(f"[dim]N = {n:,} ...[/dim]")
        for r in run_size(n, args, random.Random(args.seed), watch):
            res = r["result"]
            console.print(f"[dim]{n:,} {r['run']}: {r['total']:,.0f} ms[/dim]")
            cells = [f"{r['steps'].get(s, 0.0):,.0f} ({r['rows'].get(s, 0):,})" for s in names]
            table.add_row(f"{n:,}", f"{r['ingest_s']:.1f}", r["run"], f"{r['total']:,.0f}", *cells,
                          f"{r['rows']['swept']:,}", str(res.dormant + res.pruned),
                          str(res.merged), str(res.schemas_created), str(res.conflicts_resolved))
        console.print(table)  # after each size: a long run keeps what it measured


if __name__ == "__main__":
    main()
