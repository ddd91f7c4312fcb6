"""Vector-store configuration: where Qdrant lives and how collections are named."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field, SecretStr

from cogmem_graph.config.graph import _Config
from cogmem_graph.redact import redact_url


class VectorConfig(_Config):
    """`url` None means the embedded index in a folder under the memory home (`embedded`:
    Qdrant Edge, the default, or qdrant-client's local mode); `":memory:"` an in-process
    throwaway index (tests); `http(s)://host:6333` a server."""

    url: str | None = None
    embedded: Literal["edge", "local"] = Field(
        "edge", description="engine of the embedded index (url None): 'edge' runs Qdrant's engine in process "
        "(filtered top-50 over 10k points in about a millisecond); 'local' is qdrant-client's local mode, "
        "which scores and filters in Python (hundreds of milliseconds there)")
    api_key: SecretStr | None = Field(
        default_factory=lambda: SecretStr(os.environ["QDRANT_API_KEY"]) if os.environ.get("QDRANT_API_KEY") else None
    )
    collection_prefix: str = Field("cogmem", min_length=1, max_length=60, pattern=r"^[A-Za-z0-9_\-]+$")
    timeout_s: float = Field(10.0, gt=0.0, le=600.0)
    retry_attempts: int = Field(4, ge=1, le=20, description="attempts for transient faults (connection, 429, 5xx)")
    def __repr_args__(self):
        for name, value in super().__repr_args__():
            yield name, redact_url(value) if name == "url" else value

    upsert_batch: int = Field(256, ge=1, le=10_000)
    edge_search_graph_kb: int = Field(
        10_000, ge=0, le=10_000_000,
        description="an embedded Qdrant Edge segment of at least this many KB (a 384-dimension memory takes 2-4 "
        "KB) gets its search graph (HNSW) built by `consolidate()`, so searches stop scanning it point by point; "
        "building holds the interpreter lock, about 2 s per 10,000 new memories. 0: never build (every search "
        "scans)")
    edge_quantization: Literal["none", "int8"] = Field(
        "none", description="'int8': an embedded Qdrant Edge segment with a search graph also keeps the memories' "
        "vectors as int8 (a quarter of their float32 size) in RAM, and their originals on disk, read only to "
        "rescore a search's best candidates; for stores whose vectors outgrow the page cache. Applied as "
        "`consolidate()` builds search graphs")
    edge_partitions: int = Field(
        8, ge=1, le=256, description="shards of an embedded Qdrant Edge index, fixed when its folder is made: "
        "each user's memories (user and thread scopes) sit in one of them, so compacting after a forget or an "
        "erase rebuilds only the shards that lost points; searches ask the shards of the visible scopes")
