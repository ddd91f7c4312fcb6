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
        raise ValueError("relevance and texts must have one entry per candidate")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam!r}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k!r}")
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


def episodes(times: Sequence[int], gap_ms: int) -> list[int]:
    """An episode number for each time: times sorted, a new episode wherever two neighbours
    are more than `gap_ms` apart (a conversation, a sitting). Numbered in time order."""
    if gap_ms < 0:
        raise ValueError(f"gap_ms must be >= 0, got {gap_ms!r}")
    order = sorted(range(len(times)), key=lambda i: times[i])
    out = [0] * len(times)
    episode = 0
    for previous, current in zip([None, *order], order, strict=False):
        if previous is not None and times[current] - times[previous] > gap_ms:
            episode += 1
        out[current] = episode
    return out


def episode_capped(times: Sequence[int], cap: int, window: int, gap_ms: int) -> list[int]:
    """An order of the candidates (given best first, with the times they were told) whose
    first `window` hold at most `cap` from any one episode: a candidate past its episode's
    cap waits, and the waiting ones follow the window in their own order. So the head of the
    list covers several conversations instead of ten remarks of one. The order does not
    depend on how many results are asked for (`window` is fixed), so a short list stays the
    head of a long one."""
    if cap < 1 or window < 1:
        raise ValueError("cap and window must be >= 1")
    episode = episodes(times, gap_ms)
    taken: dict[int, int] = {}
    head: list[int] = []
    waiting: list[int] = []
    for i in range(len(times)):
        if len(head) < window and taken.get(episode[i], 0) < cap:
            head.append(i)
            taken[episode[i]] = taken.get(episode[i], 0) + 1
        else:
            waiting.append(i)
    # Past the window everything keeps its rank order: the head first, then the rest.
    rest = sorted(waiting)
    return head + rest
