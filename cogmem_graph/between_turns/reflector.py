"""The reflector: observation notes → long-term traces, conflicts settled by personality.

A run claims the agent's unreflected notes in its note scope (a lease, as for the
observer), then:

1. decides the memories — the store's LLM (OpenAI chat, JSON answer) merges and
   elevates them when the store has one; otherwise, or when the LLM fails or
   answers malformed JSON (with a warning), the rules of `cognition.observation`
   merge redundant notes, keep the salient ones for this personality and word
   them in its memory style;
2. writes them through the normal write path (`write.encode.encode_many`): features,
   encoding strength, interference, near-duplicate reinforcement, the offline
   contradiction judge making CONTRADICTS edges, graph and vectors;
3. settles each contradiction the new traces raised by the agent's personality:
   honest agents believe the newer side (the winner SUPERSEDES the soft-deleted
   loser), agreeable agents keep both (the CONTRADICTS edge stays as the record of
   the discrepancy), others believe the clearly more confident side. Only traces
   of the same scope key are ever superseded;
4. marks the notes reflected, with the traces they became.

If anything fails before step 4 the claim is released and the notes wait for the
next run; traces already written are found again as near-duplicates then, so a
retry reinforces instead of duplicating.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogmem_graph.between_turns.notes import note_from_props, note_scope, note_scope_key
from cogmem_graph.cognition.observation import (
    ConflictPolicy,
    ConflictSide,
    MemoryStyle,
    ObservationNote,
    Reflection,
    conflict_policy,
    conflict_winner,
    memory_style,
    parse_reflector_answer,
    reflect_rules,
)
from cogmem_graph.graph.port import Resolution
from cogmem_graph.model import EdgeType, MemoryTrace, SourceType
from cogmem_graph.write.encode import encode_many

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

RESOLUTION_REASON = "superseded_by_reflection"

_STYLE_HINT = {
    MemoryStyle.STRUCTURED: "Write structured, well-organised memories, each filed under its category.",
    MemoryStyle.ASSOCIATIVE: "Write rich memories that say what else each one connects to.",
    MemoryStyle.CONCISE: "Write concise, factual memories.",
}
_SYSTEM = (
    "You consolidate an AI agent's observation notes into long-term memories. Merge notes that say the "
    "same thing, keep what will still matter later and drop trivia: many notes become few memories. "
    "Each memory is one self-contained statement; keep what the user said about themselves in the "
    "user's first person (\"I moved to Berlin\"). {style}\n"
    "Answer with one JSON object: {{\"memories\": [{{\"content\": the memory, \"type\": one of factual, "
    "emotional, commitment, preference, creative, correction, \"importance\": 0..1, \"confidence\": 0..1, "
    "\"notes\": [numbers of the notes it comes from], \"entities\": [names]}}]}}."
)


@dataclass(frozen=True)
class ConflictOutcome:
    """A contradiction between a reflected trace and an older memory, and how it was settled."""

    trace_id: str
    """The reflected trace."""
    other_id: str
    """The memory it contradicts."""
    policy: ConflictPolicy
    winner_id: str | None
    """The surviving side; None when both are kept."""


@dataclass
class ReflectionResult:
    notes: int = 0
    """Notes processed (claimed and marked reflected)."""
    traces: list[MemoryTrace] = field(default_factory=list)
    """Long-term traces written, or reinforced when they were near-duplicates."""
    conflicts: list[ConflictOutcome] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    """Traces soft-deleted because a reflected memory superseded them (or the reverse)."""
    method: str | None = None
    """"llm" or "rules"; None when there was nothing to reflect."""


def reflect(ctx: MemoryContext) -> ReflectionResult:
    """Reflect every pending note of this agent (run after run until none is left)."""
    result = ReflectionResult()
    limit = ctx.config.reflector.max_notes_per_run
    while True:
        claimed = _run(ctx, result)
        if claimed < limit:
            return result


def _run(ctx: MemoryContext, result: ReflectionResult) -> int:
    cfg = ctx.config.reflector
    now = ctx.clock.now_ms()
    run_id = "refl_" + uuid.uuid4().hex
    scope_key, agent_id = note_scope_key(ctx), ctx.agent_id
    rows = ctx.graph.claim_notes(scope_key, agent_id, stale_before=now - cfg.claim_lease_ms, run_id=run_id,
                                 now=now, limit=cfg.max_notes_per_run)
    if not rows:
        return 0
    try:
        notes = [note_from_props(props) for props in rows]
        reflections, method = decide(ctx, notes)
        traces = encode_many(ctx, [_request(ctx, r, method) for r in reflections]) if reflections else []
        conflicts, superseded = settle_conflicts(ctx, traces)
        trace_ids: dict[str, list[str]] = {n.id: [] for n in notes}
        for reflection, trace in zip(reflections, traces, strict=True):
            for note_id in reflection.note_ids:
                if note_id in trace_ids and trace.id not in trace_ids[note_id]:
                    trace_ids[note_id].append(trace.id)
        ctx.graph.mark_notes_reflected(trace_ids, scope_key, run_id, ctx.clock.now_ms())
    except BaseException:
        _release(ctx, scope_key, agent_id, run_id)
        raise
    result.notes += len(notes)
    result.traces += traces
    result.conflicts += conflicts
    result.superseded += superseded
    result.method = method
    return len(rows)


def _release(ctx: MemoryContext, scope_key: str, agent_id: str, run_id: str) -> None:
    try:
        ctx.graph.release_notes(scope_key, agent_id, run_id)
    except Exception as exc:  # the lease expires anyway; the original error matters more
        log.warning("could not release the notes claimed by %s (%s); they return after the lease", run_id, exc)


def _request(ctx: MemoryContext, reflection: Reflection, method: str) -> dict[str, Any]:
    return {
        "content": reflection.content, "type": reflection.memory_type, "scope": note_scope(ctx),
        "tags": ["observation", reflection.note_type.value], "entities": list(reflection.entities),
        "source_type": SourceType.REFLECTION, "confidence": reflection.confidence,
        "created_at": reflection.created_at or None,
        "structured_data": {"observation": {
            "noteType": reflection.note_type.value, "noteIds": list(reflection.note_ids),
            "importance": round(reflection.importance, 6), "method": method}},
    }


# ---------------------------------------------------------------- deciding the memories


def reflector_prompt(ctx: MemoryContext, notes: Sequence[ObservationNote]) -> tuple[str, str]:
    """System and user messages of the reflector's LLM call."""
    style = memory_style(ctx.traits, ctx.config.reflector.style_trait_threshold)
    lines = [f"[{i}] ({n.type.value}, importance {n.importance:.2f}) {n.content}"
             for i, n in enumerate(notes, start=1)]
    return _SYSTEM.format(style=_STYLE_HINT[style]), "Notes:\n" + "\n".join(lines)


def decide(ctx: MemoryContext, notes: Sequence[ObservationNote]) -> tuple[list[Reflection], str]:
    """The memories to write: from the LLM when the store has one, else (or on failure) by rules."""
    cfg = ctx.config.reflector
    complete_json = getattr(ctx.llm, "complete_json", None)
    if complete_json is not None:
        system, user = reflector_prompt(ctx, notes)
        try:
            payload = complete_json(system, user, max_tokens=cfg.llm_max_tokens)
            return parse_reflector_answer(payload, notes), "llm"
        except Exception as exc:  # every LLM step degrades to its heuristic; no note is lost
            log.warning("reflector LLM failed (%s: %s); reflecting %d note(s) with the rules",
                        type(exc).__name__, exc, len(notes))
    return reflect_rules(notes, ctx.traits, cfg, ctx.config.encoding), "rules"


# ---------------------------------------------------------------- conflicts


def _side(trace: MemoryTrace) -> ConflictSide:
    return ConflictSide(trace.created_at, trace.recorded_at, trace.confidence)


def settle_conflicts(ctx: MemoryContext, traces: Sequence[MemoryTrace]) -> tuple[list[ConflictOutcome], list[str]]:
    """Settle the CONTRADICTS edges from `traces` to older memories by the agent's personality."""
    ids = list(dict.fromkeys(t.id for t in traces))
    if not ids:
        return [], []
    keys = ctx.visible_scope_keys
    edges = [e for e in ctx.graph.get_edges(ids, keys)
             if e.type is EdgeType.CONTRADICTS and e.src in ids and e.dst not in ids]
    if not edges:
        return [], []
    loaded = {t.id: t for t in ctx.graph.get_traces(list({e.src for e in edges} | {e.dst for e in edges}), keys)}
    ccfg = ctx.config.consolidation
    policy = conflict_policy(ctx.traits, ccfg.contradiction_honesty_threshold,
                             ctx.config.reflector.agreeableness_threshold)
    outcomes: list[ConflictOutcome] = []
    decided: dict[str, list[Resolution]] = {}
    lost: set[str] = set()
    for edge in sorted(edges, key=lambda e: (e.src, e.dst)):
        new, old = loaded.get(edge.src), loaded.get(edge.dst)
        if new is None or old is None or not (new.is_active and old.is_active):
            continue
        winner = None
        if new.scope_key == old.scope_key and not ({new.id, old.id} & lost):
            side = conflict_winner(policy, _side(new), _side(old), ccfg.contradiction_confidence_gap)
            winner = None if side is None else (new.id if side == "new" else old.id)
        outcomes.append(ConflictOutcome(new.id, old.id, policy, winner))
        if winner is not None:
            loser = old.id if winner == new.id else new.id
            lost.add(loser)
            decided.setdefault(new.scope_key, []).append(Resolution(winner, loser))
    superseded: list[str] = []
    for scope_key, rows in decided.items():
        superseded += ctx.graph.resolve_contradictions(
            rows, scope_key, now=ctx.clock.now_ms(), reason=RESOLUTION_REASON,
            weight=ctx.config.graph.edges.supersedes_weight, keep_loser=ctx.config.retention.forgetting == "dormant")
    if superseded and ctx.config.retention.forgetting == "delete":
        ctx.vectors.set_active(superseded, False)  # if Qdrant fails here, ctx.repair() converges
    return outcomes, superseded
