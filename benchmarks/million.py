"""The million-trace row: a store built once, then measured as it is used.

    python benchmarks/million.py build --home /var/tmp/cogmem-1m --traces 1000000   # resumable
    python benchmarks/million.py measure --home /var/tmp/cogmem-1m
    python benchmarks/million.py measure --home /var/tmp/cogmem-1m --quantization int8   # on a copy: it quantizes
    python benchmarks/million.py build --home /var/tmp/n4j-200k --traces 200000 --graph "$COGMEM_TEST_NEO4J_URI"

`build` writes traces with `encode_many` (hash embedder, the embedded default, the corpus of
`latency.py`: ten user scopes and a shared organisation scope) into a home that is kept, and
prints a line per `--report-every` traces: how many, the rate of that stretch, the process's
and the graph server's resident memory. After each stretch it builds the vector index's
search graphs for what the stretch wrote, as the night's `consolidate()` of a store in use
does (`--scan` leaves them unbuilt: every search then scans, as before they existed). It
stops after `--traces` in all and can be run again to go on where it stopped (the count and
the clock are kept beside the home, in `<home>.bench.json`), so a long build fits in several
sittings.

`measure` opens that home, builds the vector index's search graphs a store consolidated
every night would have (timed), opens every vector partition (timed: a store opens one when
a read first needs it) and retrieves once in each scope, and prints one table: `retrieve(top_k=10)` p50 / p95 over
`--queries` questions beside the floor (one raw vector query and one raw graph load of as
many traces, as in `latency.py`); a first `consolidate()` (everything written since the
build counts as new); then a day's writes (`--day-writes` traces over 24 hours on the clock)
and the night's `consolidate()`, the one a deployment pays every day (and its steps, timed
as `consolidation_steps.py` times them); the same retrievals again after the night (the
state a store in use is in most of the day); and resident memory
(the process's own, the vector segments it maps, the graph server's).
`--graph` puts the graph on a Neo4j server (given to `build` and `measure` alike; a build's
first stretch empties its database); the vectors stay in the home, as they do in production
beside a Qdrant server. With it, `--plans N` also prints what each graph statement of the
night cost and, for the N costliest, how Neo4j ran it: each statement's PROFILE plan after the
night, with its parameters from the night, in a transaction rolled back (as
`neo4j_statements.py` prints a workload's).
Wall-clock times on this machine; benchmarks never assert them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

import latency  # noqa: E402 - the corpus, the floor and the memory readings are latency.py's
from consolidation_steps import StepWatch, install  # noqa: E402 - the night's steps, timed as that benchmark does
from neo4j_statements import (  # noqa: E402 - the night's statements, profiled as that benchmark profiles a workload's
    StatementWatch,
    index_names,
    print_plans,
    print_statements,
    profile_gds_aware,
)

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, MS_PER_SECOND, ManualClock  # noqa: E402
from cogmem_graph.config import CogmemConfig  # noqa: E402
from cogmem_graph.home import write_private  # noqa: E402
from cogmem_graph.redact import redact_url  # noqa: E402

START_MS = 1_700_000_000_000


def state_path(home: Path) -> Path:
    return home.with_name(home.name + ".bench.json")


def load_state(home: Path) -> dict:
    path = state_path(home)
    return json.loads(path.read_text()) if path.exists() else {"written": 0, "clock": START_MS}


def save_state(home: Path, state: dict) -> None:
    write_private(state_path(home), json.dumps(state).encode("utf-8"))


def memory_line(store: cg.MemoryStore) -> str:
    anon, mapped = latency.rss_parts(os.getpid())
    graph = latency.rss_mib(latency.graph_server_pid(store)) or 0
    return f"process {anon or 0:7,.0f} MiB (+ {mapped or 0:,.0f} MiB mapped files)   graph server {graph:7,.0f} MiB"


def open_home(home: Path, clock: ManualClock, graph: str | None = None, *, fresh: bool = False,
              quantization: str = "none") -> cg.MemoryStore:
    """The home's store, its graph on `graph` (a Neo4j URL) or embedded; `fresh`: a Neo4j
    database is emptied first (a build's first stretch: Community Edition has one database);
    `quantization`: `vectors.edge_quantization`."""
    if graph and fresh:  # emptied, then opened again: an empty graph is stamped with this layout on opening
        with cg.open(home=home, embedder="hash", clock=clock, graph=graph) as store:
            store.graph.clear()
    config = CogmemConfig()
    config.vectors.edge_quantization = quantization
    return cg.open(home=home, embedder="hash", clock=clock, graph=graph, config=config)


def agents_of(store: cg.MemoryStore, scopes: int) -> list:
    return [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(scopes)]


def items_from(rng: random.Random, first: int, count: int, clock: ManualClock) -> list[dict]:
    """`count` memories numbered from `first`, one event every 30 s up to now; every
    twentieth is shared with the organisation."""
    now = clock.now_ms()
    items = [{"content": latency.item_text(rng, first + i), "created_at": now - (count - i) * 30 * MS_PER_SECOND}
             for i in range(count)]
    for i in range(0, count, 20):
        items[i]["scope"] = "organization"
    return items


def build(args, console: Console) -> None:
    home = Path(args.home)
    state = load_state(home)
    clock = ManualClock(state["clock"])
    rng = random.Random(args.seed + state["written"])
    with open_home(home, clock, args.graph, fresh=not state["written"]) as store:
        agents = agents_of(store, args.scopes)
        while state["written"] < args.traces:
            count = min(args.report_every, args.traces - state["written"])
            items = items_from(rng, state["written"], count, clock)
            start = time.perf_counter()
            latency.write_batches(agents, items, args.batch, clock)
            elapsed = time.perf_counter() - start
            store.graph.confirm_writes()
            state["written"] += count
            state["clock"] = clock.now_ms()
            save_state(home, state)
            graphs = ""
            if not args.scan:
                build_ms = latency.timed_ms(lambda: store.vectors.build_search_graphs(budget_s=None))
                graphs = f"   search graphs {build_ms / 1000:5.1f} s"
            console.print(f"{state['written']:>9,} traces   {count / elapsed:7,.0f} traces/s over the last "
                          f"{count:,}{graphs}   {memory_line(store)}", highlight=False)


def measure(args, console: Console) -> None:
    home = Path(args.home)
    state = load_state(home)
    if not state["written"]:
        raise SystemExit(f"--home {home}: nothing built there yet (run `build` first)")
    clock = ManualClock(state["clock"])
    rng = random.Random(args.seed)
    row: dict[str, float | None] = {}
    start = time.perf_counter()
    with open_home(home, clock, args.graph, quantization=args.quantization) as store:
        row["open s"] = time.perf_counter() - start
        counted = store.stats()  # a build stopped mid-stretch wrote more than its state says
        row["traces"] = float(counted.active_traces + counted.inactive_traces)
        # A store consolidated night after night has its vector search graphs: build what this
        # one lacks (no memory changes), all at once rather than over several nights.
        row["search graphs built s"] = latency.timed_ms(lambda: store.vectors.build_search_graphs(budget_s=None)) / 1000
        # The vector index opens a partition when a read first needs it (~1-2 s each at this
        # size): open them all here, as `cogmem serve` does at start, so that no timed
        # retrieval pays for it.
        row["vector partitions loaded s"] = latency.timed_ms(store.vectors.make_ready) / 1000
        agents = agents_of(store, args.scopes)
        qrng = random.Random(args.seed)
        queries = [(agents[qrng.randrange(len(agents))],
                    qrng.choice(latency.QUESTIONS).format(name=qrng.choice(latency.NAMES),
                                                          topic=qrng.choice(latency.TOPICS)))
                   for _ in range(args.queries)]
        for agent in agents:  # warm caches and code paths, every scope's
            agent.retrieve(queries[0][1], top_k=10, record_access=False)
        retrieve_ms, floor_ms = timed_retrievals(store, queries, clock)
        row["retrieve p50 ms"] = statistics.median(retrieve_ms)
        row["retrieve p95 ms"] = latency.percentile(retrieve_ms, 0.95)
        row["floor p50 ms"] = statistics.median(floor_ms)
        console.print(f"retrieve p50 {row['retrieve p50 ms']:.1f} ms, p95 {row['retrieve p95 ms']:.1f} ms",
                      highlight=False)

        clock.advance(2 * MS_PER_HOUR)
        row["first consolidate s"] = latency.timed_ms(store.consolidate) / 1000
        console.print(f"first consolidate {row['first consolidate s']:.1f} s", highlight=False)

        # A day: the writes spread over 24 hours, then the night's run.
        day = items_from(rng, state["written"], args.day_writes, clock)
        steps = max(1, args.day_writes // (args.batch * args.scopes))
        start = time.perf_counter()
        for step in range(steps):
            latency.write_batches(agents, day[step::steps], args.batch, clock)
            clock.advance(MS_PER_DAY // steps)
        row["day writes/s"] = args.day_writes / (time.perf_counter() - start)
        watch = StepWatch()
        install(watch, store)
        statements = StatementWatch(store.graph) if args.plans else None
        if statements is not None:
            statements.phase = "night"
        row["night consolidate s"] = latency.timed_ms(store.consolidate) / 1000
        night_steps = dict(watch.ms)
        if statements is not None:
            statements.phase = None
        # The state a store in use is in most of the day: consolidated, a day's writes behind it.
        retrieve_ms, floor_ms = timed_retrievals(store, queries, clock)
        row["retrieve after the night p50 ms"] = statistics.median(retrieve_ms)
        row["retrieve after the night p95 ms"] = latency.percentile(retrieve_ms, 0.95)
        row["floor after the night p50 ms"] = statistics.median(floor_ms)
        row["process MiB (anonymous)"], row["process MiB (mapped files)"] = latency.rss_parts(os.getpid())
        row["graph server MiB"] = latency.rss_mib(latency.graph_server_pid(store))
        # After the row's readings, which the profiling's reruns would disturb.
        night_plans = night_statements(store, statements, row["night consolidate s"]) if statements else {}
    engine = "embedded default" if args.graph is None else f"graph on {redact_url(args.graph)}"
    if args.quantization != "none":
        engine += f", {args.quantization} vectors"
    table = Table(title=f"the million-trace row — {engine}, hash embedder ({home})")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for figure, value in row.items():
        table.add_row(figure, "-" if value is None else f"{value:,.1f}")
    console.print(table)
    latency.print_ranked(console, "the night's steps (s)", "step", "s",
                         {step: ms / 1000 for step, ms in night_steps.items()}, "{:,.2f}")
    if args.plans:
        print_statements(console, night_plans, of="the night")
        print_plans(console, night_plans, args.plans)


def night_statements(store: cg.MemoryStore, watch: StatementWatch, night_s: float) -> dict:
    """The night's statements as `neo4j_statements.py` reports a workload's: each one's calls
    and time in the night, and its PROFILE with the night's last parameters."""
    with store.graph._driver.session(database=store.graph.config.neo4j_database) as session:
        indexes = index_names(session)
    profiles = {key: profile_gds_aware(store.graph, watch, sent, indexes) for key, sent in watch.sent.items()}
    return {"n": int(store.stats().active_traces), "phases": {"night": night_s * 1000}, "sent": dict(watch.sent),
            "profiles": profiles, "steady": {}}


def timed_retrievals(store: cg.MemoryStore, queries: list, clock: ManualClock) -> tuple[list[float], list[float]]:
    """Each query's `retrieve(top_k=10)` (its after-retrieval write confirmed outside the
    timer) and the floor beside it: one raw vector query and one raw load of as many traces."""
    pool = store.config.retrieval.pool_for(10)
    retrieve_ms, floor_ms = [], []
    for agent, query in queries:
        keys = agent.visible_scope_keys
        vector = store.embedder.embed_query(query)
        retrieve_ms.append(latency.timed_ms(lambda a=agent, q=query: a.retrieve(q, top_k=10)))
        store.graph.confirm_writes()
        t0 = time.perf_counter()
        latency.raw_graph_load(store, latency.raw_vector_query(store.vectors, vector, keys, pool), keys)
        floor_ms.append((time.perf_counter() - t0) * 1000)
        clock.advance(MS_PER_SECOND)
    return retrieve_ms, floor_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "measure"])
    parser.add_argument("--home", required=True, help="the memory home built and measured (kept)")
    parser.add_argument("--traces", type=int, default=1_000_000, help="build: traces in all")
    parser.add_argument("--report-every", type=int, default=50_000, help="build: a progress line per this many")
    parser.add_argument("--scan", action="store_true",
                        help="build: leave the vector search graphs unbuilt (every search scans)")
    parser.add_argument("--scopes", type=int, default=10, help="agents (user scopes) the traces are spread over")
    parser.add_argument("--batch", type=int, default=500, help="encode_many batch size")
    parser.add_argument("--queries", type=int, default=50, help="measure: retrieve calls")
    parser.add_argument("--day-writes", type=int, default=10_000, help="measure: traces written over the day")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--graph", default=None,
                        help="a Neo4j URL for the graph (its database is emptied by a build's first stretch); "
                             "default: the embedded graph in the home. Build and measure with the same one.")
    parser.add_argument("--quantization", choices=["none", "int8"], default="none",
                        help="measure: vectors.edge_quantization (a home built without it is quantized by the "
                             "measure's first build of search graphs)")
    parser.add_argument("--plans", type=int, default=0, metavar="N",
                        help="measure, with --graph: the night's statements, and the PROFILE plans of the N costliest")
    args = parser.parse_args()
    if args.plans < 0 or (args.plans and args.graph is None):
        raise SystemExit("--plans needs a Neo4j --graph and a positive count of plans")
    for name in ("traces", "report_every", "scopes", "batch", "queries", "day_writes"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    console = Console()
    (build if args.command == "build" else measure)(args, console)


if __name__ == "__main__":
    main()
