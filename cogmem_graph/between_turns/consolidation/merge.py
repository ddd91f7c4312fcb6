"""Step 2: near-duplicate merge. Identical content hashes, and traces whose vectors are at or
above the merge threshold (among the run's candidates in process, against older traces
through Qdrant), become one survivor; a member carrying another fact is never a duplicate.

Identical content is looked for around what changed: the traces written, rewritten or
unpinned since the scope key's last run (`mergeDueAt`), the traces the near-duplicate pairs
join, and the groups an earlier run left with two or more members that may merge. Any other
group was settled at an earlier run: a full pass would find nothing to do in it."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cogmem_graph.language.memory_kind import carries_different_facts

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext

log = logging.getLogger(__name__)

MERGE_BOOKKEEPING_VERSION = 1
"""Changes when what `mergeDueAt` records changes: every scope key starts its bookkeeping over."""

LOCAL_MERGE_POINT_BUDGET = 100_000
"""Qdrant local mode: point checks the merge step's neighbour queries may cost per run (~4 s here)."""
LOCAL_MERGE_MIN_QUERIES = 5


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


def neighbour_query_budget(sc: StepContext) -> int | None:
    """How many Qdrant neighbour queries the merge step may make this run (None: no limit).
    qdrant-client's local mode filters every stored point in Python on each query (~40 µs
    per point here), so there the budget is a number of point checks, not of queries; a
    Qdrant server and the embedded Qdrant Edge answer a run's queries in one batch each."""
    vectors = sc.ctx.config.vectors
    url = vectors.url
    if (url and url != ":memory:") or (url is None and vectors.embedded == "edge"):
        return None
    stored = sc.ctx.vectors.count(None, active=None)
    return max(LOCAL_MERGE_MIN_QUERIES, LOCAL_MERGE_POINT_BUDGET // max(1, stored))


def plan_neighbour_queries(sc: StepContext, keys: Sequence[str]) -> None:
    """Before the first scope key: the run's budget of neighbour queries, split over `keys`."""
    sc.budget.queries = neighbour_query_budget(sc)
    sc.budget.keys_left = len(keys)


def merge_fingerprint(sc: StepContext) -> str:
    """Names the settings the exact-duplicate bookkeeping was kept under: under another value
    a scope key is checked in full once."""
    settings: dict[str, Any] = {"version": MERGE_BOOKKEEPING_VERSION,
                                "limit": sc.ctx.config.consolidation.max_traces_per_cycle,
                                "distinct": sc.ctx.config.retention.protect_distinct_facts}
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


def _union_all(groups: _UnionFind, same_content: Sequence[Sequence[str]]) -> None:
    for first, *rest in same_content:
        for other in rest:
            groups.union(first, other)


def _claim_due(sc: StepContext, key: str) -> str | None:
    """Claim what changed since the scope key's last run for the identical-content check. A
    key without bookkeeping under today's settings (a store written before it, other
    settings) is checked in full this once: the fingerprint to record then, else None."""
    fingerprint = merge_fingerprint(sc)
    if sc.state(key).get("mergeFingerprint") == fingerprint:
        sc.ctx.graph.claim_merge_due(key)
        return None
    forgotten = sc.ctx.graph.forget_merge_due(key)  # the full check covers them; one write each, not two
    log.info("merge of %s starts its bookkeeping over: every trace is checked for identical content "
             "(%d were due)", key, forgotten)
    return fingerprint


def merge(sc: StepContext, key: str) -> None:
    """Merge the near-duplicates of one scope key, asking Qdrant for at most its share of the
    run's neighbour budget (`plan_neighbour_queries` first). With the run's `full_pass`,
    identical content is looked for among every trace, as if no bookkeeping were kept."""
    allowance = sc.budget.next_key()
    limit = sc.ctx.config.consolidation.max_traces_per_cycle
    groups = _UnionFind()
    fingerprint = None
    if not sc.full_pass:
        fingerprint = _claim_due(sc, key)
    if sc.full_pass or fingerprint is not None:
        exact = sc.ctx.graph.duplicate_content_groups(key, limit)
    else:
        exact = sc.ctx.graph.due_duplicate_groups(key, limit)
    page_full = len(exact) >= limit
    _union_all(groups, exact)
    checked = _near_duplicates(sc, key, groups, allowance)
    if not sc.full_pass:
        # An identical-content group a near-duplicate pair reaches joins it whole, as in a full pass.
        seen = {i for members in exact for i in members}
        reached = sc.ctx.graph.duplicate_groups_of(sorted(i for i in groups.parent if i not in seen), key)
        _union_all(groups, reached)
        exact = exact + reached
    alive, losers = _merge_sets(sc, key, groups.groups())
    if checked:
        # Only traces compared with the older ones count as consolidated; the rest come back next run.
        sc.ctx.graph.mark_consolidated(checked, key, sc.now())
    if sc.full_pass:
        return
    if fingerprint is None and not page_full:  # a full page may have left groups out: claimed, they come back
        sc.ctx.graph.clear_merge_due(key)
    # A group left with two or more members that may merge (a wider set's survivor stated
    # another fact) is not settled: a full pass would look at it again.
    left = [[i for i in members if i in alive and i not in losers] for members in exact]
    sc.ctx.graph.mark_merge_due([i for members in left if len(members) > 1 for i in members], key)
    if fingerprint is not None and not page_full:  # a full page of a full check: check in full again
        sc.set_state(key, {"mergeFingerprint": fingerprint})


def _near_duplicates(sc: StepContext, key: str, groups: _UnionFind, allowance: int | None) -> list[str]:
    """Union the near-duplicate pairs of the traces not yet compared: among themselves in
    process, against the older traces through Qdrant (at most `allowance` queries). The
    traces compared with the older ones."""
    cfg = sc.ctx.config.consolidation
    # Only as many as can be compared with the older traces this run: the rest would be
    # embedded now and again next run, and the next run's queries reach these ones anyway.
    wanted = cfg.max_traces_per_cycle if allowance is None else min(cfg.max_traces_per_cycle, allowance)
    candidates = sc.ctx.graph.merge_candidates(key, wanted) if wanted > 0 else []
    if not candidates:
        return []
    ids = [trace_id for trace_id, _ in candidates]
    vectors = sc.ctx.embedder.embed([content for _, content in candidates])
    # Among themselves (one batch is never compared at write time), in process.
    for a, b in similar_pairs(ids, vectors, cfg.merge_similarity_threshold):
        groups.union(a, b)
    # Against the older traces of the scope key: Qdrant neighbours.
    queried = len(ids) if allowance is None else min(len(ids), allowance)
    if queried:
        neighbours = sc.ctx.vectors.search_dense_many(
            vectors[:queried], [[key]] * queried, cfg.merge_neighbours + 1,
            score_threshold=cfg.merge_similarity_threshold)
        for trace_id, hits in zip(ids[:queried], neighbours, strict=True):
            for hit in hits:
                if hit.trace_id != trace_id:  # the search asked this scope key only
                    groups.union(trace_id, hit.trace_id)
        sc.budget.spend(queried)
    return ids[:queried]


def _merge_sets(sc: StepContext, key: str, sets: list[list[str]]) -> tuple[set[str], set[str]]:
    """Each set's oldest active, unpinned member survives (the oldest keyed one, if any: a keyed
    memory is read back by its key, so it is never merged away); the others that are not keyed
    are merged into it unless they state another fact. The members that could merge (active,
    unpinned, not keyed), and the merged."""
    if not sets:
        return set(), set()
    loaded = {t.id: t for t in sc.ctx.graph.get_traces([i for g in sets for i in g], [key])
              if t.is_active and t.scope_key == key}
    groups_merged: list[tuple[str, list[str]]] = []
    distinct = sc.ctx.config.retention.protect_distinct_facts
    for members in sets:
        alive = [loaded[i] for i in members if i in loaded and not loaded[i].pinned]
        if len(alive) < 2:
            continue
        survivor = min(alive, key=lambda t: (not t.keyed, t.recorded_at, t.created_at, t.id))
        # A member stating another fact (other numbers, names, dates) is no duplicate.
        losers = [t.id for t in alive if t.id != survivor.id and not t.keyed
                  and not (distinct and carries_different_facts(t.content, survivor.content))]
        if losers:
            groups_merged.append((survivor.id, losers))
    merged: list[str] = []
    if groups_merged:
        merged = sc.ctx.graph.merge_duplicates(groups_merged, key, now=sc.now(), reason="merged",
                                               weight=sc.ctx.config.graph.edges.supersedes_weight)
        sc.deactivate_vectors(merged)
        sc.result.merged += len(merged)
    return {i for i, t in loaded.items() if not t.pinned and not t.keyed}, set(merged)
