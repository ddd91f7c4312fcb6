"""The embedded vector index with and without its search graphs, side by side on one store.

    python benchmarks/search_graphs.py --size 100000 --home /var/tmp/sg-100k   # fill once, keep
    python benchmarks/search_graphs.py --home /var/tmp/sg-100k --queries 200 --batches 8

Qdrant Edge scans every point of a search's scope until a segment's search graph (HNSW) is
built, which `consolidate()` does for segments of `vectors.edge_search_graph_kb` and more
(`VectorIndex.build_search_graphs`). This benchmark fills a home as `statement_costs.py`
does (`latency.fill_home`: hash embedder, `encode_many` in batches of 500 over `--scopes`
users and an organisation scope), copies it twice and opens both copies in this process:
"scan" with the setting at 0 (never built), "graphs" with the default. Then, the two
interleaved (alternating which goes first):

- the first build on "graphs" (a store that never had one: every segment, without the
  budget that spreads it over several consolidations);
- of the 100 nearest points a dense search finds by scanning, how many the graphs find;
- `retrieve(top_k=10, record_access=False)` over `--queries` questions on both (p50 / p95);
- `--batches` batches of 500 new traces written with `encode_many` into each (the write
  path's neighbour search is one of the searches);
- the night's build on "graphs" after those writes, as `consolidate()` runs it: what a
  consolidation pays for them;
- the retrievals once more, on the grown stores.

`--int8` adds a third copy, "int8": search graphs with `vectors.edge_quantization = "int8"`
(the dense vectors quantized in RAM, the originals on disk, a search's best candidates
rescored with them), measured in the same rounds, with the share of the scan's 100 nearest
it finds and the vector folder's size on disk beside the others'.

Wall-clock times on this machine; benchmarks never assert them.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency  # noqa: E402 - the corpus, the questions and the percentiles are latency.py's

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import ManualClock  # noqa: E402
from cogmem_graph.config import CogmemConfig  # noqa: E402
from cogmem_graph.vectors.qdrant_edge import _disk_bytes  # noqa: E402 - the index's own measure, holes not counted

BATCH = 500


def open_side(home: Path, graph_kb: int, *, int8: bool = False) -> cg.MemoryStore:
    config = CogmemConfig()
    config.vectors.edge_search_graph_kb = graph_kb
    config.vectors.edge_quantization = "int8" if int8 else "none"
    return cg.open(home=home, embedder="hash", config=config, clock=ManualClock(latency.FILL_START_MS + 10 ** 11))


def interleaved_retrievals(sides: dict[str, cg.MemoryStore], questions: list[tuple[int, str]],
                           scopes: int) -> dict[str, list[float]]:
    """Each question on each side, alternating which goes first: ms per side."""
    agents = {name: [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(scopes)]
              for name, store in sides.items()}
    names = list(sides)
    for u, question in questions[:5]:  # warm caches and code paths
        for name in names:
            agents[name][u].retrieve(question, top_k=10, record_access=False)
    ms: dict[str, list[float]] = {name: [] for name in names}
    for n, (u, question) in enumerate(questions):
        for name in names if n % 2 == 0 else reversed(names):
            started = time.perf_counter()
            agents[name][u].retrieve(question, top_k=10, record_access=False)
            ms[name].append((time.perf_counter() - started) * 1000)
    return ms


def dense_recall(sides: dict[str, cg.MemoryStore], questions: list[tuple[int, str]], scopes: int,
                 side: str = "graphs") -> float:
    """Of the 100 nearest points the scan finds for each question, the share `side` finds:
    the search graph is approximate (and int8 vectors too). (The fused top 10 is no measure
    here: this corpus gives hundreds of memories the same BM25 score, and which of the tied
    the engine returns first changes with the segments' order.)"""
    scan, graphs = sides["scan"], sides[side]
    found, asked = 0, 0
    for u, question in questions:
        keys = scan.agent("bench", user_id=f"u{u}", organization_id="acme").visible_scope_keys
        vector = scan.embedder.embed_query(question)
        exact = {hit.trace_id for hit in scan.vectors.search_dense(vector, keys, 100)}
        found += len(exact & {hit.trace_id for hit in graphs.vectors.search_dense(vector, keys, 100)})
        asked += len(exact)
    return found / asked if asked else 1.0


def interleaved_writes(sides: dict[str, cg.MemoryStore], batches: int, scopes: int, seed: int) -> dict[str, float]:
    """The same `batches` batches of new traces into each side, alternating which goes first:
    traces per second per side."""
    rng = random.Random(seed + 1)
    names = list(sides)
    seconds = {name: 0.0 for name in names}
    for b in range(batches):
        items = [{"content": latency.item_text(rng, 10 ** 7 + b * BATCH + i)} for i in range(BATCH)]
        for name in names if b % 2 == 0 else reversed(names):
            agent = sides[name].agent("bench", user_id=f"u{b % scopes}", organization_id="acme")
            started = time.perf_counter()
            agent.encode_many([dict(item) for item in items], batch_size=BATCH)
            seconds[name] += time.perf_counter() - started
    return {name: batches * BATCH / s for name, s in seconds.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="traces the home is filled with (when empty)")
    parser.add_argument("--home", type=Path, default=None, help="keep (or reuse) the filled home here")
    parser.add_argument("--scopes", type=int, default=4, help="user scopes the traces are spread over")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--batches", type=int, default=6, help="batches of 500 new traces written into each side")
    parser.add_argument("--graph-kb", type=int, default=CogmemConfig().vectors.edge_search_graph_kb,
                        help="vectors.edge_search_graph_kb of the side with graphs")
    parser.add_argument("--int8", action="store_true",
                        help='also a side with search graphs and vectors.edge_quantization = "int8"')
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for name in ("size", "scopes", "queries", "batches", "graph_kb"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be positive")
    console = Console(width=120)
    with tempfile.TemporaryDirectory(dir=args.home.parent if args.home else None) as tmp:
        home = args.home or Path(tmp) / "filled"
        if not (home / "graph").exists():
            console.print(f"filling {home} with {args.size:,} traces ...")
            latency.fill_home(home, args.size, args.scopes, args.seed)
        names = ["scan", "graphs", *(["int8"] if args.int8 else [])]
        copies = {name: Path(tmp) / name for name in names}
        for copy in copies.values():
            latency.copy_home(home, copy)
        with contextlib.ExitStack() as stack:
            sides = {name: stack.enter_context(open_side(copies[name], 0 if name == "scan" else args.graph_kb,
                                                         int8=name == "int8")) for name in names}
            built = names[1:]
            first = {name: sides[name].vectors.build_search_graphs(budget_s=None) for name in built}
            qrng = random.Random(args.seed + 2)
            questions = [(qrng.randrange(args.scopes), qrng.choice(latency.QUESTIONS).format(
                name=qrng.choice(latency.NAMES), topic=qrng.choice(latency.TOPICS))) for _ in range(args.queries)]
            # (before the writes: the same points on every side)
            recall = {name: dense_recall(sides, questions, args.scopes, name) for name in built}
            before = interleaved_retrievals(sides, questions, args.scopes)
            rates = interleaved_writes(sides, args.batches, args.scopes, args.seed)
            night = {name: sides[name].vectors.build_search_graphs() for name in built}
            after = interleaved_retrievals(sides, questions, args.scopes)
            points = night["graphs"].get("points", 0)
            on_disk = {name: _disk_bytes(copies[name] / "qdrant-edge") / (1 << 20) for name in names}
    table = Table(title=f"Qdrant Edge with and without search graphs — {points:,} points, hash embedder, interleaved")
    for column in ("figure", *names, "graphs / scan", *(["int8 / graphs"] if args.int8 else [])):
        table.add_column(column, justify="left" if column == "figure" else "right")

    def row(label: str, values: dict[str, float], fmt: str, ratios: bool = True) -> None:
        cells = [fmt.format(values[name]) if name in values else "" for name in names]
        pairs = [("graphs", "scan")] + ([("int8", "graphs")] if args.int8 else [])
        table.add_row(label, *cells, *(f"{values[a] / values[b]:.2f}×" if ratios and b in values and values[b] else ""
                                       for a, b in pairs))

    for label, runs in (("retrieve p50 ms", before), ("retrieve p50 ms, after the writes", after)):
        row(label, {name: latency.percentile(runs[name], 0.5) for name in names}, "{:.1f}")
        row(label.replace("p50", "p95"), {name: latency.percentile(runs[name], 0.95) for name in names}, "{:.1f}")
    row(f"encode_many traces/s ({args.batches} × {BATCH})", rates, "{:,.0f}")
    row("first build s (every segment)", {name: first[name].get("seconds", 0) for name in built}, "{:.1f}",
        ratios=False)
    row(f"the night's build s (after {args.batches * BATCH:,} new)",
        {name: night[name].get("seconds", 0) for name in built}, "{:.1f}", ratios=False)
    row("dense search: of the scan's 100 nearest, found", {"scan": 1.0, **recall}, "{:.3f}", ratios=False)
    row("vector folder on disk MiB", on_disk, "{:,.0f}")
    console.print(table)


if __name__ == "__main__":
    main()
