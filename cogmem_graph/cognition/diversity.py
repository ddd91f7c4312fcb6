"""Maximal marginal relevance (Carbonell & Goldstein 1998; the second reference's final
re-rank, λ = 0.7): pick, one at a time, the candidate with the best
λ·relevance − (1 − λ)·(its highest similarity to what is already picked), so the top k
are not several wordings of one fact. Similarity is the cosine of the texts' stemmed
word counts (the reference's text-based proxy), so no vectors are read for it.

Pure functions; no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.text import stem, word_tokens


def term_vector(text: str) -> Counter[str]:
    """Stemmed word counts of a text, stopwords left out."""
    return Counter(stem(word) for word in word_tokens(text))


def text_cosine(a: Counter[str], b: Counter[str]) -> float:
    """Cosine of two term vectors, 0 when either is empty."""
    if not a or not b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    dot = sum(count * b[term] for term, count in a.items() if term in b)
    if dot == 0:
        return 0.0
    return dot / (math.sqrt(sum(c * c for c in a.values())) * math.sqrt(sum(c * c for c in b.values())))


def maximal_marginal_relevance(relevance: Sequence[float], texts: Sequence[str], k: int,
                               lam: float = 0.7) -> list[int]:
    """Indices of the `k` candidates MMR picks, in the order picked. `relevance` is divided
    by its maximum so both terms share the [0, 1] scale; λ = 1 keeps the relevance order."""
    if len(relevance) != len(texts):
        raise InvalidArgument("relevance and texts must have one entry per candidate", argument="texts")
    if not 0.0 <= lam <= 1.0:
        raise InvalidArgument(f"lam must be in [0, 1], got {lam!r}", argument="lam")
    if k < 0:
        raise InvalidArgument(f"k must be >= 0, got {k!r}", argument="k")
    n = len(relevance)
    top = max(relevance, default=0.0)
    scale = top if top > 0 else 1.0
    rel = [r / scale for r in relevance]
    vectors = [term_vector(t) for t in texts]
    closest = [0.0] * n
    picked: list[int] = []
    left = set(range(n))
    while left and len(picked) < k:
        best = max(left, key=lambda i: (lam * rel[i] - (1.0 - lam) * closest[i], -i))
        picked.append(best)
        left.discard(best)
        for i in left:
            closest[i] = max(closest[i], text_cosine(vectors[i], vectors[best]))
    return picked
