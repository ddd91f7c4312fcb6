"""The observer: conversation turns → typed observation notes in the graph.

`agent.observe(role, text)` buffers a turn as a `ConversationTurn` node (one
statement, which also returns what the buffer holds). Once the unobserved turns
hold the observer's token threshold, an observer run:

1. claims the buffered turns (a lease: a run that dies leaves them claimable again);
2. reads notes from them — the store's LLM (OpenAI chat, JSON answer) when it has
   one, the keyword rules of `cognition.observation` otherwise, and the rules
   again, with a warning, when the LLM fails or answers malformed JSON;
3. keeps the notes salient enough for this agent's personality (HEXACO bias);
4. writes the `ObservationNote` nodes and removes the turns they came from in one
   statement, only while the run still holds every claimed turn.

A turn leaves the buffer only in the statement that stores its notes, so a
failure anywhere before leaves every turn buffered (the claim is released at
once). Then the reflector runs when the agent's pending notes hold its threshold.

Buffers are per agent and conversation (the thread when the agent has one),
inside the agent's default write scope: a scope key, and so a tenant, is part of
every statement.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogmem_graph.between_turns.notes import note_from_props, note_scope_key
from cogmem_graph.between_turns.reflector import ReflectionResult, reflect
from cogmem_graph.cognition.observation import (
    NoteDraft,
    ObservationNote,
    Turn,
    keep_biased,
    observer_focus_areas,
    parse_observer_answer,
    rule_notes,
    threshold_reached,
)
from cogmem_graph.cognition.prompt import PromptItem, estimate_tokens
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MAX_CONTENT_CHARS, Scope, check_text, epoch_ms_of

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

ROLES = ("user", "assistant", "system", "tool")
NOTE_LIST_MAX = 1_000

_SYSTEM = (
    "You observe a conversation for an AI agent's long-term memory and write concise observation notes.\n"
    "Note types:\n"
    "- factual: facts about people, places, things and events;\n"
    "- emotional: emotional shifts, tone changes, sentiment;\n"
    "- commitment: promises, deadlines, action items, plans;\n"
    "- preference: likes, dislikes, preferred ways of doing things, communication style;\n"
    "- creative: new ideas, creative tangents, explorations;\n"
    "- correction: corrections, retractions, facts that changed.\n"
    "{focus}"
    "Write what the user says about themselves in the user's own first person, as they would say it "
    "(\"I moved to Berlin\"); name everyone else. Skip greetings and small talk. One note per observation.\n"
    "Answer with one JSON object: {{\"notes\": [{{\"type\": one of the types, \"content\": the note, "
    "\"importance\": 0..1, \"confidence\": 0..1, \"turn\": number of the turn it comes from, "
    "\"entities\": [names]}}]}}. An empty list is a valid answer."
)


@dataclass
class ObserveResult:
    """What one `observe` (or flush) did."""

    buffered_tokens: int = 0
    """Tokens still waiting in this conversation's buffer."""
    buffered_turns: int = 0
    notes: list[ObservationNote] = field(default_factory=list)
    """Notes written by the observer during this call (none unless it ran)."""
    method: str | None = None
    """"llm" or "rules" when the observer ran."""
    reflection: ReflectionResult | None = None
    """Set when the reflector ran during this call."""


# ---------------------------------------------------------------- keys


def buffer_key(ctx: MemoryContext) -> str:
    """One buffer per agent and conversation (its thread when known, else its note scope)."""
    identity = ctx.caller
    where = identity.scope_key(Scope.THREAD) if identity.user_id and identity.thread_id else note_scope_key(ctx)
    return f"{identity.agent_id}@{where}"


def list_notes(ctx: MemoryContext, *, limit: int = 20, pending_only: bool = False,
               all_agents: bool = False) -> list[ObservationNote]:
    """Notes the agent may see, newest first (its own unless `all_agents`)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= NOTE_LIST_MAX:
        raise InvalidArgument(f"limit must be an integer in 1..{NOTE_LIST_MAX}, got {limit!r}", argument="limit")
    found = ctx.graph.list_notes(ctx.visible_scope_keys, agent_id=None if all_agents else ctx.agent_id,
                                 pending_only=pending_only, limit=limit)
    return [note_from_props(props) for props in found]


def prompt_notes(ctx: MemoryContext) -> list[PromptItem]:
    """The newest notes not yet reflected, for the prompt's Observations section: what the
    agent noticed lately and has not turned into long-term memory."""
    limit = ctx.config.observer.prompt_notes
    if limit == 0:
        return []
    return [PromptItem(text=n.content, kind=n.type.value, score=round(n.salience, 2), score_label="salience")
            for n in list_notes(ctx, limit=limit, pending_only=True)]


def pending_note_tokens(ctx: MemoryContext) -> int:
    return ctx.graph.pending_note_tokens(note_scope_key(ctx), ctx.agent_id)


# ---------------------------------------------------------------- observe


def _check_role(role: str) -> str:
    if not isinstance(role, str) or role.strip().lower() not in ROLES:
        raise InvalidArgument(f"role must be one of {ROLES}, got {role!r}", argument="role")
    return role.strip().lower()


def add_turn(ctx: MemoryContext, role: str, text: str, *, created_at: object = None) -> tuple[int, int]:
    """Buffer one turn; returns the unclaimed tokens and turns the buffer then holds."""
    role = _check_role(role)
    check_text(text, "text", allow_empty=False, max_len=MAX_CONTENT_CHARS)
    if not text.strip():
        raise InvalidArgument("text must not be blank", argument="text")
    if created_at is not None:
        created_at = epoch_ms_of(created_at, "created_at")
    now = ctx.clock.now_ms()
    return ctx.graph.buffer_turn(
        turn_id="turn_" + uuid.uuid4().hex, buffer_key=buffer_key(ctx), scope_key=note_scope_key(ctx),
        agent_id=ctx.agent_id, role=role, content=text,
        tokens=estimate_tokens(text, ctx.config.prompt.chars_per_token),
        created_at=now if created_at is None else created_at, now=now)


def observe(ctx: MemoryContext, role: str, text: str, *, created_at: object = None) -> ObserveResult:
    """Buffer a turn; past the observer's threshold, write notes; past the reflector's, reflect."""
    tokens, turns = add_turn(ctx, role, text, created_at=created_at)
    result = ObserveResult(buffered_tokens=tokens, buffered_turns=turns)
    if threshold_reached(tokens, ctx.config.observer.activation_threshold_tokens):
        _observe_now(ctx, result)
        _reflect_if_due(ctx, result)
    return result


def flush(ctx: MemoryContext) -> ObserveResult:
    """Observe whatever is buffered and reflect every pending note, thresholds or not
    (the end of a session)."""
    result = ObserveResult()
    _observe_now(ctx, result)
    result.reflection = reflect(ctx)
    return result


def _observe_now(ctx: MemoryContext, result: ObserveResult) -> None:
    limit = ctx.config.observer.max_turns_per_run
    while True:
        notes, method, claimed, consumed_tokens = run_observer(ctx)
        result.notes += notes
        result.method = method or result.method
        result.buffered_tokens = max(0, result.buffered_tokens - consumed_tokens)
        result.buffered_turns = max(0, result.buffered_turns - claimed)
        if claimed < limit:
            return


def _reflect_if_due(ctx: MemoryContext, result: ObserveResult) -> None:
    if result.notes and threshold_reached(pending_note_tokens(ctx),
                                          ctx.config.reflector.activation_threshold_tokens):
        result.reflection = reflect(ctx)


# ---------------------------------------------------------------- one observer run


def run_observer(ctx: MemoryContext) -> tuple[list[ObservationNote], str | None, int, int]:
    """Claim the buffered turns, read notes from them, keep the salient ones, store them and
    consume the turns. Returns (notes, method, turns claimed, tokens consumed)."""
    cfg = ctx.config.observer
    now = ctx.clock.now_ms()
    run_id = "obs_" + uuid.uuid4().hex
    key, scope_key = buffer_key(ctx), note_scope_key(ctx)
    rows = ctx.graph.claim_turns(key, scope_key, stale_before=now - cfg.claim_lease_ms, run_id=run_id, now=now,
                                 limit=cfg.max_turns_per_run)
    if not rows:
        return [], None, 0, 0
    try:
        turns = [Turn(role=r.role, content=r.content, created_at=int(r.created_at or now)) for r in rows]
        drafts, method = read_notes(ctx, turns)
        kept = keep_biased(drafts, ctx.traits, cfg.min_salience, ctx.config.encoding)
        notes = [_stored(ctx, draft, salience, turns, method, key, scope_key, now, seq)
                 for seq, (draft, salience) in enumerate(kept)]
        done = ctx.graph.write_notes([r.id for r in rows], scope_key, key, run_id,
                                     [_props(n, seq) for seq, n in enumerate(notes)])
    except BaseException:
        _release(ctx, key, scope_key, run_id)
        raise
    if not done:
        log.warning("observer run %s lost its claim on %d turn(s) to another run; its notes were dropped",
                    run_id, len(rows))
        return [], method, len(rows), 0
    return notes, method, len(rows), sum(int(r.tokens or 0) for r in rows)


def _release(ctx: MemoryContext, key: str, scope_key: str, run_id: str) -> None:
    try:
        ctx.graph.release_turns(key, scope_key, run_id)
    except Exception as exc:  # the lease expires anyway; the original error matters more
        log.warning("could not release the turns claimed by %s (%s); they return after the lease", run_id, exc)


def _stored(ctx: MemoryContext, draft: NoteDraft, salience: float, turns: Sequence[Turn], method: str,
            key: str, scope_key: str, now: int, seq: int) -> ObservationNote:
    cpt = ctx.config.prompt.chars_per_token
    return ObservationNote(
        id="note_" + uuid.uuid4().hex, type=draft.type, content=draft.content,
        importance=round(draft.importance, 6), confidence=round(draft.confidence, 6),
        created_at=turns[draft.turn_index].created_at, entities=draft.entities, role=draft.role,
        salience=round(salience, 6), method=method, scope_key=scope_key, agent_id=ctx.agent_id,
        buffer_key=key, observed_at=now, tokens=estimate_tokens(draft.content, cpt))


def _props(note: ObservationNote, seq: int) -> dict[str, Any]:
    return {
        "id": note.id, "scopeKey": note.scope_key, "agentId": note.agent_id, "bufferKey": note.buffer_key,
        "type": note.type.value, "content": note.content, "importance": note.importance,
        "confidence": note.confidence, "salience": note.salience, "role": note.role,
        "entities": list(note.entities), "createdAt": note.created_at, "observedAt": note.observed_at,
        "method": note.method, "tokens": note.tokens, "seq": seq,
    }


# ---------------------------------------------------------------- reading notes


def observer_prompt(ctx: MemoryContext, turns: Sequence[Turn]) -> tuple[str, str]:
    """System and user messages of the observer's LLM call."""
    areas = observer_focus_areas(ctx.traits, ctx.config.observer.focus_trait_threshold)
    focus = f"This agent pays most attention to {'; '.join(areas)}.\n" if areas else ""
    lines = [f"[{i}] {turn.role}: {' '.join(turn.content.split())}" for i, turn in enumerate(turns, start=1)]
    return _SYSTEM.format(focus=focus), "Conversation:\n" + "\n".join(lines)


def read_notes(ctx: MemoryContext, turns: Sequence[Turn]) -> tuple[list[NoteDraft], str]:
    """Notes from the LLM when the store has one, else (or when it fails) from the rules."""
    cfg = ctx.config.observer
    llm = ctx.llm
    complete_json = getattr(llm, "complete_json", None)
    if complete_json is not None:
        system, user = observer_prompt(ctx, turns)
        try:
            payload = complete_json(system, user, max_tokens=cfg.llm_max_tokens)
            return parse_observer_answer(payload, turns, cfg), "llm"
        except Exception as exc:  # every LLM step degrades to its heuristic; no turn is lost
            log.warning("observer LLM failed (%s: %s); reading %d turn(s) with the keyword rules",
                        type(exc).__name__, exc, len(turns))
    return rule_notes(turns, cfg), "rules"
