"""Consolidation (DESIGN §7): what happens to memory between turns, run in the database.

One run, over one or more scope keys (all of them for the store owner), step by
step; each step is a batched named statement (`cypher/consolidation_*.cypher`),
Python only orchestrating and calling the cognitive core's pure functions:

1. decay sweep and prune — strength computed in Cypher, emotional traces kept;
   soft delete in the graph, then deactivation in Qdrant;
2. near-duplicate merge — identical content hash, or Qdrant neighbours at or above
   the merge threshold; the survivor keeps the union of tags, each loser is
   soft-deleted behind SUPERSEDES survivor → loser;
3. replay — SHARED_ENTITY and TEMPORAL_SEQUENCE for the recently recorded traces;
4. schema integration — clusters found in the database (`algo.labelPropagation`
   on FalkorDB, GDS Louvain / Leiden / label propagation on Neo4j, label
   propagation in plain Cypher as the fallback) become `Schema` nodes with
   SCHEMA_INSTANCE edges and SAME_TOPIC edges inside the cluster; summary by the
   LLM when the store has one, extractive otherwise;
5. contradiction resolution over CONTRADICTS — honest agents (honesty above the
   threshold) believe the newer side, others the clearly more confident side;
   the winner SUPERSEDES the soft-deleted loser;
6. spaced-repetition reinforcement of due traces;
7. compaction — old, often-retrieved episodic traces become semantic;
8. mechanisms — temporal gist with a write-ahead archive (the verbatim original
   is archived first; if that fails the gist is not applied), source-confidence
   decay, emotion regulation;
9. archive retention.

Scope keys are never crossed: every statement is bound to one scope key, so a
merge or a contradiction only ever involves traces of the same key. A mutex
stops overlapping runs (a second run waits `lock_timeout_ms`, then returns a
result marked `skipped`).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.cognition.decay import is_reinforcement_due, update_on_retrieval
from cogmem_graph.cognition.mechanisms import (
    changed,
    extractive_gist,
    gist_trace,
    regulate_emotions,
    schema_centroid,
    select_for_gist,
    source_confidence_decay,
)
from cogmem_graph.cognition.retention import carries_different_facts
from cogmem_graph.errors import StoreClosed
from cogmem_graph.graph.base import require_scope_keys
from cogmem_graph.graph.port import Edge
from cogmem_graph.lexical import bm25_document_vector
from cogmem_graph.model import EdgeType, Hexaco, MemoryTrace, MemoryType
from cogmem_graph.pipeline.archive import MemoryArchive
from cogmem_graph.text import word_tokens
from cogmem_graph.vectors.port import VectorPoint

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

# Choices of the implementation rather than of the model (the model's numbers live in
# ConsolidationConfig and EdgeDefaults).
CLUSTER_EDGE_TYPES: tuple[EdgeType, ...] = (EdgeType.SHARED_ENTITY, EdgeType.SAME_TOPIC, EdgeType.CAUSED_BY)
"""Edges that make traces "about the same thing" for cluster detection (not the
conversational TEMPORAL_SEQUENCE, nor CO_ACTIVATED, which one co-retrieval creates)."""
CLUSTER_MIN_EDGE_WEIGHT = 0.0
"""Edges lighter than this are ignored by GDS and the Cypher fallback (FalkorDB's label
propagation cannot weigh edges, so 0 keeps the backends alike)."""
LOCAL_MERGE_POINT_BUDGET = 100_000
"""Qdrant local mode: point checks the merge step's neighbour queries may cost per run (~4 s here)."""
LOCAL_MERGE_MIN_QUERIES = 5
PRUNE_BATCH = 5_000
REPLAY_BATCH = 50
"""Traces per replay statement: the shared-entity derivation checks each path against the batch,
so small batches keep hub entities cheap."""

_GDS_PROCEDURES = {
    "louvain": ("gds.louvain.stream", "consolidation_gds_louvain"),
    "leiden": ("gds.leiden.stream", "consolidation_gds_leiden"),
    "label_propagation": ("gds.labelPropagation.stream", "consolidation_gds_label_propagation"),
}
_SCHEMA_SYSTEM = (
    "You summarise a cluster of related memories of an AI agent into one general statement of "
    "knowledge (a schema). Answer with one or two plain sentences, no preamble."
)
_GIST_SYSTEM = (
    "Compress the memory below to its gist: two or three short core assertions that keep names, "
    "places, dates and numbers. Answer with the gist only."
)


@dataclass
class ConsolidationResult:
    """What one run did. Counts are summed over the scope keys consolidated."""

    pruned: int = 0
    """Traces soft-deleted by decay (`RetentionConfig.forgetting = "delete"`)."""
    dormant: int = 0
    """Traces made dormant by decay (the default forgetting): out of the default candidate set."""
    merged: int = 0
    edges_created: int = 0
    schemas_created: int = 0
    conflicts_resolved: int = 0
    reinforced: int = 0
    compacted: int = 0
    gisted: int = 0
    archived: int = 0
    """Verbatim originals written to the archive (write-ahead of the gists)."""
    total_processed: int = 0
    """Active traces in the consolidated scope keys when the run started."""
    duration_ms: float = 0.0
    confidence_decayed: int = 0
    regulated: int = 0
    gist_failures: int = 0
    """Gists not applied because their original could not be archived (retried next run)."""
    archive_pruned: int = 0
    cluster_algorithm: str | None = None
    scope_keys: list[str] = field(default_factory=list)
    skipped: bool = False
    """True when another run held the mutex: this one did nothing."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def groups(self) -> list[list[str]]:
        out: dict[str, list[str]] = {}
        for x in self.parent:
            out.setdefault(self.find(x), []).append(x)
        return [sorted(g) for g in out.values() if len(g) > 1]


def extractive_summary(contents: Sequence[str], max_words: int = 30, keywords: int = 4) -> str:
    """Offline schema summary: the words the members share most, and the member that
    best represents them (its first sentence)."""
    docs = [set(word_tokens(c)) for c in contents]
    counts: Counter[str] = Counter(w for d in docs for w in d)
    shared = [w for w, n in counts.most_common() if n > 1][:keywords] or [w for w, _ in counts.most_common(keywords)]

    def representativeness(i: int) -> tuple[float, int]:
        words = docs[i]
        return (sum(counts[w] for w in words) / (len(words) or 1), -len(contents[i]))

    best = contents[max(range(len(contents)), key=representativeness)] if contents else ""
    about = ", ".join(shared) if shared else "various things"
    return f"{len(contents)} related memories about {about}: {extractive_gist(best, max_words, 0)}"


def similar_pairs(ids: Sequence[str], vectors: Sequence[Sequence[float]], threshold: float) -> list[tuple[str, str]]:
    """Pairs of ids whose vectors have cosine similarity at or above `threshold` (in process)."""
    import numpy as np  # a dependency of qdrant-client

    if len(ids) < 2:
        return []
    m = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    m = m / norms
    rows, cols = np.nonzero(np.triu(m @ m.T >= threshold, k=1))
    return [(ids[a], ids[b]) for a, b in zip(rows.tolist(), cols.tolist(), strict=True)]


def _side_time(row: dict[str, Any], side: str) -> tuple[int, int]:
    """When one side of a contradiction was said: event time, then record time."""
    return row[f"{side}CreatedAt"] or 0, row[f"{side}RecordedAt"] or 0


def _resolution_winner(row: dict[str, Any], honesty: float, honesty_threshold: float,
                       confidence_gap: float) -> str | None:
    """Who wins a contradiction: newer wins for an honest agent; otherwise the more confident
    side, only when it leads by more than the gap. None: leave it unresolved."""
    a_time, b_time = _side_time(row, "a"), _side_time(row, "b")
    if honesty > honesty_threshold and a_time != b_time:
        return row["a"] if a_time > b_time else row["b"]
    gap = float(row["aConfidence"] or 0.0) - float(row["bConfidence"] or 0.0)
    if abs(gap) > confidence_gap:
        return row["a"] if gap > 0 else row["b"]
    return None


def _same_topic_edges(members: Sequence[str], links: int, weight: float) -> list[Edge]:
    """A ring with `links` neighbours per member: a clique for small clusters,
    connected and sparse for big ones. Lower id first, each pair once."""
    ordered = sorted(members)
    n = len(ordered)
    pairs: set[tuple[str, str]] = set()
    for i in range(n):
        for step in range(1, min(links, n - 1) + 1):
            a, b = ordered[i], ordered[(i + step) % n]
            pairs.add((min(a, b), max(a, b)))
    return [Edge(a, b, weight, EdgeType.SAME_TOPIC) for a, b in sorted(pairs)]


class Consolidator:
    """Runs consolidation on one store, seen through the store owner's context. Use
    `consolidator_for(store)` (what `store.consolidate()` does) so every caller shares the
    same mutex."""

    def __init__(self, ctx: MemoryContext, *, traits: Hexaco | None = None) -> None:
        self.ctx = ctx
        self.traits = traits or Hexaco()
        self.archive = MemoryArchive(ctx.graph, ctx.clock)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_result: ConsolidationResult | None = None
        self.last_error: BaseException | None = None
        self._budget: int | None = None

    def __repr__(self) -> str:
        return f"Consolidator(graph={self.ctx.graph!r}, running={self.running})"

    @property
    def running(self) -> bool:
        """Whether a run holds the mutex right now."""
        return self._lock.locked()

    # ------------------------------------------------------------ entry points

    def run(self, scope_keys: Sequence[str] | None = None, *, traits: Hexaco | None = None) -> ConsolidationResult:
        """One consolidation run over `scope_keys` (None: every scope key holding active
        traces). `traits` decides contradictions (default: the consolidator's traits)."""
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        self.ctx.check_open()
        cfg = self.ctx.config.consolidation
        started = time.perf_counter()
        if cfg.lock_timeout_ms > 0:
            acquired = self._lock.acquire(timeout=cfg.lock_timeout_ms / 1000)
        else:
            acquired = self._lock.acquire(blocking=False)
        if not acquired:
            log.info("consolidation skipped: another run is in progress")
            return ConsolidationResult(skipped=True, scope_keys=list(keys or []))
        try:
            result = self._run(keys, traits)
        finally:
            self._lock.release()
        result.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self.last_result = result
        return result

    def start_periodic(self, interval_s: float | None = None, *, scope_keys: Sequence[str] | None = None) -> None:
        """Run every `interval_s` seconds (default: `consolidation.interval_ms`) on a daemon
        thread until `stop()`. Failures are logged and kept in `last_error`."""
        interval = self.ctx.config.consolidation.interval_ms / 1000 if interval_s is None else interval_s
        if isinstance(interval, bool) or not isinstance(interval, int | float) or not interval > 0:
            raise ValueError(f"interval_s must be a positive number of seconds, got {interval_s!r}")
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("periodic consolidation is already running; call stop() first")
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, args=(float(interval), keys), name="cogmem-consolidation", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop the periodic timer (a run in progress finishes first)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _loop(self, interval: float, keys: list[str] | None) -> None:
        while not self._stop.wait(interval):
            try:
                self.run(keys)
            except StoreClosed:
                return
            except Exception as exc:  # the timer must survive one bad run; the error is kept and logged
                self.last_error = exc
                log.exception("periodic consolidation failed")

    # ------------------------------------------------------------ the run

    def _q(self, name: str, params: dict[str, Any], *, write: bool = False) -> list[dict[str, Any]]:
        return self.ctx.graph.run(name, params, write=write)

    def _now(self) -> int:
        return self.ctx.clock.now_ms()

    def _run(self, scope_keys: list[str] | None, traits: Hexaco | None) -> ConsolidationResult:
        if scope_keys is None:
            scope_keys = [r["scopeKey"] for r in self._q("consolidation_scope_keys", {}) if r["scopeKey"]]
        result = ConsolidationResult(scope_keys=list(scope_keys))
        if not scope_keys:
            return result
        active: dict[str, int] = {}
        for key in scope_keys:
            rows = self._q("consolidation_count_active", {"scopeKey": key})
            active[key] = int(rows[0]["n"]) if rows else 0
        result.total_processed = sum(active.values())
        keys = [k for k in scope_keys if active[k] > 0]
        cfg = self.ctx.config.consolidation
        for key in keys:
            self._prune(key, result)
        self._budget = self._neighbour_query_budget()
        for index, key in enumerate(keys):
            self._merge(key, result, share=len(keys) - index)
        for key in keys:
            self._replay(key, result)
        self._schemas(keys, result)
        for key in keys:
            self._resolve_contradictions(key, traits, result)
        for key in keys:
            self._reinforce(key, result)
        for key in keys:
            self._compact(key, result)
        if cfg.run_mechanisms:
            for key in keys:
                self._temporal_gist(key, result)
                self._source_confidence(key, result)
                self._emotion_regulation(key, result)
        result.archive_pruned = self.archive.prune(cfg.archive_retention_ms, scope_keys)
        return result

    def _load(self, rows: Iterable[dict[str, Any]]) -> list[MemoryTrace]:
        traces = []
        for row in rows:
            try:
                traces.append(MemoryTrace.from_graph_props(row["trace"]))
            except ValidationError as exc:
                log.warning("consolidation skips trace %r: its stored properties are invalid (%s)",
                            row["trace"].get("id"), exc.errors()[:1])
        return traces

    def _deactivate_vectors(self, ids: Sequence[str]) -> None:
        """The graph is the truth; if Qdrant fails here, `store.repair()` finishes the job."""
        if ids:
            self.ctx.vectors.set_active(list(ids), False)

    # 1. decay sweep and prune ------------------------------------------------

    def _prune(self, key: str, result: ConsolidationResult) -> None:
        decay = self.ctx.config.decay
        retention = self.ctx.config.retention
        while True:
            rows = self._q("consolidation_prune", {
                "scopeKey": key, "now": self._now(), "threshold": decay.pruning_threshold,
                "protectIntensity": decay.emotional_protection_intensity, "model": decay.model,
                "fsrsFactor": decay.fsrs_factor, "fsrsDecay": decay.fsrs_decay, "limit": PRUNE_BATCH,
                "reason": "decayed", "forgetting": retention.forgetting,
                "permanent": list(retention.permanent_categories),
                "minCommitment": retention.min_retention_commitment_ms, "minFact": retention.min_retention_fact_ms,
                "minOther": retention.min_retention_other_ms,
            }, write=True)
            ids = [r["id"] for r in rows]
            if retention.forgetting == "delete":
                self._deactivate_vectors(ids)
                result.pruned += len(ids)
            else:  # a dormant trace keeps its vectors: a strong match still finds it
                result.dormant += len(ids)
            if len(ids) < PRUNE_BATCH:
                return

    # 2. near-duplicate merge ---------------------------------------------------

    def _neighbour_query_budget(self) -> int | None:
        """How many Qdrant neighbour queries the merge step may make this run (None: no limit).
        Qdrant local mode filters every stored point in Python on each query (~40 µs per
        point here), so there the budget is a number of point checks, not of queries."""
        url = self.ctx.config.vectors.url
        if url and url != ":memory:":
            return None
        stored = self.ctx.vectors.count(None, active=None)
        return max(LOCAL_MERGE_MIN_QUERIES, LOCAL_MERGE_POINT_BUDGET // max(1, stored))

    def _merge(self, key: str, result: ConsolidationResult, share: int = 1) -> None:
        """`share`: how many scope keys (this one included) still split the query budget."""
        cfg = self.ctx.config.consolidation
        limit = cfg.max_traces_per_cycle
        groups = _UnionFind()
        for row in self._q("consolidation_duplicate_hashes", {"scopeKey": key, "limit": limit}):
            first, *rest = row["ids"]
            for other in rest:
                groups.union(first, other)
        candidates = self._q("consolidation_merge_candidates", {"scopeKey": key, "limit": limit})
        checked: list[str] = []
        if candidates:
            ids = [c["id"] for c in candidates]
            vectors = self.ctx.embedder.embed([c["content"] for c in candidates])
            # Among themselves (one batch is never compared at write time), in process.
            for a, b in similar_pairs(ids, vectors, cfg.merge_similarity_threshold):
                groups.union(a, b)
            # Against the older traces of the scope key: Qdrant neighbours.
            queried = len(ids) if self._budget is None else min(len(ids), -(-self._budget // max(1, share)))
            if queried:
                neighbours = self.ctx.vectors.search_dense_many(
                    vectors[:queried], [[key]] * queried, cfg.merge_neighbours + 1,
                    score_threshold=cfg.merge_similarity_threshold)
                for trace_id, hits in zip(ids[:queried], neighbours, strict=True):
                    for hit in hits:
                        if hit.trace_id != trace_id and hit.scope_key == key:
                            groups.union(trace_id, hit.trace_id)
                if self._budget is not None:
                    self._budget -= queried
            checked = ids[:queried]
        sets = groups.groups()
        if sets:
            loaded = {t.id: t for t in self.ctx.graph.get_traces([i for g in sets for i in g], [key])
                      if t.is_active and t.scope_key == key}
            rows = []
            distinct = self.ctx.config.retention.protect_distinct_facts
            for members in sets:
                alive = [loaded[i] for i in members if i in loaded and not loaded[i].pinned]
                if len(alive) < 2:
                    continue
                survivor = min(alive, key=lambda t: (t.recorded_at, t.created_at, t.id))
                # A member stating another fact (other numbers, names, dates) is no duplicate.
                losers = [t.id for t in alive if t.id != survivor.id
                          and not (distinct and carries_different_facts(t.content, survivor.content))]
                if losers:
                    rows.append({"survivor": survivor.id, "losers": losers})
            if rows:
                merged = self._q("consolidation_merge", {
                    "rows": rows, "scopeKey": key, "now": self._now(), "reason": "merged",
                    "weight": self.ctx.config.graph.edges.supersedes_weight}, write=True)
                losers = [r["loser"] for r in merged]
                self._deactivate_vectors(losers)
                result.merged += len(losers)
        if checked:
            # Only traces compared with the older ones count as consolidated; the rest come back next run.
            self._q("consolidation_mark_consolidated", {"ids": checked, "scopeKey": key, "now": self._now()},
                    write=True)

    # 3. replay -------------------------------------------------------------------

    def _count_edges(self, ids: Sequence[str]) -> int:
        rows = self._q("consolidation_count_edges", {"ids": list(ids)})
        return int(rows[0]["n"]) if rows else 0

    def _replay(self, key: str, result: ConsolidationResult) -> None:
        """Derive SHARED_ENTITY / TEMPORAL_SEQUENCE for recent traces the write path could not
        link (written without it, or before their neighbours arrived); each trace once."""
        cfg = self.ctx.config.consolidation
        rows = self._q("consolidation_recent_traces", {
            "scopeKey": key, "since": self._now() - cfg.replay_window_ms, "limit": cfg.max_traces_per_cycle})
        for start in range(0, len(rows), REPLAY_BATCH):
            chunk = rows[start:start + REPLAY_BATCH]
            ids = [r["id"] for r in chunk]
            unchained = [r["id"] for r in chunk if r["unchained"]]
            unlinked = [r["id"] for r in chunk if r["unlinked"]]
            if unchained or unlinked:
                before = self._count_edges(ids)
                if unchained:
                    self.ctx.graph.derive_temporal_edges(unchained, [key])
                if unlinked:
                    self.ctx.graph.derive_shared_entity_edges(unlinked, [key])
                result.edges_created += max(0, self._count_edges(ids) - before)
            self._q("consolidation_set_fields", {
                "rows": [{"id": i, "props": {"replayedAt": self._now()}} for i in ids], "scopeKey": key},
                write=True)

    # 4. schema integration ---------------------------------------------------------

    def _schemas(self, keys: Sequence[str], result: ConsolidationResult) -> None:
        cfg = self.ctx.config.consolidation
        edge_cfg = self.ctx.config.graph.edges
        if not keys or cfg.max_schemas_per_cycle == 0:
            return
        clusters, algorithm = self.detect_clusters(keys)
        result.cluster_algorithm = algorithm
        budget = cfg.max_schemas_per_cycle
        by_key: dict[str, list[list[str]]] = {}
        for scope_key, members in clusters:
            if budget == 0:
                break
            if scope_key in keys and len(members) >= cfg.min_cluster_size:
                by_key.setdefault(scope_key, []).append(members)
                budget -= 1
        for scope_key, member_lists in by_key.items():
            loaded = {t.id: t for t in self.ctx.graph.get_traces([i for m in member_lists for i in m], [scope_key])
                      if t.is_active and t.scope_key == scope_key}
            rows, edges, all_members = [], [], []
            for members in member_lists:
                alive = [loaded[i] for i in members if i in loaded]
                if len(alive) < cfg.min_cluster_size:
                    continue
                alive.sort(key=lambda t: (t.created_at, t.id))
                rows.append({"id": "schema_" + uuid.uuid4().hex, "summary": self._summarise(alive),
                             "size": len(alive), "algorithm": algorithm, "members": [t.id for t in alive],
                             "centroid": self._centroid(alive), "centroidModel": self.ctx.embedder.name})
                edges += _same_topic_edges([t.id for t in alive], edge_cfg.same_topic_links, edge_cfg.same_topic_weight)
                all_members += [t.id for t in alive]
            if not rows:
                continue
            before = self._count_edges(all_members)
            created = self._q("consolidation_create_schemas", {
                "rows": rows, "scopeKey": scope_key, "now": self._now(),
                "weight": self.ctx.config.graph.edges.schema_instance_weight}, write=True)
            self.ctx.graph.merge_edges(EdgeType.SAME_TOPIC, edges)
            result.schemas_created += len(created)
            result.edges_created += max(0, self._count_edges(all_members) - before)

    def schemas(self, scope_keys: Sequence[str]) -> list[dict[str, Any]]:
        """The schemas of `scope_keys`: id, summary, scopeKey, size, algorithm, member ids and
        the SCHEMA_INSTANCE weight."""
        return self._q("consolidation_list_schemas", {"scopeKeys": require_scope_keys(scope_keys)})

    def detect_clusters(self, keys: Sequence[str]) -> tuple[list[tuple[str, list[str]]], str]:
        """Communities of traces per scope key (members not yet in a schema, at least the
        minimum cluster size), found in the database; and which algorithm found them."""
        keys = require_scope_keys(keys)
        algorithm = self.ctx.config.consolidation.cluster_algorithm
        dialect = self.ctx.graph.dialect
        if algorithm == "cypher":
            return self._clusters_cypher(keys), "cypher_label_propagation"
        if dialect == "falkordb":
            if algorithm in ("louvain", "leiden"):
                raise ValueError(
                    f"consolidation.cluster_algorithm={algorithm!r} needs Neo4j with GDS; on FalkorDB use "
                    "'auto' or 'label_propagation' (algo.labelPropagation) or 'cypher'")
            return self._clusters_falkordb(keys), "falkordb_label_propagation"
        if dialect == "neo4j":
            rows = self._q("consolidation_gds_available", {"names": [p for p, _ in _GDS_PROCEDURES.values()]})
            available = set(rows[0]["names"]) if rows else set()
            choices = ["louvain", "label_propagation"] if algorithm == "auto" else [algorithm]
            for choice in choices:
                if _GDS_PROCEDURES[choice][0] in available:
                    return self._clusters_gds(keys, choice), f"gds_{choice}"
            if algorithm != "auto":
                raise ValueError(
                    f"consolidation.cluster_algorithm={algorithm!r} needs the GDS procedure "
                    f"{_GDS_PROCEDURES[algorithm][0]}, which this Neo4j does not have; use 'auto' or 'cypher'")
        return self._clusters_cypher(keys), "cypher_label_propagation"

    def _clusters_falkordb(self, keys: list[str]) -> list[tuple[str, list[str]]]:
        present = {r["type"] for r in self._q("consolidation_relationship_types", {})}
        rel_types = [e.value for e in CLUSTER_EDGE_TYPES if e.value in present]
        if not rel_types:
            return []
        rows = self._q("consolidation_clusters_label_propagation", {
            "relTypes": rel_types, "maxIterations": self.ctx.config.consolidation.cluster_max_iterations, "scopeKeys": keys,
            "minSize": self.ctx.config.consolidation.min_cluster_size})
        return [(r["scopeKey"], list(r["members"])) for r in rows]

    def _clusters_gds(self, keys: list[str], choice: str) -> list[tuple[str, list[str]]]:
        statement = _GDS_PROCEDURES[choice][1]
        out: list[tuple[str, list[str]]] = []
        for key in keys:
            name = f"cogmem_consolidation_{uuid.uuid4().hex}"
            projected = self._q("consolidation_gds_project", {
                "scopeKey": key, "graphName": name, "minWeight": CLUSTER_MIN_EDGE_WEIGHT}, write=True)
            try:
                if not projected or not projected[0]["relationships"]:
                    continue
                rows = self._q(statement, {
                    "graphName": name, "scopeKey": key,
                    "minSize": self.ctx.config.consolidation.min_cluster_size}, write=True)
                out += [(r["scopeKey"], list(r["members"])) for r in rows]
            finally:
                if projected:
                    self._q("consolidation_gds_drop", {"graphName": name}, write=True)
        return out

    def _clusters_cypher(self, keys: list[str]) -> list[tuple[str, list[str]]]:
        """Label propagation in plain Cypher: a label per trace, rounds of weighted majority
        vote until nothing changes (or the iteration cap), then the communities."""
        cfg = self.ctx.config.consolidation
        out: list[tuple[str, list[str]]] = []
        for key in keys:
            params = {"scopeKey": key, "minWeight": CLUSTER_MIN_EDGE_WEIGHT}
            rows = self._q("consolidation_lpa_init", params, write=True)
            if not rows or not rows[0]["labelled"]:
                continue
            for _ in range(cfg.cluster_max_iterations):
                rows = self._q("consolidation_lpa_step", params, write=True)
                if not rows or not rows[0]["changed"]:
                    break
            rows = self._q("consolidation_lpa_clusters", {
                "scopeKey": key, "minSize": cfg.min_cluster_size, "limit": max(1, cfg.max_schemas_per_cycle)})
            out += [(r["scopeKey"], list(r["members"])) for r in rows]
        return out

    def _centroid(self, members: Sequence[MemoryTrace]) -> list[float]:
        """Where the schema sits in embedding space, for schema encoding at write time."""
        return schema_centroid(self.ctx.embedder.embed([t.content for t in members[:self.ctx.config.consolidation.schema_summary_members]]))

    def _summarise(self, members: Sequence[MemoryTrace]) -> str:
        contents = [t.content for t in members[:self.ctx.config.consolidation.schema_summary_members]]
        llm = self.ctx.llm
        if llm is not None:
            try:
                text = llm.complete(_SCHEMA_SYSTEM, "\n".join(f"- {c}" for c in contents), max_tokens=160).strip()
                if text:
                    return text
                log.warning("the LLM returned an empty schema summary; using the extractive one")
            except Exception as exc:  # every LLM step degrades to its heuristic
                log.warning("schema summary by the LLM failed (%s: %s); using the extractive one",
                            type(exc).__name__, exc)
        return extractive_summary(contents)

    # 5. contradiction resolution ------------------------------------------------------

    def _resolve_contradictions(self, key: str, traits: Hexaco | None, result: ConsolidationResult) -> None:
        """`traits` None: each contradiction is judged with the traits of the agent that wrote its
        newer side (as its handle was opened in this process), else the consolidator's."""
        cfg = self.ctx.config.consolidation
        rows = self._q("consolidation_contradictions", {"scopeKey": key, "limit": cfg.max_traces_per_cycle})
        decided: list[dict[str, str]] = []
        lost: set[str] = set()
        for row in rows:
            if row["a"] in lost or row["b"] in lost or row["a"] == row["b"]:
                continue
            judge = traits or self._traits_of(row)
            winner = _resolution_winner(row, judge.honesty, cfg.contradiction_honesty_threshold,
                                        cfg.contradiction_confidence_gap)
            if winner is None:
                continue
            loser = row["b"] if winner == row["a"] else row["a"]
            if row["bPinned" if loser == row["b"] else "aPinned"]:
                continue  # a truth anchor is never superseded by consolidation
            lost.add(loser)
            decided.append({"winner": winner, "loser": loser})
        if not decided:
            return
        keep = self.ctx.config.retention.forgetting == "dormant"
        out = self._q("consolidation_resolve", {
            "rows": decided, "scopeKey": key, "now": self._now(), "reason": "superseded",
            "weight": self.ctx.config.graph.edges.supersedes_weight, "keepLoser": keep}, write=True)
        if not keep:
            self._deactivate_vectors([r["loser"] for r in out])
        result.conflicts_resolved += len(out)

    def _traits_of(self, row: dict[str, Any]) -> Hexaco:
        newer = "a" if _side_time(row, "a") >= _side_time(row, "b") else "b"
        agent_id = row[f"{newer}Agent"]
        return self.ctx.agent_traits(agent_id) or self.traits

    # 6. spaced-repetition reinforcement ---------------------------------------------------

    def _reinforce(self, key: str, result: ConsolidationResult) -> None:
        cfg = self.ctx.config
        limit = cfg.consolidation.max_reinforced_per_cycle
        if limit == 0:
            return
        now = self._now()
        traces = self._load(self._q("consolidation_due_traces", {
            "scopeKey": key, "now": now, "limit": limit,
            "retrievedOnly": cfg.retention.reinforce_retrieved_only}))
        rows = []
        for trace in traces:
            if not is_reinforcement_due(trace.next_reinforcement_at, now):
                continue
            u = update_on_retrieval(trace, now, cfg.decay)
            rows.append({"id": trace.id, "encodingStrength": u.encoding_strength, "stability": u.stability,
                         "lastAccessedAt": u.last_accessed_at, "reinforcementInterval": u.reinforcement_interval,
                         "nextReinforcementAt": u.next_reinforcement_at})
        if rows:
            out = self._q("consolidation_reinforce", {"rows": rows, "scopeKey": key, "now": now}, write=True)
            result.reinforced += len(out)

    # 7. compaction -------------------------------------------------------------------------

    def _compact(self, key: str, result: ConsolidationResult) -> None:
        cfg = self.ctx.config.consolidation
        now = self._now()
        ids = [r["id"] for r in self._q("consolidation_compaction_candidates", {
            "scopeKey": key, "before": now - cfg.compaction_min_age_ms,
            "minRetrievals": cfg.compaction_min_retrievals, "limit": cfg.max_traces_per_cycle})]
        if not ids:
            return
        rows = self.ctx.graph.run(
            "retype_traces", {"rows": [{"id": i, "type": MemoryType.SEMANTIC.value} for i in ids]}, write=True)
        self._q("consolidation_set_fields", {
            "rows": [{"id": i, "props": {"updatedAt": now, "consolidatedAt": now}} for i in ids],
            "scopeKey": key}, write=True)
        result.compacted += int(rows[0]["retyped"]) if rows else 0

    # 8. mechanisms ---------------------------------------------------------------------------

    def _write_fields(self, key: str, traces: Sequence[MemoryTrace], fields: Sequence[str],
                      extra: dict[str, Any] | None = None) -> int:
        if not traces:
            return 0
        rows = []
        for trace in traces:
            props = trace.to_graph_props()
            rows.append({"id": trace.id, "props": {**{f: props[f] for f in fields}, **(extra or {})}})
        return len(self._q("consolidation_set_fields", {"rows": rows, "scopeKey": key}, write=True))

    def _gist_compressor(self):
        llm = self.ctx.llm
        if llm is None:
            return None
        return lambda text: llm.complete(_GIST_SYSTEM, text, max_tokens=160)

    def _temporal_gist(self, key: str, result: ConsolidationResult) -> None:
        mcfg = self.ctx.config.mechanisms.temporal_gist
        if not mcfg.enabled or mcfg.max_per_cycle == 0:
            return
        now = self._now()
        candidates = self._load(self._q("consolidation_gist_candidates", {
            "scopeKey": key, "types": [MemoryType.EPISODIC.value, MemoryType.SEMANTIC.value],
            "before": now - int(mcfg.age_threshold_days * MS_PER_DAY),
            "maxRetrievals": mcfg.protect_retrieval_count, "immuneStrength": mcfg.immune_strength,
            "limit": mcfg.max_per_cycle}))
        compress = self._gist_compressor()
        rewritten: list[tuple[MemoryTrace, MemoryTrace]] = []
        marked: list[tuple[MemoryTrace, MemoryTrace]] = []
        for trace in select_for_gist(candidates, mcfg, now):
            try:
                gisted = gist_trace(trace, mcfg, now, compress)
            except Exception as exc:  # the LLM failed: the extractive gist stands in
                log.warning("LLM gist of trace %s failed (%s: %s); using the extractive gist",
                            trace.id, type(exc).__name__, exc)
                gisted = gist_trace(trace, mcfg, now, None)
            if gisted is trace:
                continue
            (rewritten if gisted.content != trace.content else marked).append((trace, gisted))

        # Write-ahead: the verbatim originals are archived and verified before any content changes.
        archived: set[str] = set()
        if rewritten:
            try:
                archived = set(self.archive.store([old for old, _ in rewritten], reason="temporal_gist"))
            except Exception as exc:  # nothing is overwritten; the gist is retried next run
                log.warning("temporal gist not applied to %d trace(s) of %s: archiving the originals failed (%s)",
                            len(rewritten), key, exc)
                result.gist_failures += len(rewritten)
            result.archived += len(archived)
        rows = []
        reindexing = not mcfg.index_original
        for old, new in rewritten:
            if old.id in archived:
                props = new.to_graph_props()
                rows.append({"id": old.id, "expectedHash": old.content_hash, "props": {
                    "content": new.content, "contentHash": new.content_hash,
                    "encodingStrength": new.encoding_strength, "structuredData": props["structuredData"],
                    "updatedAt": new.updated_at, "gistedAt": now, **({"indexed": False} if reindexing else {})}})
        for old, new in marked:
            rows.append({"id": old.id, "expectedHash": old.content_hash, "props": {
                "structuredData": new.structured_data_json(), "updatedAt": new.updated_at,
                "gistedAt": now}})
        if not rows:
            return
        applied = {r["id"] for r in self._q(
            "consolidation_apply_gist", {"rows": rows, "scopeKey": key}, write=True)}
        reindex = [new for old, new in rewritten if old.id in archived and old.id in applied]
        if reindex and reindexing:
            vectors = self.ctx.embedder.embed([t.content for t in reindex])
            self.ctx.vectors.upsert([
                VectorPoint(trace_id=t.id, scope_key=t.scope_key, type=t.type.value, created_at=t.created_at,
                            dense=v, sparse=bm25_document_vector(t.content), content_hash=t.content_hash)
                for t, v in zip(reindex, vectors, strict=True)])
            self.ctx.graph.set_indexed([t.id for t in reindex], True)
        result.gisted += len(reindex)

    def _source_confidence(self, key: str, result: ConsolidationResult) -> None:
        scfg = self.ctx.config.mechanisms.source_confidence_decay
        if not scfg.enabled:
            return
        now = self._now()
        before = self._load(self._q("consolidation_confidence_candidates", {
            "scopeKey": key, "before": now - scfg.min_interval_ms,
            "limit": self.ctx.config.consolidation.max_traces_per_cycle}))
        after = changed(before, source_confidence_decay(before, scfg, now))
        result.confidence_decayed += self._write_fields(
            key, after, ("confidence", "structuredData", "updatedAt"), {"sourceDecayAt": now})

    def _emotion_regulation(self, key: str, result: ConsolidationResult) -> None:
        ecfg = self.ctx.config.mechanisms.emotion_regulation
        if not ecfg.enabled or ecfg.max_regulation_per_cycle == 0:
            return
        now = self._now()
        before = self._load(self._q("consolidation_regulation_candidates", {
            "scopeKey": key, "arousalThreshold": ecfg.arousal_threshold, "immuneStrength": ecfg.immune_strength,
            "limit": ecfg.max_regulation_per_cycle}))
        after = changed(before, regulate_emotions(before, ecfg, now))
        result.regulated += self._write_fields(
            key, after, ("valence", "arousal", "intensity", "encodingStrength", "structuredData", "updatedAt"))
