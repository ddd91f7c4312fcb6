"""Qdrant adapter of the VectorIndex port (server, local path or in-memory).

One collection per embedding space, named `<prefix>_<model>_<dim>`, with a
named dense vector (`dense`, cosine) and a sparse BM25 vector (`bm25`, IDF
applied by Qdrant). Point ids are UUIDv5 of the trace id, so re-upserting a
trace overwrites its point instead of duplicating it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qdrant_client import AsyncQdrantClient, QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse
from qdrant_client.local.persistence import STORAGE_FILE_NAME
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from cogmem_graph import aio_bridge, telemetry
from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import InvalidArgument, VectorStoreUnavailable
from cogmem_graph.filters import PayloadCondition
from cogmem_graph.home import private_dir, tighten
from cogmem_graph.lexical import SparseVector
from cogmem_graph.redact import redact_url
from cogmem_graph.vectors.naming import DENSE, SENTENCES, SPARSE, collection_name, point_id
from cogmem_graph.vectors.port import SEARCH_FIELDS, TIMED_CALLS, VectorHit, VectorPoint, clamp_cosine, visible_keys
from cogmem_graph.vectors.shared import SharedHandles

_SCROLL_PAGE = 1024
PING_TIMEOUT_S = 2.0
"""How long `ping` waits: for a Qdrant server's answer, or for another call on a local folder."""


def _condition(c: PayloadCondition) -> models.FieldCondition:
    if c.kind == "any":
        if len(c.values) == 1:
            return models.FieldCondition(key=c.key, match=models.MatchValue(value=c.values[0]))
        return models.FieldCondition(key=c.key, match=models.MatchAny(any=list(c.values)))
    bounds = dict(c.bounds)
    if any(isinstance(v, str) for v in bounds.values()):
        return models.FieldCondition(key=c.key, range=models.DatetimeRange(**bounds))
    return models.FieldCondition(key=c.key, range=models.Range(**bounds))


def _is_transient(exc: BaseException) -> bool:
    if isinstance(exc, ResponseHandlingException):
        return True  # connection refused/reset, timeouts
    if isinstance(exc, UnexpectedResponse):
        return exc.status_code == 429 or exc.status_code >= 500
    return isinstance(exc, (ConnectionError, TimeoutError))


def _open_local(path: Path) -> QdrantClient:
    """Local mode is not thread-safe (sqlite, numpy state): the shared handle's lock
    serialises every call on one folder."""
    try:
        return QdrantClient(path=str(path))
    except RuntimeError as exc:  # folder locked by another process
        raise VectorStoreUnavailable(
            f"Qdrant local storage at {path} is in use by another process ({exc}); "
            "close the other store or use a Qdrant server (vectors='http://localhost:6333')",
            url=str(path),
        ) from exc


# Qdrant local mode locks its folder.
_local_clients: SharedHandles[QdrantClient] = SharedHandles(QdrantClient.close)


@telemetry.timed_vector_calls(TIMED_CALLS)
class QdrantVectorIndex:
    """Dense + BM25 sparse search over one embedding space, filtered by scope keys."""

    def __init__(
        self, *, model: str, dim: int, config: VectorConfig | None = None, local_path: Path | None = None,
    ) -> None:
        if dim <= 0:
            raise InvalidArgument(f"dim must be positive, got {dim}", argument="dim")
        self.config = config or VectorConfig()
        self.dim = dim
        self.name = collection_name(self.config.collection_prefix, model, dim)
        self._local_path: Path | None = None
        self._server: tuple[str, str | None] | None = None
        """(url, api key) of a Qdrant server: inside a call of the async store on the event loop
        (`aio_bridge`), requests go through `AsyncQdrantClient` (one per loop) instead."""
        self._natives: aio_bridge.PerLoop[AsyncQdrantClient] = aio_bridge.PerLoop(
            self._make_native_client, lambda client: client.close())
        url = self.config.url
        if url == ":memory:":
            self.location = ":memory:"
            self._client = QdrantClient(location=":memory:")
            self._serial: threading.RLock | contextlib.nullcontext[None] = threading.RLock()
        elif url:
            self.location = redact_url(url)
            key = self.config.api_key.get_secret_value() if self.config.api_key else None
            self._client = QdrantClient(url=url, api_key=key, timeout=int(self.config.timeout_s),
                                        check_compatibility=False)
            self._server = (url, key)
            self._serial = contextlib.nullcontext()
        else:
            if local_path is None:
                raise InvalidArgument("local_path is required when vectors url is None (Qdrant local mode)",
                                      argument="local_path")
            folder = self._local_path = local_path.resolve()
            self.location = str(folder)
            private_dir(folder)  # the client's files (SQLite, lock, meta) inherit the process umask
            self._client, self._serial = _local_clients.acquire(folder, lambda: _open_local(folder))
        self._closed = False
        self._pinger: QdrantClient | None = None
        self._ensure_collection()
        self._make_private()

    def _make_private(self) -> None:
        """The local folder's files and folders, owner only (SQLite gives its journals the
        mode of the database file, so those follow)."""
        if self._local_path is not None:
            tighten([self._local_path])

    def __repr__(self) -> str:
        return f"QdrantVectorIndex(location={self.location!r}, collection={self.name!r})"

    # ------------------------------------------------------------ plumbing

    @property
    def native_async(self) -> bool:
        """True on a Qdrant server: a call on the event loop awaits `AsyncQdrantClient` (in memory
        and local mode, the client works in process, so such a call sends it to the pool)."""
        return self._server is not None

    def _make_native_client(self) -> AsyncQdrantClient:
        """An asyncio client of the server (made without I/O: it connects on first use)."""
        assert self._server is not None
        url, key = self._server
        return AsyncQdrantClient(url=url, api_key=key, timeout=int(self.config.timeout_s), check_compatibility=False)

    async def aclose_native(self) -> None:
        """Close the running loop's asyncio client (`AsyncMemoryStore.close` awaits this)."""
        await self._natives.aclose()

    def _call(self, what: str, fn, *args, **kwargs) -> Any:
        request = fn
        if self._server is not None and aio_bridge.active():  # the same request, awaited on the loop
            twin = getattr(self._natives.get(), fn.__name__)

            def request(*a: Any, **k: Any) -> Any:
                return aio_bridge.await_only(twin(*a, **k))
        retrying = Retrying(
            retry=retry_if_exception(_is_transient),
            stop=stop_after_attempt(self.config.retry_attempts),
            wait=wait_exponential(multiplier=0.2, max=5.0),
            reraise=True,
            sleep=aio_bridge.sleep,
        )
        try:
            with self._serial:
                return retrying(request, *args, **kwargs)
        except Exception as exc:
            if _is_transient(exc):
                raise VectorStoreUnavailable(
                    f"Qdrant at {self.location} did not answer {what} after {self.config.retry_attempts} attempts "
                    f"({type(exc).__name__}); start it with `docker compose -f docker/compose.yml up -d qdrant` "
                    "or open the store without a vectors URL to use the embedded local mode",
                    url=self.location,
                ) from exc
            raise

    def _ensure_collection(self) -> None:
        if self._call("collection_exists", self._client.collection_exists, self.name):
            info = self._call("get_collection", self._client.get_collection, self.name)
            vectors = info.config.params.vectors
            # a collection made before sentence vectors: its memories keep their own vector only
            self._sentences = isinstance(vectors, dict) and SENTENCES in vectors
            return
        self._sentences = True
        self._call(
            "create_collection",
            self._client.create_collection,
            self.name,
            vectors_config={
                DENSE: models.VectorParams(size=self.dim, distance=models.Distance.COSINE),
                SENTENCES: models.VectorParams(
                    size=self.dim, distance=models.Distance.COSINE, datatype=models.Datatype.FLOAT16,
                    multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM)),
            },
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        with warnings.catch_warnings():  # local mode warns that payload indexes have no effect
            warnings.simplefilter("ignore")
            self._call(
                "create_payload_index", self._client.create_payload_index, self.name, "scope_key",
                field_schema=models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
            )
            self._call("create_payload_index", self._client.create_payload_index, self.name, "active",
                       field_schema=models.PayloadSchemaType.BOOL)

    @staticmethod
    def _filter(scope_keys: Sequence[str] | None, *, active: bool | None = True,
                exclude_ids: Sequence[str] = (), where: Sequence[PayloadCondition] = ()) -> models.Filter:
        must: list[Any] = [_condition(c) for c in where]
        if scope_keys is not None:
            keys = list(scope_keys)
            visible_keys(keys)
            must.append(models.FieldCondition(key="scope_key", match=models.MatchAny(any=keys)))
        if active is not None:
            must.append(models.FieldCondition(key="active", match=models.MatchValue(value=active)))
        must_not: list[Any] = []
        if exclude_ids:
            must_not.append(models.HasIdCondition(has_id=[point_id(i) for i in exclude_ids]))
        return models.Filter(must=must or None, must_not=must_not or None)

    def _check_dim(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dim:
            raise InvalidArgument(f"vector has {len(vector)} dimensions, collection {self.name} expects {self.dim}",
                                  argument="vector")

    @staticmethod
    def _hits(points, *, cosine: bool = False) -> list[VectorHit]:
        """Hits as the port returns them; a cosine is clamped to [-1, 1] (float32 rounding puts
        identical vectors at 1.0000000149)."""
        return [VectorHit(p.payload["trace_id"], clamp_cosine(p.score) if cosine else float(p.score)) for p in points]

    # ------------------------------------------------------------ writes

    def upsert(self, points: Sequence[VectorPoint]) -> int:
        structs = []
        for p in points:
            self._check_dim(p.dense)
            vector: dict[str, Any] = {DENSE: list(p.dense)}
            if p.sparse:
                vector[SPARSE] = models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)
            if p.sentences and self._sentences:
                vector[SENTENCES] = [list(v) for v in p.sentences]
            structs.append(models.PointStruct(
                id=point_id(p.trace_id), vector=vector,
                payload={**p.payload, "trace_id": p.trace_id, "scope_key": p.scope_key, "type": p.type,
                         "created_at": p.created_at, "active": p.active, "content_hash": p.content_hash},
            ))
        size = self.config.upsert_batch
        for start in range(0, len(structs), size):
            self._call("upsert", self._client.upsert, self.name, points=structs[start:start + size], wait=True)
        return len(structs)

    def set_active(self, trace_ids: Sequence[str], active: bool) -> None:
        if trace_ids:
            self._call("set_payload", self._client.set_payload, self.name, payload={"active": active},
                       points=[point_id(i) for i in trace_ids], wait=True)

    def set_payload(self, trace_id: str, payload: dict) -> None:
        """Replace a point's filter fields (after a memory's tags or metadata were edited)."""
        self._call("set_payload", self._client.set_payload, self.name, payload=payload,
                   points=[point_id(trace_id)], wait=True)

    def delete_scopes(self, scope_keys: Sequence[str]) -> None:
        """Every point of these scopes (erasing a user)."""
        if scope_keys:
            self._call("delete", self._client.delete, self.name,
                       points_selector=models.FilterSelector(filter=self._filter(scope_keys, active=None)), wait=True)

    def delete(self, trace_ids: Sequence[str]) -> None:
        if trace_ids:
            self._call("delete", self._client.delete, self.name,
                       points_selector=models.PointIdsList(points=[point_id(i) for i in trace_ids]), wait=True)

    # ------------------------------------------------------------ reads

    def search_dense(
        self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
        score_threshold: float | None = None, exclude_ids: Sequence[str] = (),
        where: Sequence[PayloadCondition] = (),
    ) -> list[VectorHit]:
        self._check_dim(vector)
        result = self._call(
            "query_points", self._client.query_points, self.name, query=list(vector), using=DENSE,
            query_filter=self._filter(scope_keys, exclude_ids=exclude_ids, where=where), limit=limit,
            score_threshold=score_threshold, with_payload=list(SEARCH_FIELDS),
        )
        return self._hits(result.points, cosine=True)

    def search_dense_many(
        self, vectors: Sequence[Sequence[float]], scope_keys: Sequence[Sequence[str]], limit: int, *,
        score_threshold: float | None = None,
    ) -> list[list[VectorHit]]:
        """Several dense searches in one request (the write path's neighbour checks)."""
        if len(vectors) != len(scope_keys):
            raise InvalidArgument("search_dense_many needs one scope_keys list per vector", argument="scope_keys")
        if not vectors:
            return []
        requests = []
        for vector, keys in zip(vectors, scope_keys, strict=True):
            self._check_dim(vector)
            requests.append(models.QueryRequest(
                query=list(vector), using=DENSE, filter=self._filter(keys), limit=limit,
                score_threshold=score_threshold, with_payload=list(SEARCH_FIELDS),
            ))
        responses = self._call("query_batch_points", self._client.query_batch_points, self.name, requests=requests)
        return [self._hits(r.points, cosine=True) for r in responses]

    def search_sparse(self, vector: SparseVector, scope_keys: Sequence[str], limit: int, *,
                      where: Sequence[PayloadCondition] = ()) -> list[VectorHit]:
        if not vector:
            return []
        result = self._call(
            "query_points", self._client.query_points, self.name,
            query=models.SparseVector(indices=vector.indices, values=vector.values), using=SPARSE,
            query_filter=self._filter(scope_keys, where=where), limit=limit, with_payload=list(SEARCH_FIELDS),
        )
        return self._hits(result.points)

    def search_sentences(self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
                         where: Sequence[PayloadCondition] = ()) -> list[VectorHit]:
        """Memories by their best sentence's cosine to `vector` (none in a collection made
        before sentence vectors)."""
        self._check_dim(vector)
        if not self._sentences:
            return []
        result = self._call(
            "query_points", self._client.query_points, self.name, query=[list(vector)], using=SENTENCES,
            query_filter=self._filter(scope_keys, where=where), limit=limit, with_payload=list(SEARCH_FIELDS),
        )
        return self._hits(result.points, cosine=True)

    def existing_ids(self, trace_ids: Sequence[str]) -> set[str]:
        if not trace_ids:
            return set()
        points = self._call("retrieve", self._client.retrieve, self.name,
                            ids=[point_id(i) for i in trace_ids], with_payload=["trace_id"])
        return {p.payload["trace_id"] for p in points}

    def dense_vectors(self, trace_ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, list[float]]:
        keys = visible_keys(scope_keys)
        if not trace_ids:
            return {}
        points = self._call("retrieve", self._client.retrieve, self.name, ids=[point_id(i) for i in trace_ids],
                            with_payload=["trace_id", "scope_key"], with_vectors=[DENSE])
        return {p.payload["trace_id"]: list(p.vector[DENSE]) for p in points if p.payload.get("scope_key") in keys}

    def all_ids(self, *, active: bool | None = None) -> set[str]:
        found: set[str] = set()
        offset = None
        while True:
            points, offset = self._call(
                "scroll", self._client.scroll, self.name, scroll_filter=self._filter(None, active=active),
                limit=_SCROLL_PAGE, offset=offset, with_payload=["trace_id"], with_vectors=False,
            )
            found.update(p.payload["trace_id"] for p in points)
            if offset is None:
                return found

    def count(self, scope_keys: Sequence[str] | None = None, *, active: bool | None = True) -> int:
        result = self._call("count", self._client.count, self.name,
                            count_filter=self._filter(scope_keys, active=active), exact=True)
        return int(result.count)

    def make_ready(self) -> None:
        """Nothing to do: the collection is made, or found, when the index opens."""

    def ping(self) -> None:
        """Whether the collection is there, asked once: of a Qdrant server by a client of its own
        with a PING_TIMEOUT_S timeout and no retries; of local mode or memory after waiting at
        most PING_TIMEOUT_S for another call on it. Raises VectorStoreUnavailable naming it."""
        if self._closed:
            raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
        serial = self._serial
        if isinstance(serial, contextlib.nullcontext):  # a server
            if self._pinger is None:
                key = self.config.api_key.get_secret_value() if self.config.api_key else None
                self._pinger = QdrantClient(url=self.config.url, api_key=key, timeout=int(PING_TIMEOUT_S),
                                            check_compatibility=False)
            client = self._pinger
        else:
            client = self._client
            if not serial.acquire(timeout=PING_TIMEOUT_S):
                raise VectorStoreUnavailable(
                    f"Qdrant at {self.location} is busy: another call has held it for more than "
                    f"{PING_TIMEOUT_S:.0f} s", url=self.location)
        try:
            exists = client.collection_exists(self.name)
        except Exception as exc:
            hint = "; start it with `docker compose -f docker/compose.yml up -d qdrant`" if self._pinger else ""
            raise VectorStoreUnavailable(
                f"Qdrant at {self.location} did not answer a ping within {PING_TIMEOUT_S:.0f} s "
                f"({type(exc).__name__}){hint}", url=self.location) from None
        finally:
            if not isinstance(serial, contextlib.nullcontext):
                serial.release()
        if not exists:
            raise VectorStoreUnavailable(f"Qdrant at {self.location} has no collection {self.name} any more; "
                                         "reopen the store to create it, then run repair", url=self.location)

    def build_search_graphs(self, budget_s: float | None = None) -> dict[str, Any]:
        """Nothing to build here: a Qdrant server builds its segments' search graphs in the
        background (its optimizer's indexing threshold); local mode has none and scans."""
        note = ("qdrant-client local mode: no search graph, every search scans" if self._local_path is not None
                or self.location == ":memory:" else "a Qdrant server builds its search graphs in the background")
        return {"vectors": "qdrant" if self._local_path is None else "qdrant-local", "location": self.location,
                "note": note}

    def compact(self) -> dict[str, Any]:
        """Leave deleted points in no file of the local storage folder.

        Local mode keeps a collection's points as rows of one SQLite file; a deleted row's
        bytes stay in the file's free pages until SQLite rebuilds the file, which VACUUM does
        (through the rollback journal, which SQLite deletes when it commits). The client's own
        connection is idle between calls, and calls on this folder are serialised, so a second
        connection can run it. In memory there is no file; a Qdrant server compacts its own
        segments (its optimizer's vacuum) and write-ahead log, on its disk."""
        if self._local_path is None:
            where = "in memory: nothing on disk" if self.location == ":memory:" else (
                "a Qdrant server: its optimizer vacuums deleted points from segments and its write-ahead "
                "log drops old entries by its own retention, on the server's disk")
            return {"vectors": "qdrant", "location": self.location, "note": where}
        started = time.monotonic()
        storage = self._local_path / "collection" / self.name / STORAGE_FILE_NAME
        with self._serial:
            if not storage.is_file():
                return {"vectors": "qdrant-local", "location": self.location, "note": f"no storage file at {storage}"}
            before = storage.stat().st_size
            connection = sqlite3.connect(storage, isolation_level=None)
            try:
                connection.execute("VACUUM")
            finally:
                connection.close()
            after = storage.stat().st_size
        return {"vectors": "qdrant-local", "location": self.location, "file": str(storage),
                "bytes_before": before, "bytes_after": after, "seconds": round(time.monotonic() - started, 3)}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._local_path is not None:
            _local_clients.release(self._local_path)
            self._make_private()
        else:
            self._client.close()
        self._natives.forget()  # their loops close them (`aclose_native`), or drop them
        if self._pinger is not None:
            self._pinger.close()

    def __enter__(self) -> QdrantVectorIndex:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
