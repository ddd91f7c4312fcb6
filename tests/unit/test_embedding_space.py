"""The library's one cosine, by hand and against the plain sum it is defined as."""

from __future__ import annotations

import math
import random

import pytest

from cogmem_graph.cognition.embedding_space import cosine


def test_cosine_by_hand() -> None:
    assert cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(1 / math.sqrt(2))  # 0.7071
    assert cosine([3.0, 4.0], [4.0, 3.0]) == pytest.approx(24 / 25)
    assert cosine([1.0, 0.0], [-1.0, 0.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    assert cosine([], []) == 0.0
    assert cosine([1.0, 0.0], [1.0, 0.0, 0.0]) == 0.0, "different spaces never match"


def test_cosine_is_the_plain_sum_in_order_to_the_last_bit() -> None:
    rng = random.Random(7)
    for dim in (1, 3, 384, 1536):
        a = [rng.uniform(-1, 1) for _ in range(dim)]
        b = [rng.uniform(-1, 1) for _ in range(dim)]
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
        assert cosine(a, b) == dot / norm
