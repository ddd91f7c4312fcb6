"""Names both vector adapters share: the collection of an embedding space, its two vectors
and the point id of a trace (hashed, or the trace id's own UUID). Kept apart from the Qdrant
client adapter so that the embedded index (Qdrant Edge) does not import qdrant-client (about
1.5 s of imports)."""

from __future__ import annotations

import hashlib
import re
import uuid

DENSE = "dense"
SPARSE = "bm25"
SENTENCES = "sentences"
"""A memory's sentences' vectors (a multivector: a search scores a memory by its best sentence)."""
_ID_NAMESPACE = uuid.UUID("6f1c9a52-3b57-4d0e-9a57-2f4c6f0c1e11")


_NAMESPACE_BYTES = _ID_NAMESPACE.bytes


def point_id(trace_id: str) -> str:
    """UUIDv5 of the trace id: re-upserting a trace overwrites its point. What
    `str(uuid.uuid5(...))` gives, spelled out (a point is named once per write and per
    search exclusion; the UUID object cost more than the hash)."""
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + trace_id.encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_MINTED = re.compile(r"mt_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}")
"""A trace id `model.new_trace_id` mints: "mt_" and the hex of a UUIDv4."""


def own_point_id(trace_id: str) -> str:
    """The point id of a trace in an index that names points by their trace: a minted trace id's
    own UUID (version 4), so a search's hits name their traces without reading any payload
    (`trace_id_of_point`); any other id (an imported or hand-made one) its `point_id`
    (version 5: the two kinds never name the same point)."""
    if _MINTED.fullmatch(trace_id):
        h = trace_id[3:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return point_id(trace_id)


def trace_id_of_point(point: uuid.UUID | str) -> str | None:
    """The trace id an `own_point_id` spells; None for a hashed one, whose trace id only its
    payload holds. Every search hit is named here, so the UUID's version (4) and RFC 4122
    variant are read from its bits: a third of the cost of `UUID.version` and `UUID.hex`."""
    n = (point if isinstance(point, uuid.UUID) else uuid.UUID(str(point))).int
    return f"mt_{n:032x}" if (n >> 76) & 0xF == 4 and (n >> 62) & 0x3 == 0b10 else None


def collection_name(prefix: str, model: str, dim: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model).strip("-").lower() or "model"
    return f"{prefix}_{slug}_{dim}"
