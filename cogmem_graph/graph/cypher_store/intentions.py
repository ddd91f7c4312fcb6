"""Intentions (prospective memory): `Prospective` nodes, as property maps (the cognitive core
reads them into `Intention`s)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogmem_graph.graph.cypher_store.execution import StatementRunner, require_scope_keys
from cogmem_graph.graph.port import CueEmbedding, Firing
from cogmem_graph.graph.rows import IntentionProps


class IntentionStatements(StatementRunner):
    """Reminders: created, listed, cancelled, found due, fired."""

    def create_intention(self, props: dict[str, Any]) -> None:
        self.run("prospective_create", {"props": props}, write=True)

    def list_intentions(self, scope_keys: Sequence[str], *, include_inactive: bool, skip: int,
                        limit: int) -> list[IntentionProps]:
        keys = require_scope_keys(scope_keys)
        rows = self.run("prospective_list", {"scopeKeys": keys, "includeInactive": bool(include_inactive),
                                             "skip": skip, "limit": limit})
        return [r["intention"] for r in rows]

    def cancel_intention(self, intention_id: str, scope_keys: Sequence[str], now: int) -> bool:
        """True when an active intention of these scopes was cancelled."""
        keys = require_scope_keys(scope_keys)
        return bool(self.run("prospective_cancel", {"id": intention_id, "scopeKeys": keys, "now": now},
                             write=True))

    def due_intentions(self, scope_keys: Sequence[str], now: int, limit: int) -> list[IntentionProps]:
        """The active intentions a turn at `now` may fire, at most `limit`."""
        keys = require_scope_keys(scope_keys)
        return [r["intention"] for r in self.run("prospective_due", {"scopeKeys": keys, "now": now,
                                                                      "limit": limit})]

    def set_cue_embeddings(self, cues: Sequence[CueEmbedding], scope_keys: Sequence[str]) -> None:
        keys = require_scope_keys(scope_keys)
        rows = [{"id": c.intention_id, "cueEmbedding": c.packed, "embedModel": c.model} for c in cues]
        self.run("prospective_set_embedding", {"rows": rows, "scopeKeys": keys}, write=True)

    def record_firings(self, firings: Sequence[Firing], scope_keys: Sequence[str], now: int) -> set[str]:
        """Record the firings no other caller recorded first; the ids of those recorded."""
        keys = require_scope_keys(scope_keys)
        rows = [{"id": f.intention_id, "expectedFiredCount": f.expected_fired_count,
                 "nextFireAt": f.next_fire_at, "active": f.active} for f in firings]
        return {r["id"] for r in self.run("prospective_mark_fired", {"rows": rows, "scopeKeys": keys, "now": now},
                                          write=True)}
