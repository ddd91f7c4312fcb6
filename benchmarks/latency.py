"""Latency benchmark of the public API: ingest, retrieve, consolidate and memory, each
beside the floor it is measured against.

    python benchmarks/latency.py                          # N = 1k, 10k, 100k, embedded default, hash embedder
    python benchmarks/latency.py --sizes 1000 10000
    python benchmarks/latency.py --embedder local         # MiniLM; its cost gets its own columns
    python benchmarks/latency.py --graph bolt://localhost:7687 --vectors http://localhost:6333
    python benchmarks/latency.py --embedded-vectors local # the qdrant-client local-mode index instead
    python benchmarks/latency.py --sizes 10000 --beside retrieval.rank_depth=1   # a setting's cost, interleaved
    python benchmarks/latency.py --sizes 10000 --compare c3096ca --pairs 3       # this tree beside a revision

For each N, traces spread over several scopes (one user scope per agent, plus a shared
organisation scope) are written with `encode_many` (the write and read paths imported
first: their imports are the process's, not the traces'); then, in the same process and on
the same data:

- the process's CPU time per trace during that ingest (all its threads; the graph server's
  is not counted): steadier than throughput on a machine whose speed varies;
- single `encode` calls (one trace each, the write path's per-call cost);
- `retrieve` over a fixed set of queries (p50 / p95);
- the floor: one raw vector query with the same scope filter plus one raw Cypher round
  trip loading as many whole traces as the pipeline ranked — what a fused retrieval
  that loads its candidates costs at the least;
- the slim floor: the same vector query plus one round trip reading only those traces'
  ranking fields — the least the pipeline's own reads could cost (it reads vitals for
  every candidate and whole traces only for what it returns);
- a plain-vector baseline: the vector store's top-k alone;
- one `consolidate()`;
- resident memory of this process and of the embedded graph server.

Prints one table; wall-clock times on this machine (benchmarks never assert them).

`--compare REV` measures this tree beside a revision: REV's files (`git archive`) run their
own copy of this benchmark on their own package, in a child process each, alternating
which goes first, `--pairs` times; the table shows each figure's median per side and the
ratio. Each side's process imports its package's write and read paths before its copy of
the benchmark starts, so no side's ingest pays them, and times a fixed pure-Python loop
before and after it ("machine probe ms"): on a shared machine whose speed drifts, a ratio
whose probe ratio is far from 1.00× compares two speeds of the machine as much as two
revisions. Only an interleaved comparison says which is faster.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, MS_PER_SECOND, ManualClock
from cogmem_graph.config import CogmemConfig

NAMES = [f"{first} {last}" for first in ("Alice", "Bruno", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana",
                                         "Ivan", "Jun", "Kofi", "Lena", "Marta", "Nadia", "Omar", "Priya")
         for last in ("Berg", "Costa", "Dumas", "Evans", "Fischer", "Garcia", "Horvat", "Ito", "Jansen",
                      "Kowalski", "Lopez", "Moreau", "Novak")]
TOPICS = ["hiking", "the budget review", "the new office", "climbing", "the release plan", "jazz concerts",
          "the database migration", "a trip to Lisbon", "the quarterly report", "sourdough baking",
          "the hiring plan", "marathon training", "the design review", "chess club", "the API outage",
          "the garden", "a broken laptop", "the school play", "tax forms", "the moving van"]
TEMPLATES = [
    "{name} talked about {topic} during lunch on day {day}",
    "{name} asked me to look into {topic} before Friday",
    "I told {name} that {topic} needs more time, week {day}",
    "{name} is excited about {topic} since day {day}",
    "We discussed {topic} with {name} this morning",
    "{name} shared some notes on {topic}, {count} pages long",
    "Reminder: {topic} with {name} at {count} o'clock",
]
QUESTIONS = [
    "What did {name} say about {topic}?",
    "When did we discuss {topic}?",
    "Who is excited about {topic}?",
    "What does {name} need from me?",
    "notes on {topic}",
]


def item_text(rng: random.Random, i: int) -> str:
    text = rng.choice(TEMPLATES).format(name=rng.choice(NAMES), topic=rng.choice(TOPICS),
                                        day=rng.randrange(1, 365), count=rng.randrange(1, 13))
    return f"{text} (note {i})"


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def rss_mib(pid: int | None) -> float | None:
    """Resident memory of a process from /proc (None where there is no such process)."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def rss_parts(pid: int | None) -> tuple[float | None, float | None]:
    """(anonymous, file-backed) resident MiB of a process: the vector index's segments are
    memory-mapped files, resident while used but page cache the kernel can drop under
    pressure; the anonymous part is what the process itself holds."""
    if pid is None:
        return None, None
    fields = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("RssAnon:", "RssFile:")):
                fields[line.split(":")[0]] = int(line.split()[1]) / 1024
    except OSError:
        return None, None
    return fields.get("RssAnon"), fields.get("RssFile")


def print_ranked(console: Console, title: str, name: str, unit: str, values: dict[str, float], fmt: str) -> None:
    """A two-column table of named figures, the largest first."""
    table = Table(title=title)
    table.add_column(name)
    table.add_column(unit, justify="right")
    for key, value in sorted(values.items(), key=lambda item: -item[1]):
        table.add_row(key, fmt.format(value))
    console.print(table)


def graph_server_pid(store: cg.MemoryStore) -> int | None:
    """The embedded graph server's process, or the local process listening on a graph URL's
    port (a Neo4j JVM on this machine); None for a server elsewhere."""
    server = getattr(store.graph, "embedded_server", None)
    process = getattr(server, "process", None)
    if process is not None:
        return process.pid
    url = urlsplit(getattr(store.graph, "url", "") or "")
    if url.hostname not in ("127.0.0.1", "localhost") or url.port is None:
        return None
    return listening_pid(url.port)


def listening_pid(port: int) -> int | None:
    """The process with a socket listening on this TCP port of the loopback or any address,
    read from /proc (None when none is found or /proc is not readable)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    return None


def timed_ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


# ---------------------------------------------------------------- the floor


def raw_vector_query(index, vector: list[float], keys: list[str], limit: int) -> list[str]:
    """One query straight on the vector engine, with the same scope + active filter the
    adapter sends, no result shaping: the cheapest way to ask the same question."""
    name = type(index).__name__
    if name == "EdgeVectorIndex":
        from qdrant_edge import Query, QueryRequest

        # Imported here, not at the top: profile_stages.py loads this module beside older packages.
        from cogmem_graph.vectors.naming import trace_id_of_point

        own_ids = getattr(index, "own_point_ids", False)  # the trace ids are the point ids: no payload read
        request = QueryRequest(query=Query.Nearest(list(vector), using="dense"), filter=index.filter(keys),
                               limit=limit, with_payload=False if own_ids else ["trace_id"])
        points = sorted((p for shard in index.shards_for(keys) for p in shard.query(request)),
                        key=lambda p: p.score, reverse=True)[:limit]
        if own_ids:
            return [trace_id_of_point(p.id) or "" for p in points]
        return [p.payload["trace_id"] for p in points]
    result = index._client.query_points(index.name, query=list(vector), using="dense",
                                        query_filter=index._filter(keys), limit=limit, with_payload=["trace_id"])
    return [p.payload["trace_id"] for p in result.points]


def raw_graph_load(store: cg.MemoryStore, ids: list[str], keys: list[str]) -> int:
    """One Cypher round trip loading the traces by id (no conversion into models)."""
    return len(store.graph.run("get_traces", {"ids": ids, "scopeKeys": keys}))


def raw_vitals_load(store: cg.MemoryStore, ids: list[str], keys: list[str]) -> int:
    """One Cypher round trip reading only the ranking fields (what retrieve itself reads
    for its candidates before it loads whole traces for the ones it returns)."""
    from cogmem_graph.graph.port import VITALS_LEAD_CHARS  # here, not at the top: see raw_vector_query

    return len(store.graph.run("trace_vitals", {"ids": ids, "scopeKeys": keys, "leadChars": VITALS_LEAD_CHARS}))


def watch_embedding(store: cg.MemoryStore) -> list[float]:
    """Seconds spent embedding documents, so ingest can be reported without them."""
    spent = [0.0]
    embed = store.embedder.embed

    def timed(texts: list[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return embed(texts)
        finally:
            spent[0] += time.perf_counter() - start

    store.embedder.embed = timed
    return spent


def watch_loads(store: cg.MemoryStore) -> set[str]:
    """The traces a retrieval read from the graph (ranking fields or whole), however many
    reads it took: the candidates it ranked. The floor loads as many whole traces."""
    seen: set[str] = set()
    for name in ("get_traces_later", "trace_vitals_later"):  # get_traces and trace_vitals call these
        load = getattr(store.graph, name)

        def counting(ids, scope_keys, load=load):
            seen.update(ids)
            return load(ids, scope_keys)

        setattr(store.graph, name, counting)
    spread = store.graph.spread_activation

    def spreading(*args, **kwargs):
        reached = spread(*args, **kwargs)
        seen.update(a.trace_id for a in reached if getattr(a, "vitals", None) is not None)
        return reached

    store.graph.spread_activation = spreading
    return seen


# ---------------------------------------------------------------- a setting's cost


def setting_targets(config: CogmemConfig, settings: str, option: str = "--beside") -> list[tuple[object, str, object]]:
    """(the config object, the field, the value) for each `path=value` of `settings`, several
    joined by "+" (`retrieval.a=1+retrieval.b=2`; lifecycle.py's presets read theirs here
    too); a path that names no setting stops the benchmark with `option` named."""
    targets = []
    for setting in settings.split("+"):
        path, _, raw = setting.partition("=")
        *parents, leaf = path.split(".")
        target = config
        for part in parents:
            target = getattr(target, part, None)
        if target is None or not hasattr(target, leaf):
            raise SystemExit(f"{option} {settings}: no setting {path}")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        targets.append((target, leaf, value))
    return targets


def interleaved_beside(store: cg.MemoryStore, queries: list, top_k: int, settings: str,
                       clock: ManualClock) -> tuple[float, float, float, float]:
    """retrieve p50 and p95 with the default settings and with `settings`, query by query on the
    same data, which goes first alternating: (default p50, default p95, setting p50, setting p95)."""
    targets = setting_targets(store.config, settings)
    defaults = [getattr(target, leaf) for target, leaf, _ in targets]
    times: dict[bool, list[float]] = {False: [], True: []}
    for i, (agent, query) in enumerate(queries * 2):
        for changed in ((False, True) if i % 2 else (True, False)):
            for (target, leaf, value), default in zip(targets, defaults, strict=True):
                setattr(target, leaf, value if changed else default)
            times[changed].append(timed_ms(lambda a=agent, q=query: a.retrieve(q, top_k=top_k)))
            store.graph.confirm_writes()
            clock.advance(MS_PER_SECOND)
    for (target, leaf, _), default in zip(targets, defaults, strict=True):
        setattr(target, leaf, default)
    return (statistics.median(times[False]), percentile(times[False], 0.95),
            statistics.median(times[True]), percentile(times[True], 0.95))


# ---------------------------------------------------------------- one size


def write_batches(agents: list, items: list[dict], batch: int, clock: ManualClock) -> None:
    """Ingest as the benchmarks measure it: each agent writes its share of `items` with
    `encode_many` in batches of `batch`, the clock moving on a second after each round."""
    for offset in range(0, len(items), batch * len(agents)):
        for u, agent in enumerate(agents):
            chunk = items[offset + u * batch: offset + (u + 1) * batch]
            if chunk:
                agent.encode_many(chunk, batch_size=batch)
        clock.advance(MS_PER_SECOND)


FILL_START_MS = 1_700_000_000_000


def fill_home(home: Path, size: int, scopes: int, seed: int) -> None:
    """A home for the benchmarks that keep one: `size` traces written as `run_size` writes
    them, one every 30 s, every twentieth shared with the organisation, each agent its share
    in batches of 500."""
    rng = random.Random(seed)
    clock = ManualClock(FILL_START_MS + size * 30 * MS_PER_SECOND)
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        agents = [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(scopes)]
        items = [{"content": item_text(rng, i), "created_at": FILL_START_MS + i * 30 * MS_PER_SECOND,
                  **({"scope": "organization"} if i % 20 == 0 else {})} for i in range(size)]
        write_batches(agents, items, 500, clock)


def copy_home(home: Path, to: Path) -> None:
    """A copy of a memory home that keeps its files' holes: the vector index's files are
    sparse (a 1,500-trace home holds ~9 MB in ~600 MB of file lengths), and a plain copy
    writes every hole out as zeros."""
    shutil.copytree(home, to, copy_function=copy_sparse)


def copy_sparse(source: str, target: str) -> None:
    """`shutil.copy2`, writing only the regions of `source` that hold data (the rest stays a
    hole in `target`); a plain copy where the file system cannot say where its holes are."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        offset = 0
        try:
            while offset < size:
                start = os.lseek(src.fileno(), offset, os.SEEK_DATA)
                offset = os.lseek(src.fileno(), start, os.SEEK_HOLE)
                src.seek(start)
                dst.seek(start)
                left = offset - start
                while left:
                    chunk = src.read(min(left, 1 << 20))
                    dst.write(chunk)
                    left -= len(chunk)
        except OSError as exc:  # ENXIO: no data after `offset`; EINVAL: no SEEK_DATA here
            if exc.errno == errno.EINVAL:
                src.seek(0)
                dst.seek(0)
                shutil.copyfileobj(src, dst)
            elif exc.errno != errno.ENXIO:
                raise
        dst.truncate(size)
    shutil.copystat(source, target)


WRITE_AND_READ_PATHS = ("cogmem_graph.write.encode", "cogmem_graph.retrieval.read_path")
"""The modules `encode_many` and `retrieve` import on their first call (a command that only
lists memories never loads them)."""


def load_write_and_read_paths() -> None:
    """Import the write and read paths before ingest is timed: a one-time cost of the process
    (~0.3 s, mostly compiling the language rules' patterns), not of the traces written. Older
    packages imported them with `cogmem_graph` itself, outside the timed part."""
    for name in WRITE_AND_READ_PATHS:
        with contextlib.suppress(ModuleNotFoundError):  # a revision that keeps them elsewhere
            importlib.import_module(name)


def open_store(args, home: Path, clock: ManualClock) -> cg.MemoryStore:
    config = CogmemConfig()
    if args.embedded_vectors and hasattr(config.vectors, "embedded"):
        config.vectors.embedded = args.embedded_vectors
    if args.vectors or args.graph:
        config.vectors.collection_prefix = f"bench{os.getpid()}"
    return cg.open(home=home, graph=args.graph, vectors=args.vectors, embedder=args.embedder,
                   config=config, clock=clock)


def run_size(n: int, args, rng: random.Random) -> dict[str, float | str | None]:
    clock = ManualClock(1_700_000_000_000)
    with tempfile.TemporaryDirectory() as tmp, open_store(args, Path(tmp) / "home", clock) as store:
        if args.graph:
            store.graph.clear()
            store.graph.setup_schema()
        agents = [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(args.scopes)]
        # A conversation history: one event every 30 s, the last one now.
        start_at = clock.now_ms() - n * 30 * MS_PER_SECOND
        items = [{"content": item_text(rng, i), "created_at": start_at + i * 30 * MS_PER_SECOND} for i in range(n)]
        for i in range(0, n, 20):  # every twentieth memory is shared with the organisation
            items[i]["scope"] = "organization"
        row: dict[str, float | str | None] = {"n": n, "engine": repr(store.vectors).split("(")[0]}
        embed_s = watch_embedding(store)
        loaded = watch_loads(store)
        load_write_and_read_paths()

        start, cpu_start = time.perf_counter(), time.process_time()
        write_batches(agents, items, args.batch, clock)
        elapsed = time.perf_counter() - start
        row["encode_many/s"] = n / elapsed
        row["encode_many excl/s"] = n / max(elapsed - embed_s[0], 1e-9)
        row["encode_many cpu"] = (time.process_time() - cpu_start) / n * 1e6

        single = []
        for i in range(args.singles):
            agent = agents[i % len(agents)]
            single.append(timed_ms(lambda a=agent, i=i: a.encode(item_text(rng, n + i))))
            clock.advance(MS_PER_SECOND)
        if single:  # --singles 0 skips them
            row["encode p50"] = statistics.median(single)

        if args.embedder != "hash":
            texts = [item_text(rng, n + args.singles + i) for i in range(args.batch)]
            inner = store.embedder.inner if hasattr(store.embedder, "inner") else store.embedder
            row["embed/s"] = len(texts) / (timed_ms(lambda: inner.embed(texts)) / 1000)
            row["query embed"] = statistics.median(
                timed_ms(lambda t=t: inner.embed_query(t)) for t in texts[: args.queries])

        # A fixed query set, the same for every adapter: (agent, question).
        qrng = random.Random(args.seed)
        queries = [(agents[qrng.randrange(len(agents))],
                    qrng.choice(QUESTIONS).format(name=qrng.choice(NAMES), topic=qrng.choice(TOPICS)))
                   for _ in range(args.queries)]
        pool = store.config.retrieval.pool_for(args.top_k)
        for agent, query in queries[: min(5, len(queries))]:  # warm caches and code paths
            agent.retrieve(query, top_k=args.top_k, record_access=False)
        retrieve_ms, floor_ms, slim_ms, vector_ms, loads = [], [], [], [], []
        for agent, query in queries:
            keys = agent.visible_scope_keys
            vector = store.embedder.embed_query(query)  # cached: the floor pays no embedding either
            loaded.clear()
            retrieve_ms.append(timed_ms(lambda a=agent, q=query: a.retrieve(q, top_k=args.top_k)))
            # retrieve returns before the graph confirms its bookkeeping write; the floor
            # must not pay for it (an agent's next step, an LLM call, takes far longer).
            store.graph.confirm_writes()
            count = len(loaded) or pool  # as many traces as the pipeline ranked
            loads.append(count)
            start = time.perf_counter()
            ids = raw_vector_query(store.vectors, vector, keys, count)
            raw_graph_load(store, ids, keys)
            floor_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            raw_vitals_load(store, raw_vector_query(store.vectors, vector, keys, count), keys)
            slim_ms.append((time.perf_counter() - start) * 1000)
            vector_ms.append(timed_ms(lambda v=vector, k=keys: raw_vector_query(store.vectors, v, k, args.top_k)))
            clock.advance(MS_PER_SECOND)
        # The same queries once more with nothing between them: each retrieval then meets the
        # previous one's bookkeeping write still in flight.
        back_to_back = [timed_ms(lambda a=agent, q=query: a.retrieve(q, top_k=args.top_k)) for agent, query in queries]
        store.graph.confirm_writes()
        row["back-to-back p50"] = statistics.median(back_to_back)
        row["loaded"] = statistics.mean(loads)
        row["retrieve p50"] = statistics.median(retrieve_ms)
        row["retrieve p95"] = percentile(retrieve_ms, 0.95)
        row["floor p50"] = statistics.median(floor_ms)
        row["ratio"] = row["retrieve p50"] / row["floor p50"]
        row["slim floor p50"] = statistics.median(slim_ms)
        row["slim ratio"] = row["retrieve p50"] / row["slim floor p50"]
        row["vector p50"] = statistics.median(vector_ms)

        for setting in args.beside:
            row[f"beside:{setting}"] = interleaved_beside(store, queries, args.top_k, setting, clock)

        if not args.skip_consolidate:
            clock.advance(2 * MS_PER_HOUR)
            row["consolidate s"] = timed_ms(store.consolidate) / 1000
        gc.collect()
        row["process MiB"] = rss_mib(os.getpid())
        row["graph MiB"] = rss_mib(graph_server_pid(store))
        return row


COLUMNS = [
    ("graph", "graph", "{}"),
    ("traces", "n", "{:,.0f}"),
    ("encode_many traces/s", "encode_many/s", "{:,.0f}"),
    ("… without embedding", "encode_many excl/s", "{:,.0f}"),
    ("encode_many CPU µs/trace", "encode_many cpu", "{:,.0f}"),
    ("encode p50 ms", "encode p50", "{:.1f}"),
    ("embed texts/s", "embed/s", "{:,.0f}"),
    ("query embed ms", "query embed", "{:.1f}"),
    ("retrieve p50 ms", "retrieve p50", "{:.1f}"),
    ("retrieve p95 ms", "retrieve p95", "{:.1f}"),
    ("back-to-back p50 ms", "back-to-back p50", "{:.1f}"),
    ("traces loaded", "loaded", "{:.0f}"),
    ("floor p50 ms", "floor p50", "{:.1f}"),
    ("retrieve / floor", "ratio", "{:.1f}×"),
    ("slim floor p50 ms", "slim floor p50", "{:.1f}"),
    ("retrieve / slim floor", "slim ratio", "{:.1f}×"),
    ("vector top-k p50 ms", "vector p50", "{:.1f}"),
    ("consolidate s", "consolidate s", "{:.1f}"),
    ("process RSS MiB", "process MiB", "{:,.0f}"),
    ("graph server RSS MiB", "graph MiB", "{:,.0f}"),
]


# ---------------------------------------------------------------- a revision beside this tree

COMPARED = ("encode_many traces/s", "encode_many CPU µs/trace", "encode p50 ms", "retrieve p50 ms",
            "retrieve p95 ms", "back-to-back p50 ms", "floor p50 ms", "retrieve / floor", "consolidate s",
            "process RSS MiB", "graph server RSS MiB", "machine probe ms")
"""The figures `--compare` sets side by side (column titles; one that a side does not print is left out)."""


def revision_tree(rev: str, into: Path) -> Path:
    """REV's files, from `git archive`, in `into`: its package and its own copy of this script."""
    root = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", rev], capture_output=True, check=False)
    if archive.returncode:
        raise SystemExit(f"--compare {rev}: {archive.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def table_rows(text: str) -> list[dict[str, str]]:
    """The first table a run printed, one dict per row by column title."""
    header: list[str] | None = None
    rows = []
    for line in text.splitlines():
        if header is None and line.startswith("┃"):
            header = [cell.strip() for cell in line.strip("┃").split("┃")]
        elif header is not None and line.startswith("│"):
            rows.append(dict(zip(header, (cell.strip() for cell in line.strip("│").split("│")), strict=False)))
        elif header is not None and rows and not line.startswith(("│", "├", "└", "┡")):
            break
    return rows


PROBE_LOOP = 2_000_000
"""Iterations of the machine probe: a fixed pure-Python loop (~65 ms on this machine when quiet)."""

PROBE = "machine probe ms"
"""The compared figure of the machine probe, and the label of the line each side prints: its
best of three timings before and after a side's run, averaged."""

RUN_WARM = (
    "import contextlib, importlib, runpy, sys, time\n"
    "def probe():\n"
    "    best = float('inf')\n"
    "    for _ in range(3):\n"
    "        started, total = time.perf_counter(), 0\n"
    "        for i in range({loop}):\n"
    "            total += i\n"
    "        best = min(best, (time.perf_counter() - started) * 1000)\n"
    "    return best\n"
    "before = probe()\n"
    "for name in {paths!r}:\n"
    "    with contextlib.suppress(ModuleNotFoundError):\n"
    "        importlib.import_module(name)\n"
    "sys.argv = [{script!r}, *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_path({script!r}, run_name='__main__')\n"
    "finally:\n"
    "    print(f'{label}: {{before:.1f}} {{probe():.1f}}')\n"
)
"""How each side of `--compare` runs its own benchmark: with the write and read paths imported
first (`load_write_and_read_paths`), so that no side's ingest pays its imports, whether its
copy of this script loads them or not; and timing the machine probe before and after, so a
side that ran on a slower stretch of a shared machine shows it."""

def run_tree(tree: Path, argv: list[str]) -> list[dict[str, str]]:
    """One run of `tree`'s own latency benchmark on `tree`'s package: its table's rows, each
    with the machine probe of that run."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script = str(tree / "benchmarks" / "latency.py")
    prelude = RUN_WARM.format(paths=WRITE_AND_READ_PATHS, script=script, loop=PROBE_LOOP, label=PROBE)
    done = subprocess.run([sys.executable, "-c", prelude, *argv], cwd=tree, env=env, capture_output=True, text=True,
                          check=False)
    rows = table_rows(done.stdout)
    if done.returncode or not rows:
        raise SystemExit(f"the benchmark in {tree} failed:\n{done.stderr[-2000:]}")
    probed = [line.split(":", 1)[1].split() for line in done.stdout.splitlines() if line.startswith(PROBE + ":")]
    if probed:
        mean = statistics.mean(float(v) for v in probed[-1])
        for row in rows:
            row[PROBE] = f"{mean:.1f}"
    return rows


def number(cell: str | None) -> float | None:
    try:
        return float((cell or "").replace(",", "").rstrip("×"))
    except ValueError:
        return None


def compare(rev: str, pairs: int, argv: list[str], console: Console) -> None:
    """This tree beside REV, interleaved: REV first in even pairs, this tree first in odd ones."""
    here = Path(__file__).resolve().parents[1]
    runs: dict[str, list[list[dict[str, str]]]] = {rev: [], "this tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: revision_tree(rev, Path(tmp) / "rev"), "this tree": here}
        for pair in range(pairs):
            for side in ([rev, "this tree"] if pair % 2 == 0 else ["this tree", rev]):
                console.print(f"[dim]pair {pair + 1}/{pairs}: {side} ...[/dim]")
                runs[side].append(run_tree(trees[side], argv))
    table = Table(title=f"latency — {rev} beside this tree, {pairs} interleaved pairs, medians "
                        f"({' '.join(argv) or 'default sizes'})")
    for title in ("traces", "figure", rev, "this tree", f"this / {rev}", "each run, this tree"):
        table.add_column(title, justify="right")
    for position, first in enumerate(runs[rev][0]):
        for figure in COMPARED:
            values = {side: [number(r[position].get(figure)) for r in runs[side]] for side in runs}
            if any(v is None for side in values.values() for v in side):
                continue
            before, after = statistics.median(values[rev]), statistics.median(values["this tree"])
            table.add_row(first.get("traces", "?"), figure, f"{before:,.1f}", f"{after:,.1f}",
                          f"{after / before:.2f}×" if before else "-",
                          " · ".join(f"{v:,.1f}" for v in values["this tree"]))
    console.print(table)


def without_compare(argv: Sequence[str]) -> list[str]:
    """The arguments each side of `--compare` runs with: all but `--compare` and `--pairs`."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--compare", "--pairs"):
            skip = True
        elif not arg.startswith(("--compare=", "--pairs=")):
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--scopes", type=int, default=10, help="agents (user scopes) the traces are spread over")
    parser.add_argument("--batch", type=int, default=500, help="encode_many batch size")
    parser.add_argument("--queries", type=int, default=50, help="retrieve calls per size")
    parser.add_argument("--singles", type=int, default=50, help="single encode calls per size")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--embedder", default="hash", help="hash (default: embedding cost excluded) or local")
    parser.add_argument("--graph", help="graph URL (bolt:// or neo4j:// for Neo4j); default: embedded FalkorDB")
    parser.add_argument("--graphs", help="comma-separated graphs measured in one run, interleaved size by size "
                        "and alternating which goes first: 'embedded' and/or URLs (e.g. embedded,bolt://…)")
    parser.add_argument("--vectors", help="Qdrant server URL; default: the embedded vector index")
    parser.add_argument("--embedded-vectors", choices=["edge", "local"],
                        help="embedded vector engine: Qdrant Edge or qdrant-client local mode (default: the store's)")
    parser.add_argument("--skip-consolidate", action="store_true")
    parser.add_argument("--beside", action="append", default=[], metavar="PATH=VALUE",
                        help="also time retrieve with this setting, interleaved query by query with the default on "
                             "the same data (e.g. retrieval.rank_depth=1; several joined by +); may be repeated")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--compare", metavar="REV", help="measure this tree beside a git revision, interleaved")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved runs of each side with --compare")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if min(args.sizes + [args.scopes, args.batch, args.queries, args.top_k, args.pairs]) < 1 or args.singles < 0:
        parser.error("--sizes, --scopes, --batch, --queries, --top-k and --pairs must be positive")
    console = Console(width=360)
    if args.compare:
        compare(args.compare, args.pairs, without_compare(argv), console)
        return
    rng = random.Random(args.seed)
    where = f"{args.graph or 'embedded FalkorDB'} + {args.vectors or 'embedded vectors'}"
    rows = []
    graphs = [None if g.strip() == "embedded" else g.strip() for g in args.graphs.split(",")] if args.graphs \
        else [args.graph]
    if args.graphs:
        where = " and ".join(g or "embedded FalkorDB" for g in graphs) + f" + {args.vectors or 'embedded vectors'}"
    for index, n in enumerate(args.sizes):
        order = graphs if index % 2 == 0 else graphs[::-1]  # neither engine always runs on a warmer machine
        state = rng.getstate()  # every graph of a size gets the same memories and questions
        for graph in order:
            console.print(f"[dim]N = {n:,} on {graph or 'embedded FalkorDB'} ...[/dim]")
            rng.setstate(state)
            rows.append(run_size(n, argparse.Namespace(**{**vars(args), "graph": graph}), rng))
            if args.graphs:  # the column shows only when a run measures several
                rows[-1]["graph"] = "neo4j" if graph and graph.startswith(("bolt", "neo4j")) else graph or "embedded"
    engines = sorted({str(r["engine"]) for r in rows})
    table = Table(title=f"latency — {where} ({', '.join(engines)}), {args.embedder} embedder, "
                        f"{args.scopes} user scopes + 1 organisation scope, top_k {args.top_k}, "
                        f"{args.queries} queries")
    columns = [c for c in COLUMNS if any(r.get(c[1]) is not None for r in rows)]
    for title, _, _ in columns:
        table.add_column(title, justify="right")
    for r in rows:
        table.add_row(*("-" if r.get(key) is None else fmt.format(r[key]) for _, key, fmt in columns))
    console.print(table)
    console.print("floor = one raw vector query (same scope filter) + one Cypher round trip loading as many traces "
                  "as the pipeline ranked (\"traces loaded\", mean per query); "
                  "slim floor = the same vector query + one round trip "
                  "reading only their ranking fields (what retrieve reads before loading the returned traces whole); "
                  "vector top-k = the vector store alone; "
                  "\"… without embedding\" = encode_many throughput less the time spent in the embedder.")
    for setting in args.beside:
        beside = Table(title=f"retrieve, default settings and {setting}, interleaved query by query "
                             f"({2 * args.queries} calls each)")
        for title in ("traces", "default p50 ms", "default p95 ms", f"{setting} p50 ms", f"{setting} p95 ms",
                      "default / setting p50"):
            beside.add_column(title, justify="right")
        for r in rows:
            d50, d95, s50, s95 = r[f"beside:{setting}"]
            beside.add_row(f"{r['n']:,}", f"{d50:.1f}", f"{d95:.1f}", f"{s50:.1f}", f"{s95:.1f}", f"{d50 / s50:.2f}×")
        console.print(beside)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
