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

import contextlib
import ctypes
import errno
import os
import shutil
import sys
import tempfile
import time
import weakref
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
    RangeDateTime,
    RangeFloat,
    ScrollRequest,
    SparseVector,
    UpdateOperation,
)

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import VectorStoreUnavailable
from cogmem_graph.filters import (
    PAYLOAD_ENTITIES,
    PAYLOAD_SOURCE_TYPE,
    PAYLOAD_TAGS,
    PAYLOAD_TYPE,
    PayloadCondition,
)
from cogmem_graph.home import inherit_private, private_dir
from cogmem_graph.lexical import SparseVector as BM25Vector
from cogmem_graph.vectors.naming import DENSE, SPARSE, collection_name, point_id
from cogmem_graph.vectors.port import VectorHit, VectorPoint, clamp_cosine
from cogmem_graph.vectors.shared import SharedHandles

STATE = "state"
PING_TIMEOUT_S = 2.0
"""How long `ping` waits for the shard (another call may hold it: a long write, a compaction)."""
_SCROLL_PAGE = 1024
_PAYLOAD_INDEXES = (
    ("scope_key", KeywordIndexParams(is_tenant=True)), (STATE, KeywordIndexParams()),
    # The filter fields every memory carries (cogmem_graph.filters.payload_conditions): without an
    # index a filtered search checks points one by one (a tags filter at 10k points: 27 ms, not 4).
    (PAYLOAD_TAGS, KeywordIndexParams()), (PAYLOAD_TYPE, KeywordIndexParams()),
    (PAYLOAD_SOURCE_TYPE, KeywordIndexParams()), (PAYLOAD_ENTITIES, KeywordIndexParams()),
)


def _state(active: bool) -> str:
    return "active" if active else "inactive"


def _edge_value(value: Any) -> Any:
    """Version 0.9 of the binding turns a boolean match value into 1, which matches no
    boolean payload: booleans travel as the keywords "true" / "false" both ways."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_edge_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _edge_value(v) for k, v in value.items()}
    return value


def _edge_payload(payload: dict) -> dict:
    return {k: _edge_value(v) for k, v in payload.items()}


def _condition(c: PayloadCondition) -> FieldCondition:
    if c.kind == "any":
        values = [_edge_value(v) for v in c.values]
        if len(values) == 1:
            return FieldCondition(key=c.key, match=MatchValue(value=values[0]))
        return FieldCondition(key=c.key, match=MatchAny(any=values))
    bounds = dict(c.bounds)
    if any(isinstance(v, str) for v in bounds.values()):
        return FieldCondition(key=c.key, range=RangeDateTime(**bounds))
    return FieldCondition(key=c.key, range=RangeFloat(**bounds))


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
    _make_private(path)
    return shard


# Every open index by folder, so that compact() can hand all of them the rebuilt shard.
_indexes: dict[Path, weakref.WeakSet[EdgeVectorIndex]] = {}

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange_folders(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 with RENAME_EXCHANGE): a crash leaves
    either the old or the new folder in place, never neither. False where the system or the
    file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a libc without it (glibc before 2.28)
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(a), None, str(b))


def _swap_folders(fresh: Path, live: Path) -> str:
    """Put `fresh` at `live` and the old `live` at `fresh`; how it was done. Without an atomic
    exchange, two renames: a crash between them leaves `live` missing (its data intact at
    `fresh`'s name, a hidden folder beside it)."""
    if _exchange_folders(fresh, live):
        return "exchange"
    aside = fresh.with_name(fresh.name + "-old")
    os.rename(live, aside)
    try:
        os.rename(fresh, live)
    except BaseException:
        os.rename(aside, live)
        raise
    os.rename(aside, fresh)
    return "rename"


def _make_private(folder: Path) -> None:
    """Folders 0700, files 0600: the shard holds memories' payloads.

    The engine runs in this process and creates its files under the process umask (0644
    under the usual 022); a library cannot change the umask of its host process (it is
    process-wide: other threads' files would change mode too). So every folder of the shard
    gets the default ACL that makes what the engine creates in it owner-only
    (`home.inherit_private`), and the files are made private after each open, compaction and
    close. Where the file system keeps no ACLs, the 0700 folders above (the shard's,
    `qdrant-edge`, the home) keep other users out of what the engine adds in between."""
    with contextlib.suppress(FileNotFoundError):
        folder.chmod(0o700)
        inherit_private(folder)
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            with contextlib.suppress(FileNotFoundError):  # the engine may drop a segment meanwhile
                os.chmod(os.path.join(root, name), 0o700)
                inherit_private(Path(root, name))
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                os.chmod(os.path.join(root, name), 0o600)


def _disk_bytes(folder: Path) -> int:
    """Bytes a folder takes on disk (the engine's files are sparse: their sizes overstate it)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except FileNotFoundError:
                continue
    return total


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
        private_dir(self._path.parent)  # `qdrant-edge` and the shard's folder: 0700 from the start
        private_dir(self._path)
        self.shard, self._serial = _shards.acquire(self._path, lambda: _open_shard(self._path, dim))
        self._closed = False

    def __repr__(self) -> str:
        return f"EdgeVectorIndex(location={self.location!r}, collection={self.name!r})"

    @property
    def shard(self) -> EdgeShard:
        """The folder's open shard, shared by every index on the folder. compact() replaces it
        (for all of them, under their shared lock), so it is read through here."""
        return self._shard

    @shard.setter
    def shard(self, handle: EdgeShard) -> None:
        with _shards._lock:  # a compact() that swapped the folder's handle meanwhile wins
            _indexes.setdefault(self._path, weakref.WeakSet()).add(self)
            entry = _shards._handles.get(self._path)
            self._shard = entry[0] if entry is not None else handle

    # ------------------------------------------------------------ plumbing

    @staticmethod
    def filter(scope_keys: Sequence[str] | None, *, active: bool | None = True,
               exclude_ids: Sequence[str] = (), where: Sequence[PayloadCondition] = ()) -> Filter:
        """The scope + active filter every read sends (the benchmark's floor sends it too),
        and a caller's filter conditions (`cogmem_graph.filters.payload_conditions`)."""
        must: list[Any] = [_condition(c) for c in where]
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
                **_edge_payload(p.payload),
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

    def set_payload(self, trace_id: str, payload: dict) -> None:
        """Replace a point's filter fields (after a memory's tags or metadata were edited)."""
        self._update(UpdateOperation.set_payload([point_id(trace_id)], _edge_payload(payload)))

    def delete(self, trace_ids: Sequence[str]) -> None:
        if trace_ids:
            self._update(UpdateOperation.delete_points([point_id(i) for i in trace_ids]))

    def delete_scopes(self, scope_keys: Sequence[str]) -> None:
        """Every point of these scopes (erasing a user)."""
        if scope_keys:
            self._update(UpdateOperation.delete_points_by_filter(self.filter(scope_keys, active=None)))

    # ------------------------------------------------------------ reads

    def _request(self, query, scope_keys: Sequence[str], limit: int, *, score_threshold: float | None = None,
                 exclude_ids: Sequence[str] = (), where: Sequence[PayloadCondition] = ()) -> QueryRequest:
        return QueryRequest(limit=limit, query=query,
                            filter=self.filter(scope_keys, exclude_ids=exclude_ids, where=where),
                            score_threshold=score_threshold, with_payload=True)

    def search_dense(
        self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
        score_threshold: float | None = None, exclude_ids: Sequence[str] = (),
        where: Sequence[PayloadCondition] = (),
    ) -> list[VectorHit]:
        self._check_dim(vector)
        request = self._request(Query.Nearest(list(vector), using=DENSE), scope_keys, limit,
                                score_threshold=score_threshold, exclude_ids=exclude_ids, where=where)
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

    def search_sparse(self, vector: BM25Vector, scope_keys: Sequence[str], limit: int, *,
                      where: Sequence[PayloadCondition] = ()) -> list[VectorHit]:
        if not vector:
            return []
        request = self._request(Query.Nearest(SparseVector(vector.indices, vector.values), using=SPARSE),
                                scope_keys, limit, where=where)
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

    def ping(self) -> None:
        """The shard's info, read once: cheap (no scan). Waits at most PING_TIMEOUT_S for another
        call on the shard to finish; raises VectorStoreUnavailable naming the folder."""
        if self._closed:
            raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
        if not self._serial.acquire(timeout=PING_TIMEOUT_S):
            raise VectorStoreUnavailable(
                f"Qdrant Edge shard at {self.location} is busy: another call has held it for more than "
                f"{PING_TIMEOUT_S:.0f} s", url=self.location)
        try:
            self.shard.info()
        except Exception as exc:  # the binding raises bare Exceptions
            raise VectorStoreUnavailable(
                f"Qdrant Edge shard at {self.location} did not answer ({type(exc).__name__}: {exc})",
                url=self.location) from exc
        finally:
            self._serial.release()

    def compact(self) -> dict[str, Any]:
        """Leave deleted points in no file of the shard's folder, and say what it did.

        A deleted point stays in the engine's files: its payload and vectors in the segment
        files (only flagged deleted; a vacuum drops them only past the optimizer's thresholds),
        and the upsert that wrote it in the write-ahead log, which this binding (0.9) cannot
        truncate. So the shard is rebuilt: every live point, with its vectors and payload, is
        copied into a new shard in a hidden folder beside it, the count is checked, and the two
        folders are swapped in one step; the old folder is then deleted. Until the swap the old shard is untouched, so a failure or
        a crash loses nothing (a crash leaves a hidden `.<name>.compact-*` folder, removed by
        the next compaction). Every index on the folder in this process waits on the shared
        lock meanwhile and then reads the new shard. Points of 384 dimensions: about 1 s per
        10k on two cores, most of it converting payloads between Python and the engine.

        No HNSW graph is built (the engine's `optimize()`, about a minute at 100k points on two
        cores): the write path builds none either, since every search is filtered by scope
        through the payload index. The engine's own vacuum is no way out here: it leaves the
        deleted points' upserts in the write-ahead log until the log moves on."""
        started = time.monotonic()
        with self._serial:
            if self._closed:
                raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
            old = self.shard
            old.flush()
            before = _disk_bytes(self._path)
            for leftover in self._path.parent.glob(f".{self.name}.compact-*"):
                shutil.rmtree(leftover, ignore_errors=True)
            work = Path(tempfile.mkdtemp(prefix=f".{self.name}.compact-", dir=self._path.parent))
            try:
                points = self._copy_live_points(old, work)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                raise
            try:
                _close_shard(old)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                raise
            try:
                swap = _swap_folders(work, self._path)
            except BaseException:
                shutil.rmtree(work, ignore_errors=True)
                self._use_shard(_open_shard(self._path, self.dim))
                raise
            try:
                rebuilt = _open_shard(self._path, self.dim)
            except BaseException:
                _swap_folders(work, self._path)  # the old folder back in place
                self._use_shard(_open_shard(self._path, self.dim))
                shutil.rmtree(work, ignore_errors=True)
                raise
            self._use_shard(rebuilt)
            shutil.rmtree(work)  # the old shard: deleted points' payloads, vectors and log
        return {"vectors": "qdrant-edge", "location": self.location, "points": points,
                "disk_bytes_before": before, "disk_bytes_after": _disk_bytes(self._path), "swap": swap,
                "seconds": round(time.monotonic() - started, 3)}

    def _copy_live_points(self, old: EdgeShard, folder: Path) -> int:
        """Every point of `old` into a new shard at `folder`, closed when it returns."""
        fresh = _open_shard(folder, self.dim)
        try:
            copied, offset = 0, None
            while True:
                records, offset = old.scroll(ScrollRequest(
                    offset=offset, limit=_SCROLL_PAGE, with_payload=True, with_vector=True))
                if records:
                    fresh.update(UpdateOperation.upsert_points([Point(r.id, r.vector, r.payload) for r in records]))
                    copied += len(records)
                if offset is None:
                    break
            expected = int(old.count(CountRequest(exact=True)))
            if int(fresh.count(CountRequest(exact=True))) != expected or copied != expected:
                raise VectorStoreUnavailable(
                    f"compacting {self.location}: {copied} points copied of {expected}; the shard was left as it was",
                    url=self.location)
        except BaseException:
            fresh.close()
            raise
        _close_shard(fresh)
        _make_private(folder)
        return copied

    def _use_shard(self, handle: EdgeShard) -> None:
        """Hand every index on this folder (and the shared registry) the folder's new shard."""
        with _shards._lock:
            _handle, refs, serial = _shards._handles[self._path]
            _shards._handles[self._path] = (handle, refs, serial)
            for index in list(_indexes.get(self._path, ())):
                index._shard = handle

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _shards.release(self._path)  # the last index on the folder flushes and closes the shard
        _make_private(self._path)  # files the engine made since it opened

    def __enter__(self) -> EdgeVectorIndex:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
