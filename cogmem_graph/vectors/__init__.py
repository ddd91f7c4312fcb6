"""Vector layer: the VectorIndex port and its adapters (Qdrant Edge in process, qdrant-client
for a server, local mode or memory). The qdrant-client adapter is imported when first used."""

from typing import Any

from cogmem_graph.vectors.port import VectorHit, VectorIndex, VectorPoint

__all__ = ["QdrantVectorIndex", "VectorHit", "VectorIndex", "VectorPoint"]


def __getattr__(name: str) -> Any:
    if name == "QdrantVectorIndex":
        from cogmem_graph.vectors.qdrant import QdrantVectorIndex

        return QdrantVectorIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
