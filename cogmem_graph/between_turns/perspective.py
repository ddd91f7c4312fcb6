"""Perspective encoding: one event, a memory for each witness, through each witness's eyes.

`store.encode_event(event, witnesses=[...])` gives every witness its own trace
of the event in its own agent scope (`agent:<org>/<agent id>`: private to that
agent, never visible to another agent or tenant). For each witness:

1. the gates of `cognition.perspective` decide — importance at least the
   threshold, important tier, and entity overlap: the event names the witness,
   someone in its `relationships`, or an entity its own memories already mention
   (one graph query per witness, bound to its visible scope keys);
2. when they pass and the store has an LLM, the event is rewritten as the
   witness's first-person memory from its HEXACO traits, its current mood and
   its relationships (OpenAI chat, JSON answer);
3. otherwise — gates closed, no LLM, an LLM error or a malformed answer (with a
   warning) — the witness keeps the objective event;
4. the trace goes through the witness's normal write path (`encode_many`).
   A rewritten trace is marked perspective-encoded (its retrieval-time drift is
   halved) and the objective event is archived under its id, so
   `store.rehydrate(trace_id)` returns what actually happened.

Background-tier witnesses keep nothing.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogmem_graph.between_turns.archive import MemoryArchive
from cogmem_graph.cognition.mechanisms import MECHANISM_KEY
from cogmem_graph.cognition.perspective import (
    GateReason,
    WitnessTier,
    describe_mood,
    describe_personality,
    entity_overlap,
    parse_rewrite,
    perspective_gate,
)
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.entities import entity_key, extract_entities
from cogmem_graph.model import (
    MAX_CONTENT_CHARS,
    MemoryTrace,
    MemoryType,
    Scope,
    SourceType,
    check_text,
    content_hash,
)

if TYPE_CHECKING:
    from cogmem_graph.config.perspective import PerspectiveConfig
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

ARCHIVE_REASON = "perspective_objective"
MAX_RELATIONSHIPS = 100

_SYSTEM = (
    "You rewrite an objective event as one witness's own first-person memory of it. The witness's "
    "personality (HEXACO), current mood and relationships shape what they notice, how they feel about "
    "it and how they tell it. Keep every name, place and fact of the event; invent no new events. "
    "Two to four sentences. Answer with one JSON object: {\"memory\": the first-person memory}."
)


@dataclass(frozen=True)
class Witness:
    """Someone who saw an event: an agent handle, its tier and who it relates to."""

    agent: Any
    """The witness's agent handle (`store.agent(...)`); the store turns it into a context."""
    tier: WitnessTier | str = WitnessTier.IMPORTANT
    relationships: Sequence[str] = ()
    """Names of people or things this witness relates to (added to what its memories mention)."""
    name: str | None = None
    """How the event may name this witness (default: its agent id)."""


@dataclass(frozen=True)
class WitnessMemory:
    """What one witness kept of the event."""

    agent_id: str
    trace: MemoryTrace | None
    """None for background-tier witnesses."""
    rewritten: bool
    reason: str
    """Why it was (not) rewritten: a gate reason, or "no_llm" / "llm_failed"."""


@dataclass
class EventEncoding:
    event_id: str
    witnesses: list[WitnessMemory] = field(default_factory=list)

    def trace_of(self, agent_id: str) -> MemoryTrace | None:
        return next((w.trace for w in self.witnesses if w.agent_id == agent_id), None)


def check_witness(index: int, witness: Witness, ctx: MemoryContext, seen: set[str]) -> None:
    """The checks of one witness the facade resolved (`ctx`: its agent's context)."""
    try:
        WitnessTier(witness.tier)
    except ValueError:
        raise InvalidArgument(f"witnesses[{index}].tier must be one of {[t.value for t in WitnessTier]}, "
                              f"not {witness.tier!r}", argument=f"witnesses[{index}].tier") from None
    if isinstance(witness.relationships, str) or len(witness.relationships) > MAX_RELATIONSHIPS:
        raise InvalidArgument(f"witnesses[{index}].relationships must be a list of at most {MAX_RELATIONSHIPS} names",
                              argument=f"witnesses[{index}].relationships")
    for name in [*witness.relationships, *([witness.name] if witness.name is not None else [])]:
        check_text(name, f"witnesses[{index}] names", allow_empty=False, max_len=1_000)
    own_key = ctx.caller.scope_key(Scope.AGENT)
    if own_key in seen:
        raise InvalidArgument(f"witnesses[{index}] repeats agent {ctx.agent_id!r}", argument=f"witnesses[{index}]")
    seen.add(own_key)


def check_event(event: str, importance: float | None, entities: Sequence[str], config: PerspectiveConfig) -> float:
    """The event's checks, made before the witnesses'; returns the importance to use."""
    check_text(event, "event", allow_empty=False, max_len=MAX_CONTENT_CHARS)
    if not event.strip():
        raise InvalidArgument("event must not be blank", argument="event")
    level = config.default_importance if importance is None else importance
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0.0 <= level <= 1.0:
        raise InvalidArgument(f"importance must be a number in [0, 1], got {importance!r}", argument="importance")
    if isinstance(entities, str):
        raise InvalidArgument("entities must be a list of names, not a string", argument="entities")
    return float(level)


def _known_entities(witness: Witness, ctx: MemoryContext, keys: list[str]) -> set[str]:
    """The event's entity keys this witness relates to: named as itself, in its relationships,
    or already mentioned by its own visible memories."""
    own = [witness.name or ctx.agent_id, *witness.relationships]
    known = entity_overlap(keys, own)
    rest = [k for k in keys if k not in known]
    if rest:
        known |= ctx.graph.known_entity_keys(rest, ctx.visible_scope_keys)
    return known


def rewrite_prompt(witness: Witness, ctx: MemoryContext, event: str, overlap: set[str]) -> tuple[str, str]:
    """System and user messages of one witness's rewrite."""
    cfg = ctx.config.perspective
    relations = sorted(set(witness.relationships) | overlap)
    user = (f"Witness: {witness.name or ctx.agent_id}\n"
            f"Personality: {describe_personality(ctx.traits, cfg.low_trait, cfg.high_trait)}\n"
            f"Mood: {describe_mood(ctx.current_mood())}\n"
            f"Relationships: {', '.join(relations) if relations else 'none known'}\n"
            f"Event: {event}")
    return _SYSTEM, user


def _rewrite(witness: Witness, ctx: MemoryContext, event: str, overlap: set[str]) -> tuple[str | None, str]:
    complete_json = getattr(ctx.llm, "complete_json", None)
    if complete_json is None:
        return None, "no_llm"
    system, user = rewrite_prompt(witness, ctx, event, overlap)
    cfg = ctx.config.perspective
    try:
        payload = complete_json(system, user, max_tokens=cfg.llm_max_tokens)
        return parse_rewrite(payload, cfg.max_memory_chars), GateReason.REWRITE.value
    except Exception as exc:  # every LLM step degrades: the witness keeps the objective event
        log.warning("perspective rewrite for %s failed (%s: %s); encoding the objective event",
                    ctx.agent_id, type(exc).__name__, exc)
        return None, "llm_failed"


def encode_event(
    ctx: MemoryContext, event: str, witnesses: Sequence[tuple[Witness, MemoryContext]], *,
    importance: float | None = None,
    entities: Sequence[str] = (), created_at: int | None = None, tags: Sequence[str] = (),
    metadata: dict[str, Any] | None = None, memory_type: MemoryType | str = MemoryType.EPISODIC,
) -> EventEncoding:
    """Encode one event for each witness (see the module docstring): `witnesses` pairs each
    witness with its agent's context, checked by `check_witness`."""
    # The write path (and numpy) only when an event is encoded, not when the store opens.
    from cogmem_graph.write.encode import encode_many

    cfg = ctx.config.perspective
    level = check_event(event, importance, entities, cfg)
    event_id = "event_" + uuid.uuid4().hex
    names = [e.name for e in extract_entities(event, extra=list(entities))]
    keys = list(dict.fromkeys(entity_key(n) for n in names if entity_key(n)))
    out = EventEncoding(event_id=event_id)
    for witness, own in witnesses:
        tier = WitnessTier(witness.tier)
        overlap = _known_entities(witness, own, keys) if tier is WitnessTier.IMPORTANT and level >= \
            cfg.importance_threshold and cfg.enabled else set()
        gate = perspective_gate(float(level), tier, overlap, threshold=cfg.importance_threshold,
                                require_overlap=cfg.require_entity_overlap, enabled=cfg.enabled)
        if not gate.remember:
            out.witnesses.append(WitnessMemory(own.agent_id, None, False, gate.reason.value))
            continue
        text, reason = (_rewrite(witness, own, event, overlap) if gate.rewrite else (None, gate.reason.value))
        rewritten = text is not None
        structured: dict[str, Any] = {"perspective": {
            "eventId": event_id, "rewritten": rewritten, "reason": reason, "importance": float(level),
            "tier": tier.value}}
        if rewritten:
            structured[MECHANISM_KEY] = {"perspectiveEncoded": True}
        trace = encode_many(own, [{
            "content": text if rewritten else event, "type": memory_type, "scope": Scope.AGENT, "entities": names,
            "tags": ["event", *(["perspective"] if rewritten else []), *tags], "source_type": SourceType.OBSERVATION,
            "created_at": created_at, "metadata": dict(metadata or {}), "structured_data": structured,
        }])[0]
        if rewritten and trace.content == text:
            _archive_objective(own, trace, event)
        out.witnesses.append(WitnessMemory(own.agent_id, trace, rewritten, reason))
    return out


def _archive_objective(ctx: MemoryContext, trace: MemoryTrace, event: str) -> None:
    """The objective event, archived under the witness's trace: what rehydration returns."""
    objective = trace.model_copy(update={"content": event, "content_hash": content_hash(event)})
    try:
        MemoryArchive(ctx.graph, ctx.clock).store([objective], reason=ARCHIVE_REASON)
    except Exception as exc:  # the witness's memory stands; only the objective copy is missing
        log.warning("archiving the objective event of trace %s failed (%s)", trace.id, exc)
