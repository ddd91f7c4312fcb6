"""Governance: list, edit, forget and erase what the memory holds (api/governance.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cogmem_graph.graph.cypher_store.execution import (
    StatementRunner,
    chunks,
    require_scope_keys,
)
from cogmem_graph.graph.rows import (
    ContradictionRow,
    ForgetTarget,
    MemoryRow,
    OpenContradiction,
    ResolvedContradiction,
    SchemaPageRow,
    TraceProps,
)


class GovernanceStatements(StatementRunner):
    """The statements behind the governance operations."""

    if TYPE_CHECKING:
        # TraceStatements's, beside this mixin in the store's bases.
        def trace_texts(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, str]: ...

    # ------------------------------------------------------------ governance: list, edit, forget, erase

    def filter_page(self, scope_keys: Sequence[str], filter_params: dict[str, Any], *,
                    after: tuple[int, str] | None, newest_first: bool, limit: int) -> list[tuple[TraceProps, str]]:
        """One page of the traces passing a filter (`MemoryFilter.graph_params()`), after a
        keyset cursor (event time, id): (properties, state) rows."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("memory_filter_page", {
            "scopeKeys": keys, **filter_params, "afterTime": after[0] if after else None,
            "afterId": after[1] if after else None, "newestFirst": bool(newest_first), "limit": int(limit)})
        return [(r["trace"], r["state"]) for r in rows]

    def filter_ids(self, ids: Sequence[str], scope_keys: Sequence[str], filter_params: dict[str, Any]) -> set[str]:
        """Which of `ids` the caller sees and that pass the filter."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return set()
        return {r["id"] for r in self.run("memory_filter_ids", {
            "ids": list(dict.fromkeys(ids)), "scopeKeys": keys, **filter_params})}

    def memories(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryRow]:
        """Traces by id with every property, whether an archived original exists and what
        replaced them: rows {trace, archived, supersededBy}."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return self.run_rows(MemoryRow, "memory_get", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})

    def update_fields(self, trace_id: str, scope_keys: Sequence[str], fields: dict[str, Any], *,
                      by: str) -> TraceProps | None:
        """Edit tags / metadata (with its derived lists) / pinned in place; None leaves a field.
        The new properties, or None when the caller sees no such trace."""
        keys = require_scope_keys(scope_keys)
        names = ("tags", "metadata", "metaPairs", "metaNumKeys", "metaNumValues", "metaTextKeys",
                 "metaTextValues", "pinned")
        params = {name: fields.get(name) for name in names}
        rows = self.run("memory_update_fields", {"id": trace_id, "scopeKeys": keys, **params,
                                                 "now": self._now(), "by": by}, write=True)
        trace: TraceProps | None = rows[0]["trace"] if rows else None
        return trace

    def retype(self, trace_id: str, memory_type: str) -> None:
        self.run("retype_traces", {"rows": [{"id": trace_id, "type": memory_type}]}, write=True)

    def supersede_by_update(self, old_id: str, new_id: str, scope_keys: Sequence[str], *, by: str,
                            reason: str, weight: float) -> bool:
        keys = require_scope_keys(scope_keys)
        return bool(self.run("memory_supersede_update", {
            "oldId": old_id, "newId": new_id, "scopeKeys": keys, "now": self._now(), "by": by,
            "reason": reason, "weight": weight}, write=True))

    def versions(self, trace_id: str, scope_keys: Sequence[str]) -> list[TraceProps]:
        """Every version of a memory (the update chain), as property maps."""
        keys = require_scope_keys(scope_keys)
        return [r["trace"] for r in self.run("memory_versions", {"id": trace_id, "scopeKeys": keys})]

    def schema_page(self, scope_keys: Sequence[str], *, limit: int, members: int) -> list[SchemaPageRow]:
        """The newest `limit` schemas of the scopes, each with up to `members` member traces
        ({id, content}) inside the scopes."""
        keys = require_scope_keys(scope_keys)
        return self.run_rows(SchemaPageRow, "consolidation_schemas_page", {"scopeKeys": keys, "limit": int(limit),
                                                                          "members": int(members)})

    def resolved_contradictions(self, scope_keys: Sequence[str], reason: str, *,
                                limit: int) -> list[ResolvedContradiction]:
        """The newest `limit` contradictions settled inside the scopes (winner SUPERSEDES loser
        with `reason`), both sides' id, content, event time and confidence."""
        keys = require_scope_keys(scope_keys)
        return self.run_rows(ResolvedContradiction, "consolidation_resolved",
                             {"scopeKeys": keys, "reason": reason, "limit": int(limit)})

    def open_contradictions(self, scope_keys: Sequence[str], *, limit: int) -> list[OpenContradiction]:
        """Contradictions not settled yet inside each scope key (at most `limit` in all), with
        both sides' content."""
        keys = require_scope_keys(scope_keys)
        rows: list[ContradictionRow] = []
        for key in keys:
            if len(rows) >= limit:
                break
            rows += self.run_rows(ContradictionRow, "consolidation_contradictions",
                                  {"scopeKey": key, "limit": int(limit) - len(rows)})
        texts = self.trace_texts([r[side] for r in rows for side in ("a", "b")], keys)
        return [OpenContradiction(**r, aContent=texts.get(r["a"]), bContent=texts.get(r["b"])) for r in rows]

    def forget_expand(self, ids: Sequence[str], scope_keys: Sequence[str],
                      same_memory: Sequence[str]) -> list[ForgetTarget]:
        """The visible traces among `ids`, pinned or not, with the traces that are the same
        memory (SUPERSEDES reasons in `same_memory`): rows {id, pinned, related}."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return self.run_rows(ForgetTarget, "forget_expand", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys,
                                                             "sameMemory": list(same_memory)})

    def hard_delete(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, int]:
        """Delete traces for good, with their archived originals, the observation notes they
        came from, the schemas they belonged to and the entities no trace mentions any more.
        Counts per kind. The traces go last but one, so a run cut short is finished by the next."""
        keys = require_scope_keys(scope_keys)
        counts = {"traces": 0, "archived": 0, "observation_notes": 0, "schemas": 0, "entities": 0}
        for chunk in chunks(list(dict.fromkeys(ids))):
            details = self.run("forget_details", {"ids": chunk, "scopeKeys": keys})
            entity_keys = sorted({k for r in details for k in r["entityKeys"]})
            schema_ids = sorted({s for r in details for s in r["schemaIds"]})
            params = {"ids": chunk, "scopeKeys": keys}
            counts["archived"] += self.run("forget_archived", params, write=True)[0]["deleted"]
            counts["observation_notes"] += self.run("forget_notes", params, write=True)[0]["deleted"]
            if schema_ids:
                counts["schemas"] += self.run("forget_schemas", {"schemaIds": schema_ids, "scopeKeys": keys},
                                              write=True)[0]["deleted"]
            counts["traces"] += self.run("forget_traces", params, write=True)[0]["deleted"]
            if entity_keys:
                counts["entities"] += self.run("forget_orphan_entities", {"keys": entity_keys},
                                               write=True)[0]["deleted"]
        return counts

    def user_scope_keys(self, user_key: str, thread_prefix: str) -> list[str]:
        """The scope keys in use of one user: the user scope and the threads under it."""
        return [r["key"] for r in self.run("erase_scope_keys", {"userKey": user_key, "threadPrefix": thread_prefix})]

    def user_keys_in_organizations(self, user_suffix: str, thread_part: str) -> list[str]:
        """Scope keys in use that may be one user id's under some organization: user keys ending
        in `user_suffix`, thread keys holding `thread_part`; the caller checks which really are."""
        return [r["key"] for r in self.run("erase_user_keys_in_organizations",
                                           {"userSuffix": user_suffix, "threadPart": thread_part})]

    def trace_ids_in_scopes(self, scope_keys: Sequence[str], limit: int) -> list[str]:
        keys = require_scope_keys(scope_keys)
        return [r["id"] for r in self.run("erase_scope_page", {"scopeKeys": keys, "limit": limit})]

    def delete_scope_leftovers(self, scope_keys: Sequence[str]) -> int:
        """Reminders, notes, buffered turns, archived originals, schemas and consolidation state of these scopes."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("erase_scope_leftovers", {"scopeKeys": keys}, write=True)
        return sum(int(n) for n in rows[0]["deleted"]) if rows else 0

    def authored_elsewhere(self, author: str, user_scope_keys: Sequence[str], limit: int) -> list[tuple[str, str]]:
        """Traces `author` wrote outside their own scopes: (id, scope key)."""
        rows = self.run("erase_authored_page", {"author": author, "userScopeKeys": list(user_scope_keys),
                                                "limit": limit})
        return [(r["id"], r["scopeKey"]) for r in rows]

    def remove_author(self, ids: Sequence[str], author: str) -> int:
        if not ids:
            return 0
        return int(self.run("erase_remove_author", {"ids": list(ids), "author": author}, write=True)[0]["updated"])

