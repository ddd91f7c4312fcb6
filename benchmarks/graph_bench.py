"""Graph-layer benchmark: ingest N traces and 5N associative edges, then time spreading
activation (2 and 3 hops) and Hebbian updates in the database.

    python benchmarks/graph_bench.py                      # N = 1k, 10k, 100k on the embedded FalkorDB
    python benchmarks/graph_bench.py --sizes 1000         # one size
    python benchmarks/graph_bench.py --graph bolt://localhost:7687   # against Neo4j

Prints one table; times are wall-clock on this machine, medians and 95th percentiles
over the repeated queries.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cogmem_graph.config.graph import ActivationConfig
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.graph.port import Edge
from cogmem_graph.model import EdgeType, MemoryTrace

SCOPES = [f"user:u{i}" for i in range(10)]
EDGE_TYPES = [t for t in EdgeType if t is not EdgeType.SCHEMA_INSTANCE]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def open_store(args, tmp: Path):
    if args.graph:
        from cogmem_graph.graph.neo4j import Neo4jGraphStore

        store = (Neo4jGraphStore(args.graph) if args.graph.startswith(("bolt", "neo4j"))
                 else FalkorGraphStore(url=args.graph))
    else:
        store = FalkorGraphStore(data_dir=tmp / "graph")
    store.clear()
    store.setup_schema()
    return store


def run_size(n: int, args, rng: random.Random) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(args, Path(tmp))
        try:
            traces = []
            by_scope: dict[str, list[str]] = {s: [] for s in SCOPES}
            for i in range(n):
                scope_id = f"u{i % len(SCOPES)}"
                t = MemoryTrace(
                    content=f"trace {i} about topic {rng.randrange(200)} and entity {rng.randrange(500)}",
                    scope_id=scope_id,
                    agent_id="bench",
                    created_at=1_700_000_000_000 + i * 1000,
                )
                traces.append(t)
                by_scope[t.scope_key].append(t.id)
            start = time.perf_counter()
            store.upsert_traces(traces)
            ingest_traces_s = time.perf_counter() - start

            edges: dict[EdgeType, dict[tuple[str, str], Edge]] = {t: {} for t in EDGE_TYPES}
            for _ in range(5 * n):
                ids = by_scope[rng.choice(SCOPES)]
                a, b = rng.sample(ids, 2)
                edge_type = rng.choice(EDGE_TYPES)
                edges[edge_type][(a, b)] = Edge(a, b, round(rng.uniform(0.3, 1.0), 3))
            start = time.perf_counter()
            for edge_type, group in edges.items():
                store.merge_edges(edge_type, list(group.values()))
            ingest_edges_s = time.perf_counter() - start

            result = {
                "n": n,
                "edges": sum(len(g) for g in edges.values()),
                "traces/s": n / ingest_traces_s,
                "edges/s": sum(len(g) for g in edges.values()) / ingest_edges_s,
            }
            for depth in (2, 3):
                cfg = ActivationConfig(max_depth=depth)
                times, found = [], []
                for _ in range(args.queries):
                    scope = rng.choice(SCOPES)
                    seeds = rng.sample(by_scope[scope], 5)
                    start = time.perf_counter()
                    activated = store.spread_activation(seeds, [scope], cfg)
                    times.append((time.perf_counter() - start) * 1000)
                    found.append(len(activated))
                result[f"act{depth} p50"] = statistics.median(times)
                result[f"act{depth} p95"] = percentile(times, 0.95)
                result[f"act{depth} found"] = statistics.mean(found)
            times = []
            for _ in range(args.queries):
                scope = rng.choice(SCOPES)
                group = rng.sample(by_scope[scope], 10)
                start = time.perf_counter()
                store.hebbian_update([group], [scope])
                times.append((time.perf_counter() - start) * 1000)
            result["hebb p50"] = statistics.median(times)
            result["hebb p95"] = percentile(times, 0.95)
            return result
        finally:
            store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=50, help="activation / Hebbian calls per size")
    parser.add_argument("--graph", help="graph URL (default: embedded FalkorDB in a temp dir)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    console = Console(width=170)
    table = Table(title=f"graph layer — {'embedded FalkorDB' if not args.graph else args.graph}")
    columns = [
        ("traces", "n", "{:,}"), ("edges", "edges", "{:,}"),
        ("ingest traces/s", "traces/s", "{:,.0f}"), ("ingest edges/s", "edges/s", "{:,.0f}"),
        ("2-hop p50 ms", "act2 p50", "{:.1f}"), ("2-hop p95 ms", "act2 p95", "{:.1f}"),
        ("3-hop p50 ms", "act3 p50", "{:.1f}"), ("3-hop p95 ms", "act3 p95", "{:.1f}"),
        ("3-hop activated", "act3 found", "{:.1f}"),
        ("Hebbian p50 ms", "hebb p50", "{:.1f}"), ("Hebbian p95 ms", "hebb p95", "{:.1f}"),
    ]
    for title, _, _ in columns:
        table.add_column(title, justify="right")
    for n in args.sizes:
        with console.status(f"N = {n:,}: ingesting and querying"):
            row = run_size(n, args, rng)
        table.add_row(*(fmt.format(row[key]) for _, key, fmt in columns))
    console.print(table)
    console.print("Seeds: 5 random traces of one scope per query; 10-trace co-retrieval sets for Hebbian.")


if __name__ == "__main__":
    main()
