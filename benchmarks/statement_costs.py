"""What each graph statement of `encode_many` costs the embedded FalkorDB engine, on a store
of a given size: the write path's statements whose cost follows the store's size show.

    python benchmarks/statement_costs.py --size 100000 --home /var/tmp/sc-100k   # fill once, keep
    python benchmarks/statement_costs.py --home /var/tmp/sc-100k --compare 1f13915 --pairs 3

The home is filled as `latency.py` fills it (hash embedder, `encode_many` in batches of 500
over `--scopes` users and an organisation scope) unless `--home` already holds a store.
Then, on a fresh copy of it, `--batches` more batches of 500 new traces are written, and
each statement's execution time inside the engine is read from its reply's statistics
("Query internal execution time"), so a wait on the connection or the interpreter is not
counted. The table gives engine milliseconds per batch and the batches' wall time.

`--compare REV` writes the same batches with REV's package (`git archive`) on another copy
of the same home, in a child process each, alternating which goes first, `--pairs` times;
the table shows medians per side and their ratio. A statement of one side only is shown
with a dash on the other. A store filled by a newer revision may carry indexes an older
one never made; they stay in the copy the older revision writes to.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import (  # noqa: E402
    FILL_START_MS,
    copy_home,
    fill_home,
    item_text,
    print_ranked,
    revision_tree,
    without_compare,
)

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import MS_PER_SECOND, ManualClock  # noqa: E402

ENGINE_TIME = re.compile(r"Query internal execution time: ([\d.]+)")


class EngineTimes:
    """Engine milliseconds per statement name, read from each reply the store parses."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)
        self._name = "(unnamed)"

    def install(self) -> None:
        import cogmem_graph.graph.falkordb.store as falkor

        original_parse, original_take, original_run = falkor.read_compact, falkor.FalkorGraphStore._take_reply, \
            falkor.FalkorGraphStore._run_text

        def parse(response):
            for line in response[-1] if response else ():
                found = ENGINE_TIME.match(line.decode() if isinstance(line, bytes) else str(line))
                if found:
                    self.ms[self._name] += float(found.group(1))
            return original_parse(response)

        def take(store, pool, connection, name):
            self._name = name
            return original_take(store, pool, connection, name)

        def run_text(store, text, params, *, write, name):
            self._name = name
            return original_run(store, text, params, write=write, name=name)

        falkor.read_compact = parse
        falkor.FalkorGraphStore._take_reply = take
        falkor.FalkorGraphStore._run_text = run_text


def measure(home: Path, batches: int, scopes: int, seed: int) -> dict[str, float]:
    """Write `batches` batches of 500 new traces on a copy of `home`: engine ms per statement
    per batch, and the batches' wall ms ("(wall)")."""
    times = EngineTimes()
    times.install()
    with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
        copy = Path(tmp) / "home"
        copy_home(home, copy)
        clock = ManualClock(FILL_START_MS + 10 ** 11)
        with cg.open(home=copy, embedder="hash", clock=clock) as store:
            agents = [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(scopes)]
            rng = random.Random(seed + 1)
            times.ms.clear()
            wall = 0.0
            for b in range(batches):
                items = [{"content": item_text(rng, 10 ** 7 + b * 500 + i)} for i in range(500)]
                started = time.perf_counter()
                agents[b % scopes].encode_many(items, batch_size=500)
                wall += time.perf_counter() - started
                clock.advance(MS_PER_SECOND)
    out = {name: ms / batches for name, ms in times.ms.items()}
    out["(wall)"] = 1000 * wall / batches
    return out


def print_one(console: Console, figures: dict[str, float]) -> None:
    print_ranked(console, "encode_many: engine ms per statement, per batch of 500", "statement", "ms per batch",
                 figures, "{:.1f}")


def compare(args, argv: Sequence[str], home: Path, console: Console) -> None:
    sides: dict[str, list[dict[str, float]]] = {args.compare: [], "this tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        other = revision_tree(args.compare, Path(tmp))
        here = Path(__file__).resolve()
        scripts = {args.compare: (other / "benchmarks" / here.name, other), "this tree": (here, here.parents[1])}
        if not scripts[args.compare][0].exists():  # REV predates this script: run this one on REV's package
            scripts[args.compare] = (here, other)
        for pair in range(args.pairs):
            order = list(sides) if pair % 2 == 0 else list(sides)[::-1]
            for side in order:
                script, root = scripts[side]
                console.print(f"pair {pair + 1}/{args.pairs}: {side} ...")
                done = subprocess.run([sys.executable, str(script), *without_compare(argv), "--home", str(home),
                                       "--json"], capture_output=True, text=True,
                                      env={**os.environ, "PYTHONPATH": str(root)}, check=False)
                if done.returncode:
                    raise SystemExit(f"{side} failed:\n{done.stderr[-3000:]}")
                sides[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    names = sorted({n for runs in sides.values() for run in runs for n in run},
                   key=lambda n: -max(statistics.median([r.get(n, 0.0) for r in runs]) for runs in sides.values()))
    table = Table(title=f"encode_many: engine ms per statement per batch of 500 — {args.compare} beside this tree, "
                        f"{args.pairs} interleaved pairs, medians")
    for title in ("statement", args.compare, "this tree", "this / before"):
        table.add_column(title, justify="left" if title == "statement" else "right")
    for name in names:
        before, now = (statistics.median([r[name] for r in runs]) if all(name in r for r in runs) else None
                       for runs in sides.values())
        ratio = f"{now / before:.2f}×" if before and now is not None else "—"
        table.add_row(name, "—" if before is None else f"{before:.1f}", "—" if now is None else f"{now:.1f}", ratio)
    console.print(table)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000, help="traces the home is filled with (when empty)")
    parser.add_argument("--home", type=Path, help="keep (or reuse) the filled home here; default: a temporary one")
    parser.add_argument("--batches", type=int, default=4, help="batches of 500 new traces measured")
    parser.add_argument("--scopes", type=int, default=4, help="user scopes the traces are spread over")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--compare", metavar="REV", help="also measure a revision's package, interleaved")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for name in ("size", "batches", "scopes", "pairs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        if not (home / "graph").exists():
            console.print(f"filling {home} with {args.size:,} traces ...")
            fill_home(home, args.size, args.scopes, args.seed)
        if args.compare:
            compare(args, sys.argv[1:] if argv is None else list(argv), home, console)
        elif args.json:
            print(json.dumps(measure(home, args.batches, args.scopes, args.seed)))
        else:
            print_one(console, measure(home, args.batches, args.scopes, args.seed))


if __name__ == "__main__":
    main()
