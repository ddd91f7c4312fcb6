"""Qdrant Edge adapter of the VectorIndex port: Qdrant's own engine, in process.

The embedded vector index. Where qdrant-client's local mode scores and filters in
Python (a filtered top-50 over 10k points takes hundreds of milliseconds), Edge runs
the Qdrant engine itself in this process: payload indexes, sparse vectors with IDF,
a write-ahead log. One shard folder per embedding space, `<folder>/<collection>`,
holding the same two vectors as the server collection (`dense` cosine, `bm25` sparse
with the IDF modifier) and the same payload, under the same point ids.

One difference of the binding shapes the filter: version 0.9 turns a boolean match
value into the integer 1, which matches no boolean payload. So every point also carries
`state` ("active" / "inactive"), kept beside `active` by every write, and reads filter
on that keyword.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FieldCondition,
    Filter,
    HasIdCondition,
    KeywordIndexParams,
    MatchAny,
    MatchValue,
    Modifier,
    Point,
    Query,
    QueryBatchRequest,
    QueryRequest,
    ScrollRequest,
    SparseVector,
    UpdateOperation,
)

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import VectorStoreUnavailable
from cogmem_graph.lexical import SparseVector as BM25Vector
from cogmem_graph.vectors.port import VectorHit, VectorPoint, clamp_cosine
from cogmem_graph.vectors.qdrant import DENSE, SPARSE, collection_name, point_id
from cogmem_graph.vectors.shared import SharedHandles

STATE = "state"
_SCROLL_PAGE = 1024
_PAYLOAD_INDEXES = (("scope_key", KeywordIndexParams(is_tenant=True)), (STATE, KeywordIndexParams()))


def _state(active: bool) -> str:
    return "active" if active else "inactive"


def _close_shard(shard: EdgeShard) -> None:
    shard.flush()
    shard.close()


# An Edge shard holds its folder's write-ahead log exclusively.
_shards: SharedHandles[EdgeShard] = SharedHandles(_close_shard)


def _open_shard(path: Path, dim: int) -> EdgeShard:
    config = EdgeConfig(
        vectors={DENSE: EdgeVectorParams(size=dim, distance=Distance.Cosine)},
        sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
    )
    try:
        if (path / "edge_config.json").exists():
            return EdgeShard.load(str(path), config)
        shard = EdgeShard.create(str(path), config)
    except Exception as exc:  # the binding raises a bare Exception (folder locked, incompatible config)
        raise VectorStoreUnavailable(
            f"Qdrant Edge storage at {path} cannot be opened ({exc}); another process may hold it: close "
            "the other store or use a Qdrant server (vectors='http://localhost:6333')",
            url=str(path),
        ) from exc
    for name, params in _PAYLOAD_INDEXES:
        shard.update(UpdateOperation.create_field_index(name, params))
    return shard


class EdgeVectorIndex:
    """Dense + BM25 sparse search over one embedding space, filtered by scope keys."""

    def __init__(self, *, model: str, dim: int, path: Path, config: VectorConfig | None = None) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.config = config or VectorConfig()
        self.dim = dim
        self.name = collection_name(self.config.collection_prefix, model, dim)
        self._path = (Path(path) / self.name).resolve()
        self.location = str(self._path)
        self.shard, self._serial = _shards.acquire(self._path, lambda: _open_shard(self._path, dim))
        self._closed = False

    def __repr__(self) -> str:
        return f"EdgeVectorIndex(location={self.location!r}, collection={self.name!r})"

    # ------------------------------------------------------------ plumbing

    @staticmethod
    def filter(scope_keys: Sequence[str] | None, *, active: bool | None = True,
               exclude_ids: Sequence[str] = ()) -> Filter:
        """The scope + active filter every read sends (the benchmark's floor sends it too)."""
        must: list[Any] = []
        if scope_keys is not None:
            keys = list(scope_keys)
            if not keys:
                raise ValueError("scope_keys must not be empty: a read without visible scopes sees nothing")
            must.append(FieldCondition(key="scope_key", match=MatchAny(any=keys)))
        if active is not None:
            must.append(FieldCondition(key=STATE, match=MatchValue(value=_state(active))))
        must_not = [HasIdCondition(point_ids={point_id(i) for i in exclude_ids})] if exclude_ids else None
        return Filter(must=must or None, must_not=must_not)

    def _check_dim(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dim:
            raise ValueError(f"vector has {len(vector)} dimensions, collection {self.name} expects {self.dim}")

    @staticmethod
    def _hits(points, *, cosine: bool = False) -> list[VectorHit]:
        """Hits as the port returns them; a cosine is clamped to [-1, 1] (float32 rounding can
        put identical vectors just above 1)."""
        hits = []
        for p in points:
            payload = p.payload
            payload.pop(STATE, None)
            hits.append(VectorHit(trace_id=payload["trace_id"], score=clamp_cosine(p.score) if cosine else float(p.score),
                                  scope_key=payload.get("scope_key", ""), payload=payload))
        return hits

    def _update(self, operation: UpdateOperation) -> None:
        with self._serial:
            self.shard.update(operation)

    # ------------------------------------------------------------ writes

    def upsert(self, points: Sequence[VectorPoint]) -> int:
        structs = []
        for p in points:
            self._check_dim(p.dense)
            vector: dict[str, Any] = {DENSE: list(p.dense)}
            if p.sparse:
                vector[SPARSE] = SparseVector(p.sparse.indices, p.sparse.values)
            structs.append(Point(point_id(p.trace_id), vector, {
                "trace_id": p.trace_id, "scope_key": p.scope_key, "type": p.type, "created_at": p.created_at,
                "active": p.active, STATE: _state(p.active), "content_hash": p.content_hash}))
        size = self.config.upsert_batch
        for start in range(0, len(structs), size):
            self._update(UpdateOperation.upsert_points(structs[start:start + size]))
        return len(structs)

    def set_active(self, trace_ids: Sequence[str], active: bool) -> None:
        if trace_ids:
            self._update(UpdateOperation.set_payload([point_id(i) for i in trace_ids],
                                                     {"active": active, STATE: _state(active)}))

    def delete(self, trace_ids: Sequence[str]) -> None:
        if trace_ids:
            self._update(UpdateOperation.delete_points([point_id(i) for i in trace_ids]))

    # ------------------------------------------------------------ reads

    def _request(self, query, scope_keys: Sequence[str], limit: int, *, score_threshold: float | None = None,
                 exclude_ids: Sequence[str] = ()) -> QueryRequest:
        return QueryRequest(limit=limit, query=query, filter=self.filter(scope_keys, exclude_ids=exclude_ids),
                            score_threshold=score_threshold, with_payload=True)

    def search_dense(
        self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
        score_threshold: float | None = None, exclude_ids: Sequence[str] = (),
    ) -> list[VectorHit]:
        self._check_dim(vector)
        request = self._request(Query.Nearest(list(vector), using=DENSE), scope_keys, limit,
                                score_threshold=score_threshold, exclude_ids=exclude_ids)
        with self._serial:
            return self._hits(self.shard.query(request), cosine=True)

    def search_dense_many(
        self, vectors: Sequence[Sequence[float]], scope_keys: Sequence[Sequence[str]], limit: int, *,
        score_threshold: float | None = None,
    ) -> list[list[VectorHit]]:
        """Several dense searches in one call (the write path's neighbour checks)."""
        if len(vectors) != len(scope_keys):
            raise ValueError("search_dense_many needs one scope_keys list per vector")
        if not vectors:
            return []
        requests = []
        filters: dict[tuple[str, ...], Filter] = {}  # a batch's traces mostly share their scope
        for vector, keys in zip(vectors, scope_keys, strict=True):
            self._check_dim(vector)
            key = tuple(keys)
            if key not in filters:
                filters[key] = self.filter(keys)
            requests.append(QueryRequest(limit=limit, query=Query.Nearest(list(vector), using=DENSE),
                                         filter=filters[key], score_threshold=score_threshold, with_payload=True))
        with self._serial:
            return [self._hits(r, cosine=True) for r in self.shard.query_batch(QueryBatchRequest(requests))]

    def search_sparse(self, vector: BM25Vector, scope_keys: Sequence[str], limit: int) -> list[VectorHit]:
        if not vector:
            return []
        request = self._request(Query.Nearest(SparseVector(vector.indices, vector.values), using=SPARSE),
                                scope_keys, limit)
        with self._serial:
            return self._hits(self.shard.query(request))

    def existing_ids(self, trace_ids: Sequence[str]) -> set[str]:
        if not trace_ids:
            return set()
        with self._serial:
            records = self.shard.retrieve([point_id(i) for i in trace_ids], ["trace_id"], False)
        return {r.payload["trace_id"] for r in records}

    def all_ids(self, *, active: bool | None = None) -> set[str]:
        found: set[str] = set()
        offset = None
        while True:
            with self._serial:
                records, offset = self.shard.scroll(ScrollRequest(
                    offset=offset, limit=_SCROLL_PAGE, filter=self.filter(None, active=active),
                    with_payload=["trace_id"], with_vector=False))
            found.update(r.payload["trace_id"] for r in records)
            if offset is None:
                return found

    def count(self, scope_keys: Sequence[str] | None = None, *, active: bool | None = True) -> int:
        with self._serial:
            return int(self.shard.count(CountRequest(exact=True, filter=self.filter(scope_keys, active=active))))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _shards.release(self._path)

    def __enter__(self) -> EdgeVectorIndex:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
