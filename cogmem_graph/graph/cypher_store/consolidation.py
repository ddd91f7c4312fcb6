"""Consolidation's statements, one scope key at a time: the decay sweep and its schedule,
near-duplicate merge, replay, reinforcement, compaction, the mechanisms' candidates,
contradictions and schemas. Traces come back as property maps: the consolidator skips one
whose stored properties no longer validate instead of failing the run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogmem_graph.graph.cypher_store.execution import StatementRunner, require_scope_keys
from cogmem_graph.graph.port import (
    AccessUpdate,
    GistRewrite,
    Later,
    NewSchema,
    ReplayCandidate,
    Resolution,
    SchemaCentroid,
)
from cogmem_graph.graph.rows import ConsolidationStateProps, ContradictionRow, SchemaRow, TraceProps


class ConsolidationStatements(StatementRunner):
    """What a consolidation run reads and writes, besides whole traces and edges."""

    # ------------------------------------------------------------ the run and its state

    def scope_keys_with_active_traces(self) -> list[str]:
        return [r["scopeKey"] for r in self.run("consolidation_scope_keys", {}) if r["scopeKey"]]

    def count_active_traces(self, scope_key: str) -> int:
        return self.run_count("consolidation_count_active", "n", {"scopeKey": scope_key})

    def consolidation_state(self, scope_key: str) -> ConsolidationStateProps:
        """What consolidation remembered about `scope_key` at its last run (empty: nothing)."""
        rows = self.run("consolidation_state_get", {"scopeKey": scope_key})
        return dict(rows[0]["state"]) if rows else {}

    def set_consolidation_state(self, scope_key: str, props: dict[str, Any], now: int) -> None:
        self.run("consolidation_state_set", {"scopeKey": scope_key, "props": props, "now": now}, write=True)

    def count_edges_of(self, ids: Sequence[str]) -> int:
        """Edges touching `ids` (the run counts what a step created)."""
        return self.run_count("consolidation_count_edges", "n", {"ids": list(ids)})

    def set_trace_fields(self, props_by_id: Mapping[str, dict[str, Any]], scope_key: str) -> int:
        """Set the given properties of each trace of `scope_key`; how many traces were written."""
        rows = [{"id": i, "props": props} for i, props in props_by_id.items()]
        return len(self.run("consolidation_set_fields", {"rows": rows, "scopeKey": scope_key}, write=True))

    # ------------------------------------------------------------ decay sweep

    def forget_weak_traces(self, scope_key: str, settings: Mapping[str, Any], *, due_only: bool, now: int,
                           limit: int, reason: str, forgetting: str) -> list[str]:
        """Forget (delete or make dormant) up to `limit` traces below the threshold, weakest
        first: those due for the sweep, or every trace. Their ids."""
        rows = self.run("consolidation_prune_due" if due_only else "consolidation_prune", {
            **settings, "scopeKey": scope_key, "now": now, "limit": limit, "reason": reason,
            "forgetting": forgetting}, write=True)
        return [r["id"] for r in rows]

    def make_sweep_due(self, scope_key: str, limit: int) -> int:
        """Make up to `limit` traces due for the sweep; how many."""
        return self.run_count("consolidation_sweep_reset", "reset", {"scopeKey": scope_key, "limit": limit},
                              write=True)

    def schedule_sweep(self, scope_key: str, settings: Mapping[str, Any], *, now: int, limit: int) -> int:
        """Set when up to `limit` traces next fall below the threshold; how many."""
        return self.run_count("consolidation_sweep_schedule", "scheduled",
                              {**settings, "scopeKey": scope_key, "now": now, "limit": limit}, write=True)

    # ------------------------------------------------------------ strength

    def reinforcement_due_traces(self, scope_key: str, *, now: int, limit: int,
                                 retrieved_only: bool) -> list[TraceProps]:
        rows = self.run("consolidation_due_traces", {"scopeKey": scope_key, "now": now, "limit": limit,
                                                     "retrievedOnly": retrieved_only})
        return [r["trace"] for r in rows]

    def reinforce_traces(self, updates: Sequence[AccessUpdate], scope_key: str, now: int) -> int:
        rows = [{"id": u.trace_id, "encodingStrength": u.encoding_strength, "stability": u.stability,
                 "lastAccessedAt": u.last_accessed_at, "reinforcementInterval": u.reinforcement_interval,
                 "nextReinforcementAt": u.next_reinforcement_at} for u in updates]
        return len(self.run("consolidation_reinforce", {"rows": rows, "scopeKey": scope_key, "now": now},
                            write=True))

    def compaction_candidates(self, scope_key: str, *, before: int, min_retrievals: int, limit: int) -> list[str]:
        return [r["id"] for r in self.run("consolidation_compaction_candidates", {
            "scopeKey": scope_key, "before": before, "minRetrievals": min_retrievals, "limit": limit})]

    # ------------------------------------------------------------ merge and replay

    def duplicate_content_groups(self, scope_key: str, limit: int) -> list[list[str]]:
        """Ids of traces sharing a content hash, one list per hash."""
        return [list(r["ids"]) for r in self.run("consolidation_duplicate_hashes",
                                                 {"scopeKey": scope_key, "limit": limit})]

    def claim_merge_due(self, scope_key: str) -> int:
        """Claim the traces due for the exact-duplicate check as this run's; how many."""
        return self.run_count("consolidation_merge_due_claim", "claimed", {"scopeKey": scope_key}, write=True)

    def forget_merge_due(self, scope_key: str) -> int:
        """Nothing is due for the exact-duplicate check any more (a full check follows); how many were."""
        return self.run_count("consolidation_merge_due_forget", "forgotten", {"scopeKey": scope_key}, write=True)

    def due_duplicate_groups(self, scope_key: str, limit: int) -> list[list[str]]:
        """`duplicate_content_groups`, only the groups holding a claimed trace."""
        return [list(r["ids"]) for r in self.run("consolidation_duplicate_hashes_due",
                                                 {"scopeKey": scope_key, "limit": limit})]

    def duplicate_groups_of(self, ids: Sequence[str], scope_key: str) -> list[list[str]]:
        """The exact-duplicate groups the given traces belong to (two members or more)."""
        if not ids:
            return []
        return [list(r["ids"]) for r in self.run("consolidation_duplicate_hashes_of",
                                                 {"ids": list(ids), "scopeKey": scope_key})]

    def clear_merge_due(self, scope_key: str) -> int:
        """The claimed traces are checked; how many."""
        return self.run_count("consolidation_merge_due_clear", "cleared", {"scopeKey": scope_key}, write=True)

    def mark_merge_due(self, ids: Sequence[str], scope_key: str) -> None:
        """Make these traces due for the exact-duplicate check again."""
        if ids:
            self.run("consolidation_merge_due_mark", {"ids": list(ids), "scopeKey": scope_key}, write=True)

    def merge_candidates(self, scope_key: str, limit: int) -> list[tuple[str, str]]:
        """(id, content) of the traces not yet compared with their neighbours."""
        return [(r["id"], r["content"]) for r in self.run("consolidation_merge_candidates",
                                                          {"scopeKey": scope_key, "limit": limit})]

    def merge_duplicates(self, groups: Sequence[tuple[str, Sequence[str]]], scope_key: str, *, now: int,
                         reason: str, weight: float) -> list[str]:
        """Each (survivor, losers): the survivor SUPERSEDES its losers. The losers merged."""
        rows = [{"survivor": s, "losers": list(losers)} for s, losers in groups]
        merged = self.run("consolidation_merge", {"rows": rows, "scopeKey": scope_key, "now": now,
                                                  "reason": reason, "weight": weight}, write=True)
        return [r["loser"] for r in merged]

    def mark_consolidated(self, ids: Sequence[str], scope_key: str, now: int) -> None:
        self.run("consolidation_mark_consolidated", {"ids": list(ids), "scopeKey": scope_key, "now": now},
                 write=True)

    def replay_candidates(self, scope_key: str, *, since: int, limit: int) -> list[ReplayCandidate]:
        rows = self.run("consolidation_recent_traces", {"scopeKey": scope_key, "since": since, "limit": limit})
        return [ReplayCandidate(r["id"], bool(r["unchained"]), bool(r["unlinked"])) for r in rows]

    # ------------------------------------------------------------ mechanisms

    def gist_candidates(self, scope_key: str, *, types: Sequence[str], before: int, max_retrievals: int,
                        immune_strength: float, limit: int) -> list[TraceProps]:
        return [r["trace"] for r in self.run("consolidation_gist_candidates", {
            "scopeKey": scope_key, "types": list(types), "before": before, "maxRetrievals": max_retrievals,
            "immuneStrength": immune_strength, "limit": limit})]

    def apply_gists(self, rewrites: Sequence[GistRewrite], scope_key: str) -> set[str]:
        """Apply each rewrite whose trace still has its expected content; the ids applied."""
        rows = [{"id": r.trace_id, "expectedHash": r.expected_hash, "props": r.props} for r in rewrites]
        return {r["id"] for r in self.run("consolidation_apply_gist", {"rows": rows, "scopeKey": scope_key},
                                          write=True)}

    def confidence_candidates(self, scope_key: str, *, before: int, limit: int) -> list[TraceProps]:
        return [r["trace"] for r in self.run("consolidation_confidence_candidates", {
            "scopeKey": scope_key, "before": before, "limit": limit})]

    def confidence_candidates_upto(self, scope_key: str, *, upto: int,
                                   limit: int) -> list[tuple[TraceProps, int]]:
        """`confidence_candidates` among the traces whose clock is at most `upto`: (trace, clock)."""
        return [(r["trace"], int(r["clock"])) for r in self.run("consolidation_confidence_candidates_upto", {
            "scopeKey": scope_key, "upto": upto, "limit": limit})]

    def count_confidence_clocks_upto(self, scope_key: str, *, upto: int) -> int:
        """How many active traces have a confidence clock at most `upto`."""
        return self.run_count("consolidation_confidence_count_upto", "n", {"scopeKey": scope_key, "upto": upto})

    def repair_confidence_clocks(self, scope_key: str, limit: int) -> int:
        """Set the confidence clock of up to `limit` traces lacking it or holding a stale one; how many."""
        return self.run_count("consolidation_confidence_clock_reset", "reset", {"scopeKey": scope_key, "limit": limit},
                              write=True)

    def regulation_candidates(self, scope_key: str, *, arousal_threshold: float, immune_strength: float,
                              limit: int) -> list[TraceProps]:
        return [r["trace"] for r in self.run("consolidation_regulation_candidates", {
            "scopeKey": scope_key, "arousalThreshold": arousal_threshold, "immuneStrength": immune_strength,
            "limit": limit})]

    # ------------------------------------------------------------ contradictions

    def unresolved_contradictions(self, scope_key: str, limit: int) -> list[ContradictionRow]:
        """CONTRADICTS pairs of `scope_key` not settled yet: rows {a, b, and each side's
        confidence, times, agent and pinned flag}."""
        return self.run_rows(ContradictionRow, "consolidation_contradictions",
                             {"scopeKey": scope_key, "limit": int(limit)})

    def resolve_contradictions(self, resolutions: Sequence[Resolution], scope_key: str, *, now: int, reason: str,
                               weight: float, keep_loser: bool) -> list[str]:
        """Each winner SUPERSEDES its loser (kept dormant, or deactivated; a keyed loser is only
        linked and stays current); the losers replaced."""
        rows = [{"winner": r.winner, "loser": r.loser} for r in resolutions]
        out = self.run("resolve_contradictions", {"rows": rows, "scopeKey": scope_key, "now": now,
                                                  "reason": reason, "weight": weight, "keepLoser": keep_loser},
                       write=True)
        return [r["loser"] for r in out if r["replaced"]]

    # ------------------------------------------------------------ schemas

    def create_schemas(self, schemas: Sequence[NewSchema], scope_key: str, *, now: int, weight: float) -> int:
        rows = [{"id": s.id, "summary": s.summary, "size": s.size, "algorithm": s.algorithm,
                 "members": list(s.members), "centroid": s.centroid, "centroidModel": s.centroid_model}
                for s in schemas]
        return len(self.run("consolidation_create_schemas", {"rows": rows, "scopeKey": scope_key, "now": now,
                                                             "weight": weight}, write=True))

    def list_schemas(self, scope_keys: Sequence[str]) -> list[SchemaRow]:
        """The schemas of `scope_keys`: id, summary, scopeKey, size, algorithm, member ids and
        the SCHEMA_INSTANCE weight."""
        return self.run_rows(SchemaRow, "consolidation_list_schemas", {"scopeKeys": require_scope_keys(scope_keys)})

    def schema_centroids_later(self, scope_keys: Sequence[str], model: str, limit: int) -> Later[list[SchemaCentroid]]:
        """The newest `limit` schema centroids made by embedder `model`. Sent now."""
        rows = self.read_later("centroids_of_schemas", {"scopeKeys": require_scope_keys(scope_keys), "model": model,
                                                        "limit": limit})
        return lambda: [SchemaCentroid(r["id"], r["scopeKey"], r["centroid"]) for r in rows()]
