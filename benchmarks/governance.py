"""Governance benchmark: what filtering, listing and erasing cost, beside their baselines.

    python benchmarks/governance.py                              # 10k for filters, 100k for list and erase
    python benchmarks/governance.py --filter-size 2000 --erase-size 10000   # a quick run

Rows, each measured in one run on one store (hash embedder: the vectors' cost is not
what is measured here):

- Filtered retrieve: N traces of which 1 % carry a tag; `retrieve(q, top_k=10,
  where={"tags_any": [tag]})` beside the same `retrieve(q, top_k=10)` unfiltered, asked
  interleaved (one of each per query) so the machine's noise hits both; p50 / p95, and
  whether every filtered answer holds top_k memories that all match.
- List: pages of 100 through `agent.list` at M traces (the first page, and pages deep in
  the cursor chain).
- Erase: a user holding 1,000 memories among M, `store.erase(...)` including the
  compaction of the files, beside `forget` of the same number by filter without it.

Prints tables; wall-clock times on this machine (benchmarks never assert them).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

WORDS = ("deploy invoice garden concert train budget recipe meeting doctor holiday lesson server "
         "football museum tax ticket laptop river coffee hiking").split()
TAG = "rare"


def text(rng: random.Random, i: int) -> str:
    return f"Note {i}: " + " ".join(rng.sample(WORDS, 5)) + f" number {rng.randrange(10_000)}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed_ms(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def fill(agent: cg.AgentMemory, n: int, rng: random.Random, *, tagged_every: int | None, progress: Progress,
         label: str, batch: int = 1000) -> None:
    task = progress.add_task(label, total=n)
    for start in range(0, n, batch):
        items = []
        for i in range(start, min(n, start + batch)):
            tags = [TAG] if tagged_every and i % tagged_every == 0 else []
            items.append({"content": text(rng, i), "tags": tags, "metadata": {"i": i}})
        agent.encode_many(items, batch_size=batch)
        progress.advance(task, len(items))


def filtered_rows(n: int, queries: int, progress: Progress) -> list[tuple[str, str, str, str]]:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as home, cg.open(home=home, embedder="hash",
                                                        clock=ManualClock(1_700_000_000_000)) as store:
        agent = store.agent("bench", user_id="u")
        fill(agent, n, rng, tagged_every=100, progress=progress, label=f"filter: {n:,} traces")
        plain_ms, filtered_ms, full, matching = [], [], 0, 0
        for _ in range(queries):
            query = " ".join(rng.sample(WORDS, 3))
            ms, _ = timed_ms(lambda query=query: agent.retrieve(query, top_k=10, record_access=False))
            plain_ms.append(ms)
            ms, result = timed_ms(lambda query=query: agent.retrieve(query, top_k=10, record_access=False,
                                                                     where={"tags_any": [TAG]}))
            filtered_ms.append(ms)
            full += len(result.traces) == 10
            matching += all(TAG in h.trace.tags for h in result.traces)
    return [
        (f"retrieve, unfiltered ({n:,} traces)", f"{percentile(plain_ms, 0.5):.1f}",
         f"{percentile(plain_ms, 0.95):.1f}", "baseline"),
        ("retrieve, where tags_any (1 % match)", f"{percentile(filtered_ms, 0.5):.1f}",
         f"{percentile(filtered_ms, 0.95):.1f}",
         f"{statistics.median(filtered_ms) / statistics.median(plain_ms):.2f}x; top 10 full {full}/{queries}, "
         f"all matching {matching}/{queries}"),
    ]


def scale_rows(m: int, erase_n: int, progress: Progress) -> list[tuple[str, str, str, str]]:
    rng = random.Random(11)
    rows = []
    with tempfile.TemporaryDirectory() as home, cg.open(home=home, embedder="hash",
                                                        clock=ManualClock(1_700_000_000_000)) as store:
        crowd = [store.agent("bench", user_id=f"user{k}") for k in range(10)]
        for k, agent in enumerate(crowd):
            fill(agent, (m - 2 * erase_n) // len(crowd), rng, tagged_every=None, progress=progress,
                 label=f"scale: user{k}")
        leaver = store.agent("bench", user_id="leaver", thread_id="t")
        fill(leaver, erase_n, rng, tagged_every=None, progress=progress, label=f"scale: {erase_n:,} to erase")
        forgetful = store.agent("bench", user_id="forgetful")
        fill(forgetful, erase_n, rng, tagged_every=1, progress=progress, label=f"scale: {erase_n:,} to forget")
        total = store.stats().total_traces

        page_ms: list[float] = []
        cursor = None
        for _ in range(30):
            ms, page = timed_ms(lambda cursor=cursor: crowd[0].list(limit=100, cursor=cursor))
            page_ms.append(ms)
            cursor = page.cursor
            if cursor is None:
                break
        rows.append((f"list, first page of 100 ({total:,} traces)", f"{page_ms[0]:.1f}", "", ""))
        rows.append((f"list, pages 2-{len(page_ms)} by cursor", f"{percentile(page_ms[1:], 0.5):.1f}",
                     f"{percentile(page_ms[1:], 0.95):.1f}", ""))

        ms, receipt = timed_ms(lambda: forgetful.forget(where={"tags_any": [TAG]}))
        rows.append((f"forget {len(receipt.forgotten):,} by filter, no compaction", f"{ms:.0f}", "",
                     "baseline"))
        delete_ms, receipt = timed_ms(lambda: store.erase("leaver", compact=False))
        compact_ms, report = timed_ms(store.compact)
        vectors, graph = report["vectors"], report["graph"]
        rows.append((f"erase a user of {receipt.counts['traces']:,} (with compaction)",
                     f"{delete_ms + compact_ms:.0f}", "",
                     f"goal < 10,000 ms at 100k: delete {delete_ms:.0f} ms, then compaction {compact_ms:.0f} ms "
                     f"(vectors: {vectors.get('points', '-'):,} points of {vectors.get('partitions_rebuilt', 1)} "
                     f"of {vectors.get('partitions', 1)} shards rebuilt, {vectors.get('seconds', '-')} s; graph log "
                     f"rewrite {graph.get('seconds', '-')} s, beside it)"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter-size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--scale-size", type=int, default=100_000, help="traces in the list / erase store")
    parser.add_argument("--erase-size", type=int, default=1_000, help="memories of the user erased")
    args = parser.parse_args()
    console = Console(width=140)
    with Progress(console=console, transient=True) as progress:
        rows = filtered_rows(args.filter_size, args.queries, progress)
        rows += scale_rows(args.scale_size, args.erase_size, progress)
    table = Table(title="Governance: filters, list, forget and erase (hash embedder, embedded stores)")
    for column in ("row", "p50 / once (ms)", "p95 (ms)", "beside"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    console.print(table)


if __name__ == "__main__":
    main()
