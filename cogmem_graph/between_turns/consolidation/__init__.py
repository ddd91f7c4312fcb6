"""Consolidation: what happens to memory between turns, run in the database
(docs/architecture.md, "One consolidation run, room by room").

One run, over one or more scope keys (all of them for the store owner), step by
step; each step is a batched named statement (`cypher/consolidation_*.cypher`),
Python only orchestrating and calling the cognitive core's pure functions:

1. decay sweep and prune — strength computed in Cypher, emotional traces kept;
   soft delete in the graph, then deactivation in Qdrant;
2. near-duplicate merge — identical content hash, or Qdrant neighbours at or above
   the merge threshold; the survivor keeps the union of tags, each loser is
   soft-deleted behind SUPERSEDES survivor → loser;
3. replay — SHARED_ENTITY and TEMPORAL_SEQUENCE for the recently recorded traces;
4. schema integration — clusters found in the database (`algo.labelPropagation`
   on FalkorDB, GDS Louvain / Leiden / label propagation on Neo4j, label
   propagation in plain Cypher as the fallback) become `Schema` nodes with
   SCHEMA_INSTANCE edges and SAME_TOPIC edges inside the cluster; summary by the
   LLM when the store has one, extractive otherwise;
5. contradiction resolution over CONTRADICTS — honest agents (honesty above the
   threshold) believe the newer side, others the clearly more confident side;
   the winner SUPERSEDES the soft-deleted loser;
6. spaced-repetition reinforcement of due traces;
7. compaction — old, often-retrieved episodic traces become semantic;
8. mechanisms — temporal gist with a write-ahead archive (the verbatim original
   is archived first; if that fails the gist is not applied), source-confidence
   decay, emotion regulation;
9. archive retention.

Each step is a plain function of the run's `StepContext` (`step_context.py`), in the module
of its step; `steps.STEPS` puts them in this order, and the `Consolidator` runs that list
(no step imports the consolidator).

Scope keys are never crossed: every statement is bound to one scope key, so a
merge or a contradiction only ever involves traces of the same key. A mutex
stops overlapping runs (a second run waits `lock_timeout_ms`, then returns a
result marked `skipped`).
"""

from cogmem_graph.between_turns.consolidation.consolidator import Consolidator
from cogmem_graph.between_turns.consolidation.merge import similar_pairs
from cogmem_graph.between_turns.consolidation.result import ConsolidationResult
from cogmem_graph.between_turns.consolidation.schemas import extractive_summary

__all__ = ["ConsolidationResult", "Consolidator", "extractive_summary", "similar_pairs"]
