"""Observation notes and the turn buffer they are read from (observer and reflector). Claims
carry a run id and a lease, so two runs never take the same turns or notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogmem_graph.graph.cypher_store.execution import StatementRunner, require_scope_keys
from cogmem_graph.graph.port import ClaimedTurn
from cogmem_graph.graph.rows import NoteProps


class NoteStatements(StatementRunner):
    """Buffered turns claimed and consumed; notes written, listed, claimed and reflected."""

    def list_notes(self, scope_keys: Sequence[str], *, agent_id: str | None, pending_only: bool,
                   limit: int) -> list[NoteProps]:
        """Notes' property maps, newest first (of `agent_id`, or of every agent when None)."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("observation_notes_list", {"scopeKeys": keys, "agentId": agent_id,
                                                   "pendingOnly": bool(pending_only), "limit": limit})
        return [r["note"] for r in rows]

    def pending_note_tokens(self, scope_key: str, agent_id: str) -> int:
        return self.run_count("observation_notes_pending", "tokens", {"scopeKey": scope_key, "agentId": agent_id})

    def buffer_turn(self, *, turn_id: str, buffer_key: str, scope_key: str, agent_id: str, role: str,
                    content: str, tokens: int, created_at: int, now: int) -> tuple[int, int]:
        """Buffer one turn; the unclaimed tokens and turns the buffer then holds."""
        rows = self.run("observation_buffer_add", {
            "id": turn_id, "bufferKey": buffer_key, "scopeKey": scope_key, "agentId": agent_id, "role": role,
            "content": content, "tokens": tokens, "createdAt": created_at, "now": now}, write=True)
        return int(rows[0]["tokens"]), int(rows[0]["turns"])

    def claim_turns(self, buffer_key: str, scope_key: str, *, stale_before: int, run_id: str, now: int,
                    limit: int) -> list[ClaimedTurn]:
        rows = self.run("observation_buffer_claim", {
            "bufferKey": buffer_key, "scopeKey": scope_key, "staleBefore": stale_before, "runId": run_id,
            "now": now, "limit": limit}, write=True)
        return [ClaimedTurn(r["id"], r["role"], r["content"], r["createdAt"], r["tokens"]) for r in rows]

    def write_notes(self, turn_ids: Sequence[str], scope_key: str, buffer_key: str, run_id: str,
                    notes: Sequence[dict[str, Any]]) -> bool:
        """Store the run's notes and consume its turns; False when the run lost its claim."""
        return bool(self.run("observation_notes_write", {
            "turnIds": list(turn_ids), "scopeKey": scope_key, "bufferKey": buffer_key, "runId": run_id,
            "notes": list(notes)}, write=True))

    def release_turns(self, buffer_key: str, scope_key: str, run_id: str) -> None:
        self.run("observation_buffer_release", {"bufferKey": buffer_key, "scopeKey": scope_key, "runId": run_id},
                 write=True)

    def claim_notes(self, scope_key: str, agent_id: str, *, stale_before: int, run_id: str, now: int,
                    limit: int) -> list[NoteProps]:
        """Notes' property maps, claimed for one reflector run."""
        rows = self.run("observation_notes_claim", {
            "scopeKey": scope_key, "agentId": agent_id, "staleBefore": stale_before, "runId": run_id,
            "now": now, "limit": limit}, write=True)
        return [r["note"] for r in rows]

    def mark_notes_reflected(self, trace_ids: Mapping[str, Sequence[str]], scope_key: str, run_id: str,
                             now: int) -> None:
        """Note id -> the traces reflected from it."""
        self.run("observation_notes_reflected", {
            "rows": [{"id": i, "traceIds": list(ids)} for i, ids in trace_ids.items()], "scopeKey": scope_key,
            "runId": run_id, "now": now}, write=True)

    def release_notes(self, scope_key: str, agent_id: str, run_id: str) -> None:
        self.run("observation_notes_release", {"scopeKey": scope_key, "agentId": agent_id, "runId": run_id},
                 write=True)
