"""Where an agent's observation notes live and how a graph row becomes a note: shared by the
observer, which writes notes, and the reflector, which turns them into traces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cogmem_graph.cognition.observation import ObservationNote
from cogmem_graph.language.note_kinds import NoteType
from cogmem_graph.model import Scope

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


def note_scope(ctx: MemoryContext) -> Scope:
    """Where an agent's notes (and the traces reflected from them) live: its default write scope."""
    return ctx.caller.default_scope()


def note_scope_key(ctx: MemoryContext) -> str:
    return ctx.caller.scope_key(note_scope(ctx))


def note_from_props(props: Mapping[str, Any]) -> ObservationNote:
    return ObservationNote(
        id=props["id"], type=NoteType(props["type"]), content=props["content"],
        importance=float(props.get("importance") or 0.0), confidence=float(props.get("confidence") or 0.0),
        created_at=int(props.get("createdAt") or 0), entities=tuple(props.get("entities") or ()),
        role=props.get("role") or "user", salience=float(props.get("salience") or 0.0),
        method=props.get("method") or "rules", scope_key=props.get("scopeKey") or "",
        agent_id=props.get("agentId") or "", buffer_key=props.get("bufferKey") or "",
        observed_at=int(props.get("observedAt") or 0),
        reflected_at=None if props.get("reflectedAt") is None else int(props["reflectedAt"]),
        trace_ids=tuple(props.get("traceIds") or ()), tokens=int(props.get("tokens") or 0),
    )
