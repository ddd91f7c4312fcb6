"""Vector layer: the VectorIndex port and its Qdrant adapter."""

from cogmem_graph.vectors.port import VectorHit, VectorIndex, VectorPoint
from cogmem_graph.vectors.qdrant import QdrantVectorIndex

__all__ = ["QdrantVectorIndex", "VectorHit", "VectorIndex", "VectorPoint"]
