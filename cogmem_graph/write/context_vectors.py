"""Index vectors with conversational context: a reply ("Yes, last Friday!") means little
alone and much with the turn it answers. A memory said within the TEMPORAL_SEQUENCE window
after another of its conversation, in the same scope, is indexed with its own vector plus a
share (`write.context_weight`) of the previous turn's index vector, which carries its own
predecessor in turn: a chain in which a turn n steps back counts with weight^n. A memory that
carries a fact of its own takes a smaller share (`write.fact_context_weight`): it is asked
about by what it states, and the talk before it would drown a fact said in passing. The
previous turn is the one before it among the memories being indexed, or else the graph's
latest trace of that conversation, whose vector the index already holds. So indexing costs
one embedding per memory. Same scope only: a shared memory's vector never carries a
private turn's words.

Only the index vector changes: the write path's near-duplicate, interference and
contradiction checks compare memories by their own vectors. The write path, `repair()` and
import all index this way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cogmem_graph.graph.port import SequenceStart
from cogmem_graph.model import MemoryTrace
from cogmem_graph.write.embedding import embed_memories

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """A previous turn already in the graph: its id finds its index vector; its text is
    embedded in its place only when the index has lost that vector."""

    id: str
    content: str


Previous = dict[int, int | StoredTurn]
"""Position in the traces being indexed -> the previous turn: another position, or a stored turn."""


def previous_turns_later(ctx: MemoryContext, traces: Sequence[MemoryTrace], scope_keys: Sequence[str]
                         ) -> Callable[[], Previous]:
    """The previous turn of each of `traces` (by position) that has one, found among `traces`
    themselves and, for each conversation's first one, in the graph (the read is sent now and
    waited for when called). `scope_keys`: what the caller may read."""
    cfg = ctx.config
    found: Previous = {}
    if not cfg.write.context_vectors or not traces:
        return lambda: found
    window = cfg.graph.edges.temporal_window_ms
    by_sequence: dict[tuple[str, str], list[int]] = {}
    for i, t in enumerate(traces):
        if t.sequence_key:
            by_sequence.setdefault((t.sequence_key, t.scope_key), []).append(i)
    first: list[int] = []
    for members in by_sequence.values():
        members.sort(key=lambda i: (traces[i].created_at, i))
        first.append(members[0])
        for before, i in zip(members, members[1:], strict=False):
            if traces[before].created_at >= traces[i].created_at - window:
                found[i] = before
    if not first:
        return lambda: found
    predecessors = ctx.graph.sequence_predecessors_later(
        [SequenceStart(traces[i].id, traces[i].sequence_key or "", traces[i].scope_key, traces[i].created_at)
         for i in first], scope_keys, window)
    position = {traces[i].id: i for i in first}

    def collect() -> Previous:
        for trace_id, (previous_id, content) in predecessors().items():
            found[position[trace_id]] = StoredTurn(previous_id, content)
        return found
    return collect


def _unit(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    return array / (np.linalg.norm(array) or 1.0)


def _stored_vectors(ctx: MemoryContext, traces: Sequence[MemoryTrace], stored: Mapping[int, StoredTurn]
                    ) -> dict[int, np.ndarray]:
    """The index vector of each stored previous turn (by the position of the turn after it);
    a vector the index lost is stood in for by the turn's own, embedded now."""
    if not stored:
        return {}
    keys = sorted({traces[i].scope_key for i in stored})
    vectors = ctx.vectors.dense_vectors(sorted({turn.id for turn in stored.values()}), keys)
    lost = {turn.id: turn.content for turn in stored.values() if turn.id not in vectors}
    if lost:
        vectors.update(zip(lost, ctx.embedder.embed(list(lost.values())), strict=True))
    return {i: _unit(vectors[turn.id]) for i, turn in stored.items()}


def index_vectors(ctx: MemoryContext, traces: Sequence[MemoryTrace], own: Mapping[int, list[float]],
                  previous: Previous, stating: Collection[int] = ()) -> dict[int, list[float]]:
    """Each memory's index vector (by position in `traces`): its own, or after a previous
    turn the normalised sum of its own and `write.context_weight` x the previous turn's index
    vector, or `write.fact_context_weight` x it for a memory that carries a fact of its own
    (`stating`: "Long day. Oh, my gym locker is number 38." is asked about by its fact, not by
    the talk before it). No embedding call unless the index lost a stored turn's vector."""
    out = dict(own)
    if not previous:
        return out
    weight, fact_weight = ctx.config.write.context_weight, ctx.config.write.fact_context_weight
    stored = _stored_vectors(ctx, traces, {i: p for i, p in previous.items()
                                           if isinstance(p, StoredTurn) and i in own})
    indexed: dict[int, np.ndarray] = {}
    # A previous turn among `traces` comes earlier in this order, so its index vector is ready.
    for i in sorted(own, key=lambda i: (traces[i].created_at, i)):
        before = previous.get(i)
        context = indexed.get(before) if isinstance(before, int) else stored.get(i)
        share = fact_weight if i in stating else weight
        indexed[i] = _unit(own[i]) if context is None else _unit(_unit(own[i]) + share * context)
        if context is not None:
            out[i] = indexed[i].tolist()
    return out


def embed_for_index(ctx: MemoryContext, traces: Sequence[MemoryTrace]
                    ) -> tuple[list[list[float]], list[list[list[float]]] | None]:
    """Index vectors of whole traces already in the graph (repair, import), each in its own
    scope's context, and their sentences' vectors (None when the embedder gives none)."""
    previous = previous_turns_later(ctx, traces, sorted({t.scope_key for t in traces}))
    embedded = embed_memories(ctx, [t.content for t in traces], [t.category for t in traces])
    vectors = index_vectors(ctx, traces, dict(enumerate(embedded.vectors)), previous(), embedded.stating)
    return [vectors[i] for i in range(len(traces))], embedded.sentences
