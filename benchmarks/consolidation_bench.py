"""Consolidation benchmark: ingest N traces through the public API (hash embedder,
`encode_many`), then time `store.consolidate()` — a cold run right after ingest and a
second, steady-state run.

    python benchmarks/consolidation_bench.py                    # N = 1k, 10k, 100k on the embedded backends
    python benchmarks/consolidation_bench.py --sizes 1000 10000
    python benchmarks/consolidation_bench.py --users 1          # one scope key holds everything

The corpus: short first-person and third-person statements about a pool of people and
topics (so SHARED_ENTITY edges and clusters form), a few near-duplicates, and one
CONTRADICTS edge per 200 traces (newer -> a trace of an earlier batch). After ingest the
clock moves on two hours, so weak neutral traces decay below the prune threshold. The write
path's own neighbour checks are off by default (`--write-neighbours`): in Qdrant local mode
they cost one Python scan of the whole collection per new trace, which would dominate the
ingest. Prints one table; wall-clock times on this machine (benchmarks never assert them).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, MS_PER_MINUTE, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.graph.port import Edge
from cogmem_graph.model import EdgeType, Hexaco, Mood

NAMES = [f"{first} {last}" for first in ("Alice", "Bruno", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana",
                                         "Ivan", "Jun", "Kofi", "Lena", "Marta", "Nadia", "Omar", "Priya")
         for last in ("Berg", "Costa", "Dumas", "Evans", "Fischer", "Garcia", "Horvat", "Ito", "Jansen",
                      "Kowalski", "Lopez", "Moreau", "Novak")]
TOPICS = ["hiking", "the budget review", "the new office", "climbing", "the release plan", "jazz concerts",
          "the database migration", "a trip to Lisbon", "the quarterly report", "sourdough baking",
          "the hiring plan", "marathon training", "the design review", "chess club", "the API outage"]
TEMPLATES = [
    "{name} talked about {topic} during lunch",
    "{name} asked me to look into {topic} before Friday",
    "I told {name} that {topic} needs more time",
    "{name} is excited about {topic}",
    "We discussed {topic} with {name} this morning",
    "{name} shared some notes on {topic}",
]


def corpus(n: int, rng: random.Random) -> list[dict]:
    items = []
    for i in range(n):
        if i and rng.random() < 0.02:  # a near-duplicate of an earlier item
            base = items[rng.randrange(len(items))]["content"]
            items.append({"content": base + " again"})
            continue
        text = rng.choice(TEMPLATES).format(name=rng.choice(NAMES), topic=rng.choice(TOPICS))
        item: dict = {"content": f"{text} (note {i})"}
        if rng.random() < 0.1:
            item["mood"] = Mood(valence=rng.choice((-0.8, 0.8)), arousal=0.9)
        items.append(item)
    return items


def run_size(n: int, args, rng: random.Random) -> dict[str, float]:
    clock = ManualClock(1_700_000_000_000)
    config = CogmemConfig()
    config.write.neighbours = args.write_neighbours
    with (tempfile.TemporaryDirectory() as tmp,
          cg.open(home=Path(tmp) / "home", embedder="hash", clock=clock, config=config) as store):
        agents = [store.agent("bench", user_id=f"u{u}", traits=Hexaco(honesty=0.8)) for u in range(args.users)]
        items = corpus(n, rng)
        start = time.perf_counter()
        ids_by_agent: dict[int, list[str]] = {}
        for offset in range(0, n, args.batch):
            for u, agent in enumerate(agents):
                chunk = items[offset:offset + args.batch][u::len(agents)]
                if chunk:
                    ids_by_agent.setdefault(u, []).extend(t.id for t in agent.encode_many(chunk))
            clock.advance(MS_PER_MINUTE)
        ingest_s = time.perf_counter() - start
        for ids in ids_by_agent.values():  # contradictions for the resolution step
            pairs = {(ids[i], ids[i - 100]) for i in range(100, len(ids), 200) if ids[i] != ids[i - 100]}
            store.graph.merge_edges(EdgeType.CONTRADICTS, [Edge(a, b, 0.9) for a, b in pairs])
        clock.advance(2 * MS_PER_HOUR)
        traits = Hexaco(honesty=0.8)
        start = time.perf_counter()
        first = store.consolidate(traits=traits)
        first_ms = (time.perf_counter() - start) * 1000
        clock.advance(MS_PER_HOUR)
        start = time.perf_counter()
        second = store.consolidate(traits=traits)
        second_ms = (time.perf_counter() - start) * 1000
        return {
            "n": n, "ingest_s": ingest_s, "first_ms": first_ms, "second_ms": second_ms,
            "pruned": first.pruned + second.pruned, "merged": first.merged + second.merged,
            "edges": first.edges_created + second.edges_created,
            "schemas": first.schemas_created + second.schemas_created,
            "resolved": first.conflicts_resolved + second.conflicts_resolved,
            "reinforced": first.reinforced + second.reinforced, "algorithm": first.cluster_algorithm or "-",
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--users", type=int, default=10, help="scope keys the traces are spread over")
    parser.add_argument("--batch", type=int, default=500, help="encode_many batch size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write-neighbours", type=int, default=0,
                        help="neighbours the write path checks per new trace (Qdrant local mode filters in Python, "
                             "so the default 5 makes ingest quadratic; 0 measures consolidation, not ingest)")
    args = parser.parse_args()
    if args.users < 1 or args.batch < 1 or any(n < 1 for n in args.sizes):
        parser.error("--sizes, --users and --batch must be positive")
    rng = random.Random(args.seed)
    table = Table(title=f"store.consolidate() on the embedded backends ({args.users} scope keys, hash embedder)")
    for column in ("traces", "ingest s", "1st run ms", "2nd run ms", "pruned", "merged", "edges", "schemas",
                   "resolved", "reinforced", "clusters by"):
        table.add_column(column, justify="right")
    console = Console(width=200)
    for n in args.sizes:
        console.print(f"[dim]N = {n:,} ...[/dim]")
        r = run_size(n, args, rng)
        table.add_row(f"{r['n']:,}", f"{r['ingest_s']:.1f}", f"{r['first_ms']:.0f}", f"{r['second_ms']:.0f}",
                      str(r["pruned"]), str(r["merged"]), str(r["edges"]), str(r["schemas"]),
                      str(r["resolved"]), str(r["reinforced"]), str(r["algorithm"]))
    console.print(table)


if __name__ == "__main__":
    main()
