"""Arithmetic in an embedding space, shared by every layer that compares or averages vectors:
the one cosine of the library (schema congruence, context reminders, community summaries)
and the centroid HyDE searches with.

Pure functions of plain float sequences; no I/O.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from cogmem_graph.errors import InvalidArgument


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """cos(a, b); 0.0 when either vector is zero or empty, or when their dimensions differ
    (vectors of two embedding spaces never match). Summed in order, in Python floats."""
    if len(a) != len(b) or len(a) == 0:
        return 0.0
    dot = sum(map(operator.mul, a, b))
    norm = math.sqrt(sum(map(operator.mul, a, a))) * math.sqrt(sum(map(operator.mul, b, b)))
    return dot / norm if norm > 0.0 else 0.0


def centroid(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The mean of unit-length copies of `vectors`, scaled to unit length: each text
    counts the same whatever its norm."""
    if not vectors:
        raise InvalidArgument("vectors must not be empty", argument="vectors")
    dims = len(vectors[0])
    total = [0.0] * dims
    for vector in vectors:
        norm = sum(x * x for x in vector) ** 0.5 or 1.0
        for i, x in enumerate(vector):
            total[i] += x / norm
    length = sum(x * x for x in total) ** 0.5 or 1.0
    return [x / length for x in total]
