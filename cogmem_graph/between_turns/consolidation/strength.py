"""Steps 1, 6 and 7: how strength changes between runs. The decay sweep makes weak traces
dormant (or deletes them), due traces that were recalled are reinforced, and episodes
recalled often become semantic memory."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any

from cogmem_graph.cognition.decay import is_reinforcement_due, update_on_retrieval
from cogmem_graph.graph.port import AccessUpdate
from cogmem_graph.model import MemoryType

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext

PRUNE_BATCH = 5_000
SCHEDULE_BATCH = 5_000

log = logging.getLogger(__name__)


def sweep_params(sc: StepContext) -> dict[str, Any]:
    """The decay and retention settings the sweep and its schedule read."""
    decay = sc.ctx.config.decay
    retention = sc.ctx.config.retention
    return {
        "threshold": decay.pruning_threshold, "protectIntensity": decay.emotional_protection_intensity,
        "model": decay.model, "fsrsFactor": decay.fsrs_factor, "fsrsDecay": decay.fsrs_decay,
        "permanent": sorted(retention.permanent_categories), "minCommitment": retention.min_retention_commitment_ms,
        "minFact": retention.min_retention_fact_ms, "minOther": retention.min_retention_other_ms,
    }


def sweep_fingerprint(params: dict[str, Any]) -> str:
    """Names the settings a schedule was computed with: another value means it must start over."""
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def prune(sc: StepContext, key: str) -> None:
    """The decay sweep of one scope key. It reads the traces whose `sweepDueAt` has come: the
    sweep sets it to the first moment a trace could be forgotten, and a write that could
    bring that moment closer sets it to 1 (long past). A scope key whose schedule was
    computed with other settings, or never (traces written before it), has every trace made
    due first, once. With the run's `full_pass`, every trace is read, as if no
    schedule were kept."""
    params = sweep_params(sc)
    if sc.full_pass:
        _forget(sc, key, params, due_only=False)
        return
    fingerprint = sweep_fingerprint(params)
    starting_over = sc.state(key).get("sweepFingerprint") != fingerprint
    if starting_over:
        reset = 0
        while True:
            done = sc.ctx.graph.make_sweep_due(key, SCHEDULE_BATCH)
            reset += done
            if done < SCHEDULE_BATCH:
                break
            log.info("decay sweep of %s: %d trace(s) made due so far", key, reset)
        log.info("decay sweep of %s starts its schedule over: %d trace(s) due", key, reset)
    _forget(sc, key, params, due_only=True)
    while sc.ctx.graph.schedule_sweep(key, params, now=sc.now(), limit=SCHEDULE_BATCH) >= SCHEDULE_BATCH:
        pass
    if starting_over:
        sc.set_state(key, {"sweepFingerprint": fingerprint})


def _forget(sc: StepContext, key: str, params: dict[str, Any], *, due_only: bool) -> None:
    """Forget the traces below the threshold (those due for the sweep, or all), weakest first,
    a batch at a time."""
    forgetting = sc.ctx.config.retention.forgetting
    while True:
        ids = sc.ctx.graph.forget_weak_traces(key, params, due_only=due_only, now=sc.now(), limit=PRUNE_BATCH,
                                              reason="decayed", forgetting=forgetting)
        if forgetting == "delete":
            sc.deactivate_vectors(ids)
            sc.result.pruned += len(ids)
        else:  # a dormant trace keeps its vectors: a strong match still finds it
            sc.result.dormant += len(ids)
        if len(ids) < PRUNE_BATCH:
            return



def reinforce(sc: StepContext, key: str) -> None:
    cfg = sc.ctx.config
    limit = cfg.consolidation.max_reinforced_per_cycle
    if limit == 0:
        return
    now = sc.now()
    traces = sc.load(sc.ctx.graph.reinforcement_due_traces(
        key, now=now, limit=limit, retrieved_only=cfg.retention.reinforce_retrieved_only))
    updates = []
    for trace in traces:
        if not is_reinforcement_due(trace.next_reinforcement_at, now):
            continue
        u = update_on_retrieval(trace, now, cfg.decay)
        updates.append(AccessUpdate(trace.id, u.last_accessed_at, u.stability, u.reinforcement_interval,
                                    u.next_reinforcement_at, u.encoding_strength))
    if updates:
        sc.result.reinforced += sc.ctx.graph.reinforce_traces(updates, key, now)


def compact(sc: StepContext, key: str) -> None:
    cfg = sc.ctx.config.consolidation
    now = sc.now()
    ids = sc.ctx.graph.compaction_candidates(key, before=now - cfg.compaction_min_age_ms,
                                            min_retrievals=cfg.compaction_min_retrievals,
                                            limit=cfg.max_traces_per_cycle)
    if not ids:
        return
    retyped = sc.ctx.graph.retype_traces(ids, MemoryType.SEMANTIC)
    sc.ctx.graph.set_trace_fields({i: {"updatedAt": now, "consolidatedAt": now} for i in ids}, key)
    sc.result.compacted += retyped
