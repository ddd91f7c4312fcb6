"""The memory archive: cold storage of verbatim originals, in the graph.

Temporal gist replaces an old trace's wording by its gist. Before it does, the
verbatim original is written here as an `ArchivedTrace` node {traceId,
verbatim, contentHash, reason, archivedAt, lastAccessAt} with the trace's
emotional context, tags and entities — write-ahead: if this write fails or
cannot be verified, the gist is not applied.

`rehydrate(trace_id)` gives the original back without strengthening the trace
(remembering the exact words of a gisted memory is reading the archive, not
rehearsing the memory); only the archive's access log moves. The retention
sweep drops originals neither archived nor rehydrated within the retention
period, so what the agent keeps re-reading stays whatever its age.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cogmem_graph.clock import Clock
from cogmem_graph.errors import ArchiveError as ArchiveError  # re-exported: its old home
from cogmem_graph.errors import ArchiveNotFound, ArchiveWriteError, InvalidArgument
from cogmem_graph.graph.cypher_store.graph_store import require_scope_keys
from cogmem_graph.graph.port import GraphStore
from cogmem_graph.model import MAX_ID_CHARS, MemoryTrace, check_text

ACCESS_LOG_SIZE = 20
"""Most recent rehydration times kept on an archived trace."""
PRUNE_BATCH = 1_000


@dataclass(frozen=True)
class ArchivedTrace:
    trace_id: str
    verbatim: str
    content_hash: str
    reason: str
    archived_at: int
    last_access_at: int
    scope_key: str = ""
    access_count: int = 0
    access_log: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_props(cls, props: dict[str, Any]) -> ArchivedTrace:
        p = dict(props)
        return cls(
            trace_id=p.pop("traceId"), verbatim=p.pop("verbatim"), content_hash=p.pop("contentHash", ""),
            reason=p.pop("reason", ""), archived_at=int(p.pop("archivedAt", 0)),
            last_access_at=int(p.pop("lastAccessAt", 0) or 0), scope_key=p.pop("scopeKey", "") or "",
            access_count=int(p.pop("accessCount", 0) or 0), access_log=tuple(p.pop("accessLog", None) or ()),
            tags=tuple(p.pop("tags", None) or ()), entities=tuple(p.pop("entities", None) or ()), extra=p,
        )


def _trace_id(trace_id: str) -> str:
    if not isinstance(trace_id, str):
        raise InvalidArgument("trace_id must be a string", argument="trace_id")
    return check_text(trace_id, "trace_id", allow_empty=False, max_len=MAX_ID_CHARS)


def _keys(scope_keys: Sequence[str] | None) -> list[str] | None:
    return None if scope_keys is None else require_scope_keys(scope_keys)


class MemoryArchive:
    """Archived originals in the same graph as the traces they belong to."""

    def __init__(self, graph: GraphStore, clock: Clock) -> None:
        self.graph = graph
        self.clock = clock

    def store(self, traces: Sequence[MemoryTrace], reason: str) -> list[str]:
        """Archive the verbatim content of `traces` (one statement) and verify what the graph
        holds afterwards. Returns the archived trace ids; raises `ArchiveWriteError` unless
        every trace was stored with its content hash."""
        if not traces:
            return []
        check_text(reason, "reason", allow_empty=False, max_len=200)
        unique = list({t.id: t for t in traces}.values())
        try:
            stored = self.graph.archive_originals(unique, reason, self.clock.now_ms())
        except Exception as exc:
            raise ArchiveWriteError(f"archiving {len(unique)} verbatim original(s) failed: {exc}") from exc
        missing = [t.id for t in unique if stored.get(t.id) != t.content_hash]
        if missing:
            raise ArchiveWriteError(f"the archive did not confirm the originals of {missing[:5]}")
        return [t.id for t in unique]

    def get(self, trace_id: str, scope_keys: Sequence[str] | None = None) -> ArchivedTrace | None:
        """The archived original, read without counting as an access."""
        props = self.graph.archived_original(_trace_id(trace_id), _keys(scope_keys))
        return ArchivedTrace.from_props(props) if props is not None else None

    def rehydrate(self, trace_id: str, scope_keys: Sequence[str] | None = None) -> str:
        """The verbatim original of a trace. Logs the access on the archive (which keeps it
        through retention) and leaves the trace's strength alone. A trace that was never
        archived is its own original; a gisted trace whose original is gone, or an unknown
        id, raises `ArchiveNotFound`."""
        tid = _trace_id(trace_id)
        keys = _keys(scope_keys)
        verbatim = self.graph.rehydrate_original(tid, keys, now=self.clock.now_ms(), log_size=ACCESS_LOG_SIZE)
        if verbatim is not None:
            return verbatim
        state = self.graph.gist_state(tid, keys)
        if state is None:
            raise ArchiveNotFound(f"no trace or archived original with id {tid!r}")
        if state.gisted_at is not None:
            raise ArchiveNotFound(
                f"trace {tid!r} was gisted and its archived original is gone (dropped by archive retention)")
        return state.content

    def prune(self, retention_ms: int, scope_keys: Sequence[str] | None = None) -> int:
        """Retention sweep: drop originals neither archived nor rehydrated within `retention_ms`."""
        if isinstance(retention_ms, bool) or not isinstance(retention_ms, int) or retention_ms <= 0:
            raise InvalidArgument(f"retention_ms must be a positive integer, got {retention_ms!r}",
                                  argument="retention_ms")
        cutoff = self.clock.now_ms() - retention_ms
        keys = _keys(scope_keys)
        pruned = 0
        while True:
            n = self.graph.prune_archive(keys, cutoff=cutoff, limit=PRUNE_BATCH)
            pruned += n
            if n < PRUNE_BATCH:
                return pruned
