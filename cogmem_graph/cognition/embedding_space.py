"""Arithmetic in an embedding space, shared by every layer that compares or averages vectors.

Pure functions of plain float sequences; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence


def centroid(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The mean of unit-length copies of `vectors`, scaled to unit length: each text
    counts the same whatever its norm."""
    if not vectors:
        raise ValueError("vectors must not be empty")
    dims = len(vectors[0])
    total = [0.0] * dims
    for vector in vectors:
        norm = sum(x * x for x in vector) ** 0.5 or 1.0
        for i, x in enumerate(vector):
            total[i] += x / norm
    length = sum(x * x for x in total) ** 0.5 or 1.0
    return [x / length for x in total]
