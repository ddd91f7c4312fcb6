"""Step 3: replay. SHARED_ENTITY and TEMPORAL_SEQUENCE edges for recent traces the write
path could not link."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext

REPLAY_BATCH = 50
"""Traces per replay statement: the shared-entity derivation checks each path against the batch,
so small batches keep hub entities cheap."""


def replay(sc: StepContext, key: str) -> None:
    """Derive SHARED_ENTITY / TEMPORAL_SEQUENCE for recent traces the write path could not
    link (written without it, or before their neighbours arrived); each trace once."""
    cfg = sc.ctx.config.consolidation
    rows = sc.ctx.graph.replay_candidates(key, since=sc.now() - cfg.replay_window_ms, limit=cfg.max_traces_per_cycle)
    for start in range(0, len(rows), REPLAY_BATCH):
        chunk = rows[start:start + REPLAY_BATCH]
        ids = [r.id for r in chunk]
        unchained = [r.id for r in chunk if r.unchained]
        unlinked = [r.id for r in chunk if r.unlinked]
        if unchained or unlinked:
            before = sc.count_edges(ids)
            if unchained:
                sc.ctx.graph.derive_temporal_edges(unchained, [key])
            if unlinked:
                sc.ctx.graph.derive_shared_entity_edges(unlinked, [key])
            sc.result.edges_created += max(0, sc.count_edges(ids) - before)
        sc.ctx.graph.set_trace_fields({i: {"replayedAt": sc.now()} for i in ids}, key)
