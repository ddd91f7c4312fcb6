"""Traces: written, read by id, listed, indexed, searched by their words, counted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.graph.cypher_store.execution import (
    StatementRunner,
    chunks,
    require_scope_keys,
)
from cogmem_graph.graph.cypher_store.rows import (
    entities_as_mentioned,
    vitals_of,
)
from cogmem_graph.graph.port import (
    VITALS_LEAD_CHARS,
    FulltextSearch,
    GraphStats,
    Later,
    LexicalHit,
    NeighbourState,
    Subgraph,
    TraceVitals,
)
from cogmem_graph.graph.rows import SubgraphEdge
from cogmem_graph.model import MemoryTrace, MemoryType


class TraceStatements(StatementRunner):
    """Whole traces and the parts of them a caller reads."""

    def get_traces_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[MemoryTrace]]:
        """`get_traces`, started now and read when called (`read_later`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return list
        rows = self.read_later("get_traces", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        return lambda: [MemoryTrace.from_graph_props(r["trace"]) for r in rows()]

    def trace_vitals_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Callable[[], list[TraceVitals]]:
        """`trace_vitals`, started now and read when called (`read_later`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return list
        rows = self.read_later("trace_vitals", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys,
                                                "leadChars": VITALS_LEAD_CHARS})
        return lambda: [vitals_of(r) for r in rows()]


    # ------------------------------------------------------------ traces

    def upsert_traces(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> int:
        """Create or update traces: one statement per memory type present (the type label
        is part of the pattern), after moving any trace whose type changed. `fresh`: the
        ids were minted for these traces just now, so none exists yet to be moved."""
        return self.upsert_traces_later(traces, fresh=fresh)()

    def upsert_traces_later(self, traces: Sequence[MemoryTrace], *, fresh: bool = False) -> Callable[[], int]:
        """`upsert_traces` with its last statement left to the engine while the caller goes
        on (`_write_later`); the result confirms it and gives the number written."""
        unique = list({t.id: t for t in traces}.values())
        written: list[Callable[[], list[dict[str, Any]]]] = []
        for chunk in chunks(unique):
            if not fresh:
                self.run("retype_traces", {"rows": [{"id": t.id, "type": t.type.value} for t in chunk]}, write=True)
            by_type: dict[MemoryType, list[dict]] = {}
            for t in chunk:
                by_type.setdefault(t.type, []).append(t.to_graph_props())
            for memory_type, rows in by_type.items():
                text = self.cypher.for_type_label("upsert_traces", memory_type)
                written.append(self._write_later(text, {"rows": rows}, name="upsert_traces"))
        return lambda: sum(rows()[0]["written"] for rows in written)

    def get_traces(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[MemoryTrace]:
        return self.get_traces_later(ids, scope_keys)()

    def trace_texts(self, ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, str]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return {}
        return {r["id"]: r["content"] for r in self.run("trace_texts", {"ids": list(dict.fromkeys(ids)),
                                                                        "scopeKeys": keys})}

    def trace_vitals(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[TraceVitals]:
        """Ranking fields of the active, indexed traces among `ids` (see `TraceVitals`)."""
        return self.trace_vitals_later(ids, scope_keys)()

    def neighbour_states(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[NeighbourState]:
        """Text and decay state of the traces among `ids` inside the visible scope keys,
        active or not (see `NeighbourState`)."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        return [
            NeighbourState(r["id"], r["content"], r["contentHash"] or "", bool(r["isActive"]),
                           float(r["encodingStrength"]), float(r["stability"]), int(r["lastAccessedAt"]))
            for r in self.run("neighbour_states", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        ]

    def list_traces(
        self, scope_keys: Sequence[str], *, include_inactive: bool = False, skip: int = 0, limit: int = 100
    ) -> list[MemoryTrace]:
        keys = require_scope_keys(scope_keys)
        if skip < 0 or limit < 0:
            raise InvalidArgument("skip and limit must be >= 0", argument="skip" if skip < 0 else "limit")
        rows = self.run(
            "list_traces",
            {"scopeKeys": keys, "includeInactive": include_inactive, "skip": skip, "limit": limit},
        )
        return [MemoryTrace.from_graph_props(r["trace"]) for r in rows]

    def soft_delete(self, ids: Sequence[str], scope_keys: Sequence[str], reason: str) -> list[str]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        rows = self.run(
            "soft_delete_traces",
            {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys, "now": self._now(), "reason": reason},
            write=True,
        )
        return [r["id"] for r in rows]

    def set_indexed(self, ids: Sequence[str], indexed: bool = True) -> int:
        updated = 0
        for chunk in chunks(list(dict.fromkeys(ids))):
            updated += self.run("set_indexed", {"ids": chunk, "indexed": indexed}, write=True)[0]["updated"]
        return updated

    def unindexed_traces(self, limit: int = 1000) -> list[MemoryTrace]:
        rows = self.run("unindexed_traces", {"limit": limit})
        return [MemoryTrace.from_graph_props(r["trace"]) for r in rows]

    def indexed_trace_ids(self) -> set[str]:
        """Maintenance: ids of traces marked indexed (repair checks their vectors exist)."""
        return {r["id"] for r in self.run("indexed_trace_ids")}

    def count_searchable_traces(self) -> int:
        """Maintenance: how many traces, all scopes, are active and indexed (what a search
        can return): one count, not a list of ids."""
        return self.run_count("count_searchable_traces", "n")

    def scope_key_counts(self) -> dict[str, int]:
        """Maintenance: active memories per scope key, all scopes, and nothing of their content
        (the owner's census a local command shows when an identity sees nothing)."""
        return {row["scopeKey"]: int(row["n"]) for row in self.run("scope_key_counts")}

    def known_entity_keys(self, keys: Sequence[str], scope_keys: Sequence[str]) -> set[str]:
        """Which of `keys` the active memories of `scope_keys` already mention."""
        if not keys:
            return set()
        return {row["key"] for row in self.run("known_entity_keys", {"keys": list(keys),
                                                                      "scopeKeys": list(scope_keys)})}

    def trace_index_state(self, ids: Sequence[str]) -> dict[str, bool]:
        """Maintenance: id -> isActive for the given ids that exist (repair compares with the vectors)."""
        out: dict[str, bool] = {}
        for chunk in chunks(list(dict.fromkeys(ids))):
            out.update({r["id"]: bool(r["isActive"]) for r in self.run("trace_index_state", {"ids": chunk})})
        return out

    # ------------------------------------------------------------ lexical search

    def fulltext_search(self, text: str, scope_keys: Sequence[str], limit: int = 50, *,
                        every_word_of: Sequence[str] = ()) -> list[LexicalHit]:
        keys = require_scope_keys(scope_keys)
        query = self._fulltext_query(text, every_word_of)
        if query is None or limit <= 0:
            return []
        rows = self.run("fulltext_search", {"query": query, "scopeKeys": keys, "limit": limit})
        return [LexicalHit(r["id"], float(r["score"])) for r in rows]

    def fulltext_search_many(self, searches: Sequence[FulltextSearch], limit: int) -> list[list[LexicalHit]]:
        found: list[list[LexicalHit]] = [[] for _ in searches]
        rows = []
        for i, search in enumerate(searches):
            keys = require_scope_keys(search.scope_keys)
            query = self._fulltext_query(search.text, search.every_word_of)
            if query is not None:
                rows.append({"i": i, "query": query, "scopeKeys": keys})
        if rows and limit > 0:
            for chunk in chunks(rows):
                for r in self.run("fulltext_search_many", {"rows": chunk, "limit": limit}):
                    found[r["i"]].append(LexicalHit(r["id"], float(r["score"])))
        return found

    # ------------------------------------------------------------ inspection

    def subgraph(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Subgraph:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return Subgraph()
        rows = self.run("subgraph", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        if not rows:
            return Subgraph()
        row = rows[0]
        return Subgraph(
            traces=[dict(t) for t in row["traces"] if t],
            entities=entities_as_mentioned([e for e in row["entities"] if e]),
            edges=[SubgraphEdge(src=e["src"], dst=e["dst"], type=e["type"], weight=e["weight"])
                   for e in row["edges"] if e],
        )

    def set_pinned(self, ids: Sequence[str], pinned: bool, scope_keys: Sequence[str]) -> list[str]:
        """Pin or unpin the active traces among `ids` that the caller may see; their ids."""
        keys = require_scope_keys(scope_keys)
        rows = self.run("set_pinned", {"ids": list(ids), "pinned": bool(pinned), "scopeKeys": keys,
                                       "now": self._now()}, write=True)
        return [r["id"] for r in rows]

    def stats(self, scope_keys: Sequence[str] | None = None) -> GraphStats:
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        stats = GraphStats()
        for r in self.run("stats_traces", {"scopeKeys": keys}):
            n = int(r["n"])
            stats.traces_by_type[r["type"]] = stats.traces_by_type.get(r["type"], 0) + n
            if r["active"]:
                stats.active_traces += n
            else:
                stats.inactive_traces += n
            if r["indexed"] is False:
                stats.unindexed_traces += n
            if r["active"] and r.get("dormant"):
                stats.dormant_traces += n
        for r in self.run("stats_edges", {"scopeKeys": keys}):
            stats.edges_by_type[r["type"]] = int(r["n"])
        stats.entities = self.run_count("stats_entities", "n", {"scopeKeys": keys})
        return stats


    def retype_traces(self, ids: Sequence[str], memory_type: MemoryType) -> int:
        """Move traces to another memory type (their second label); how many moved."""
        return self.run_count("retype_traces", "retyped", {"rows": [{"id": i, "type": memory_type.value} for i in ids]},
                              write=True)

    def newer_versions_later(self, ids: Sequence[str], scope_keys: Sequence[str]) -> Later[list[tuple[str, str]]]:
        """(old, new) for each of `ids` that a visible active memory replaces: one that contradicts
        it from a later event time, or superseded it in a resolved contradiction. Sent now."""
        rows = self.read_later("newer_versions", {"ids": list(ids), "scopeKeys": require_scope_keys(scope_keys)})
        return lambda: [(r["old"], r["new"]) for r in rows()]
