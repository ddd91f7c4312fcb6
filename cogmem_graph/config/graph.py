"""Graph-layer configuration: where the graph lives and how association behaves in it.

Defaults are the reference values: activation depth 3, decay 0.5 per hop,
threshold 0.1, at most 20 activated traces; Hebbian learning rate 0.1; edge
weights SHARED_ENTITY 0.5, TEMPORAL_SEQUENCE 0.3 (within 5 minutes),
SCHEMA_INSTANCE 0.6.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from cogmem_graph.clock import MS_PER_MINUTE
from cogmem_graph.redact import redact_url

# URL schemes of an external FalkorDB; the TLS ones connect over TLS (a managed Redis/FalkorDB).
FALKOR_SCHEMES = frozenset({"falkor", "falkordb", "redis", "falkors", "rediss"})
FALKOR_TLS_SCHEMES = frozenset({"falkors", "rediss"})


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_assignment=True)


class ActivationConfig(_Config):
    """Spreading activation (ACT-R style) over the associative edges."""

    max_depth: int = Field(3, ge=1, le=5, description="maximum hops from the seed traces")
    decay_per_hop: float = Field(0.5, gt=0.0, le=1.0, description="activation multiplier per hop")
    threshold: float = Field(0.1, ge=0.0, le=1.0, description="paths weaker than this stop spreading")
    max_results: int = Field(
        50, ge=1, le=1000,
        description="activated traces returned at most (the reference says 20; 50 measured better on LoCoMo dev "
        "data, R@10 0.678 -> 0.687, because a retrieval pool is wider than one answer)",
    )
    max_seeds: int = Field(5, ge=1, le=100, description="top retrieval hits used as seeds")


class EdgeDefaults(_Config):
    """Default weights of derived edges and the rules that derive them."""

    shared_entity_weight: float = Field(0.5, ge=0.0, le=1.0)
    temporal_sequence_weight: float = Field(0.3, ge=0.0, le=1.0)
    structural_weight_ceiling: float = Field(
        0.5, ge=0.0, le=1.0,
        description="no SHARED_ENTITY or TEMPORAL_SEQUENCE edge weighs more (merge_edges refuses heavier ones), so "
        "spreading activation skips these two types, most of the graph's edges, on paths too weak for even this "
        "weight to keep above the threshold; never lower it below weights the graph already holds",
    )
    schema_instance_weight: float = Field(0.6, ge=0.0, le=1.0)
    temporal_window_ms: int = Field(
        5 * MS_PER_MINUTE, gt=0, description="TEMPORAL_SEQUENCE links traces this close in time")
    shared_entity_max_links: int = Field(
        10, ge=0, le=1000,
        description="per new trace and entity, link to at most this many most recent traces "
        "(keeps hub entities from making cliques)",
    )
    supersedes_weight: float = Field(
        1.0, ge=0.0, le=1.0, description="SUPERSEDES (merge, contradiction): a certain relation")
    same_topic_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="SAME_TOPIC edges written inside a schema cluster")
    caused_by_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="CAUSED_BY from a turn that says it follows from the one before it")
    same_topic_links: int = Field(
        5, ge=1, le=1000,
        description="each cluster member is linked to this many others (a clique for clusters up to 6)",
    )
    hebbian_learning_rate: float = Field(0.1, gt=0.0, le=1.0, description="eta in w <- w + eta * (1 - w)")
    hebbian_max_co_retrieved: int = Field(
        5, ge=0, le=100,
        description="only the best N of a retrieval are wired together, so a wide retrieval does not make a clique",
    )

    @model_validator(mode="after")
    def _ceiling_covers_structural_weights(self) -> EdgeDefaults:
        for name in ("shared_entity_weight", "temporal_sequence_weight"):
            if getattr(self, name) > self.structural_weight_ceiling:
                raise ValueError(f"{name} ({getattr(self, name)}) is above structural_weight_ceiling "
                                 f"({self.structural_weight_ceiling}); raise the ceiling too")
        return self



class GraphConfig(_Config):
    """Where the graph lives.

    `uri` None means the embedded FalkorDB under the memory home; `falkor://host:port`
    (or `redis://`; `rediss://` / `falkors://` over TLS, the certificate checked against the
    system's CAs or `SSL_CERT_FILE`) an external FalkorDB; `bolt://`, `neo4j://` (and `+s`
    variants) Neo4j.
    """

    def __repr_args__(self):
        for name, value in super().__repr_args__():
            yield name, redact_url(value) if name == "uri" else value

    uri: str | None = None
    graph_name: str = Field("cogmem", min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_\-]+$")
    neo4j_database: str = Field(default_factory=lambda: os.environ.get("NEO4J_DATABASE", "neo4j"))
    neo4j_user: str = Field(
        default_factory=lambda: os.environ.get("NEO4J_USER", os.environ.get("NEO4J_USERNAME", "neo4j")))
    neo4j_password: SecretStr | None = Field(
        default_factory=lambda: SecretStr(os.environ["NEO4J_PASSWORD"]) if os.environ.get("NEO4J_PASSWORD") else None
    )
    gds_concurrency: int = Field(
        1, ge=1, le=64,
        description="threads of each GDS algorithm call on Neo4j (community detection, PageRank): a scope's "
                    "graph is small, and on it GDS's default of 4 costs more than it saves (Louvain on 50 "
                    "traces: 0.08 s with 1 thread, 0.8-1.4 s with 4 on two cores)")
    falkor_password: SecretStr | None = Field(
        default_factory=lambda: (
            SecretStr(os.environ["FALKORDB_PASSWORD"]) if os.environ.get("FALKORDB_PASSWORD") else None)
    )
    appendfsync: Literal["always", "everysec", "no"] = Field(
        "always", description="embedded FalkorDB AOF fsync policy; 'always' never loses an acknowledged write"
    )
    startup_timeout_s: float = Field(
        20.0, gt=0.0, description="embedded FalkorDB: how long to wait for the server to accept connections"
    )
    load_timeout_s: float = Field(
        1800.0, gt=0.0,
        description="embedded FalkorDB: how long to wait while it replays its append-only log on open",
    )
    aof_rewrite_min_mb: int = Field(
        8, ge=1,
        description="embedded FalkorDB: compact the append-only log into a snapshot once it is this large and "
        "has grown by half since the last compaction (and at every clean close), so reopening a home loads a "
        "snapshot instead of replaying every write (replay runs at about the speed the writes were made)",
    )
    query_timeout_ms: int = Field(60_000, gt=0)
    retry_attempts: int = Field(4, ge=1, le=20, description="tries for transient connection faults")
    retry_max_wait_s: float = Field(2.0, ge=0.0)
    activation: ActivationConfig = Field(default_factory=ActivationConfig)
    edges: EdgeDefaults = Field(default_factory=EdgeDefaults)
