"""Step 2: near-duplicate merge. Identical content hashes, and traces whose vectors are at or
above the merge threshold (among the run's candidates in process, against older traces
through Qdrant), become one survivor; a member carrying another fact is never a duplicate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.language.memory_kind import carries_different_facts

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext

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
    Qdrant local mode filters every stored point in Python on each query (~40 µs per
    point here), so there the budget is a number of point checks, not of queries."""
    url = sc.ctx.config.vectors.url
    if url and url != ":memory:":
        return None
    stored = sc.ctx.vectors.count(None, active=None)
    return max(LOCAL_MERGE_MIN_QUERIES, LOCAL_MERGE_POINT_BUDGET // max(1, stored))


def plan_neighbour_queries(sc: StepContext, keys: Sequence[str]) -> None:
    """Before the first scope key: the run's budget of neighbour queries, split over `keys`."""
    sc.budget.queries = neighbour_query_budget(sc)
    sc.budget.keys_left = len(keys)


def merge(sc: StepContext, key: str) -> None:
    """Merge the near-duplicates of one scope key, asking Qdrant for at most its share of the
    run's neighbour budget (`plan_neighbour_queries` first)."""
    allowance = sc.budget.next_key()
    cfg = sc.ctx.config.consolidation
    limit = cfg.max_traces_per_cycle
    groups = _UnionFind()
    for same_content in sc.ctx.graph.duplicate_content_groups(key, limit):
        first, *rest = same_content
        for other in rest:
            groups.union(first, other)
    candidates = sc.ctx.graph.merge_candidates(key, limit)
    checked: list[str] = []
    if candidates:
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
                    if hit.trace_id != trace_id and hit.scope_key == key:
                        groups.union(trace_id, hit.trace_id)
            sc.budget.spend(queried)
        checked = ids[:queried]
    sets = groups.groups()
    if sets:
        loaded = {t.id: t for t in sc.ctx.graph.get_traces([i for g in sets for i in g], [key])
                  if t.is_active and t.scope_key == key}
        groups_merged: list[tuple[str, list[str]]] = []
        distinct = sc.ctx.config.retention.protect_distinct_facts
        for members in sets:
            alive = [loaded[i] for i in members if i in loaded and not loaded[i].pinned]
            if len(alive) < 2:
                continue
            survivor = min(alive, key=lambda t: (t.recorded_at, t.created_at, t.id))
            # A member stating another fact (other numbers, names, dates) is no duplicate.
            losers = [t.id for t in alive if t.id != survivor.id
                      and not (distinct and carries_different_facts(t.content, survivor.content))]
            if losers:
                groups_merged.append((survivor.id, losers))
        if groups_merged:
            losers = sc.ctx.graph.merge_duplicates(groups_merged, key, now=sc.now(), reason="merged",
                                                   weight=sc.ctx.config.graph.edges.supersedes_weight)
            sc.deactivate_vectors(losers)
            sc.result.merged += len(losers)
    if checked:
        # Only traces compared with the older ones count as consolidated; the rest come back next run.
        sc.ctx.graph.mark_consolidated(checked, key, sc.now())
