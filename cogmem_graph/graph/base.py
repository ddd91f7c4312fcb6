"""Operations shared by both graph adapters.

Each operation is one named statement and one round trip. Subclasses only know
how to execute a statement on their engine (`_run`), set up their schema, and
phrase a full-text query; everything else (batching, deduplication, scope checks,
result shaping) lives here once.
"""

from __future__ import annotations

import bisect
import itertools
import logging
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import Any

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from cogmem_graph.clock import Clock, SystemClock
from cogmem_graph.config.graph import ActivationConfig, GraphConfig
from cogmem_graph.errors import GraphStoreUnavailable
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.graph.port import (
    AccessUpdate,
    Activation,
    Edge,
    FulltextSearch,
    GraphStats,
    LexicalHit,
    Mention,
    NeighbourState,
    Subgraph,
    TraceVitals,
)
from cogmem_graph.model import STRUCTURAL_EDGE_TYPES, EdgeType, MemoryTrace, MemoryType

log = logging.getLogger(__name__)

BATCH_SIZE = 2_000
LINK_ROWS_PER_STATEMENT = 200
"""SHARED_ENTITY rows (one trace and its picks, up to ~10 each) per statement: ~BATCH_SIZE links."""
MAX_ACTIVATION_FRONTIER = 10_000
"""Paths carried into the next hop at most (the strongest): a bound for hub-heavy graphs
whose strong edges would otherwise multiply the paths every hop."""


REPEATABLE_WRITES = frozenset({
    "ping", "upsert_traces", "set_indexed", "merge_mentions", "temporal_sequence_link", "shared_entity_link",
    "caused_by_link", "merge_edges", "set_strengths", "write_mechanism_state", "set_pinned",
})
"""Writes whose second application changes nothing and answers as the first did: they set values
the caller gives, MERGE with ON CREATE, or keep a maximum (checked by
tests/reliability/test_graph_server_restart.py). When the store's own server died under one and
was started again, it is sent again, as a read is. Any other write is not: the dead server may
have applied and logged it just before it died, and a second application could count twice
(hebbian_update, record_access) or answer differently (soft_delete_traces)."""


def require_scope_keys(scope_keys: Sequence[str] | None) -> list[str]:
    """Tenancy is never optional: a read without scope keys is a programming error."""
    if scope_keys is None or isinstance(scope_keys, str) or len(scope_keys) == 0:
        raise ValueError("scope_keys must be a non-empty list of scope keys")
    keys = list(scope_keys)
    for key in keys:
        if not isinstance(key, str) or not key:
            raise ValueError("scope_keys must contain non-empty strings")
    return keys


def _chunks(items: Sequence[Any], size: int = BATCH_SIZE):
    for start in range(0, len(items), size):
        yield items[start : start + size]


class CypherGraphStore(ABC):
    """A GraphStore over a Cypher engine."""

    dialect: str = ""

    def __init__(self, config: GraphConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or GraphConfig()
        self.clock = clock or SystemClock()
        self.cypher = CypherLibrary(self.dialect)

    # ------------------------------------------------------------ engine hooks

    url: str = ""

    @abstractmethod
    def _run(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """Execute one statement, returning rows as dicts keyed by column name."""

    @abstractmethod
    def _is_transient(self, exc: BaseException) -> bool:
        """True for faults worth retrying (dropped connection, timeout, leader switch)."""

    @abstractmethod
    def _fulltext_query(self, text: str, every_word_of: Sequence[str] = ()) -> str | None:
        """The engine's escaped full-text query for free text, or for every word of one of
        `every_word_of` (None: nothing to search)."""

    @abstractmethod
    def setup_schema(self) -> None: ...

    @abstractmethod
    def clear(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    # ------------------------------------------------------------ execution

    def run(self, name: str, params: dict[str, Any] | None = None, *, write: bool = False) -> list[dict[str, Any]]:
        """Run a named statement with bounded retries on transient faults."""
        return self._run_text(self.cypher.get(name), params or {}, write=write, name=name)

    def _run_text(self, text: str, params: dict[str, Any], *, write: bool, name: str) -> list[dict[str, Any]]:
        """Run a statement with bounded retries on transient faults.

        A store that runs its own server (the embedded FalkorDB) starts it again when it died:
        before the statement when it was already dead (the statement was sent to nothing), or
        after the faults when it died under the statement. Then a read runs once more on the new
        server, and so does a write of REPEATABLE_WRITES; any other write does not, since the dead
        server may have applied and logged it before it died (its log is replayed at the
        restart) and sending it again could apply it twice: the error says so and the caller
        calls again. Stores of servers they do not run (external FalkorDB, Neo4j) only retry."""
        self._before_statement()
        server = self._server_token()
        try:
            return self._run_retrying(text, params, write=write, server=server)
        except Exception as exc:
            if not self._is_transient(exc):
                raise
            if not self._recover(exc, server):
                raise self._unavailable(exc) from exc
            if write and name not in REPEATABLE_WRITES:
                raise GraphStoreUnavailable(
                    f"{self.dialect} graph at {self.url}: the server stopped while it ran the write {name!r} and "
                    "was started again on the same data; whether that write was applied before it stopped is "
                    "unknown, so it was not sent again. Call again.",
                    url=self.url,
                ) from exc
        try:  # once more, on the server started again
            return self._run_retrying(text, params, write=write, server=self._server_token())
        except Exception as exc:
            if self._is_transient(exc):
                raise self._unavailable(exc) from exc
            raise

    def _run_retrying(self, text: str, params: dict[str, Any], *, write: bool, server: Any) -> list[dict[str, Any]]:
        retrying = Retrying(
            stop=stop_after_attempt(self.config.retry_attempts),
            wait=wait_exponential(multiplier=0.05, max=self.config.retry_max_wait_s),
            # A server that died or was replaced since the statement began will not answer a
            # retry, and a write may have reached it: stop, and let `_recover` decide.
            retry=retry_if_exception(lambda exc: self._is_transient(exc) and self._server_token() == server),
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                return self._run(text, params, write=write)
        raise AssertionError("unreachable")  # pragma: no cover

    def _unavailable(self, exc: BaseException) -> GraphStoreUnavailable:
        return GraphStoreUnavailable(
            f"{self.dialect} graph at {self.url} is unreachable after "
            f"{self.config.retry_attempts} attempts ({type(exc).__name__}: {exc}). "
            f"{self._start_hint()}",
            url=self.url,
        )

    # Hooks of a store that runs its own server (the embedded FalkorDB); the defaults are for
    # servers the store does not run, which are never restarted.

    def _before_statement(self) -> None:
        """Before a statement is sent: start the store's server again if it is known dead."""
        return None

    def _server_token(self) -> Any:
        """Which server process the store talks to (None: the same one always); a different
        value means it died or was replaced."""
        return None

    def _recover(self, exc: BaseException, server: Any) -> bool:
        """After transient faults on a statement begun on `server` (`_server_token`): start the
        store's server again if it died, and reconnect. True when the store now talks to
        another server process than `server`."""
        return False

    def _run_unconfirmed(self, text: str, params: dict[str, Any], *, name: str) -> None:
        """A write whose reply the caller does not wait for. Engines that can leave it in
        flight (FalkorDB) confirm it before their next statement and raise its failure
        there; by default it simply runs to completion."""
        self._run_text(text, params, write=True, name=name)

    def read_later(self, name: str, params: dict[str, Any] | None = None) -> Callable[[], list[dict[str, Any]]]:
        """Start a named read and return what gives its rows. Engines that can leave it
        running while the caller goes on (FalkorDB) do; by default it runs now. Call the
        result once the rows are needed (it raises what the read raised)."""
        return self._read_later(self.cypher.get(name), params or {}, name=name)

    def _read_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        rows = self._run_text(text, params, write=False, name=name)
        return lambda: rows

    def _write_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        """Send an idempotent write and return what confirms it and gives its rows. Engines
        that can (FalkorDB) apply it while the caller computes; every later statement of
        this process runs after it. By default it runs now. The caller must call the result
        before it reports the write as done: that call raises what the write raised."""
        rows = self._run_text(text, params, write=True, name=name)
        return lambda: rows

    def get_traces_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[MemoryTrace]]:
        """`get_traces`, started now and read when called (`read_later`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return list
        rows = self.read_later("get_traces", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        return lambda: [MemoryTrace.from_graph_props(r["trace"]) for r in rows()]

    def trace_vitals_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[TraceVitals]]:
        """`trace_vitals`, started now and read when called (`read_later`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return list
        rows = self.read_later("trace_vitals", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        return lambda: [_vitals(r) for r in rows()]

    def confirm_writes(self) -> None:
        """Return once every write this store sent has been applied, raising if one failed
        (`after_retrieval(wait=False)`); nothing to do where writes always complete before returning."""
        return None

    def _start_hint(self) -> str:
        return "Start the graph server, or open the store without a graph URL to use the embedded default."

    def _now(self) -> int:
        return self.clock.now_ms()

    # ------------------------------------------------------------ traces

    def upsert_traces(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> int:
        """Create or update traces: one statement per memory type present (the type label
        is part of the pattern), after moving any trace whose type changed. `fresh`: the
        ids were minted for these traces just now, so none exists yet to be moved."""
        return self.upsert_traces_later(traces, fresh=fresh)()

    def upsert_traces_later(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> Callable[[], int]:
        """`upsert_traces` with its last statement left to the engine while the caller goes
        on (`_write_later`); the result confirms it and gives the number written."""
        unique = list({t.id: t for t in traces}.values())
        written: list[Callable[[], list[dict[str, Any]]]] = []
        for chunk in _chunks(unique):
            if not fresh:
                self.run("retype_traces", {"rows": [{"id": t.id, "type": t.type.value} for t in chunk]}, write=True)
            by_type: dict[MemoryType, list[dict]] = {}
            for t in chunk:
                by_type.setdefault(t.type, []).append(t.to_graph_props())
            for memory_type, rows in by_type.items():
                text = self.cypher.for_type_label("upsert_traces", memory_type)
                written.append(self._write_later(text, {"rows": rows}, name="upsert_traces"))
        return lambda: sum(rows()[0]["written"] for rows in written)

    def get_traces(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryTrace]:
        return self.get_traces_later(ids, scope_keys)()

    def trace_texts(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, str]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return {}
        return {r["id"]: r["content"] for r in self.run("trace_texts", {"ids": list(dict.fromkeys(ids)),
                                                                        "scopeKeys": keys})}

    def trace_vitals(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[TraceVitals]:
        """Ranking fields of the active, indexed traces among `ids` (see `TraceVitals`)."""
        return self.trace_vitals_later(ids, scope_keys)()

    def neighbour_states(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[NeighbourState]:
        """Text and decay state of the traces among `ids` inside the visible scope keys,
        active or not (see `NeighbourState`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return [
            NeighbourState(r["id"], r["content"], bool(r["isActive"]), float(r["encodingStrength"]),
                           float(r["stability"]), int(r["lastAccessedAt"]))
            for r in self.run("neighbour_states", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        ]

    def list_traces(
        self, scope_keys: Sequence[str], *, include_inactive: bool = False, skip: int = 0, limit: int = 100
    ) -> list[MemoryTrace]:
        keys = require_scope_keys(scope_keys)
        if skip < 0 or limit < 0:
            raise ValueError("skip and limit must be >= 0")
        rows = self.run(
            "list_traces",
            {"scopeKeys": keys, "includeInactive": include_inactive, "skip": skip, "limit": limit},
        )
        return [MemoryTrace.from_graph_props(r["trace"]) for r in rows]

    def soft_delete(self, ids: Sequence[str], scope_keys: Sequence[str], reason: str) -> list[str]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        rows = self.run(
            "soft_delete_traces",
            {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys, "now": self._now(), "reason": reason},
            write=True,
        )
        return [r["id"] for r in rows]

    def set_indexed(self, ids: Sequence[str], indexed: bool = True) -> int:
        updated = 0
        for chunk in _chunks(list(dict.fromkeys(ids))):
            updated += self.run("set_indexed", {"ids": chunk, "indexed": indexed}, write=True)[0]["updated"]
        return updated

    def unindexed_traces(self, limit: int = 1000) -> list[MemoryTrace]:
        rows = self.run("unindexed_traces", {"limit": limit})
        return [MemoryTrace.from_graph_props(r["trace"]) for r in rows]

    # ------------------------------------------------------------ entities and edges

    def merge_mentions(self, mentions: Sequence[Mention]) -> int:
        rows = list(
            {
                (m.trace_id, m.key): {"traceId": m.trace_id, "key": m.key, "name": m.name, "kind": m.kind,
                                      "createdAt": m.created_at}
                for m in mentions
            }.values()
        )
        linked = 0
        for chunk in _chunks(rows):
            linked += self.run("merge_mentions", {"rows": chunk, "now": self._now()}, write=True)[0]["linked"]
        return linked

    def merge_edges(self, edge_type: EdgeType, edges: Sequence[Edge]) -> int:
        edge_type = EdgeType(edge_type)
        structural = edge_type in STRUCTURAL_EDGE_TYPES
        ceiling = self.config.edges.structural_weight_ceiling if structural else 1.0
        by_pair: dict[tuple[str, str], float] = {}
        for e in edges:
            if not 0.0 <= e.weight <= 1.0:
                raise ValueError(f"edge weight must be in [0, 1], got {e.weight} for {e.src}->{e.dst}")
            if e.weight > ceiling:
                raise ValueError(
                    f"{edge_type.value} weight {e.weight} for {e.src}->{e.dst} is above "
                    f"edges.structural_weight_ceiling ({ceiling}); raise the ceiling in GraphConfig to store it")
            if e.src == e.dst:
                continue
            by_pair[(e.src, e.dst)] = max(e.weight, by_pair.get((e.src, e.dst), 0.0))
        rows = [{"src": s, "dst": d, "weight": w} for (s, d), w in by_pair.items()]
        text = self.cypher.for_edge("merge_edges", edge_type)
        merged = 0
        for chunk in _chunks(rows):
            result = self._run_text(text, {"rows": chunk, "now": self._now(), "structural": structural},
                                    write=True, name="merge_edges")
            merged += result[0]["merged"]
        return merged

    def get_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[Edge]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        rows = self.run("get_edges", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        return [Edge(r["src"], r["dst"], float(r["weight"]), EdgeType(r["type"])) for r in rows]

    def derive_shared_entity_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int:
        keys = require_scope_keys(scope_keys)
        return self._link_shared_entities(ids, self._shared_entity_candidates_later(ids, keys)) if ids else 0

    def derive_temporal_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int:
        keys = require_scope_keys(scope_keys)
        return self._link_temporal_sequence(self._temporal_candidates_later(ids, keys)) if ids else 0

    def derive_structural_edges(self, ids: Sequence[str], scope_keys: Sequence[str], *,
                                caused_by_predecessor: Collection[str] = ()) -> int:
        """TEMPORAL_SEQUENCE and SHARED_ENTITY edges of `ids`, as the two methods above
        derive them, with both candidate reads sent before either is read (the engine
        answers them at once). The traces in `caused_by_predecessor` are also linked
        CAUSED_BY their TEMPORAL_SEQUENCE predecessor."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return 0
        temporal = self._temporal_candidates_later(ids, keys)
        shared = self._shared_entity_candidates_later(ids, keys)
        return self._link_temporal_sequence(temporal, caused_by_predecessor) + self._link_shared_entities(ids, shared)

    def _shared_entity_candidates_later(self, ids: Sequence[str], keys: list[str]) -> Callable[[], list[dict]]:
        return self.read_later("shared_entity_candidates", {
            "ids": list(dict.fromkeys(ids)), "scopeKeys": keys, "maxLinks": self.config.edges.shared_entity_max_links})

    def _link_shared_entities(self, ids: Sequence[str], candidates: Callable[[], list[dict]]) -> int:
        edges = self.config.edges
        batch = set(ids)
        picks: dict[str, dict[str, None]] = {}
        for group in candidates():
            # Each trace links to the most recent others that mention the entity; inside the
            # batch only the lower id links to the higher, so no pair is linked both ways.
            for trace_id in group["traces"]:
                picked = 0
                mine = picks.setdefault(trace_id, {})
                for other in group["recent"]:
                    if picked == edges.shared_entity_max_links:
                        break
                    if other != trace_id and (other < trace_id or other not in batch):
                        mine[other] = None
                        picked += 1
        rows = [{"id": t, "others": list(others)} for t, others in picks.items() if others]
        return self._link("shared_entity_link", rows, edges.shared_entity_weight, LINK_ROWS_PER_STATEMENT)

    def _temporal_candidates_later(self, ids: Sequence[str], keys: list[str]) -> Callable[[], list[dict]]:
        return self.read_later("temporal_sequence_candidates", {
            "ids": list(dict.fromkeys(ids)), "scopeKeys": keys, "windowMs": self.config.edges.temporal_window_ms})

    def _link_temporal_sequence(self, candidates: Callable[[], list[dict]], caused: Collection[str] = ()) -> int:
        edges = self.config.edges
        window = edges.temporal_window_ms
        traces: dict[str, list[tuple[int, str]]] = {}
        found: dict[str, list[tuple[int, str]]] = {}
        for row in candidates():  # per sequence: one row of its given traces, one of its candidates
            (traces if row["own"] else found)[row["key"]] = list(zip(row["times"], row["ids"], strict=True))
        links = []
        for key, own in traces.items():
            # Each trace's predecessor: the latest candidate before it (event time, then id),
            # if it is still inside the window.
            ordered = sorted(found.get(key, ()))
            for at, trace_id in own:
                before = bisect.bisect_left(ordered, (at, trace_id))
                if before and ordered[before - 1][0] >= at - window:
                    links.append({"id": trace_id, "prev": ordered[before - 1][1]})
        linked = self._link("temporal_sequence_link", links, edges.temporal_sequence_weight)
        causal = [link for link in links if link["id"] in caused] if caused else []
        return linked + (self._link("caused_by_link", causal, edges.caused_by_weight) if causal else 0)

    def _link(self, name: str, rows: list[dict[str, Any]], weight: float, size: int = BATCH_SIZE) -> int:
        """Run a derived-edge link statement over `rows` in chunks; the edges it linked."""
        linked = 0
        for chunk in _chunks(rows, size):
            result = self.run(name, {"rows": chunk, "weight": weight, "now": self._now()}, write=True)
            linked += result[0]["linked"] if result else 0
        return linked

    # ------------------------------------------------------------ association in the database

    def spread_activation(
        self, seed_ids: Sequence[str], scope_keys: Sequence[str], config: ActivationConfig | None = None,
        seed_activation: dict[str, float] | None = None,
    ) -> list[Activation]:
        """Activation reached from the seeds. Each seed starts at 1.0, or at its value in
        `seed_activation` (retrieval passes how relevant it found each seed).

        Paths spread hop by hop (one round trip each, at most `max_depth`): a path carries
        its activation x weight x decay per edge, never turns straight back, and stops below
        the threshold; a trace sums the paths reaching it, capped at 1. Seeds pass activation
        on but are not returned. Up to depth 3 these are exactly the simple paths from a seed."""
        keys = require_scope_keys(scope_keys)
        cfg = config or self.config.activation
        seeds = list(dict.fromkeys(seed_ids))[: cfg.max_seeds]
        if not seeds:
            return []
        start = seed_activation or {}
        seed_set = set(seeds)
        frontier = [{"id": s, "prev": "", "activation": float(start.get(s, 1.0))} for s in seeds]
        ceiling = self.config.edges.structural_weight_ceiling
        total: dict[str, float] = {}
        vitals: dict[str, TraceVitals | None] = {}
        strongest: dict[str, float | None] = {}  # upper bound of a trace's other edge weights

        def carried(f: dict[str, Any], weight: float | None) -> bool:
            """Whether an edge of `weight` (None: unknown) keeps the path above the threshold;
            the product is formed as the statement forms it (the same rounding at the boundary)."""
            return weight is None or f["activation"] * weight * cfg.decay_per_hop >= cfg.threshold

        for _ in range(cfg.max_depth):
            # A path can only go on if one more full-weight edge keeps it above the threshold;
            # paths too weak to cross even the heaviest structural edge look at the other types
            # only, and not at all when none of the trace's edges could carry them.
            frontier = [f for f in frontier
                        if carried(f, 1.0) and (carried(f, ceiling) or carried(f, strongest.get(f["id"])))]
            if not frontier:
                break
            if len(frontier) > MAX_ACTIVATION_FRONTIER:
                frontier = sorted(frontier, key=lambda f: -f["activation"])[:MAX_ACTIVATION_FRONTIER]
            rows = self.run("spread_activation_hop", {
                "wide": [f for f in frontier if carried(f, ceiling)],
                "narrow": [f for f in frontier if not carried(f, ceiling)],
                "scopeKeys": keys, "decay": cfg.decay_per_hop, "threshold": cfg.threshold})
            for row in rows:
                strongest[row["id"]] = row["strongestLink"]
                if row["id"] not in seed_set:
                    total[row["id"]] = total.get(row["id"], 0.0) + float(row["activation"])
                    if row["id"] not in vitals:
                        vitals[row["id"]] = _vitals(row) if row["indexed"] is True else None
            frontier = [{"id": r["id"], "prev": r["prev"], "activation": float(r["activation"])} for r in rows]
        ranked = sorted(total.items(), key=lambda item: (-min(1.0, item[1]), item[0]))[: cfg.max_results]
        return [Activation(trace_id, min(1.0, value), vitals[trace_id]) for trace_id, value in ranked]

    def hebbian_update(
        self, co_retrieved: Sequence[Sequence[str]], scope_keys: Sequence[str]
    ) -> dict[tuple[str, str], float]:
        """Strengthen CO_ACTIVATED between every pair retrieved together.

        Several sets may name the same pair; they are folded into one row with a
        count k, so each edge is touched once per call (one round trip)."""
        keys = require_scope_keys(scope_keys)
        rows = _pair_rows(co_retrieved)
        if not rows:
            return {}
        out: dict[tuple[str, str], float] = {}
        for chunk in _chunks(rows):
            result = self.run(
                "hebbian_update",
                {"rows": chunk, "scopeKeys": keys, "eta": self.config.edges.hebbian_learning_rate, "now": self._now()},
                write=True,
            )
            out.update({(r["a"], r["b"]): float(r["weight"]) for r in result})
        return out

    def record_access(self, updates: Sequence[AccessUpdate], scope_keys: Sequence[str]) -> dict[str, int]:
        keys = require_scope_keys(scope_keys)
        rows = _access_rows(updates)
        if not rows:
            return {}
        result = self.run("record_access", {"rows": rows, "scopeKeys": keys, "now": self._now()}, write=True)
        return {r["id"]: int(r["retrievalCount"]) for r in result}

    def after_retrieval(
        self, updates: Sequence[AccessUpdate], co_retrieved: Sequence[str], changes: Sequence[dict[str, Any]],
        scope_keys: Sequence[str], *, wait: bool = True,
    ) -> None:
        """What one retrieval writes, as one statement: `record_access(updates)`,
        `hebbian_update([co_retrieved])` and `write_mechanism_state(changes)` in that order.
        A retrieval returns a handful of traces, far below the batch size of the three.
        `wait=False` returns before the engine confirms it, where the engine allows
        (`_run_unconfirmed`); the store's next statement confirms it and raises if it failed."""
        keys = require_scope_keys(scope_keys)
        pairs = _pair_rows([co_retrieved])
        access, mechanism = _access_rows(updates), _mechanism_rows(changes)
        if not (access or pairs or mechanism):
            return
        params = {"access": access, "pairs": pairs, "changes": mechanism, "scopeKeys": keys,
                  "eta": self.config.edges.hebbian_learning_rate, "now": self._now()}
        if wait:
            self.run("after_retrieval", params, write=True)
        else:
            self._run_unconfirmed(self.cypher.get("after_retrieval"), params, name="after_retrieval")

    def set_strengths(self, strengths: dict[str, float], scope_keys: Sequence[str]) -> int:
        """Store encoding strengths computed by the cognitive core (interference, mechanisms)."""
        keys = require_scope_keys(scope_keys)
        rows = [{"id": i, "encodingStrength": float(s)} for i, s in strengths.items()]
        updated = 0
        for chunk in _chunks(rows):
            updated += len(self.run("set_strengths", {"rows": chunk, "scopeKeys": keys, "now": self._now()}, write=True))
        return updated

    def write_mechanism_state(self, rows: Sequence[dict[str, Any]], scope_keys: Sequence[str]) -> int:
        """Store what retrieval-time mechanisms changed. Each row: id plus any of valence,
        arousal, dominance, stability, structuredData (JSON string); missing keys stay as they are."""
        keys = require_scope_keys(scope_keys)
        clean = _mechanism_rows(rows)
        updated = 0
        for chunk in _chunks(clean):
            updated += len(self.run("write_mechanism_state", {"rows": chunk, "scopeKeys": keys, "now": self._now()},
                                    write=True))
        return updated

    def indexed_trace_ids(self) -> set[str]:
        """Maintenance: ids of traces marked indexed (repair checks their vectors exist)."""
        return {r["id"] for r in self.run("indexed_trace_ids")}

    def count_searchable_traces(self) -> int:
        """Maintenance: how many traces, all scopes, are active and indexed (what a search
        can return): one count, not a list of ids."""
        rows = self.run("count_searchable_traces")
        return int(rows[0]["n"]) if rows else 0

    def scope_key_counts(self) -> dict[str, int]:
        """Maintenance: active memories per scope key, all scopes, and nothing of their content
        (the owner's census a local command shows when an identity sees nothing)."""
        return {row["scopeKey"]: int(row["n"]) for row in self.run("scope_key_counts")}

    def known_entity_keys(self, keys: Sequence[str], scope_keys: Sequence[str]) -> set[str]:
        """Which of `keys` the active memories of `scope_keys` already mention."""
        if not keys:
            return set()
        return {row["key"] for row in self.run("known_entity_keys", {"keys": list(keys),
                                                                      "scopeKeys": list(scope_keys)})}

    def trace_index_state(self, ids: Sequence[str]) -> dict[str, bool]:
        """Maintenance: id -> isActive for the given ids that exist (repair compares with the vectors)."""
        out: dict[str, bool] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            out.update({r["id"]: bool(r["isActive"]) for r in self.run("trace_index_state", {"ids": chunk})})
        return out

    # ------------------------------------------------------------ lexical search

    def fulltext_search(self, text: str, scope_keys: Sequence[str], limit: int = 50, *,
                        every_word_of: Sequence[str] = ()) -> list[LexicalHit]:
        keys = require_scope_keys(scope_keys)
        query = self._fulltext_query(text, every_word_of)
        if query is None or limit <= 0:
            return []
        rows = self.run("fulltext_search", {"query": query, "scopeKeys": keys, "limit": limit})
        return [LexicalHit(r["id"], float(r["score"])) for r in rows]

    def fulltext_search_many(self, searches: Sequence[FulltextSearch], limit: int) -> list[list[LexicalHit]]:
        found: list[list[LexicalHit]] = [[] for _ in searches]
        rows = []
        for i, search in enumerate(searches):
            keys = require_scope_keys(search.scope_keys)
            query = self._fulltext_query(search.text, search.every_word_of)
            if query is not None:
                rows.append({"i": i, "query": query, "scopeKeys": keys})
        if rows and limit > 0:
            for chunk in _chunks(rows):
                for r in self.run("fulltext_search_many", {"rows": chunk, "limit": limit}):
                    found[r["i"]].append(LexicalHit(r["id"], float(r["score"])))
        return found

    # ------------------------------------------------------------ inspection

    def subgraph(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Subgraph:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return Subgraph()
        rows = self.run("subgraph", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        if not rows:
            return Subgraph()
        row = rows[0]
        return Subgraph(
            traces=[dict(t) for t in row["traces"] if t],
            entities=_entities_as_mentioned([e for e in row["entities"] if e]),
            edges=[dict(e) for e in row["edges"] if e],
        )

    def set_pinned(self, ids: Sequence[str], pinned: bool, scope_keys: Sequence[str]) -> list[str]:
        """Pin or unpin the active traces among `ids` that the caller may see; their ids."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("set_pinned", {"ids": list(ids), "pinned": bool(pinned), "scopeKeys": keys,
                                       "now": self._now()}, write=True)
        return [r["id"] for r in rows]

    def stats(self, scope_keys: Sequence[str] | None = None) -> GraphStats:
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        stats = GraphStats()
        for r in self.run("stats_traces", {"scopeKeys": keys}):
            n = int(r["n"])
            stats.traces_by_type[r["type"]] = stats.traces_by_type.get(r["type"], 0) + n
            if r["active"]:
                stats.active_traces += n
            else:
                stats.inactive_traces += n
            if r["indexed"] is False:
                stats.unindexed_traces += n
            if r["active"] and r.get("dormant"):
                stats.dormant_traces += n
        for r in self.run("stats_edges", {"scopeKeys": keys}):
            stats.edges_by_type[r["type"]] = int(r["n"])
        rows = self.run("stats_entities", {"scopeKeys": keys})
        stats.entities = int(rows[0]["n"]) if rows else 0
        return stats

    # ------------------------------------------------------------ governance: list, edit, forget, erase

    def filter_page(self, scope_keys: Sequence[str], filter_params: dict[str, Any], *,
                    after: tuple[int, str] | None, newest_first: bool, limit: int) -> list[tuple[dict, str]]:
        """One page of the traces passing a filter (`MemoryFilter.graph_params()`), after a
        keyset cursor (event time, id): (properties, state) rows."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("memory_filter_page", {
            "scopeKeys": keys, **filter_params, "afterTime": after[0] if after else None,
            "afterId": after[1] if after else None, "newestFirst": bool(newest_first), "limit": int(limit)})
        return [(r["trace"], r["state"]) for r in rows]

    def filter_ids(self, ids: Sequence[str], scope_keys: Sequence[str], filter_params: dict[str, Any]) -> set[str]:
        """Which of `ids` the caller sees and that pass the filter."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return set()
        return {r["id"] for r in self.run("memory_filter_ids", {
            "ids": list(dict.fromkeys(ids)), "scopeKeys": keys, **filter_params})}

    def memories(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[dict[str, Any]]:
        """Traces by id with every property, whether an archived original exists and what
        replaced them: rows {trace, archived, supersededBy}."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return self.run("memory_get", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})

    def update_fields(self, trace_id: str, scope_keys: Sequence[str], fields: dict[str, Any], *,
                      by: str) -> dict[str, Any] | None:
        """Edit tags / metadata (with its derived lists) / pinned in place; None leaves a field.
        The new properties, or None when the caller sees no such trace."""
        keys = require_scope_keys(scope_keys)
        names = ("tags", "metadata", "metaPairs", "metaNumKeys", "metaNumValues", "metaTextKeys",
                 "metaTextValues", "pinned")
        params = {name: fields.get(name) for name in names}
        rows = self.run("memory_update_fields", {"id": trace_id, "scopeKeys": keys, **params,
                                                 "now": self._now(), "by": by}, write=True)
        return rows[0]["trace"] if rows else None

    def retype(self, trace_id: str, memory_type: str) -> None:
        self.run("retype_traces", {"rows": [{"id": trace_id, "type": memory_type}]}, write=True)

    def supersede_by_update(self, old_id: str, new_id: str, scope_keys: Sequence[str], *, by: str,
                            reason: str, weight: float) -> bool:
        keys = require_scope_keys(scope_keys)
        return bool(self.run("memory_supersede_update", {
            "oldId": old_id, "newId": new_id, "scopeKeys": keys, "now": self._now(), "by": by,
            "reason": reason, "weight": weight}, write=True))

    def versions(self, trace_id: str, scope_keys: Sequence[str]) -> list[dict[str, Any]]:
        """Every version of a memory (the update chain), as property maps."""
        keys = require_scope_keys(scope_keys)
        return [r["trace"] for r in self.run("memory_versions", {"id": trace_id, "scopeKeys": keys})]

    def schema_page(self, scope_keys: Sequence[str], *, limit: int, members: int) -> list[dict[str, Any]]:
        """The newest `limit` schemas of the scopes, each with up to `members` member traces
        ({id, content}) inside the scopes."""
        keys = require_scope_keys(scope_keys)
        return self.run("consolidation_schemas_page", {"scopeKeys": keys, "limit": int(limit),
                                                        "members": int(members)})

    def resolved_contradictions(self, scope_keys: Sequence[str], reason: str, *, limit: int) -> list[dict[str, Any]]:
        """The newest `limit` contradictions settled inside the scopes (winner SUPERSEDES loser
        with `reason`), both sides' id, content, event time and confidence."""
        keys = require_scope_keys(scope_keys)
        return self.run("consolidation_resolved", {"scopeKeys": keys, "reason": reason, "limit": int(limit)})

    def open_contradictions(self, scope_keys: Sequence[str], *, limit: int) -> list[dict[str, Any]]:
        """Contradictions not settled yet inside each scope key (at most `limit` in all), with
        both sides' content."""
        keys = require_scope_keys(scope_keys)
        rows: list[dict[str, Any]] = []
        for key in keys:
            if len(rows) >= limit:
                break
            rows += self.run("consolidation_contradictions", {"scopeKey": key, "limit": int(limit) - len(rows)})
        texts = self.trace_texts([r[side] for r in rows for side in ("a", "b")], keys)
        return [{**r, "aContent": texts.get(r["a"]), "bContent": texts.get(r["b"])} for r in rows]

    def forget_expand(self, ids: Sequence[str], scope_keys: Sequence[str],
                      same_memory: Sequence[str]) -> list[dict[str, Any]]:
        """The visible traces among `ids`, pinned or not, with the traces that are the same
        memory (SUPERSEDES reasons in `same_memory`): rows {id, pinned, related}."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return self.run("forget_expand", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys,
                                          "sameMemory": list(same_memory)})

    def hard_delete(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, int]:
        """Delete traces for good, with their archived originals, the observation notes they
        came from, the schemas they belonged to and the entities no trace mentions any more.
        Counts per kind. The traces go last but one, so a run cut short is finished by the next."""
        keys = require_scope_keys(scope_keys)
        counts = {"traces": 0, "archived": 0, "observation_notes": 0, "schemas": 0, "entities": 0}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            details = self.run("forget_details", {"ids": chunk, "scopeKeys": keys})
            entity_keys = sorted({k for r in details for k in r["entityKeys"]})
            schema_ids = sorted({s for r in details for s in r["schemaIds"]})
            params = {"ids": chunk, "scopeKeys": keys}
            counts["archived"] += self.run("forget_archived", params, write=True)[0]["deleted"]
            counts["observation_notes"] += self.run("forget_notes", params, write=True)[0]["deleted"]
            if schema_ids:
                counts["schemas"] += self.run("forget_schemas", {"schemaIds": schema_ids, "scopeKeys": keys},
                                              write=True)[0]["deleted"]
            counts["traces"] += self.run("forget_traces", params, write=True)[0]["deleted"]
            if entity_keys:
                counts["entities"] += self.run("forget_orphan_entities", {"keys": entity_keys},
                                               write=True)[0]["deleted"]
        return counts

    def user_scope_keys(self, user_key: str, thread_prefix: str) -> list[str]:
        """The scope keys in use of one user: the user scope and the threads under it."""
        return [r["key"] for r in self.run("erase_scope_keys", {"userKey": user_key, "threadPrefix": thread_prefix})]

    def trace_ids_in_scopes(self, scope_keys: Sequence[str], limit: int) -> list[str]:
        keys = require_scope_keys(scope_keys)
        return [r["id"] for r in self.run("erase_scope_page", {"scopeKeys": keys, "limit": limit})]

    def delete_scope_leftovers(self, scope_keys: Sequence[str]) -> int:
        """Reminders, notes, buffered turns, archived originals, schemas and consolidation state of these scopes."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("erase_scope_leftovers", {"scopeKeys": keys}, write=True)
        return sum(int(n) for n in rows[0]["deleted"]) if rows else 0

    def authored_elsewhere(self, author: str, user_scope_keys: Sequence[str], limit: int) -> list[tuple[str, str]]:
        """Traces `author` wrote outside their own scopes: (id, scope key)."""
        rows = self.run("erase_authored_page", {"author": author, "userScopeKeys": list(user_scope_keys),
                                                "limit": limit})
        return [(r["id"], r["scopeKey"]) for r in rows]

    def remove_author(self, ids: Sequence[str], author: str) -> int:
        if not ids:
            return 0
        return int(self.run("erase_remove_author", {"ids": list(ids), "author": author}, write=True)[0]["updated"])

    # ------------------------------------------------------------ context manager

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


SchemaStep = Callable[[], None]


def _vitals(row: dict[str, Any]) -> TraceVitals:
    """Ranking fields from a row of `trace_vitals` or of an activation hop."""
    return TraceVitals(row["id"], float(row["encodingStrength"]), float(row["stability"]), int(row["lastAccessedAt"]),
                       float(row["valence"]), float(row["confidence"]), int(row["createdAt"]),
                       tuple(row["entities"] or ()), tuple(row["tags"] or ()), dormant=bool(row.get("dormant")),
                       category=row.get("category") or "other", pinned=bool(row.get("pinned")),
                       recorded_at=_int_or_none(row.get("recordedAt")), valid_from=_int_or_none(row.get("validFrom")),
                       valid_until=_int_or_none(row.get("validUntil")))


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _pair_rows(co_retrieved: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Hebbian rows: each pair retrieved together once (lower id first) with how many of
    the sets named it (k), so each edge is touched once per statement."""
    pairs: Counter[tuple[str, str]] = Counter()
    for group in co_retrieved:
        pairs.update(itertools.combinations(sorted(set(group)), 2))
    return [{"a": a, "b": b, "k": k} for (a, b), k in pairs.items()]


def _access_rows(updates: Sequence[AccessUpdate]) -> list[dict[str, Any]]:
    """Spaced-repetition values per trace, the last update of a trace winning."""
    return [
        {
            "id": u.trace_id,
            "lastAccessedAt": u.last_accessed_at,
            "stability": u.stability,
            "reinforcementInterval": u.reinforcement_interval,
            "nextReinforcementAt": u.next_reinforcement_at,
            "encodingStrength": u.encoding_strength,
        }
        for u in {u.trace_id: u for u in updates}.values()
    ]


MECHANISM_FIELDS = ("valence", "arousal", "dominance", "stability", "structuredData")


def _mechanism_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with every mechanism field present (null: leave the property as it is)."""
    return [{"id": r["id"], **{f: r.get(f) for f in MECHANISM_FIELDS}} for r in rows]


def _entities_as_mentioned(mentions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per entity key from the visible mentions of it: the first spelling in order,
    its kind, and when the caller's memories first mentioned it (links written before
    mentions carried these have none: the key stands in for the name)."""
    by_key: dict[str, dict[str, Any]] = {}
    for m in sorted(mentions, key=lambda m: (str(m["key"]), m.get("createdAt") or 0, str(m.get("name") or ""))):
        entry = by_key.setdefault(m["key"], {"key": m["key"], "name": m.get("name") or m["key"],
                                             "kind": m.get("kind") or "thing"})
        if m.get("createdAt") is not None and "createdAt" not in entry:
            entry["createdAt"] = m["createdAt"]
    return list(by_key.values())
