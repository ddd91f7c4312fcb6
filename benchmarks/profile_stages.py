"""Where `encode_many` and `retrieve` spend their time, stage by stage.

    python benchmarks/profile_stages.py                          # 10k traces, hash embedder
    python benchmarks/profile_stages.py --size 100000 --profiled 5000
    python benchmarks/profile_stages.py --compare c3096ca         # the same, on a revision, beside this tree

The store is filled as `latency.py` fills it (the same texts, scopes and clock). The last
`--profiled` traces are written under cProfile, then `--queries` retrievals run under it.
A stage is a function the core procedure calls directly (`_encode_batch`, `_retrieve`,
wherever the revision keeps them); its time is the wall time spent in it from there, waits
on the graph server and the vector index included, per call of the procedure. cProfile
slows pure Python more than waits, so read the shares, not the absolute milliseconds; the
"total" row is the procedure's own wall time under the profiler.

With `--compare REV`, REV's package (`git archive`) is profiled by this script in a child
process, then this tree's, and each prints its table: function names differ between
revisions, so the tables are side by side, not joined.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import NAMES, QUESTIONS, TOPICS, item_text, revision_tree, without_compare  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import MS_PER_SECOND, ManualClock  # noqa: E402

ENTRIES = {"encode_many": "_encode_batch", "retrieve": "_retrieve"}
"""The core procedure each public call's stages are read under."""


def fill(store: cg.MemoryStore, args, clock: ManualClock, profiler: cProfile.Profile) -> list:
    """Write `--size` traces as latency.py does; the last `--profiled` under the profiler."""
    rng = random.Random(args.seed)
    agents = [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(args.scopes)]
    start_at = clock.now_ms() - args.size * 30 * MS_PER_SECOND
    items = [{"content": item_text(rng, i), "created_at": start_at + i * 30 * MS_PER_SECOND} for i in range(args.size)]
    for i in range(0, args.size, 20):
        items[i]["scope"] = "organization"
    profiled_from = args.size - args.profiled
    for offset in range(0, args.size, args.batch * args.scopes):
        for u, agent in enumerate(agents):
            start = offset + u * args.batch
            chunk = items[start: start + args.batch]
            if not chunk:
                continue
            if start >= profiled_from:
                profiler.runcall(agent.encode_many, chunk, batch_size=args.batch)
            else:
                agent.encode_many(chunk, batch_size=args.batch)
        clock.advance(MS_PER_SECOND)
    return agents


def _name(func: tuple) -> str:
    return f"{Path(func[0]).stem}.{func[2]}" if func[0] != "~" else func[2]


def _callees(raw: dict, caller: tuple) -> list[tuple[tuple, int, float]]:
    """(function, calls, wall s) of what `caller` called directly."""
    return [(func, callers[caller][1], callers[caller][3]) for func, (*_, callers) in raw.items() if caller in callers]


def _named(raw: dict, func: tuple, n: int, ct: float, home: str, depth: int = 0) -> list[tuple[str, int, float]]:
    """A callee as rows of the table: itself, or, for a comprehension, a lambda or one of the
    entry's own named stages (a private function of the entry's module), what it calls,
    named through it; for the telemetry's timing wrapper, what it wraps."""
    if Path(func[0]).stem == "telemetry" and func[2] == "timed" and depth < 3:  # a timing wrapper: what it times
        return [row for f, fm, ft in _callees(raw, func) for row in _named(raw, f, fm, ft, home, depth + 1)]
    through = func[2].startswith("<") or (func[0] == home and func[2].startswith("_"))
    inner = _callees(raw, func) if through and depth < 3 else []
    if not inner:
        return [(_name(func), n, ct)]
    return [(f"{_name(func)} → {name}", m, t) for f, fm, ft in inner
            for name, m, t in _named(raw, f, fm, ft, home, depth + 1)]


def stages(stats: pstats.Stats, entry: str) -> tuple[int, float, list[tuple[str, int, float]]]:
    """(calls of the entry, its total wall s, [(stage, calls, wall s from the entry)]) for the
    functions named `entry` (summed when several modules define one). A comprehension, a
    lambda or a named stage of the entry (`_draft`, `_search`, ...) is no row of its own: what
    it calls is, named through it."""
    raw = stats.stats  # type: ignore[attr-defined]
    entries = [func for func in raw if func[2] == entry]
    calls = sum(raw[func][1] for func in entries)
    total = sum(raw[func][3] for func in entries)
    found: dict[str, tuple[int, float]] = {}
    for caller in entries:
        for func, n, ct in _callees(raw, caller):
            for name, m, t in _named(raw, func, n, ct, caller[0]):
                before = found.get(name, (0, 0.0))
                found[name] = (before[0] + m, before[1] + t)
    return calls, total, sorted(((name, n, ct) for name, (n, ct) in found.items()), key=lambda s: -s[2])


def report(console: Console, stats: pstats.Stats, call: str, label: str, top: int) -> None:
    calls, total, rows = stages(stats, ENTRIES[call])
    if not calls:
        console.print(f"[red]{call}: no {ENTRIES[call]} was called[/red]")
        return
    table = Table(title=f"{call} by stage — {label}: {calls} calls of {ENTRIES[call]}, "
                        f"{1000 * total / calls:.1f} ms each under the profiler")
    for title in ("stage", "calls per call", "ms per call", "share"):
        table.add_column(title, justify="right" if title != "stage" else "left")
    for name, n, ct in rows[:top]:
        table.add_row(name, f"{n / calls:.1f}", f"{1000 * ct / calls:.2f}", f"{ct / total:.0%}")
    rest = max(0.0, total - sum(ct for _name, _n, ct in rows[:top]))  # (recursion can make stages overlap)
    table.add_row("(the procedure's own code and smaller stages)", "", f"{1000 * rest / calls:.2f}",
                  f"{rest / total:.0%}")
    console.print(table)


def profile(args, console: Console, label: str) -> None:
    clock = ManualClock(1_700_000_000_000)
    with tempfile.TemporaryDirectory() as tmp, cg.open(home=Path(tmp) / "home", embedder=args.embedder,
                                                       clock=clock) as store:
        ingest = cProfile.Profile()
        agents = fill(store, args, clock, ingest)
        report(console, pstats.Stats(ingest), "encode_many", label, args.top)
        qrng = random.Random(args.seed)
        queries = [(agents[qrng.randrange(len(agents))],
                    qrng.choice(QUESTIONS).format(name=qrng.choice(NAMES), topic=qrng.choice(TOPICS)))
                   for _ in range(args.queries)]
        for agent, query in queries[:5]:  # warm caches and code paths
            agent.retrieve(query, top_k=args.top_k, record_access=False)
        reads = cProfile.Profile()
        for agent, query in queries:
            reads.runcall(agent.retrieve, query, top_k=args.top_k)
            store.graph.confirm_writes()
            clock.advance(MS_PER_SECOND)
        report(console, pstats.Stats(reads), "retrieve", label, args.top)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--profiled", type=int, default=5_000, help="the last traces written under the profiler")
    parser.add_argument("--scopes", type=int, default=10)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--top", type=int, default=14, help="stages shown per table")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--compare", metavar="REV", help="profile REV's package first, then this tree's")
    parser.add_argument("--label", default="this tree", help=argparse.SUPPRESS)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if min(args.size, args.profiled, args.scopes, args.batch, args.queries, args.top_k, args.top) < 1:
        parser.error("--size, --profiled, --scopes, --batch, --queries, --top-k and --top must be positive")
    args.profiled = min(args.profiled, args.size)
    console = Console(width=200)
    if not args.compare:
        profile(args, console, args.label)
        return
    rest = without_compare(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tree = revision_tree(args.compare, Path(tmp) / "rev")
        for label, path in ((args.compare, tree), ("this tree", Path(__file__).resolve().parents[1])):
            env = {**os.environ, "PYTHONPATH": str(path)}
            done = subprocess.run([sys.executable, __file__, *rest, "--label", label], env=env, cwd=path, check=False)
            if done.returncode:
                raise SystemExit(f"profiling {label} failed (exit {done.returncode})")


if __name__ == "__main__":
    main()
