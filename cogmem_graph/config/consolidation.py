"""Consolidation configuration: the background "sleep" that maintains the graph.

Reference values: runs every hour, at most 500 traces per cycle; near-duplicates
merged above cosine 0.92; replay links the last 24 hours; schema clusters need at
least 5 members, at most 5 new schemas per cycle; contradictions resolved "newer
wins" when honesty exceeds 0.6, otherwise the more confident side wins only if it
leads by more than 0.2; compaction turns episodic traces older than 7 days with at
least 3 retrievals into semantic ones; archived verbatim content is kept 365 days
after its last use.

The prune threshold (0.05) and the emotional protection above intensity 0.3
are decay facts and live in `DecayConfig` (`pruning_threshold`,
`emotional_protection_intensity`); replay edge weights live in `EdgeDefaults`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR
from cogmem_graph.config.graph import _Config

ClusterAlgorithm = Literal["auto", "louvain", "leiden", "label_propagation", "cypher"]


class ConsolidationConfig(_Config):
    """Every number the consolidation pipeline uses (besides decay and edge weights)."""

    enabled: bool = Field(True, description="run consolidation periodically in the background")
    interval_ms: int = Field(MS_PER_HOUR, gt=0, description="period of the background run")
    max_traces_per_cycle: int = Field(500, ge=1, le=1_000_000, description="traces examined per step at most")

    # merge
    merge_similarity_threshold: float = Field(
        0.92, gt=0.0, le=1.0, description="cosine at or above which two traces are near-duplicates and merged"
    )

    # replay
    replay_window_ms: int = Field(
        24 * MS_PER_HOUR, gt=0,
        description="traces recorded this recently are replayed into SHARED_ENTITY/TEMPORAL_SEQUENCE edges",
    )

    # schema integration
    cluster_algorithm: ClusterAlgorithm = Field(
        "auto",
        description="auto: GDS on Neo4j when present, label propagation on FalkorDB, a Cypher fallback elsewhere",
    )
    min_cluster_size: int = Field(5, ge=2, le=100_000, description="smallest cluster that becomes a Schema")
    max_schemas_per_cycle: int = Field(5, ge=0, le=10_000, description="new schemas summarised per run at most")
    cluster_max_iterations: int = Field(10, ge=1, le=1000, description="label propagation rounds at most")
    schema_summary_members: int = Field(
        30, ge=1, le=10_000, description="members shown to the LLM (or scanned by the extractive summary) per schema"
    )
    merge_neighbours: int = Field(5, ge=1, le=1000, description="Qdrant neighbours examined per merge candidate")

    # contradiction resolution
    contradiction_honesty_threshold: float = Field(
        0.6, ge=0.0, le=1.0, description="agent honesty above this: the newer side of a contradiction wins"
    )
    contradiction_confidence_gap: float = Field(
        0.2, ge=0.0, le=1.0, description="otherwise the more confident side wins only if it leads by more than this"
    )

    # spaced-repetition reinforcement of due traces
    max_reinforced_per_cycle: int = Field(500, ge=0, le=1_000_000)

    # compaction: episodic -> semantic
    compaction_min_age_ms: int = Field(
        7 * MS_PER_DAY, ge=0, description="episodic traces older than this may become semantic"
    )
    compaction_min_retrievals: int = Field(3, ge=0, description="... if retrieved at least this many times")

    # mechanisms (temporal gist, source-confidence decay, emotion regulation)
    run_mechanisms: bool = Field(True, description="apply the consolidation-time mechanisms each run")

    # archive retention
    archive_retention_ms: int = Field(
        365 * MS_PER_DAY, gt=0,
        description="archived verbatim content older than this since archival or last rehydration is dropped",
    )

    # concurrency
    lock_timeout_ms: int = Field(
        0, ge=0, description="how long a second run waits for the running one; 0 = skip at once"
    )
