"""The decay sweep alone, at sizes a full ingest would take too long to reach: N traces written
straight to the graph (no vectors: the dormant sweep never reads them), spread over the scope
keys, with strengths and stabilities spread so some fade each day (minimum retention one day). Then, for `--days` days,
a day's new traces (`--day-share` of N) and the clock moved 24 h, and the sweep of every scope
key timed twice on the same data: as `store.consolidate()` runs it (the due traces only) and
reading every trace (`Consolidator.full_pass`), alternating which goes first. The second of
the two finds nothing left to forget but reads as much as it would have.

    python benchmarks/decay_sweep_bench.py --sizes 100000 1000000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.between_turns.consolidation import ConsolidationResult
from cogmem_graph.between_turns.consolidation.strength import prune
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.model import MemoryTrace

BATCH = 2_000


def traces(start: int, n: int, users: int, now: int) -> list[MemoryTrace]:
    return [MemoryTrace(id=f"t{i}", content=f"note {i}", scope_id=f"u{i % users}", agent_id="bench",
                        created_at=now, recorded_at=now, encoding_strength=0.1 + 0.8 * ((i * 7919) % 1000) / 1000,
                        stability=(0.2 + 3.0 * ((i * 104729) % 1000) / 1000) * MS_PER_DAY)
            for i in range(start, start + n)]


def write(store: cg.MemoryStore, start: int, n: int, users: int, now: int) -> None:
    for offset in range(start, start + n, BATCH):
        store.graph.upsert_traces(traces(offset, min(BATCH, start + n - offset), users, now), fresh=True)


def sweep(store: cg.MemoryStore, keys: list[str], full: bool) -> tuple[float, int]:
    c = consolidator_for(store)
    c.full_pass = full
    sc = c.step_context(ConsolidationResult())
    start = time.perf_counter()
    for key in keys:
        prune(sc, key)
    c.full_pass = False
    return (time.perf_counter() - start) * 1000, sc.result.dormant + sc.result.pruned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--day-share", type=float, default=0.01)
    args = parser.parse_args()
    if args.users < 1 or args.days < 1 or any(n < 1 for n in args.sizes) or not 0 < args.day_share <= 1:
        parser.error("--sizes, --users, --days must be positive, --day-share in (0, 1]")
    console = Console(width=200)
    table = Table(title=f"decay sweep of {args.users} scope keys, ms (traces forgotten)")
    for column in ("traces", "run", "due only ms", "every trace ms", "forgotten", "first"):
        table.add_column(column, justify="right")
    for n in args.sizes:
        clock = ManualClock(1_700_000_000_000)
        config = CogmemConfig()
        config.retention.min_retention_other_ms = MS_PER_DAY  # forgetting within the days measured
        with (tempfile.TemporaryDirectory() as tmp,
              cg.open(home=Path(tmp) / "home", embedder="hash", clock=clock, config=config) as store):
            console.print(f"[dim]N = {n:,}: writing ...[/dim]")
            write(store, 0, n, args.users, clock.now_ms())
            keys = [f"user:u{u}" for u in range(args.users)]
            clock.advance(2 * MS_PER_HOUR)
            cold_ms, forgotten = sweep(store, keys, full=False)
            table.add_row(f"{n:,}", "cold (schedule built)", f"{cold_ms:,.0f}", "-", str(forgotten), "-")
            written = n
            for day in range(1, args.days + 1):
                new = max(1, int(n * args.day_share))
                write(store, written, new, args.users, clock.now_ms())
                written += new
                clock.advance(MS_PER_DAY)
                full_first = day % 2 == 0
                first_ms, first_n = sweep(store, keys, full=full_first)
                second_ms, second_n = sweep(store, keys, full=not full_first)
                due_ms, full_ms = (second_ms, first_ms) if full_first else (first_ms, second_ms)
                table.add_row(f"{n:,}", f"day {day}", f"{due_ms:,.0f}", f"{full_ms:,.0f}", str(first_n + second_n),
                              "every trace" if full_first else "due only")
            console.print(table)


if __name__ == "__main__":
    main()
