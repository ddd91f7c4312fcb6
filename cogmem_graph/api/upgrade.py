"""Homes and graphs written by older versions open with this one: the data layout's version.

The layout version (`STORE_VERSION`) is stamped in two places: the home's `store-version.json`
(0600) and a `StoreVersion` node in the graph. A home or graph without a stamp but with
memories was written before stamps existed (version 0). Opening such a store upgrades it
(`cg.open` runs `migrate` and logs a warning saying what it did); `cogmem migrate` does the
same ahead of time, with a progress bar and `--dry-run`. A stamp newer than this code knows
is refused (`StoreVersionTooNew`): an older library must not rewrite what it cannot read.

What version 1 needs of an older store, each step idempotent so that an interrupted run is
simply run again (a stamp is written only once every step is done):

- graph: the derived metadata lists (`metadata_props`) that metadata filters read, on
  traces written before filters existed;
- vectors: the filter payload (`write.indexing.filter_payload`) on every point, so a filtered
  search finds memories written before filters;
- vectors: the embedded index's points named by their trace and its folder split into
  partitions (`EdgeVectorIndex.rename_points`), rewritten in a fresh folder swapped in whole.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cogmem_graph._version import VERSION
from cogmem_graph.errors import CogmemError, StoreVersionTooNew
from cogmem_graph.home import private_dir, write_private
from cogmem_graph.metadata_props import metadata_graph_props

if TYPE_CHECKING:
    from cogmem_graph.api.ports import StorePort

STORE_VERSION = 1
"""The data layout this code writes. 0: before stamps (releases up to 0.1.0)."""
STAMP_FILE = "store-version.json"
"""The home's stamp, beside the graph and vector folders."""
BATCH = 500

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
"""`on_progress(step, done, total)` after each batch of a step."""


@dataclass
class Step:
    name: str
    what: str
    pending: int
    """Items the step would rewrite (memories, points); 0 for a stamp."""


@dataclass
class Plan:
    """What `migrate` would do: the versions found and the steps it would run."""

    home_version: int | None
    graph_version: int | None
    steps: list[Step] = field(default_factory=list)

    @property
    def needed(self) -> bool:
        return bool(self.steps)

    @property
    def rewrites(self) -> bool:
        """Whether a step rewrites data (not only stamps a version)."""
        return any(s.pending for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        return {"store_version": STORE_VERSION, "home_version": self.home_version,
                "graph_version": self.graph_version,
                "steps": [{"name": s.name, "what": s.what, "pending": s.pending} for s in self.steps]}


def read_home_stamp(home: Path) -> tuple[int, str] | None:
    """(version, release) of the home's stamp, None where it has none."""
    path = Path(home) / STAMP_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise CogmemError(f"{path} is not a readable version stamp ({exc}); restore it from a backup, or delete "
                          f"it to have the home checked and stamped again") from None
    return int(data["version"]), str(data.get("release", ""))


def _write_home_stamp(home: Path) -> None:
    private_dir(home)
    write_private(Path(home) / STAMP_FILE,
                  (json.dumps({"version": STORE_VERSION, "release": VERSION}) + "\n").encode())


def _home_holds_data(store: StorePort) -> bool:
    """Whether the home holds an embedded graph or vectors (a store with both on servers
    makes no home until it writes its audit file, and needs no stamp there)."""
    return store.config.graph.uri is None or store.config.vectors.url is None


def check_not_newer(store: StorePort) -> None:
    """Refuse a home or graph stamped by a newer version than this code knows."""
    home = read_home_stamp(store.home)
    if home is not None and home[0] > STORE_VERSION:
        raise StoreVersionTooNew(f"the memory home {store.home}", *home, reads=STORE_VERSION, version=VERSION)
    graph = store.graph.store_version()
    if graph is not None and graph[0] > STORE_VERSION:
        raise StoreVersionTooNew(f"the graph at {store.graph.url}", *graph, reads=STORE_VERSION, version=VERSION)


def plan(store: StorePort) -> Plan:
    """The steps `migrate` would run on this store now (none: it is up to date)."""
    check_not_newer(store)
    home, graph = read_home_stamp(store.home), store.graph.store_version()
    out = Plan(home[0] if home else None, graph[0] if graph else None)
    graph_current = graph is not None and graph[0] == STORE_VERSION
    renaming = bool(getattr(store.vectors, "needs_renaming", False))
    if graph_current and not renaming and ((home is not None and home[0] == STORE_VERSION)
                                           or not _home_holds_data(store)):
        return out  # the common case: two reads, no scan of the graph
    traces = 0 if graph_current else store.graph.stats().total_traces
    if not graph_current and (missing := store.graph.count_traces_without_meta()):
        out.steps.append(Step("graph-metadata", "derive the metadata lists filters read on older memories", missing))
    if traces:
        out.steps.append(Step("vector-payloads", "write the filter fields into every memory's vector payload",
                              traces))
    if renaming:
        out.steps.append(Step("vector-point-ids", "rewrite the embedded vector index with points named by "
                              "their memory, in partitions", store.vectors.count(None, active=None)))
    if graph is None or graph[0] < STORE_VERSION:
        out.steps.append(Step("graph-stamp", f"stamp data layout version {STORE_VERSION} in the graph", 0))
    if _home_holds_data(store) and (home is None or home[0] < STORE_VERSION):
        out.steps.append(Step("home-stamp", f"stamp data layout version {STORE_VERSION} in the home", 0))
    return out


def _graph_metadata(store: StorePort, total: int, report: Progress) -> None:
    done = 0
    seen: set[str] = set()
    while rows := store.graph.traces_without_meta(BATCH):
        if all(i in seen for i, _ in rows):  # a backend that kept no empty list: nothing more to do
            break
        seen.update(i for i, _ in rows)
        props = {}
        for trace_id, metadata in rows:
            try:
                parsed = json.loads(metadata) if metadata else {}
            except ValueError:
                parsed = {}
            props[trace_id] = metadata_graph_props(parsed if isinstance(parsed, dict) else {})
        done += store.graph.backfill_trace_props(props)
        report("graph-metadata", done, total)


def _vector_payloads(store: StorePort, total: int, report: Progress) -> None:
    from cogmem_graph.model import MemoryTrace
    from cogmem_graph.write.indexing import filter_payload

    done, after = 0, ""
    while rows := store.graph.export_page("traces", after=after, limit=BATCH, scope_keys=None):
        traces = [MemoryTrace.from_graph_props(row["trace"]) for row in rows]
        after = traces[-1].id
        present = store.vectors.existing_ids([t.id for t in traces])
        for t in traces:
            if t.id in present:
                store.vectors.set_payload(t.id, filter_payload(t))
        done += len(traces)
        report("vector-payloads", done, total)
        if len(rows) < BATCH:
            break


def migrate(store: StorePort, *, on_progress: Progress | None = None) -> Plan:
    """Run every step `plan` finds, then stamp the version in the graph and the home; the
    plan that ran. Safe to run again after an interruption: each step redoes only what is
    left or rewrites to the same result."""
    report = on_progress or (lambda step, done, total: None)
    todo = plan(store)
    for step in todo.steps:
        if step.name == "graph-metadata":
            _graph_metadata(store, step.pending, report)
        elif step.name == "vector-payloads":
            _vector_payloads(store, step.pending, report)
        elif step.name == "vector-point-ids":
            cast(Any, store.vectors).rename_points(lambda n, total=step.pending: report("vector-point-ids", n, total))
    if todo.needed:
        store.graph.set_store_version(STORE_VERSION, VERSION, store.clock.now_ms())
        if _home_holds_data(store):
            _write_home_stamp(store.home)
        for step in todo.steps:
            if not step.pending:
                report(step.name, 1, 1)
    return todo


def upgrade_on_open(store: StorePort) -> None:
    """What `cg.open` does: refuse a newer layout, upgrade an older one (saying so in a
    warning), stamp a new store silently."""
    todo = plan(store)
    if not todo.needed:
        return
    if todo.rewrites:
        found = min((v for v in (todo.home_version, todo.graph_version) if v is not None), default=0)
        log.warning("memory store at %s was written by an older cogmem-graph (data layout version %s); upgrading "
                    "it to version %s: %s", store.home, found, STORE_VERSION,
                    "; ".join(f"{s.what} ({s.pending})" for s in todo.steps if s.pending))
    migrate(store)
    if todo.rewrites:
        log.warning("memory store at %s upgraded to data layout version %s", store.home, STORE_VERSION)
