"""The VectorIndex port: what the memory needs from a vector store.

Vectors are an index over the graph, never the source of truth: every point
carries the trace id, the scope key it may be seen under, the memory type, an
active flag and the event time, so a search can be filtered exactly as a graph
read is (by visible scope keys, active only) without a graph round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import PayloadCondition
from cogmem_graph.lexical import SparseVector


@dataclass(frozen=True, slots=True)
class VectorPoint:
    trace_id: str
    scope_key: str
    type: str
    created_at: int
    dense: list[float]
    sparse: SparseVector | None = None
    active: bool = True
    content_hash: str = ""
    payload: dict = field(default_factory=dict)
    """What filters read besides scope, type and time: tags, source type, validity bounds,
    entity keys, metadata (see `cogmem_graph.filters.payload_conditions`)."""
    sentences: list[list[float]] | None = None
    """A vector per sentence of the memory (`language.sentences`), when its embedder gives them."""


SEARCH_FIELDS = ("trace_id",)
"""The payload a search reads: the trace a hit names. Its callers rank, then read the graph,
the source of truth, for anything else; an index that names points by their traces reads none."""


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A search's hit: the trace it names and its score."""

    trace_id: str
    score: float


def clamp_cosine(score: float) -> float:
    """A cosine similarity as a float in [-1, 1]: float32 arithmetic in the engines can put
    identical vectors at 1.0000000149, which the write path's checks would refuse."""
    return min(1.0, max(-1.0, float(score)))


def visible_keys(scope_keys: Sequence[str]) -> set[str]:
    """The scopes a read (a search, or a read by id) may answer from; none is a programming error."""
    if isinstance(scope_keys, str) or not scope_keys:
        raise InvalidArgument("scope_keys must not be empty: a read without visible scopes sees nothing",
                              argument="scope_keys")
    return set(scope_keys)


TIMED_CALLS = ("upsert", "search_dense", "search_dense_many", "search_sparse", "search_sentences", "set_active",
               "set_payload", "delete", "delete_scopes", "existing_ids", "dense_vectors", "count")
"""The calls of the read and write paths, whose round trips each adapter reports (`telemetry`)."""


class VectorIndex(Protocol):
    """One collection per embedding space; all reads filtered by scope keys."""

    name: str
    dim: int

    def upsert(self, points: Sequence[VectorPoint]) -> int: ...
    def search_dense(
        self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
        score_threshold: float | None = None, exclude_ids: Sequence[str] = (),
        where: Sequence[PayloadCondition] = (),
    ) -> list[VectorHit]: ...
    def search_dense_many(
        self, vectors: Sequence[Sequence[float]], scope_keys: Sequence[Sequence[str]], limit: int, *,
        score_threshold: float | None = None,
    ) -> list[list[VectorHit]]: ...
    def search_sparse(self, vector: SparseVector, scope_keys: Sequence[str], limit: int, *,
                      where: Sequence[PayloadCondition] = ()) -> list[VectorHit]: ...
    def search_sentences(self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
                         where: Sequence[PayloadCondition] = ()) -> list[VectorHit]: ...
    def set_active(self, trace_ids: Sequence[str], active: bool) -> None: ...
    def set_payload(self, trace_id: str, payload: dict) -> None: ...
    def delete(self, trace_ids: Sequence[str]) -> None: ...
    def delete_scopes(self, scope_keys: Sequence[str]) -> None: ...
    def existing_ids(self, trace_ids: Sequence[str]) -> set[str]: ...
    # The stored dense vectors of these traces, by id, among the points of these scopes (a
    # missing point is left out): the write path chains a turn's index vector to its predecessor's.
    def dense_vectors(self, trace_ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, list[float]]: ...
    def all_ids(self, *, active: bool | None = None) -> set[str]: ...
    def count(self, scope_keys: Sequence[str] | None = None, *, active: bool | None = True) -> int: ...
    # Whether the index answers now, within a couple of seconds and without retries (a readiness
    # probe): returns, or raises VectorStoreUnavailable naming its (redacted) location.
    def ping(self) -> None: ...
    # Open, and create where missing, all the storage later calls may use, so that none of them
    # pays for it: a server before it answers ready, an async store as it opens.
    def make_ready(self) -> None: ...
    # After delete(): leave deleted points in no file the index keeps (where it can), and say
    # what it did, or why it cannot (a server's disk is the server's).
    def compact(self) -> dict[str, Any]: ...
    # Build the search graphs (HNSW) an embedded engine builds only when asked, so that searches
    # stop scanning every point, going on to a next part while under `budget_s` (None: all);
    # say what it did, or why there is nothing to do (a server indexes in its own background).
    def build_search_graphs(self, budget_s: float | None = ...) -> dict[str, Any]: ...
    def close(self) -> None: ...
