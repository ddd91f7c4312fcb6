"""Vector layer: the VectorIndex port (`port.py`) and its adapters: Qdrant Edge in process
(`qdrant_edge.py`, the embedded default) and qdrant-client (`qdrant.py`: a server, a local
path or memory), imported when first used. Like every adapter it imports only itself and
modules of the package's root (the config, the errors, `filters.py`, `lexical.py`, ...); never
`cognition/`, `language/` or a layer that uses it (import-linter contracts in pyproject.toml)."""

from typing import Any

from cogmem_graph.vectors.port import VectorHit, VectorIndex, VectorPoint

__all__ = ["QdrantVectorIndex", "VectorHit", "VectorIndex", "VectorPoint"]


def __getattr__(name: str) -> Any:
    if name == "QdrantVectorIndex":
        from cogmem_graph.vectors.qdrant import QdrantVectorIndex

        return QdrantVectorIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
