"""Index vectors with conversational context: a reply ("Yes, last Friday!") means little
alone and much with the turn it answers. A memory said within the TEMPORAL_SEQUENCE window
after another of its conversation, in the same scope, is indexed with the normalised mean of
its own vector and the vector of the previous turn followed by it. The previous turn is the
one before it among the memories being indexed, or else the graph's latest trace of that
conversation. Same scope only: a shared memory's vector never carries a private turn's words.

Only the index vector changes: the write path's near-duplicate, interference and
contradiction checks compare memories by their own vectors. The write path, `repair()` and
import all index this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from cogmem_graph.model import MemoryTrace

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


def previous_turns_later(ctx: MemoryContext, traces: Sequence[MemoryTrace], scope_keys: Sequence[str]
                         ) -> Callable[[], dict[int, str]]:
    """The previous turn's text for each of `traces` (by position) that has one, read from
    `traces` themselves and, for each conversation's first one, from the graph (the read is
    sent now and waited for when called). `scope_keys`: what the caller may read."""
    cfg = ctx.config
    if not cfg.write.context_vectors or not traces:
        return dict
    window = cfg.graph.edges.temporal_window_ms
    by_sequence: dict[tuple[str, str], list[int]] = {}
    for i, t in enumerate(traces):
        if t.sequence_key:
            by_sequence.setdefault((t.sequence_key, t.scope_key), []).append(i)
    found: dict[int, str] = {}
    first: list[int] = []
    for members in by_sequence.values():
        members.sort(key=lambda i: (traces[i].created_at, i))
        first.append(members[0])
        for before, i in zip(members, members[1:], strict=False):
            if traces[before].created_at >= traces[i].created_at - window:
                found[i] = traces[before].content
    if not first:
        return lambda: found
    rows = ctx.graph.read_later("sequence_predecessors", {
        "rows": [{"id": traces[i].id, "key": traces[i].sequence_key, "scopeKey": traces[i].scope_key,
                  "at": traces[i].created_at} for i in first],
        "scopeKeys": list(scope_keys), "windowMs": window})
    position = {traces[i].id: i for i in first}

    def collect() -> dict[int, str]:
        for row in rows():
            if row["content"]:
                found[position[row["id"]]] = row["content"]
        return found
    return collect


def context_text(previous: str, own: str, max_chars: int) -> str:
    """The previous turn's end, then the memory itself."""
    return (previous[-max_chars:] + "\n" if max_chars and previous else "") + own


def index_vectors(ctx: MemoryContext, traces: Sequence[MemoryTrace], own: dict[int, list[float]],
                  previous: dict[int, str]) -> dict[int, list[float]]:
    """Each memory's index vector (by position in `traces`): its own, or with a previous turn
    the normalised mean of its own and that of the two turns together (one embedding call)."""
    with_context = [i for i in own if i in previous]
    if not with_context:
        return own
    limit = ctx.config.write.context_chars
    joint = ctx.embedder.embed([context_text(previous[i], traces[i].content, limit) for i in with_context])
    out = dict(own)
    for i, vector in zip(with_context, joint, strict=True):
        mean = np.asarray(own[i], dtype=np.float64) / (np.linalg.norm(own[i]) or 1.0) \
            + np.asarray(vector, dtype=np.float64) / (np.linalg.norm(vector) or 1.0)
        out[i] = (mean / (np.linalg.norm(mean) or 1.0)).tolist()
    return out


def embed_for_index(ctx: MemoryContext, traces: Sequence[MemoryTrace]) -> list[list[float]]:
    """Index vectors of whole traces already in the graph (repair, import), each in its own
    scope's context."""
    previous = previous_turns_later(ctx, traces, sorted({t.scope_key for t in traces}))
    own = dict(enumerate(ctx.embedder.embed([t.content for t in traces])))
    vectors = index_vectors(ctx, traces, own, previous())
    return [vectors[i] for i in range(len(traces))]
