"""BM25 as sparse vectors, so lexical search runs in the vector store with the same
scope filter as dense search.

A document's vector holds, per stemmed term, the BM25 term-frequency part
`tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len))`; a query's vector holds 1 per
term. Qdrant multiplies in the inverse document frequency (the IDF modifier of
the sparse vector space), so the dot product is the BM25 score. Measured on the
LoCoMo development data, this ranks far better than the graph engines' built-in
full-text scoring (FalkorDB's RediSearch scorer gave recall@10 ≈ 0.12 where
BM25 gave ≈ 0.63), while keeping lexical search scoped, batched and persistent.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from cogmem_graph.text import query_terms, stem, word_tokens

K1 = 1.2
B = 0.75
AVG_DOC_TOKENS = 16.0
"""Typical length of a memory in content words (chat turns and facts); BM25's
length normalisation needs an average, and a fixed one keeps vectors stable as
the store grows."""


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]

    def __bool__(self) -> bool:
        return bool(self.indices)


@lru_cache(maxsize=65_536)
def term_index(term: str) -> int:
    """Stable 32-bit index of a term (the same in every process and version)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def document_terms(text: str) -> list[str]:
    return [stem(t) for t in word_tokens(text)]


def bm25_document_vector(text: str, *, k1: float = K1, b: float = B, avg_len: float = AVG_DOC_TOKENS) -> SparseVector:
    terms = document_terms(text)
    if not terms:
        return SparseVector([], [])
    norm = k1 * (1.0 - b + b * len(terms) / avg_len)
    weights: dict[int, float] = {}
    for term, tf in Counter(terms).items():
        index = term_index(term)
        weights[index] = weights.get(index, 0.0) + tf * (k1 + 1.0) / (tf + norm)
    indices = sorted(weights)
    return SparseVector(indices, [weights[i] for i in indices])


def bm25_query_vector(text: str) -> SparseVector:
    indices = sorted({term_index(stem(t)) for t in query_terms(text)})
    return SparseVector(indices, [1.0] * len(indices))
