"""The archive: verbatim originals of gisted traces, as `ArchivedTrace` nodes. A scope key list
of None is the owner's view (every scope)."""

from __future__ import annotations

from collections.abc import Sequence

from cogmem_graph.graph.cypher_store.execution import StatementRunner, require_scope_keys
from cogmem_graph.graph.port import GistState
from cogmem_graph.graph.rows import ArchivedProps
from cogmem_graph.model import MemoryTrace


def _keys(scope_keys: Sequence[str] | None) -> list[str] | None:
    return None if scope_keys is None else require_scope_keys(scope_keys)


class ArchiveStatements(StatementRunner):
    """Archived originals: stored, read, rehydrated, pruned."""

    def archive_originals(self, traces: Sequence[MemoryTrace], reason: str, now: int) -> dict[str, str]:
        """Store the verbatim content of `traces` (one statement): trace id -> the content hash
        the graph now holds for it."""
        rows = [
            {"traceId": t.id, "verbatim": t.content, "contentHash": t.content_hash, "reason": reason,
             "scopeKey": t.scope_key, "createdAt": t.created_at, "tags": list(t.tags),
             "entities": list(t.entities), "valence": t.valence, "arousal": t.arousal, "intensity": t.intensity}
            for t in traces
        ]
        result = self.run("archive_store", {"rows": rows, "now": now}, write=True)
        return {r["traceId"]: r["contentHash"] for r in result}

    def archived_original(self, trace_id: str, scope_keys: Sequence[str] | None) -> ArchivedProps | None:
        """The archived node's properties, read without counting as an access."""
        rows = self.run("archive_get", {"traceId": trace_id, "scopeKeys": _keys(scope_keys)})
        archived: ArchivedProps | None = rows[0]["archive"] if rows else None
        return archived

    def rehydrate_original(self, trace_id: str, scope_keys: Sequence[str] | None, *, now: int,
                           log_size: int) -> str | None:
        """The verbatim original, its access logged on the archive (None: nothing archived)."""
        rows = self.run("archive_rehydrate", {"traceId": trace_id, "scopeKeys": _keys(scope_keys), "now": now,
                                              "logSize": log_size}, write=True)
        return rows[0]["verbatim"] if rows else None

    def gist_state(self, trace_id: str, scope_keys: Sequence[str] | None) -> GistState | None:
        """The trace's current content and when it was gisted (None: no such trace)."""
        rows = self.run("archive_trace_state", {"traceId": trace_id, "scopeKeys": _keys(scope_keys)})
        return GistState(rows[0]["content"], rows[0]["gistedAt"]) if rows else None

    def prune_archive(self, scope_keys: Sequence[str] | None, *, cutoff: int, limit: int) -> int:
        """Drop up to `limit` originals neither archived nor rehydrated since `cutoff`; how many."""
        return self.run_count("archive_prune", "pruned", {"scopeKeys": _keys(scope_keys), "cutoff": cutoff,
                                                          "limit": limit}, write=True)
