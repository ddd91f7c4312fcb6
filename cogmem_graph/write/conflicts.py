"""What new input does to old memories: contradiction candidates and CONTRADICTS edges,
interference that weakens similar old traces, reinforcement of the one a near-duplicate repeats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cogmem_graph.cognition.decay import apply_strength_loss, update_on_retrieval
from cogmem_graph.graph.port import AccessUpdate, Edge, FulltextSearch, NeighbourState
from cogmem_graph.language.contradiction import candidate_query, contradicts, restatement_queries
from cogmem_graph.model import EdgeType, MemoryTrace
from cogmem_graph.vectors.port import VectorHit

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


def contradiction_candidates(ctx: MemoryContext, drafts: Mapping[int, tuple[MemoryTrace, Sequence[VectorHit]]],
                             existing: dict[str, NeighbourState], scope_keys: list[str]
                             ) -> dict[int, dict[str, float | None]]:
    """Old traces each new one (by position, with its live dense neighbours) may correct or
    disagree with, by id, with their similarity (None when full-text found them); `existing`
    gets the state of each.

    Candidates: the dense neighbours, plus traces found by full-text search for the
    fact the new text states ("I moved to Berlin" looks for where the user lives) —
    two statements of one fact are rarely similar as whole texts — or, with
    `write.restatement_lookup`, holding every content word of a sentence the new text may
    restate with another value (the dense neighbours find most restatements: one slot
    changed leaves the texts close). The whole batch's searches go in one statement, sent
    before the batch is written, so the batch's own traces are never among them."""
    restating = ctx.config.write.restatement_lookup
    scored: dict[int, dict[str, float | None]] = {
        i: {h.trace_id: h.score for h in live} for i, (_draft, live) in drafts.items()}
    searched: list[int] = []
    searches: list[FulltextSearch] = []
    for i, (draft, _live) in drafts.items():
        query = candidate_query(draft.content)
        restated = restatement_queries(draft.content) if restating else ()
        if query or restated:
            searched.append(i)
            searches.append(FulltextSearch(query or "", [draft.scope_key], restated))
    if searches:
        found = ctx.graph.fulltext_search_many(searches, limit=max(1, ctx.config.write.neighbours))
        for i, hits in zip(searched, found, strict=True):
            for hit in hits:
                scored[i].setdefault(hit.trace_id, None)
    missing = sorted({tid for candidates in scored.values() for tid in candidates if tid not in existing})
    if missing:
        existing.update({t.id: t for t in ctx.graph.neighbour_states(missing, scope_keys)})
    return scored


def contradiction_edges(ctx: MemoryContext, draft: MemoryTrace, candidates: dict[str, float | None],
                         existing: dict[str, NeighbourState]) -> list[Edge]:
    """CONTRADICTS edges from the new trace to the candidates it contradicts (pure: the
    write path runs it while the engine writes the batch)."""
    edges = []
    for tid, similarity in candidates.items():
        old = existing.get(tid)
        if old is None or not old.is_active or old.id == draft.id:
            continue
        confidence = contradicts(draft.content, old.content, similarity=similarity)
        if confidence >= ctx.config.write.contradiction_min_confidence:
            edges.append(Edge(draft.id, tid, round(confidence, 6), EdgeType.CONTRADICTS))
    return edges


def write_old_trace_changes(ctx: MemoryContext, existing: dict[str, NeighbourState], retro_loss: dict[str, float],
                             reinforced: dict[int, MemoryTrace], scope_keys: list[str], now: int) -> None:
    """What new input does to old memories: interference weakens them, a near-duplicate
    reinforces the one it repeats (as a retrieval would)."""
    graph = ctx.graph
    if retro_loss:
        weakened = {
            tid: apply_strength_loss(existing[tid].encoding_strength, min(1.0, loss))
            for tid, loss in retro_loss.items() if tid in existing
        }
        graph.set_strengths(weakened, scope_keys)
    if reinforced:
        updates = {}
        for old in reinforced.values():
            u = update_on_retrieval(old, now, ctx.config.decay)
            updates[old.id] = AccessUpdate(old.id, u.last_accessed_at, u.stability, u.reinforcement_interval,
                                           u.next_reinforcement_at, u.encoding_strength)
        graph.record_access(list(updates.values()), scope_keys)
