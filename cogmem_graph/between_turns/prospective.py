"""Prospective memory in the graph: store intentions, check them every turn, record firings.

Intentions are `Prospective` nodes {id, scopeKey, agentId, content, triggerKind,
triggerAt, intervalMs, keywords, cue, similarityThreshold, recurring, cooldownMs,
importance, firedCount, lastFiredAt, nextFireAt, active, createdAt, updatedAt,
cancelledAt} (`cypher/prospective_*.cypher`). Like every read, a check is bound to
the caller's visible scope keys: a reminder of one tenant is never seen, nor
fired, by another.

A context trigger's cue vector is kept on its node, not in Qdrant. The Qdrant
collection is the index of traces: its dense search would return intentions as
recall candidates, and `ctx.repair()` removes points that have no trace behind
them. An intention's vector is never searched anyway: every due context
intention of the caller's scopes is compared with the turn in Python (a handful
per agent; a check reads at most `max_checked`). The vector is one string,
`cueEmbedding`, base64 of little-endian float32 (the precision Qdrant keeps):
both engines store it alike, and it reads far faster than a list of floats over
FalkorDB's protocol (measured here: ~1 s for 100 lists of 384 floats, ~10x
less as strings). `embedModel` names the embedder that made it; when the store
is reopened with another embedder, the cue is embedded again on the next check
and the node updated.

A check (`check`): read the due intentions (one statement), decide which fire on
this turn with the pure functions of `cognition.prospective`, then record the
firings in one statement that only succeeds for intentions still as they were
read, so concurrent turns cannot fire a one-shot intention twice.
"""

from __future__ import annotations

import base64
import builtins
import sys
from array import array
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from cogmem_graph.clock import Clock
from cogmem_graph.cognition.embedding_space import cosine
from cogmem_graph.cognition.prospective import (
    FiredReminder,
    Intention,
    TriggerKind,
    after_firing,
    evaluate,
    new_intention,
)
from cogmem_graph.config.prospective import ProspectiveConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.graph.cypher_store.graph_store import require_scope_keys
from cogmem_graph.graph.port import CueEmbedding, Firing, GraphStore
from cogmem_graph.model import MAX_ID_CHARS, Scope, check_text
from cogmem_graph.providers import Embedder

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

MAX_EVENTS = 100
MAX_EVENT_CHARS = 1_000


class ProspectiveMemory:
    """Intentions of a store's graph; stateless apart from its collaborators, so one
    object (or a fresh one per call) serves every agent."""

    def __init__(self, graph: GraphStore, embedder: Embedder, config: ProspectiveConfig, clock: Clock) -> None:
        self.graph = graph
        self.embedder = embedder
        self.config = config
        self.clock = clock

    def register(self, intention: Intention) -> Intention:
        """Store a new intention (embedding a context trigger's cue first)."""
        props = intention.to_props()
        if intention.kind is TriggerKind.CONTEXT:
            assert intention.cue is not None
            props["cueEmbedding"] = pack_vector(self.embedder.embed([intention.cue])[0])
            props["embedModel"] = self.embedder.name
        self.graph.create_intention(props)
        return intention

    def list(self, scope_keys: Sequence[str], *, include_inactive: bool = False, skip: int = 0,
             limit: int = 100) -> list[Intention]:
        keys = require_scope_keys(scope_keys)
        for name, value in (("skip", skip), ("limit", limit)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidArgument(f"{name} must be a non-negative integer, got {value!r}", argument=name)
        found = self.graph.list_intentions(keys, include_inactive=include_inactive, skip=skip, limit=limit)
        return [Intention.from_props(props) for props in found]

    def cancel(self, intention_id: str, scope_keys: Sequence[str]) -> bool:
        """True when an active intention of these scopes was cancelled; False when there is
        none by that id (unknown, another tenant's, already spent or cancelled)."""
        keys = require_scope_keys(scope_keys)
        if not isinstance(intention_id, str):
            raise InvalidArgument(f"reminder_id must be a string, got {type(intention_id).__name__}",
                                  argument="reminder_id")
        check_text(intention_id, "reminder_id", allow_empty=False, max_len=MAX_ID_CHARS)
        return self.graph.cancel_intention(intention_id, keys, self.clock.now_ms())

    def check(self, scope_keys: Sequence[str], text: str = "",
              events: Iterable[str] = ()) -> builtins.list[FiredReminder]:
        """Fire what this turn triggers: due time triggers, keyword triggers whose words are in
        `text` or `events`, context triggers whose cue is similar enough to `text`. Returns
        the fired reminders, most important first; their firings are already recorded."""
        keys = require_scope_keys(scope_keys)
        text = _turn_text(text)
        named = _events(events)
        now = self.clock.now_ms()
        due = self.graph.due_intentions(keys, now, self.config.max_checked)
        turn_vector: list[float] | None = None
        refreshed: list[CueEmbedding] = []
        fired: list[FiredReminder] = []
        for props in due:
            intention = Intention.from_props(props)
            similarity = None
            if intention.kind is TriggerKind.CONTEXT and text.strip():
                if turn_vector is None:
                    turn_vector = self.embedder.embed_query(text)
                similarity = cosine(self._cue_vector(intention, props, refreshed), turn_vector)
            hit = evaluate(intention, now, text, named, similarity)
            if hit is not None:
                fired.append(hit)
        if refreshed:
            self.graph.set_cue_embeddings(refreshed, keys)
        return self._record(fired, keys, now)

    def _cue_vector(self, intention: Intention, props: dict,
                    refreshed: builtins.list[CueEmbedding]) -> builtins.list[float]:
        """The stored cue vector, or a fresh one when another embedder made it."""
        stored = props.get("cueEmbedding")
        vector = unpack_vector(stored) if isinstance(stored, str) else []
        if vector and props.get("embedModel") == self.embedder.name and len(vector) == self.embedder.dim:
            return vector
        assert intention.cue is not None
        vector = list(self.embedder.embed([intention.cue])[0])
        refreshed.append(CueEmbedding(intention.id, pack_vector(vector), self.embedder.name))
        return vector

    def _record(self, fired: builtins.list[FiredReminder], keys: builtins.list[str], now: int
                ) -> builtins.list[FiredReminder]:
        if not fired:
            return []
        after = {f.intention.id: after_firing(f.intention, now) for f in fired}
        firings = [Firing(f.intention.id, f.intention.fired_count, after[f.intention.id].next_fire_at,
                          after[f.intention.id].active) for f in fired]
        won = self.graph.record_firings(firings, keys, now)
        out = [FiredReminder(after[f.intention.id], now, f.matched_keywords, f.similarity)
               for f in fired if f.intention.id in won]
        return sorted(out, key=lambda f: (-f.intention.importance, f.intention.created_at, f.intention.id))


def pack_vector(vector: Sequence[float]) -> str:
    """A vector as one graph property: base64 of little-endian float32."""
    packed = array("f", vector)
    if sys.byteorder == "big":
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def unpack_vector(text: str) -> list[float]:
    """The inverse of `pack_vector` (an empty list for anything that is not one)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return []
    if len(raw) % 4:
        return []
    packed = array("f")
    packed.frombytes(raw)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tolist()


def _turn_text(text: str) -> str:
    """The turn is only matched against, never stored: any string will do."""
    if not isinstance(text, str):
        raise InvalidArgument(f"text must be a string, got {type(text).__name__}", argument="text")
    return text


def _events(events: Iterable[str]) -> tuple[str, ...]:
    items = [events] if isinstance(events, str) else list(events)
    if len(items) > MAX_EVENTS:
        raise InvalidArgument(f"events holds {len(items)} names; at most {MAX_EVENTS}", argument="events")
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InvalidArgument(f"events[{i}] must be a string, got {item!r}", argument=f"events[{i}]")
        if len(item) > MAX_EVENT_CHARS:
            raise InvalidArgument(f"events[{i}] is longer than {MAX_EVENT_CHARS} characters", argument=f"events[{i}]")
    return tuple(items)


# ---------------------------------------------------------------- agent-level entry points


def memory_for(ctx: MemoryContext) -> ProspectiveMemory:
    return ProspectiveMemory(ctx.graph, ctx.embedder, ctx.config.prospective, ctx.clock)


def remind(
    ctx: MemoryContext, content: str, *, at: int | datetime | str | None = None,
    every: int | timedelta | None = None,
    on_keywords: str | Iterable[str] | None = None, on_context: str | None = None, recurring: bool | None = None,
    cooldown: int | timedelta | None = None, threshold: float | None = None, importance: float | None = None,
    scope: Scope | str | None = None,
) -> Intention:
    """Build, validate and store one intention under the agent's scope (`scope`, default
    the user's when known, else the agent's own)."""
    intention = new_intention(
        content, scope_key=_scope_key(ctx, scope), agent_id=ctx.agent_id, now=ctx.clock.now_ms(),
        config=ctx.config.prospective, at=at, every=every, on_keywords=on_keywords, on_context=on_context,
        recurring=recurring, cooldown=cooldown, threshold=threshold, importance=importance,
    )
    return memory_for(ctx).register(intention)


def _scope_key(ctx: MemoryContext, scope: Scope | str | None) -> str:
    if scope is None:
        return ctx.caller.scope_key(ctx.caller.default_scope())
    try:
        chosen = Scope(scope)
    except ValueError:
        raise InvalidArgument(f"scope must be one of {[s.value for s in Scope]}, not {scope!r}",
                              argument="scope") from None
    return ctx.caller.scope_key(chosen)
