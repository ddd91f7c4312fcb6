"""What each graph statement costs on Neo4j under a user's workload, and how Neo4j runs the
costliest: PROFILE plans with their db hits, the indexes their seeks use, and the scans.

    . /tmp/n4j/env   # a Neo4j 5 started by `python tools/neo4j/server.py up --dir /tmp/n4j`
    python benchmarks/neo4j_statements.py                          # N = 10k
    python benchmarks/neo4j_statements.py --size 10000 50000       # which statements grow with N
    python benchmarks/neo4j_statements.py --save before.json       # keep the figures ...
    python benchmarks/neo4j_statements.py --before before.json     # ... and set them beside a later run
    python benchmarks/neo4j_statements.py --archived 5000 --show memory_get archive_get

The graph is `--graph` (default $COGMEM_TEST_NEO4J_URI, credentials from NEO4J_USER /
NEO4J_PASSWORD). THE DATABASE IS EMPTIED: point it at a server of your own.

For each N the store is filled as `latency.py` fills it (hash embedder, `encode_many` in
batches of 500 over `--scopes` user scopes, every twentieth trace in the organisation
scope, one event every 30 s), and `--archived` of its traces get an archived original (as
gisting leaves them; none by default); then a workload runs as a user's would: `--queries`
retrievals (each recording its access), `--singles` single encodes, `--multi-hop`
multi-hop questions, `--prompts` prompt assemblies, `--gets` memories read with `get` and
as many rehydrated, and one `consolidate()` a day later.
Every statement the store sends in the workload is timed by name (the store's
`_run_text`, so the driver's round trip and the rows' conversion are counted; a template
statement is named with the type that fills it), and its last parameters are kept.

Then each statement runs once more with PROFILE and those parameters, in a transaction
that is rolled back (a write changes nothing; a GDS algorithm is profiled on its graph
projected again, dropped after), and `--repeat` times more without PROFILE, also rolled
back ("rerun ms", their median: the same data every time, and no commit, which a write's
mean in the workload pays). The tables show:

- per statement: calls, total and mean ms, share of the workload's statement time, rerun
  ms, the profiled db hits and rows, and the scan operators of its plan;
- for the `--top` costliest by total time (and those named by `--show`): the plan,
  operator by operator (rows, db hits, the index each seek or scan reads, named as
  `SHOW INDEXES` names it), with label, all-node, relationship-type and whole-index scans
  flagged;
- with several sizes: mean ms, rerun ms and db hits per size, so the statements whose cost
  follows the store's size show;
- with `--before`: the figures of a saved run beside this one's.

Wall-clock times on this machine (benchmarks never assert them); db hits are Neo4j's count
of store accesses and do not depend on the machine's speed. The database is emptied a page
at a time (a single DETACH DELETE outgrew a 1 GB heap's transaction
memory at 50k traces).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import FILL_START_MS, NAMES, QUESTIONS, TOPICS, item_text  # noqa: E402

import cogmem_graph as cg  # noqa: E402
from cogmem_graph.clock import MS_PER_DAY, MS_PER_SECOND, ManualClock  # noqa: E402
from cogmem_graph.graph.cypher import CypherLibrary  # noqa: E402
from cogmem_graph.model import EdgeType, MemoryType  # noqa: E402

BENCH_CYPHER = CypherLibrary("neo4j", root=Path(__file__).resolve().parent / "cypher")
"""The benchmark's own statements (not the library's): the server's index list, a paged delete."""

SCANS = {
    "AllNodesScan": "all nodes",
    "NodeByLabelScan": "label scan",
    "UnionNodeByLabelsScan": "label scan",
    "IntersectionNodeByLabelsScan": "label scan",
    "SubtractionNodeByLabelsScan": "label scan",
    "DirectedAllRelationshipsScan": "all relationships",
    "UndirectedAllRelationshipsScan": "all relationships",
    "DirectedRelationshipTypeScan": "relationship type scan",
    "UndirectedRelationshipTypeScan": "relationship type scan",
    "DirectedUnionRelationshipTypesScan": "relationship type scan",
    "UndirectedUnionRelationshipTypesScan": "relationship type scan",
    "NodeIndexScan": "whole index",
    "DirectedRelationshipIndexScan": "whole index",
    "UndirectedRelationshipIndexScan": "whole index",
}
"""Operators that read every node of a label (or every relationship of a type, or every
entry of an index) rather than seeking the ones a statement asks for: what they flag."""

GDS_PROJECT = "gds.graph.project"

INDEXED = re.compile(r"(?:(RANGE|TEXT|POINT|UNIQUE|FULLTEXT|VECTOR)\s+)?(?:INDEX\s+)?"
                     r"(?:\(\w*\)-\[)?\w*:`?(\w+)`?\(([\w, ]+)\)")
"""A label or type and its properties in a seek's details: `RANGE INDEX t:Trace(scopeKey) ...`,
`UNIQUE t:Trace(id) ...`, `RANGE INDEX (a)-[r:TYPE(prop)]->(b) ...`."""


# ---------------------------------------------------------------- the statements a workload sends


@dataclass
class Sent:
    calls: int = 0
    ms: float = 0.0
    text: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    write: bool = False
    phases: set[str] = field(default_factory=set)


class StatementWatch:
    """Times every statement a graph store sends (`_run_text`), by name, and keeps the last
    text and parameters of each."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.sent: dict[str, Sent] = defaultdict(Sent)
        self.phase: str | None = None  # None: not watching
        self.projections: dict[str, tuple[str, dict[str, Any]]] = {}
        """Each GDS graph projected in the workload, by name: the projection's text and parameters."""
        self._lock = threading.Lock()
        self._keys: dict[tuple[str, str], str] = {}
        original = graph._run_text

        def run_text(text: str, params: dict[str, Any], *, write: bool, name: str) -> list[dict[str, Any]]:
            phase = self.phase
            kept = copy.deepcopy(params) if phase is not None else None
            start = time.perf_counter()
            try:
                return original(text, params, write=write, name=name)
            finally:
                if phase is not None:
                    self._record(name, text, kept or {}, write, phase, (time.perf_counter() - start) * 1000)

        graph._run_text = run_text  # the instance's attribute: every caller's self._run_text

    def _record(self, name: str, text: str, params: dict[str, Any], write: bool, phase: str, ms: float) -> None:
        key = self._key(name, text)
        with self._lock:
            s = self.sent[key]
            s.calls += 1
            s.ms += ms
            s.text, s.params, s.write = text, params, write
            s.phases.add(phase)
            if GDS_PROJECT in text and "graphName" in params:
                self.projections[params["graphName"]] = (text, params)

    def _key(self, name: str, text: str) -> str:
        """The statement's name; a template's with the type or label that fills it."""
        key = self._keys.get((name, text))
        if key is None:
            key = name
            library = self.graph.cypher
            try:
                plain = library.get(name)
            except Exception:  # a name the library does not hold
                plain = text
            if plain != text:
                for member in (*EdgeType, *MemoryType):
                    try:
                        filled = (library.for_edge(name, member) if isinstance(member, EdgeType)
                                  else library.for_type_label(name, member))
                    except (TypeError, ValueError):
                        continue
                    if filled == text:
                        key = f"{name}[{member.value}]"
                        break
            self._keys[(name, text)] = key
        return key


# ---------------------------------------------------------------- PROFILE


@dataclass
class Operator:
    depth: int
    name: str
    details: str
    rows: int
    db_hits: int
    index: str = ""
    flag: str = ""


@dataclass
class Profiled:
    db_hits: int = 0
    rows: int = 0
    ms: float = 0.0
    runtime: str = ""
    operators: list[Operator] = field(default_factory=list)
    error: str = ""

    @property
    def scans(self) -> list[str]:
        return [f"{op.name}({op.details.split(' WHERE ')[0][:40]})" for op in self.operators if op.flag]


def index_names(session: Any) -> dict[tuple[str, tuple[str, ...]], str]:
    """(label or type, properties) → the index's name, for every index of the server."""
    names: dict[tuple[str, tuple[str, ...]], str] = {}
    for record in session.run(BENCH_CYPHER.get("bench_indexes")):
        if record["labelsOrTypes"] and record["properties"]:
            for label in record["labelsOrTypes"]:
                names.setdefault((label, tuple(record["properties"])), f"{record['name']} ({record['type']})")
    return names


def plan_operators(plan: dict[str, Any], indexes: dict[tuple[str, tuple[str, ...]], str],
                   depth: int = 0) -> Iterator[Operator]:
    args = plan.get("args", {})
    name = str(plan.get("operatorType", "?")).split("@")[0]
    details = str(args.get("Details", ""))
    op = Operator(depth, name, details, int(plan.get("rows", args.get("Rows", 0)) or 0),
                  int(plan.get("dbHits", args.get("DbHits", 0)) or 0))
    if "Index" in name or "Unique" in name:
        used = []
        for _, label, props in INDEXED.findall(details):
            key = (label, tuple(p.strip() for p in props.split(",")))
            used.append(indexes.get(key, f"? {label}({', '.join(key[1])})"))
        op.index = "; ".join(dict.fromkeys(used))
    elif name == "ProcedureCall":
        found = re.search(r"db\.index\.fulltext\.query\w+\(\s*\"?'?(\w+)", details)
        if found:
            op.index = f"{found.group(1)} (FULLTEXT)"
    op.flag = SCANS.get(name, "")
    yield op
    for child in plan.get("children", []):
        yield from plan_operators(child, indexes, depth + 1)


def profile(graph: Any, sent: Sent, indexes: dict[tuple[str, tuple[str, ...]], str]) -> Profiled:
    """Run one statement with PROFILE and its captured parameters, in a transaction rolled
    back afterwards (a write's changes are undone; a GDS catalog change would not be)."""
    out = Profiled()
    with graph._driver.session(database=graph.config.neo4j_database) as session:
        tx = session.begin_transaction()
        try:
            start = time.perf_counter()
            result = tx.run("PROFILE\n" + sent.text, sent.params)
            out.rows = sum(1 for _ in result)
            summary = result.consume()
            out.ms = (time.perf_counter() - start) * 1000
        except Exception as exc:  # a statement PROFILE cannot run here: said in the table
            out.error = f"{type(exc).__name__}: {str(exc)[:160]}"
            return out
        finally:
            tx.rollback()
    plan = summary.profile or {}
    out.runtime = str(plan.get("args", {}).get("runtime", ""))
    out.operators = list(plan_operators(plan, indexes))
    out.db_hits = sum(op.db_hits for op in out.operators)
    return out


def profile_gds_aware(graph: Any, watch: StatementWatch, sent: Sent,
                      indexes: dict[tuple[str, tuple[str, ...]], str]) -> Profiled:
    """`profile`, with the GDS graph a statement reads projected again first (as the workload
    projected it) and every graph projected here dropped after, as the store drops its own."""
    graph_name = sent.params.get("graphName") if "gds." in sent.text else None
    projection = watch.projections.get(graph_name) if graph_name else None
    try:
        if projection is not None and GDS_PROJECT not in sent.text:
            with graph._driver.session(database=graph.config.neo4j_database) as session:
                session.run(*projection).consume()
        return profile(graph, sent, indexes)
    finally:
        if graph_name:
            graph.run("gds_graph_drop", {"graphName": graph_name}, write=True)


def repeated_ms(graph: Any, sent: Sent, times: int) -> float | None:
    """The median ms of `times` runs of a statement with its captured parameters, each in a
    transaction rolled back afterwards: steadier than the workload's mean on a busy machine,
    since every run meets the same data."""
    spent: list[float] = []
    with graph._driver.session(database=graph.config.neo4j_database) as session:
        for _ in range(times):
            tx = session.begin_transaction()
            try:
                start = time.perf_counter()
                for _ in tx.run(sent.text, sent.params):
                    pass
                spent.append((time.perf_counter() - start) * 1000)
            except Exception:  # PROFILE said why in its column
                return None
            finally:
                tx.rollback()
    return statistics.median(spent)


# ---------------------------------------------------------------- one size


def empty(graph: Any, page: int = 5_000) -> None:
    """Delete every node, `page` at a time (see bench_clear_page.cypher)."""
    text = BENCH_CYPHER.get("bench_clear_page")
    while graph._run_text(text, {"limit": page}, write=True, name="bench_clear_page")[0]["deleted"]:
        pass


def fill(agents: list[Any], items: list[dict[str, Any]], clock: ManualClock) -> list[Any]:
    """`latency.write_batches`, keeping the traces written: each agent its share of `items` in
    batches of 500, the clock a second on after each round."""
    written: list[Any] = []
    for offset in range(0, len(items), 500 * len(agents)):
        for u, agent in enumerate(agents):
            chunk = items[offset + u * 500: offset + (u + 1) * 500]
            if chunk:
                written += agent.encode_many(chunk, batch_size=500)
        clock.advance(MS_PER_SECOND)
    return written


def run_size(n: int, args: argparse.Namespace, console: Console) -> dict[str, Any]:
    clock = ManualClock(FILL_START_MS + n * 30 * MS_PER_SECOND)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp, \
            cg.open(home=Path(tmp) / "home", graph=args.graph, embedder="hash", clock=clock) as store:
        empty(store.graph)
        store.graph.setup_schema()
        watch = StatementWatch(store.graph)
        agents = [store.agent("bench", user_id=f"u{u}", organization_id="acme") for u in range(args.scopes)]
        items = [{"content": item_text(rng, i), "created_at": FILL_START_MS + i * 30 * MS_PER_SECOND,
                  **({"scope": "organization"} if i % 20 == 0 else {})} for i in range(n)]
        started = time.perf_counter()
        written = fill(agents, items, clock)
        fill_s = time.perf_counter() - started
        console.print(f"[dim]N = {n:,}: filled in {fill_s:.1f} s[/dim]")
        # Originals archived as a store that has gisted for a while holds them (the archive's
        # statements find them by trace id).
        archived = written[:: max(1, n // args.archived)][: args.archived] if args.archived else []
        started = time.perf_counter()
        for offset in range(0, len(archived), 500):
            store.graph.archive_originals(archived[offset: offset + 500], "gist", clock.now_ms())
        if archived:
            console.print(f"[dim]archived {len(archived):,} originals in {time.perf_counter() - started:.1f} s[/dim]")
        looked_up = (archived or written[::97])[: args.gets]

        def owner(trace: Any) -> Any:
            """The first agent that sees a trace (its user's; any for the organisation's)."""
            return next(a for a in agents if trace.scope_key in a.visible_scope_keys)

        qrng = random.Random(args.seed)
        questions = [(agents[qrng.randrange(len(agents))],
                      qrng.choice(QUESTIONS).format(name=qrng.choice(NAMES), topic=qrng.choice(TOPICS)))
                     for _ in range(max(args.queries, args.multi_hop, args.prompts))]
        for agent, question in questions[:5]:  # warm the caches and code paths, not timed
            agent.retrieve(question, top_k=args.top_k, record_access=False)

        phases: dict[str, float] = {}

        def phase(name: str, calls: Sequence[Any]) -> None:
            watch.phase = name
            start = time.perf_counter()
            for call in calls:
                call()
                store.graph.confirm_writes()
                clock.advance(MS_PER_SECOND)
            phases[name] = (time.perf_counter() - start) * 1000
            watch.phase = None

        phase("retrieve", [lambda a=a, q=q: a.retrieve(q, top_k=args.top_k) for a, q in questions[: args.queries]])
        writers = [(agents[i % len(agents)], item_text(rng, n + i)) for i in range(args.singles)]
        phase("encode", [lambda a=a, text=text: a.encode(text) for a, text in writers])
        phase("multi_hop", [lambda a=a, q=q: a.multi_hop(q, top_k=args.top_k)
                            for a, q in questions[: args.multi_hop]])
        phase("assemble_for_prompt", [lambda a=a, q=q: a.assemble_for_prompt(q)
                                      for a, q in questions[: args.prompts]])
        phase("get", [lambda t=t: owner(t).get(t.id) for t in looked_up])
        phase("rehydrate", [lambda t=t: owner(t).rehydrate(t.id) for t in looked_up])
        clock.advance(MS_PER_DAY)
        phase("consolidate", [store.consolidate])

        with store.graph._driver.session(database=store.graph.config.neo4j_database) as session:
            indexes = index_names(session)
        profiles = {key: profile_gds_aware(store.graph, watch, watch.sent[key], indexes) for key in watch.sent}
        steady = {key: repeated_ms(store.graph, watch.sent[key], args.repeat) for key in ranked_keys(watch.sent)
                  if "gds." not in watch.sent[key].text} if args.repeat else {}
        if not (args.keep and n == args.size[-1]):
            empty(store.graph)  # the next store that opens this database finds it empty, as its vectors are
    return {"n": n, "fill_s": fill_s, "phases": phases, "sent": dict(watch.sent), "profiles": profiles,
            "steady": steady}


# ---------------------------------------------------------------- tables


def ranked_keys(sent: dict[str, Sent]) -> list[str]:
    return sorted(sent, key=lambda k: -sent[k].ms)


def ranked(run: dict[str, Any]) -> list[str]:
    return ranked_keys(run["sent"])


def print_statements(console: Console, run: dict[str, Any], of: str = "the workload") -> None:
    sent, profiles = run["sent"], run["profiles"]
    total = sum(s.ms for s in sent.values()) or 1.0
    phases = ", ".join(f"{name} {ms / 1000:.1f} s" for name, ms in run["phases"].items())
    rerun = f"; rerun ms: its median of a few runs after {of}" if run["steady"] else ""
    table = Table(title=f"Neo4j statements of {of}, N = {run['n']:,} ({phases}); "
                        f"PROFILE of the last call of each{rerun}")
    for title in ("statement", "calls", "total ms", "mean ms", "share", "rerun ms", "db hits", "rows", "phases",
                  "scans"):
        table.add_column(title, justify="left" if title in ("statement", "phases", "scans") else "right")
    for key in ranked(run):
        s, p, rerun = sent[key], profiles[key], run["steady"].get(key)
        table.add_row(key, f"{s.calls}", f"{s.ms:,.1f}", f"{s.ms / s.calls:.2f}", f"{100 * s.ms / total:.1f} %",
                      "-" if rerun is None else f"{rerun:.2f}",
                      "-" if p.error else f"{p.db_hits:,}", "-" if p.error else f"{p.rows:,}",
                      ", ".join(sorted(s.phases)), escape(p.error[:60] if p.error else ", ".join(p.scans)))
    console.print(table)


def print_plans(console: Console, run: dict[str, Any], top: int, also: Sequence[str] = ()) -> None:
    for key in ranked(run)[:top] + [k for k in ranked(run)[top:] if k in also]:
        s, p = run["sent"][key], run["profiles"][key]
        head = (f"{key} — N = {run['n']:,}: {s.calls} calls, {s.ms:,.1f} ms in the workload "
                f"({s.ms / s.calls:.2f} ms each)")
        if p.error:
            console.print(f"[bold]{head}[/bold]\n  PROFILE failed: {escape(p.error)}")
            continue
        table = Table(title=f"{head}; PROFILE: {p.db_hits:,} db hits, {p.rows:,} rows, {p.ms:.1f} ms, "
                            f"{p.runtime.lower()} runtime", title_justify="left")
        for title in ("operator", "details", "rows", "db hits", "index", "scan"):
            table.add_column(title, justify="right" if title in ("rows", "db hits") else "left")
        for op in p.operators:
            table.add_row("  " * op.depth + op.name, escape(op.details[:100]), f"{op.rows:,}", f"{op.db_hits:,}",
                          op.index,
                          f"[bold red]{op.flag}[/bold red]" if op.flag else "")
        console.print(table)


def print_growth(console: Console, runs: list[dict[str, Any]]) -> None:
    first, last = runs[0], runs[-1]
    keys = sorted({k for r in runs for k in r["sent"]}, key=lambda k: -max(r["sent"][k].ms if k in r["sent"] else 0
                                                                           for r in runs))
    sizes = " → ".join(f"{r['n']:,}" for r in runs)
    table = Table(title=f"cost per call by store size ({sizes} traces, {last['n'] / first['n']:.0f}× more)")
    table.add_column("statement")
    for r in runs:
        table.add_column(f"mean ms {r['n']:,}", justify="right")
    for r in runs:
        table.add_column(f"rerun ms {r['n']:,}", justify="right")
    for r in runs:
        table.add_column(f"db hits {r['n']:,}", justify="right")
    table.add_column("db hits ×", justify="right")
    table.add_column("mean ms ×", justify="right")
    for key in keys:
        ms = [r["sent"][key].ms / r["sent"][key].calls if key in r["sent"] else None for r in runs]
        reruns = [r["steady"].get(key) for r in runs]
        hits = [r["profiles"][key].db_hits if key in r["profiles"] and not r["profiles"][key].error else None
                for r in runs]
        hit_ratio = f"{hits[-1] / hits[0]:.1f}×" if hits[0] and hits[-1] is not None else "-"
        ms_ratio = f"{ms[-1] / ms[0]:.1f}×" if ms[0] and ms[-1] is not None else "-"
        table.add_row(key, *("-" if v is None else f"{v:.2f}" for v in ms),
                      *("-" if v is None else f"{v:.2f}" for v in reruns),
                      *("-" if v is None else f"{v:,}" for v in hits), hit_ratio, ms_ratio)
    console.print(table)


def figures(run: dict[str, Any]) -> dict[str, Any]:
    """What `--save` keeps of a run (and `--before` reads)."""
    statements = {}
    for key, s in run["sent"].items():
        p = run["profiles"][key]
        statements[key] = {"calls": s.calls, "ms": s.ms, "rerun_ms": run["steady"].get(key),
                           "db_hits": None if p.error else p.db_hits, "scans": p.scans}
    return {"n": run["n"], "phases": run["phases"], "statements": statements}


def print_before(console: Console, before: list[dict[str, Any]], runs: list[dict[str, Any]], top: int) -> None:
    """This run beside a saved one (`--save`), size by size: the statements that were among
    the `top` costliest on either side, or whose db hits changed."""
    for run in runs:
        old = next((b for b in before if b["n"] == run["n"]), None)
        if old is None:
            continue
        now = figures(run)["statements"]
        was = old["statements"]
        shown = set(sorted(was, key=lambda k: -was[k]["ms"])[:top]) | set(ranked(run)[:top])
        shown |= {k for k in now if k in was and now[k]["db_hits"] != was[k]["db_hits"]}
        table = Table(title=f"before (saved) and now, N = {run['n']:,}")
        for title in ("statement", "mean ms before", "mean ms now", "rerun ms before", "rerun ms now",
                      "db hits before", "db hits now", "scans before", "scans now"):
            table.add_column(title, justify="left" if title in ("statement",) or "scans" in title else "right")
        for key in sorted(shown, key=lambda k: -(was.get(k, {}).get("ms") or 0)):
            b, a = was.get(key), now.get(key)

            def mean(x: dict[str, Any] | None) -> str:
                return "-" if x is None else f"{x['ms'] / x['calls']:.2f}"

            def hits(x: dict[str, Any] | None) -> str:
                return "-" if x is None or x["db_hits"] is None else f"{x['db_hits']:,}"

            def rerun(x: dict[str, Any] | None) -> str:
                return "-" if x is None or x.get("rerun_ms") is None else f"{x['rerun_ms']:.2f}"

            table.add_row(key, mean(b), mean(a), rerun(b), rerun(a), hits(b), hits(a),
                          ", ".join(b["scans"]) if b else "", ", ".join(a["scans"]) if a else "")
        console.print(table)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, nargs="+", default=[10_000], help="traces the store is filled with")
    parser.add_argument("--graph", default=os.environ.get("COGMEM_TEST_NEO4J_URI"),
                        help="the Neo4j URL (default $COGMEM_TEST_NEO4J_URI); its database is emptied")
    parser.add_argument("--scopes", type=int, default=10, help="user scopes the traces are spread over")
    parser.add_argument("--queries", type=int, default=50, help="retrieve calls")
    parser.add_argument("--singles", type=int, default=10, help="single encode calls")
    parser.add_argument("--multi-hop", type=int, default=10, help="multi_hop calls")
    parser.add_argument("--prompts", type=int, default=10, help="assemble_for_prompt calls")
    parser.add_argument("--gets", type=int, default=10, help="get and rehydrate calls (of archived traces if any)")
    parser.add_argument("--archived", type=int, default=0,
                        help="originals archived after the fill (archive_store), as gisting leaves them")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--top", type=int, default=5, help="costliest statements whose plans are printed")
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs of each statement (GDS calls excepted) after the workload, for its median ms")
    parser.add_argument("--show", nargs="+", default=[], metavar="STATEMENT",
                        help="also print the plans of these statements")
    parser.add_argument("--keep", action="store_true",
                        help="leave the last size's store in the database (to explore it in Neo4j Browser)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--before", type=Path, help="a file --save wrote: set its figures beside this run's")
    args = parser.parse_args(argv)
    if not args.graph or not args.graph.startswith(("bolt://", "neo4j://", "bolt+s://", "neo4j+s://")):
        parser.error("--graph must be a Neo4j URL (bolt:// or neo4j://), or set COGMEM_TEST_NEO4J_URI")
    if min([*args.size, args.scopes, args.queries, args.top_k, args.top]) < 1 or min(
            args.singles, args.multi_hop, args.prompts, args.gets, args.archived) < 0:
        parser.error("--size, --scopes, --queries, --top-k and --top must be positive")
    before = json.loads(args.before.read_text()) if args.before else None
    console = Console(width=250)
    runs = []
    for n in args.size:
        run = run_size(n, args, console)
        runs.append(run)
        print_statements(console, run)
        print_plans(console, run, args.top, args.show)
        if args.save:  # after each size: a later size that fails leaves the earlier ones saved
            args.save.write_text(json.dumps([figures(r) for r in runs], indent=1))
    if len(runs) > 1:
        print_growth(console, runs)
    if before is not None:
        print_before(console, before, runs, args.top)


if __name__ == "__main__":
    main()
