"""What an Edge shard's empty sentence storage costs a store whose embedder gives no sentence vectors.

Two Qdrant Edge shards with the store's shard settings, one with the `sentences` multivector
storage and one without, are each filled with the same `--points` points (random dense
vectors and a few BM25 words, no sentence vectors, as the hash embedder or an API's writes
them), then optimized (the search graphs a consolidation builds). Each shard is filled in a
child process of its own, so the resident memory read there is that shard's; the order
alternates over `--pairs`. Printed: upsert and optimize seconds, disk, and the process's
resident memory (its own, and the mapped files the kernel can drop), medians per side.

    python benchmarks/edge_sentence_storage.py --points 60000 --pairs 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import rss_parts  # noqa: E402 - the benchmarks' one reading of /proc

SIDES = ("with", "without")


def fill(side: str, points: int, folder: Path) -> dict[str, float]:
    """One shard filled and optimized in this process: the figures of the table."""
    import numpy as np
    from qdrant_edge import EdgeShard, Point, SparseVector, UpdateOperation

    from cogmem_graph.config.vectors import VectorConfig
    from cogmem_graph.vectors.naming import DENSE, SPARSE
    from cogmem_graph.vectors.qdrant_edge import _Layout, _shard_config

    config = _shard_config(384, sentences=side == "with", layout=_Layout(VectorConfig().edge_search_graph_kb))
    shard = EdgeShard.create(str(folder), config)
    rng = np.random.default_rng(7)
    start = time.perf_counter()
    for first in range(0, points, 500):
        vectors = rng.standard_normal((min(500, points - first), 384)).astype(np.float32)
        shard.update(UpdateOperation.upsert_points([
            Point(first + i, {DENSE: vector.tolist(), SPARSE: SparseVector([1, 5, 9], [0.5, 0.2, 0.1])},
                  {"scope_key": "user:bench", "active": True}) for i, vector in enumerate(vectors)]))
    upsert = time.perf_counter() - start
    start = time.perf_counter()
    shard.optimize()
    optimize = time.perf_counter() - start
    disk = sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 2**20
    own, mapped = rss_parts(os.getpid())
    shard.close()
    return {"upsert s": upsert, "optimize s": optimize, "disk MiB": disk,
            "process MiB (own)": own or 0.0, "process MiB (mapped files)": mapped or 0.0}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=60_000)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.points < 1 or args.pairs < 1:
        raise SystemExit("--points and --pairs must be positive")
    if args.child:
        print(json.dumps(fill(args.child, args.points, args.folder)))
        return
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
    for pair in range(args.pairs):
        for side in SIDES if pair % 2 == 0 else SIDES[::-1]:
            folder = Path(tempfile.mkdtemp(prefix=f"edge-{side}-"))
            try:
                done = subprocess.run([sys.executable, __file__, "--child", side, "--folder", str(folder),
                                       "--points", str(args.points)], capture_output=True, text=True, check=True)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    table = Table(title=f"an Edge shard of {args.points:,} points without sentence vectors, "
                        f"medians of {args.pairs} interleaved pairs")
    for column in ("figure", "with sentence storage", "without", "without / with"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for figure in runs["with"][0]:
        with_, without = (statistics.median(r[figure] for r in runs[side]) for side in SIDES)
        table.add_row(figure, f"{with_:,.1f}", f"{without:,.1f}", f"{without / with_:.2f}×" if with_ else "-")
    Console().print(table)


if __name__ == "__main__":
    main()
