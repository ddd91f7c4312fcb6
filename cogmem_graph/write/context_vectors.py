"""Index vectors with conversational context: a reply ("Yes, last Friday!") means little
alone and much with the turn it answers. A new memory said within the TEMPORAL_SEQUENCE
window after another of its conversation is indexed with the normalised mean of its own
vector and the vector of the previous turn followed by it. The previous turn is the one
before it in the batch, or else the graph's latest trace of that conversation.

Only the index vector changes: the write path's near-duplicate, interference and
contradiction checks compare memories by their own vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from cogmem_graph.model import MemoryTrace

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


def previous_turns_later(ctx: MemoryContext, drafts: Sequence[MemoryTrace],
                         unique: Sequence[int]) -> Callable[[], dict[int, str]]:
    """The previous turn's text for each of `unique` (indexes into `drafts`) that has one,
    read from the batch and, for each conversation's first new turn, from the graph (the
    read is sent now and waited for when called)."""
    cfg = ctx.config
    if not cfg.write.context_vectors or not unique:
        return dict
    window = cfg.graph.edges.temporal_window_ms
    by_sequence: dict[str, list[int]] = {}
    for i in unique:
        if drafts[i].sequence_key:
            by_sequence.setdefault(drafts[i].sequence_key, []).append(i)
    found: dict[int, str] = {}
    first: dict[str, int] = {}
    for key, members in by_sequence.items():
        members.sort(key=lambda i: (drafts[i].created_at, i))
        first[key] = members[0]
        for before, i in zip(members, members[1:], strict=False):
            if drafts[before].created_at >= drafts[i].created_at - window:
                found[i] = drafts[before].content
    if not first:
        return lambda: found
    rows = ctx.graph.read_later("sequence_predecessors", {
        "rows": [{"key": key, "at": drafts[i].created_at} for key, i in first.items()],
        "scopeKeys": ctx.visible_scope_keys, "windowMs": window})

    def collect() -> dict[int, str]:
        for row in rows():
            if row["content"]:
                found[first[row["key"]]] = row["content"]
        return found
    return collect


def context_text(previous: str, own: str, max_chars: int) -> str:
    """The previous turn's end, then the memory itself."""
    return (previous[-max_chars:] + "\n" if max_chars and previous else "") + own


def index_vectors(ctx: MemoryContext, drafts: Sequence[MemoryTrace], own: dict[int, list[float]],
                  previous: dict[int, str]) -> dict[int, list[float]]:
    """Each memory's index vector: its own, or with a previous turn the normalised mean of
    its own and that of the two turns together (one embedding call for the batch)."""
    with_context = [i for i in own if i in previous]
    if not with_context:
        return own
    limit = ctx.config.write.context_chars
    joint = ctx.embedder.embed([context_text(previous[i], drafts[i].content, limit) for i in with_context])
    out = dict(own)
    for i, vector in zip(with_context, joint, strict=True):
        mean = np.asarray(own[i], dtype=np.float64) / (np.linalg.norm(own[i]) or 1.0) \
            + np.asarray(vector, dtype=np.float64) / (np.linalg.norm(vector) or 1.0)
        out[i] = (mean / (np.linalg.norm(mean) or 1.0)).tolist()
    return out
