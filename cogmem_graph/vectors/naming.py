"""Names both vector adapters share: the collection of an embedding space, its two vectors
and the point id of a trace. Kept apart from the Qdrant client adapter so that the embedded
index (Qdrant Edge) does not import qdrant-client (about 1.5 s of imports)."""

from __future__ import annotations

import re
import uuid

DENSE = "dense"
SPARSE = "bm25"
SENTENCES = "sentences"
"""A memory's sentences' vectors (a multivector: a search scores a memory by its best sentence)."""
_ID_NAMESPACE = uuid.UUID("6f1c9a52-3b57-4d0e-9a57-2f4c6f0c1e11")


def point_id(trace_id: str) -> str:
    """UUIDv5 of the trace id: re-upserting a trace overwrites its point."""
    return str(uuid.uuid5(_ID_NAMESPACE, trace_id))


def collection_name(prefix: str, model: str, dim: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-").lower() or "model"
    return f"{prefix}_{slug}_{dim}"
