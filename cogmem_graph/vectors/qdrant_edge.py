"""Qdrant Edge adapter of the VectorIndex port: Qdrant's own engine, in process.

The embedded vector index. Where qdrant-client's local mode scores and filters in
Python (a filtered top-50 over 10k points takes hundreds of milliseconds), Edge runs
the Qdrant engine itself in this process: payload indexes, sparse vectors with IDF,
a write-ahead log. One folder per embedding space, `<folder>/<collection>`, split into
partitions (`p0` ... `p7`, one Edge shard each; a user's memories all sit in one, see
`_Partitions`), holding the same two vectors as the server collection (`dense` cosine,
`bm25` sparse with the IDF modifier) and the same payload. A folder names each point by its
trace id's own UUID (`naming.own_point_id`), so a search reads ids and scores and no payload;
folders made before that keep the server's hashed ids (`naming.point_id`).

One difference of the binding shapes the filter: version 0.9 turns a boolean match
value into the integer 1, which matches no boolean payload. So every point also carries
`state` ("active" / "inactive"), kept beside `active` by every write, and reads filter
on that keyword.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeOptimizersConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FieldCondition,
    Filter,
    HasIdCondition,
    KeywordIndexParams,
    MatchAny,
    MatchValue,
    Memory,
    Modifier,
    MultiVectorComparator,
    MultiVectorConfig,
    Point,
    QuantizationSearchParams,
    Query,
    QueryBatchRequest,
    QueryRequest,
    RangeDateTime,
    RangeFloat,
    ScalarQuantizationConfig,
    ScalarType,
    ScrollRequest,
    SearchParams,
    SparseVector,
    UpdateOperation,
    VectorStorageDatatype,
)

if TYPE_CHECKING:
    from qdrant_edge import PointId, Record, Vector

from cogmem_graph import telemetry
from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import InvalidArgument, VectorStoreUnavailable
from cogmem_graph.filters import (
    PAYLOAD_ENTITIES,
    PAYLOAD_SOURCE_TYPE,
    PAYLOAD_TAGS,
    PAYLOAD_TYPE,
    PayloadCondition,
)
from cogmem_graph.home import inherit_private, private_dir, write_private
from cogmem_graph.lexical import SparseVector as BM25Vector
from cogmem_graph.vectors.naming import (
    DENSE,
    SENTENCES,
    SPARSE,
    collection_name,
    own_point_id,
    point_id,
    trace_id_of_point,
)
from cogmem_graph.vectors.port import SEARCH_FIELDS, TIMED_CALLS, VectorHit, VectorPoint, clamp_cosine, visible_keys
from cogmem_graph.vectors.shared import SharedHandles

STATE = "state"
PING_TIMEOUT_S = 2.0
"""How long `ping` waits for the shard (another call may hold it: a long write, a compaction)."""

log = logging.getLogger(__name__)

_SCROLL_PAGE = 1024
EDGE_CONFIG = "edge_config.json"
LAYOUT_FILE = "partitions.json"
OWN_IDS = "the trace id's own uuid"
"""The layout's `point_ids` in a folder whose points are named by `own_point_id`."""
DUE_FILE = "compaction-due.json"
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


# The stubs type a record's payload and vector as optional whatever the read asked for;
# every read below that uses them asks for them.
def _payload(record: Record) -> dict[str, Any]:
    return cast(dict[str, Any], record.payload)


def _vector(record: Record) -> Vector:
    return cast("Vector", record.vector)


def _named_vectors(record: Record) -> dict[str, list[float]]:
    return cast(dict[str, list[float]], record.vector)


def _condition(c: PayloadCondition) -> FieldCondition:
    if c.kind == "any":
        values = [_edge_value(v) for v in c.values]
        if len(values) == 1:
            return FieldCondition(key=c.key, match=MatchValue(value=values[0]))
        return FieldCondition(key=c.key, match=MatchAny(any=values))
    bounds: dict[str, Any] = dict(c.bounds)
    if any(isinstance(v, str) for v in bounds.values()):
        return FieldCondition(key=c.key, range=RangeDateTime(**bounds))
    return FieldCondition(key=c.key, range=RangeFloat(**bounds))


def _close_shard(shard: EdgeShard) -> None:
    shard.flush()
    shard.close()


SEGMENT_KB = 64_000
"""The largest vector segment the engine's optimizer makes by merging smaller ones (KB): a
search graph is built per segment, so a night's build indexes the segments that grew since
the last one and merges stay bounded, instead of indexing a whole partition again."""


SEARCH_EF = 256
"""How many candidates a search walking a segment's graph keeps (`hnsw_ef`, at least the
search's limit): of the 100 nearest points of a 200k store, the engine's default finds
0.958, 256 finds 0.989, in 5 ms where scanning took 24 (`benchmarks/search_graphs.py`)."""


GRAPH_BUDGET_S = 5.0
"""How long one `build_search_graphs` call goes on to a next partition (seconds; it builds one
at least): the first build on a large store (~35 s at 100k here) is spread over several
consolidations."""


INT8_QUANTILE = 0.99
"""The share of a segment's vector components int8 quantization maps onto its 256 steps (the
rarest extremes are clipped): Qdrant's recommended value."""


INT8_OVERSAMPLING = 3.0
"""How many more candidates than asked a search of int8 vectors takes before rescoring them
with the originals (see `vectors.edge_quantization`)."""


@dataclass(frozen=True)
class _Layout:
    """How a folder's shards store and index their vectors (settings, not data: a shard made
    with other values is opened with these, and the engine applies them as it optimizes)."""

    graph_kb: int
    """Segments of this many KB and more get a search graph when the engine optimizes (0: never)."""
    int8: bool = False
    """The memories' own vectors kept as int8 in RAM, their float32 originals on disk."""


def _shard_config(dim: int, *, sentences: bool, layout: _Layout) -> EdgeConfig:
    """A shard's vectors: the memory's own (dense), its words (BM25) and, in shards made since
    memories have them, its sentences' (a multivector scored by its best sentence, stored as
    float16: half the memory, and a cosine's ranking does not need float32's last digits).
    With `layout.int8`, an optimized segment also holds its dense vectors quantized to int8
    and pinned in RAM (a quarter of the originals), which stay on disk for rescoring."""
    if layout.int8:
        dense = EdgeVectorParams(size=dim, distance=Distance.Cosine, memory=Memory.Cold,
                                 quantization_config=ScalarQuantizationConfig(
                                     type=ScalarType.Int8, quantile=INT8_QUANTILE, memory=Memory.Pinned))
    else:
        dense = EdgeVectorParams(size=dim, distance=Distance.Cosine)
    vectors = {DENSE: dense}
    if sentences:
        vectors[SENTENCES] = EdgeVectorParams(
            size=dim, distance=Distance.Cosine, datatype=VectorStorageDatatype.Float16,
            multivector_config=MultiVectorConfig(comparator=MultiVectorComparator.MaxSim))
    return EdgeConfig(vectors=vectors, sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
                      optimizers=EdgeOptimizersConfig(max_segment_size=SEGMENT_KB,
                                                      indexing_threshold=layout.graph_kb))


NO_SEARCH_GRAPHS = _Layout(graph_kb=0)


def _open_shard(path: Path, dim: int, layout: _Layout = NO_SEARCH_GRAPHS, *,
                sentences: bool = True) -> tuple[EdgeShard, bool]:
    """The shard at `path` (created if it has none, with sentence vectors when `sentences`) and
    whether it holds them: one made the other way is opened as it was made (its compaction
    rewrites it the wanted way). The optimizer's settings given here replace those a shard was
    made with."""
    try:
        if (path / EDGE_CONFIG).exists():
            try:
                return EdgeShard.load(str(path), _shard_config(dim, sentences=sentences, layout=layout)), sentences
            except Exception as exc:  # noqa: BLE001 - the binding raises a bare Exception
                if "incompatible" not in str(exc).lower():
                    raise
                return (EdgeShard.load(str(path), _shard_config(dim, sentences=not sentences, layout=layout)),
                        not sentences)
        shard = EdgeShard.create(str(path), _shard_config(dim, sentences=sentences, layout=layout))
    except Exception as exc:  # the binding raises a bare Exception (folder locked, incompatible config)
        raise VectorStoreUnavailable(
            f"Qdrant Edge storage at {path} cannot be opened ({exc}); another process may hold it: close "
            "the other store or use a Qdrant server (vectors='http://localhost:6333')",
            url=str(path),
        ) from exc
    for name, params in _PAYLOAD_INDEXES:
        shard.update(UpdateOperation.create_field_index(name, params))
    _make_private(path)
    return shard, sentences


STALE_SHARE = 0.05
"""Stale copies, as a share of a partition's live points, from which a compaction rebuilds it
(a rebuild copies every live point: ~1.5 s per 10k)."""


def _stale_copies(shard: EdgeShard) -> tuple[int, int]:
    """(stale copies, live points) of a shard. A stale copy is a point its segments hold beside
    the live version: what the engine's log replay leaves when a process stopped before the
    segments an optimization wrote were flushed. Reads return one version of each point, so
    only the segments' count (the shard's approximate one) sees them."""
    live = int(shard.count(CountRequest(exact=True)))
    return max(0, int(shard.info().points_count) - live), live


def owner_of(scope_key: str) -> str:
    """Whose memory a scope holds, for placing it in a partition: a thread belongs to its user
    (`thread:acme/u1/t1` -> `user:acme/u1`), so erasing a user touches one partition."""
    kind, _, ident = scope_key.partition(":")
    if kind == "thread" and "/" in ident:
        return "user:" + ident.rsplit("/", 1)[0]
    return scope_key


def partition_of(scope_key: str, partitions: int) -> int:
    """A stable partition number (crc32: the same in every process and version)."""
    return zlib.crc32(owner_of(scope_key).encode("utf-8")) % partitions


def _write_private_json(path: Path, value: Any) -> None:
    write_private(path, json.dumps(value).encode("utf-8"))


class _Partitions:
    """The shards of one collection folder, shared by every index opened on it in a process.

    Layout: `<folder>/partitions.json` (how many, and how points are named: both fixed at
    creation) and one shard per
    partition in `<folder>/p0`, `p1`, ...; a point sits in the partition of its scope's
    owner (`partition_of`). A shard is opened when first asked for and created when first
    written to, so a store whose memories sit in two partitions opens two shards. A folder
    made before partitions existed holds one shard at its root (`edge_config.json` there)
    and is read as one partition; its first compaction rewrites it into partitions.
    `dirty` names the partitions that lost points or payload values since their last
    rebuild (kept in `compaction-due.json`, so a restart keeps it): compaction rebuilds
    only those. Callers hold the index's lock."""

    def __init__(self, root: Path, dim: int, partitions: int, layout: _Layout, *, sentences: bool = True) -> None:
        self.root, self.dim, self.wanted, self.layout = root, dim, partitions, layout
        self.sentences = sentences
        """Whether new shards hold sentence vectors: only for an embedder that gives them (an
        empty multivector storage still costs each segment its files and mapped pages)."""
        self.graphs_from = 0
        """The partition the next `build_search_graphs` starts from: where the last one ran out of time."""
        self.copies_checked: set[int] = set()
        """Partitions whose stale copies (`_stale_copies`) a compaction looked for since their shard
        was loaded (`open` forgets the mark): only a load can bring them, so once per load is enough."""
        self.slots: list[EdgeShard | None] = []
        self.reopen()

    def reopen(self) -> None:
        """Read the folder's layout again (after a compaction rewrote it, on the same object,
        so that every index holding it reads the new shards)."""
        layout = self.root / LAYOUT_FILE
        if (self.root / EDGE_CONFIG).exists():
            self.count, self.legacy, self.own_ids = 1, True, False
        elif layout.exists():
            written = json.loads(layout.read_text())
            self.count, self.legacy = int(written["partitions"]), False
            self.own_ids = written.get("point_ids") == OWN_IDS
        else:
            self.count, self.legacy, self.own_ids = self.wanted, False, True
            _write_private_json(layout, {"partitions": self.wanted, "placed_by": "crc32 of the scope's owner",
                                         "point_ids": OWN_IDS})
        self.slots = [None] * self.count
        self.with_sentences: set[int] = set()
        # Which partitions hold a shard, read once: only `ensure` (under the index's lock, in
        # the one process holding the home) adds one, so reads need not ask the disk again.
        self.present = {part for part in range(self.count) if (self.path(part) / EDGE_CONFIG).exists()}
        due = self.root / DUE_FILE
        self.dirty: set[int] = set(json.loads(due.read_text())["partitions"]) if due.exists() else set()

    def path(self, part: int) -> Path:
        return self.root if self.legacy else self.root / f"p{part}"

    def point_id(self, trace_id: str) -> str:
        """The id of a trace's point in this folder: its own UUID in folders made since points
        were named so (`own_ids`, fixed at creation), the hashed one in older folders."""
        return own_point_id(trace_id) if self.own_ids else point_id(trace_id)

    def get(self, part: int) -> EdgeShard | None:
        """The partition's shard, opened on first use; None when nothing was ever written there."""
        shard = self.slots[part]
        if shard is None and part in self.present:
            shard = self.open(part, self.path(part))
        return shard

    def open(self, part: int, path: Path) -> EdgeShard:
        """Open (or create) the partition's shard at `path` and note whether it holds sentences."""
        shard, sentences = _open_shard(path, self.dim, self.layout, sentences=self.sentences)
        self.slots[part] = shard
        self.copies_checked.discard(part)  # a load is what can bring stale copies back
        if sentences:
            self.with_sentences.add(part)
        else:
            self.with_sentences.discard(part)
        if sentences != self.sentences:  # made the other way: the next compaction rewrites it as wanted
            self.mark_dirty({part})
        return shard

    def ensure(self, part: int) -> EdgeShard:
        """The partition's shard, created if it has none yet."""
        shard = self.get(part)
        if shard is None:
            private_dir(self.path(part))
            shard = self.open(part, self.path(part))
            self.present.add(part)
        return shard

    def opened(self, part: int) -> EdgeShard:
        """A partition's shard that `existing` or `get` has opened."""
        shard = self.slots[part]
        if shard is None:
            raise RuntimeError(f"partition {part} of {self.root} is not open")
        return shard

    def existing(self, parts: Sequence[int] | None = None) -> list[tuple[int, EdgeShard]]:
        """(number, shard) of the partitions among `parts` (all by default) that hold a shard."""
        found = []
        for part in range(self.count) if parts is None else parts:
            shard = self.get(part)
            if shard is not None:
                found.append((part, shard))
        return found

    def of(self, scope_key: str) -> int:
        return 0 if self.legacy else partition_of(scope_key, self.count)

    def for_keys(self, scope_keys: Sequence[str] | None) -> list[int]:
        """The partitions a read of these scopes must ask (all of them for None)."""
        if scope_keys is None:
            return list(range(self.count))
        return sorted({self.of(k) for k in scope_keys})

    def mark_dirty(self, parts: set[int]) -> None:
        if parts - self.dirty:
            self.dirty |= parts
            _write_private_json(self.root / DUE_FILE, {"partitions": sorted(self.dirty)})

    def mark_clean(self, parts: set[int]) -> None:
        self.dirty -= parts
        if self.dirty:
            _write_private_json(self.root / DUE_FILE, {"partitions": sorted(self.dirty)})
        else:
            (self.root / DUE_FILE).unlink(missing_ok=True)

    def close(self) -> None:
        for part, shard in enumerate(self.slots):
            if shard is not None:
                self.slots[part] = None
                _close_shard(shard)


# Every shard holds its folder's write-ahead log exclusively: one `_Partitions` per folder per process.
_shards: SharedHandles[_Partitions] = SharedHandles(lambda partitions: partitions.close())

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


@telemetry.timed_vector_calls(TIMED_CALLS)
class EdgeVectorIndex:
    """Dense + BM25 sparse search over one embedding space, filtered by scope keys."""

    def __init__(self, *, model: str, dim: int, path: Path, config: VectorConfig | None = None,
                 sentences: bool = True) -> None:
        """`sentences`: whether the embedder gives sentence vectors; without them the shards
        carry no sentence storage."""
        if dim <= 0:
            raise InvalidArgument(f"dim must be positive, got {dim}", argument="dim")
        self.config = config or VectorConfig()
        self.dim = dim
        self.name = collection_name(self.config.collection_prefix, model, dim)
        self._path = (Path(path) / self.name).resolve()
        self.location = str(self._path)
        private_dir(self._path.parent)  # `qdrant-edge` and the collection's folder: 0700 from the start
        private_dir(self._path)
        self._parts, self._serial = _shards.acquire(
            self._path,
            lambda: _Partitions(self._path, dim, self.config.edge_partitions,
                                _Layout(self.config.edge_search_graph_kb, self.config.edge_quantization == "int8"),
                                sentences=sentences))
        self._closed = False

    def __repr__(self) -> str:
        return f"EdgeVectorIndex(location={self.location!r}, collection={self.name!r})"

    @property
    def partitions(self) -> int:
        return self._parts.count

    @property
    def own_point_ids(self) -> bool:
        """Whether points are named by their trace ids' own UUIDs (`naming.trace_id_of_point`
        reads a hit's trace from its id), or hashed (a folder made before)."""
        return self._parts.own_ids

    def shards_for(self, scope_keys: Sequence[str] | None) -> list[EdgeShard]:
        """The shards a read of these scopes asks (for callers measuring the engine alone)."""
        with self._serial:
            return [shard for _part, shard in self._parts.existing(self._parts.for_keys(scope_keys))]

    # ------------------------------------------------------------ plumbing

    def filter(self, scope_keys: Sequence[str] | None, *, active: bool | None = True,
               exclude_ids: Sequence[str] = (), where: Sequence[PayloadCondition] = ()) -> Filter:
        """The scope + active filter every read sends (the benchmark's floor sends it too),
        and a caller's filter conditions (`cogmem_graph.filters.payload_conditions`)."""
        must: list[Any] = [_condition(c) for c in where]
        if scope_keys is not None:
            keys = list(scope_keys)
            visible_keys(keys)
            must.append(FieldCondition(key="scope_key", match=MatchAny(any=keys)))
        if active is not None:
            must.append(FieldCondition(key=STATE, match=MatchValue(value=_state(active))))
        must_not: list[Any] | None = (
            [HasIdCondition(point_ids={self._parts.point_id(i) for i in exclude_ids})] if exclude_ids else None)
        return Filter(must=must or None, must_not=must_not)

    def _check_dim(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dim:
            raise InvalidArgument(f"vector has {len(vector)} dimensions, collection {self.name} expects {self.dim}",
                                  argument="vector")

    @staticmethod
    def _best(answers: list[tuple[EdgeShard, list]], limit: int) -> list[tuple[EdgeShard, Any]]:
        """One ranking from several partitions' answers (each already best first), each point
        beside the shard that holds it."""
        best = [(shard, p) for shard, points in answers for p in points]
        if len(answers) > 1:
            best = sorted(best, key=lambda pair: pair[1].score, reverse=True)[:limit]
        return best

    def _hits(self, best: list[tuple[EdgeShard, Any]], *, cosine: bool = False) -> list[VectorHit]:
        """Hits as the port returns them, named after the ranking is cut (the id's trace is read
        for `limit` points, not for every partition's answer); a cosine is clamped to [-1, 1]
        (float32 rounding can put identical vectors just above 1). Where points are named by
        their trace (`_Partitions.own_ids`) the search read no payload, and only a point with a
        hashed id (a trace id not minted here) has its trace id read from its shard. Callers
        hold the lock."""
        if self._parts.own_ids:
            names = [trace_id_of_point(p.id) for _shard, p in best]
            hashed: dict[int, tuple[EdgeShard, list]] = {}  # by shard: the points to read back
            for (shard, p), name in zip(best, names, strict=True):
                if name is None:
                    hashed.setdefault(id(shard), (shard, []))[1].append(p.id)
            spelled = {r.id: _payload(r)["trace_id"] for shard, ids in hashed.values()
                       for r in shard.retrieve(ids, ["trace_id"], False)}
            names = [spelled.get(p.id) if name is None else name for (_shard, p), name in zip(best, names, strict=True)]
        else:
            names = [p.payload["trace_id"] for _shard, p in best]
        return [VectorHit(name, clamp_cosine(p.score) if cosine else float(p.score))
                for name, (_shard, p) in zip(names, best, strict=True) if name is not None]

    def _locate(self, ids: Sequence[str]) -> dict[int, list]:
        """Which partition holds each of these points (missing ones are left out)."""
        wanted: list[PointId] = [self._parts.point_id(i) for i in ids]
        located: dict[int, list] = {}
        for index, shard in self._parts.existing():
            here = [r.id for r in shard.retrieve(wanted, False, False)]
            if here:
                located[index] = here
        return located

    # ------------------------------------------------------------ writes

    def upsert(self, points: Sequence[VectorPoint]) -> int:
        by_part: dict[int, list[VectorPoint]] = {}
        for p in points:
            self._check_dim(p.dense)
            by_part.setdefault(self._parts.of(p.scope_key), []).append(p)
        size = self.config.upsert_batch
        with self._serial:
            for part, chosen in by_part.items():
                shard = self._parts.ensure(part)
                # a shard made before sentence vectors: its memories keep their own vector only
                sentences = part in self._parts.with_sentences
                structs = [self._point(p, sentences) for p in chosen]
                for start in range(0, len(structs), size):
                    shard.update(UpdateOperation.upsert_points(structs[start:start + size]))
        return len(points)

    def _point(self, p: VectorPoint, sentences: bool) -> Point:
        vector: dict[str, Any] = {DENSE: list(p.dense)}
        if p.sparse:
            vector[SPARSE] = SparseVector(p.sparse.indices, p.sparse.values)
        if sentences and p.sentences:
            vector[SENTENCES] = [list(v) for v in p.sentences]
        return Point(self._parts.point_id(p.trace_id), vector, {
            **_edge_payload(p.payload),
            "trace_id": p.trace_id, "scope_key": p.scope_key, "type": p.type, "created_at": p.created_at,
            "active": p.active, STATE: _state(p.active), "content_hash": p.content_hash})

    def _set_payload(self, trace_ids: Sequence[str], payload: dict, *, dirties: bool) -> None:
        """Set payload values on the points that exist (a missing one has nothing to update;
        `repair()` re-indexes it from the graph with its state)."""
        with self._serial:
            located = self._locate(trace_ids)
            for part, ids in located.items():
                self._parts.opened(part).update(UpdateOperation.set_payload(ids, payload))
            if dirties:  # the values replaced stay in the shard's files until it is rebuilt
                self._parts.mark_dirty(set(located))

    def set_active(self, trace_ids: Sequence[str], active: bool) -> None:
        if trace_ids:
            self._set_payload(trace_ids, {"active": active, STATE: _state(active)}, dirties=False)

    def set_payload(self, trace_id: str, payload: dict) -> None:
        """Replace a point's filter fields (after a memory's tags or metadata were edited)."""
        self._set_payload([trace_id], _edge_payload(payload), dirties=True)

    def delete(self, trace_ids: Sequence[str]) -> None:
        if trace_ids:
            with self._serial:
                located = self._locate(trace_ids)
                for part, ids in located.items():
                    self._parts.opened(part).update(UpdateOperation.delete_points(ids))
                self._parts.mark_dirty(set(located))

    def delete_scopes(self, scope_keys: Sequence[str]) -> None:
        """Every point of these scopes (erasing a user)."""
        if scope_keys:
            operation = UpdateOperation.delete_points_by_filter(self.filter(scope_keys, active=None))
            with self._serial:
                touched = self._parts.existing(self._parts.for_keys(scope_keys))
                for _part, shard in touched:
                    shard.update(operation)
                self._parts.mark_dirty({part for part, _shard in touched})

    # ------------------------------------------------------------ reads

    def _request(self, query, scope_keys: Sequence[str], limit: int, *, score_threshold: float | None = None,
                 exclude_ids: Sequence[str] = (), where: Sequence[PayloadCondition] = (),
                 graph_walk: bool = False, dense: bool = False) -> QueryRequest:
        """A search's request, reading no payload where a point's id names its trace (see
        `_query`); `graph_walk`: one whose walk of a segment's search graph keeps SEARCH_EF
        candidates (the retrieval's pools; the write path's and the merge's few nearest
        neighbours keep the engine's default); `dense`: of the memories' own vectors."""
        return QueryRequest(limit=limit, query=query,
                            filter=self.filter(scope_keys, exclude_ids=exclude_ids, where=where),
                            score_threshold=score_threshold, with_payload=self._search_payload(),
                            params=self._search_params(limit, graph_walk=graph_walk, dense=dense))

    def _search_params(self, limit: int, *, graph_walk: bool, dense: bool) -> SearchParams | None:
        """The engine's search settings: SEARCH_EF for a graph walk, and for a dense search of
        int8 vectors, INT8_OVERSAMPLING times the candidates rescored with the originals."""
        ef = max(SEARCH_EF, limit) if graph_walk else None
        if dense and self._parts.layout.int8:
            return SearchParams(hnsw_ef=ef, quantization=QuantizationSearchParams(
                rescore=True, oversampling=INT8_OVERSAMPLING))
        return SearchParams(hnsw_ef=ef) if ef else None

    def _search_payload(self) -> list[str] | bool:
        """What a search reads besides ids and scores: nothing where an id names its trace."""
        return False if self._parts.own_ids else list(SEARCH_FIELDS)

    def _query(self, request: QueryRequest, scope_keys: Sequence[str], limit: int, *, cosine: bool = False,
               sentences: bool = False) -> list[VectorHit]:
        """A search of the partitions these scopes sit in (`sentences`: those holding sentence
        vectors), as hits naming their traces: the ranking is all a search's caller reads (the
        payload costs the engine more than the search: 1.2 against 0.5 ms for 100 hits)."""
        with self._serial:
            answers = [(shard, shard.query(request))
                       for part, shard in self._parts.existing(self._parts.for_keys(scope_keys))
                       if not sentences or part in self._parts.with_sentences]
            return self._hits(self._best(answers, limit), cosine=cosine)

    def search_dense(
        self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
        score_threshold: float | None = None, exclude_ids: Sequence[str] = (),
        where: Sequence[PayloadCondition] = (),
    ) -> list[VectorHit]:
        self._check_dim(vector)
        request = self._request(Query.Nearest(list(vector), using=DENSE), scope_keys, limit,
                                score_threshold=score_threshold, exclude_ids=exclude_ids, where=where,
                                graph_walk=True, dense=True)
        return self._query(request, scope_keys, limit, cosine=True)

    def search_dense_many(
        self, vectors: Sequence[Sequence[float]], scope_keys: Sequence[Sequence[str]], limit: int, *,
        score_threshold: float | None = None,
    ) -> list[list[VectorHit]]:
        """Several dense searches in one call (the write path's neighbour checks): one batch
        per partition asked."""
        if len(vectors) != len(scope_keys):
            raise InvalidArgument("search_dense_many needs one scope_keys list per vector", argument="scope_keys")
        if not vectors:
            return []
        filters: dict[tuple[str, ...], Filter] = {}  # a batch's traces mostly share their scope
        batches: dict[int, list[tuple[int, QueryRequest]]] = {}
        params = self._search_params(limit, graph_walk=False, dense=True)
        for n, (vector, keys) in enumerate(zip(vectors, scope_keys, strict=True)):
            self._check_dim(vector)
            key = tuple(keys)
            if key not in filters:
                filters[key] = self.filter(keys)
            request = QueryRequest(limit=limit, query=Query.Nearest(list(vector), using=DENSE),
                                   filter=filters[key], score_threshold=score_threshold,
                                   with_payload=self._search_payload(),
                                   params=params)
            for part in self._parts.for_keys(keys):
                batches.setdefault(part, []).append((n, request))
        answers: list[list[tuple[EdgeShard, list]]] = [[] for _ in vectors]
        with self._serial:
            for part, batch in batches.items():
                shard = self._parts.get(part)
                if shard is None:
                    continue
                results = shard.query_batch(QueryBatchRequest([r for _n, r in batch]))
                for (n, _request), points in zip(batch, results, strict=True):
                    answers[n].append((shard, points))
            return [self._hits(self._best(lists, limit), cosine=True) for lists in answers]

    def search_sparse(self, vector: BM25Vector, scope_keys: Sequence[str], limit: int, *,
                      where: Sequence[PayloadCondition] = ()) -> list[VectorHit]:
        """BM25 within each partition asked (the IDF is each partition's own)."""
        if not vector:
            return []
        request = self._request(Query.Nearest(SparseVector(vector.indices, vector.values), using=SPARSE),
                                scope_keys, limit, where=where)
        return self._query(request, scope_keys, limit)

    def search_sentences(self, vector: Sequence[float], scope_keys: Sequence[str], limit: int, *,
                         where: Sequence[PayloadCondition] = ()) -> list[VectorHit]:
        """Memories by their best sentence's cosine to `vector` (the shards that hold sentences;
        memories written without them are not among the hits)."""
        self._check_dim(vector)
        request = self._request(Query.Nearest([list(vector)], using=SENTENCES), scope_keys, limit, where=where,
                                graph_walk=True)
        return self._query(request, scope_keys, limit, cosine=True, sentences=True)

    def existing_ids(self, trace_ids: Sequence[str]) -> set[str]:
        if not trace_ids:
            return set()
        wanted: list[PointId] = [self._parts.point_id(i) for i in trace_ids]
        with self._serial:
            return {_payload(r)["trace_id"] for _part, shard in self._parts.existing()
                    for r in shard.retrieve(wanted, ["trace_id"], False)}

    def dense_vectors(self, trace_ids: Sequence[str], scope_keys: Sequence[str]) -> dict[str, list[float]]:
        keys = visible_keys(scope_keys)
        if not trace_ids:
            return {}
        wanted: list[PointId] = [self._parts.point_id(i) for i in trace_ids]
        with self._serial:
            records = [r for _part, shard in self._parts.existing(self._parts.for_keys(scope_keys))
                       for r in shard.retrieve(wanted, ["trace_id", "scope_key"], True)]
        return {_payload(r)["trace_id"]: list(_named_vectors(r)[DENSE]) for r in records
                if _payload(r).get("scope_key") in keys}

    def all_ids(self, *, active: bool | None = None) -> set[str]:
        found: set[str] = set()
        with self._serial:
            shards = [shard for _part, shard in self._parts.existing()]
        for shard in shards:
            offset = None
            while True:
                with self._serial:
                    records, offset = shard.scroll(ScrollRequest(
                        offset=offset, limit=_SCROLL_PAGE, filter=self.filter(None, active=active),
                        with_payload=["trace_id"], with_vector=False))
                found.update(_payload(r)["trace_id"] for r in records)
                if offset is None:
                    break
        return found

    def count(self, scope_keys: Sequence[str] | None = None, *, active: bool | None = True) -> int:
        request = CountRequest(exact=True, filter=self.filter(scope_keys, active=active))
        with self._serial:
            return sum(int(shard.count(request))
                       for _part, shard in self._parts.existing(self._parts.for_keys(scope_keys)))

    def stale_copies(self) -> int:
        """Copies of points that an unclean stop left in the engine's segments beside their live
        version (searches skip them, but scan them and map their files); the next `compact()`
        drops them."""
        with self._serial:
            return sum(_stale_copies(shard)[0] for _part, shard in self._parts.existing())

    def make_ready(self) -> None:
        """Open every partition's shard, creating those nothing was written to yet. The binding
        keeps Python's interpreter lock while it creates a shard and its payload indexes
        (0.35-1.1 s here) or loads one (0.06-0.2 s), which stops every other thread meanwhile:
        done up front, no request of a new user pays for it, nor does an async caller's event
        loop. An empty shard takes about 0.3 MB on disk."""
        with self._serial:
            for part in range(self._parts.count):
                self._parts.ensure(part)

    def ping(self) -> None:
        """Each shard's info, read once: cheap (no scan). Waits at most PING_TIMEOUT_S for another
        call on the index to finish; raises VectorStoreUnavailable naming the folder."""
        if self._closed:
            raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
        if not self._serial.acquire(timeout=PING_TIMEOUT_S):
            raise VectorStoreUnavailable(
                f"Qdrant Edge index at {self.location} is busy: another call has held it for more than "
                f"{PING_TIMEOUT_S:.0f} s", url=self.location)
        try:
            for _part, shard in self._parts.existing():
                shard.info()
        except Exception as exc:  # the binding raises bare Exceptions
            raise VectorStoreUnavailable(
                f"Qdrant Edge index at {self.location} did not answer ({type(exc).__name__}: {exc})",
                url=self.location) from exc
        finally:
            self._serial.release()

    # ------------------------------------------------------------ compaction

    def compact(self) -> dict[str, Any]:
        """Leave deleted points in no file of the index's folder, and say what it did.

        A deleted point stays in the engine's files: its payload and vectors in the segment
        files (only flagged deleted; a vacuum drops them only past the optimizer's thresholds),
        and the upsert that wrote it in the write-ahead log, which this binding (0.9) cannot
        truncate. So each partition that lost points (or had payload values replaced) since
        its last rebuild is rebuilt: its live points, with vectors and payload, are copied
        into a new shard in a hidden folder beside it, the count is checked, and the two
        folders are swapped in one step; the old folder is then deleted. Until the swap the
        old shard is untouched, so a failure or a crash loses nothing (a crash leaves a hidden
        `.p<N>.compact-*` folder, removed by the next compaction). Every index on the folder
        in this process waits on the shared lock meanwhile and then reads the new shard.
        Copying costs about 1.5 s per 10k points (the binding converts every payload value
        between Python and the engine, holding the GIL), which is why a user's memories sit in
        one partition: erasing a user rebuilds that partition only. A folder from before
        partitions (one shard at its root) is rewritten whole into partitions.

        A partition is also rebuilt when an unclean stop left stale copies of its points in
        the engine's segments (`stale_copies`), looked for once per partition after it is
        opened.

        A rebuilt partition has no search graph until `build_search_graphs` (which
        `consolidate()` runs after compacting) builds it again."""
        started = time.monotonic()
        with self._serial:
            if self._closed:
                raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
            parts = self._parts
            for _part, shard in parts.existing():
                shard.flush()
            before = _disk_bytes(self._path)
            for leftover in [*self._path.parent.glob(f".{self.name}.compact-*"), *self._path.glob(".p*.compact-*")]:
                shutil.rmtree(leftover, ignore_errors=True)
            stale = 0
            if parts.legacy:
                points, rebuilt, swap = self._repartition(), list(range(parts.count)), "exchange"
            else:
                stale = self._mark_stale_partitions()
                rebuilt, points, swap = sorted(parts.dirty), 0, "none"
                for part in rebuilt:
                    copied, swap = self._rebuild_partition(part)
                    points += copied
            _make_private(self._path)
        return {"vectors": "qdrant-edge", "location": self.location, "points": points,
                "partitions_rebuilt": len(rebuilt), "partitions": self.partitions, "stale_copies_dropped": stale,
                "disk_bytes_before": before, "disk_bytes_after": _disk_bytes(self._path), "swap": swap,
                "seconds": round(time.monotonic() - started, 3)}

    def _mark_stale_partitions(self) -> int:
        """Mark for rebuilding each partition loaded since the last look that holds stale copies
        (at least STALE_SHARE of its live points); how many copies they hold. Callers hold the lock."""
        parts, stale = self._parts, 0
        for part, shard in parts.existing():
            if part in parts.copies_checked:
                continue
            parts.copies_checked.add(part)
            copies, live = _stale_copies(shard)
            if copies and copies >= STALE_SHARE * live:
                log.warning("vector partition %s of %s holds %d stale copies of its points (left by a process "
                            "that stopped without closing the store); rebuilding it", part, self.location, copies)
                stale += copies
                parts.mark_dirty({part})
        return stale

    def build_search_graphs(self, budget_s: float | None = GRAPH_BUDGET_S) -> dict[str, Any]:
        """Build the search graph (HNSW) of every segment that reached `edge_search_graph_kb`
        and has none yet, partition after partition: one at least, then the next only while
        less than `budget_s` seconds have passed (None: all of them); say what it did.

        Without one, a search scans every point of its scope (a 100-hit dense search over a
        200k store's user and organisation: ~24 ms, against ~5 ms with graphs walked as
        SEARCH_EF says, the same hits but for ~1 in 100), which grew with the store on every
        write, retrieval and merge. The engine builds a graph per segment and merges segments only up to
        SEGMENT_KB, so a run indexes what was written since the last one; points under the
        threshold stay in the segment that takes new writes, scanned, until it is large
        enough. The engine holds the interpreter lock while it builds a partition (the
        process's other threads wait): the budget bounds that to about one partition's work
        past it, and the next run starts with the partitions left. A compaction
        rewrites a partition without graphs; the next run builds them again."""
        started = time.monotonic()
        if not self.config.edge_search_graph_kb:
            return {"vectors": "qdrant-edge", "skipped": "vectors.edge_search_graph_kb is 0: searches scan"}
        built, indexed, points, left = 0, 0, 0, 0
        with self._serial:
            if self._closed:
                raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
            parts = self._parts.existing()
            first = next((i for i, (part, _shard) in enumerate(parts) if part >= self._parts.graphs_from), 0)
            for n, (part, shard) in enumerate(parts[first:] + parts[:first]):  # where the last run stopped
                before = shard.info()
                if n and budget_s is not None and time.monotonic() - started >= budget_s:
                    if not left:
                        self._parts.graphs_from = part
                    left += 1
                else:
                    shard.optimize()
                    # At once, not at close: the engine's log still holds the upserts of the points
                    # it just moved into new segments, and after an unclean stop (a kill, a crash)
                    # it replays them beside the moved copies unless those segments are on disk.
                    # The copies are never merged away: searches scan them and memory maps them.
                    shard.flush()
                after = shard.info()
                if (after.indexed_vectors_count, after.segments_count) != (before.indexed_vectors_count,
                                                                            before.segments_count):
                    built += 1
                indexed += after.indexed_vectors_count
                points += after.points_count
            if not left:
                self._parts.graphs_from = 0
            if built:
                _make_private(self._path)  # the segments the engine just wrote
        return {"vectors": "qdrant-edge", "partitions_optimized": built, "partitions_left": left, "points": points,
                "indexed_vectors": indexed, "seconds": round(time.monotonic() - started, 3)}

    def _rebuild_partition(self, part: int) -> tuple[int, str]:
        parts = self._parts
        old = parts.get(part)
        if old is None:  # nothing was ever written there
            parts.mark_clean({part})
            return 0, "none"
        live = parts.path(part)
        work = Path(tempfile.mkdtemp(prefix=f".{live.name}.compact-", dir=self._path))
        try:
            fresh, _ = _open_shard(work, self.dim, parts.layout, sentences=parts.sentences)
            try:
                points = self._copy_live_points([old], lambda _key: fresh, lambda: [fresh], parts.point_id)
            except BaseException:
                fresh.close()
                raise
            _close_shard(fresh)
            _make_private(work)
            parts.slots[part] = None
            _close_shard(old)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            if parts.slots[part] is None:
                parts.get(part)
            raise
        try:
            swap = _swap_folders(work, live)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            parts.get(part)
            raise
        try:
            parts.open(part, live)
        except BaseException:
            _swap_folders(work, live)  # the old folder back in place
            parts.get(part)
            shutil.rmtree(work, ignore_errors=True)
            raise
        shutil.rmtree(work)  # the old shard: deleted points' payloads, vectors and log
        parts.mark_clean({part})
        return points, swap

    def _repartition(self) -> int:
        """The folder's points rewritten into a fresh folder of partitions whose points are
        named by their trace (`_Partitions.own_ids`); the folders swapped whole. For an older
        folder: one shard at its root, or partitions with hashed point ids."""
        old_parts = self._parts
        work = Path(tempfile.mkdtemp(prefix=f".{self.name}.compact-", dir=self._path.parent))
        try:
            olds = [shard for _part, shard in old_parts.existing()]
            if not olds:
                raise RuntimeError(f"{self._path} holds no shard to repartition")
            fresh = _Partitions(work, self.dim, self.config.edge_partitions, old_parts.layout,
                                sentences=old_parts.sentences)
            try:
                points = self._copy_live_points(olds, lambda key: fresh.ensure(fresh.of(key)),
                                                lambda: [shard for _part, shard in fresh.existing()], fresh.point_id)
            finally:
                fresh.close()
            _make_private(work)
            old_parts.close()
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        try:
            _swap_folders(work, self._path)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            old_parts.reopen()
            raise
        shutil.rmtree(work)
        old_parts.reopen()  # the same object: every index on the folder sees the new shards
        return points

    def rename_points(self, on_progress: Callable[[int], None] | None = None) -> int:
        """Name every point by its trace's own UUID, in a folder made before points were so
        named (or before partitions): the folder is rewritten into a fresh one and swapped in
        whole, so an interruption leaves the old folder as it was (a leftover hidden folder
        goes at the next compaction or rename). The points rewritten (0: nothing to do)."""
        with self._serial:
            if self._closed:
                raise VectorStoreUnavailable(f"vector index {self.location} is closed", url=self.location)
            parts = self._parts
            if parts.own_ids and not parts.legacy:
                return 0
            for _part, shard in parts.existing():
                shard.flush()
            for leftover in self._path.parent.glob(f".{self.name}.compact-*"):
                shutil.rmtree(leftover, ignore_errors=True)
            points = self._repartition() if parts.present else 0
            _make_private(self._path)
        if on_progress:
            on_progress(points)
        return points

    @property
    def needs_renaming(self) -> bool:
        """Whether this folder was made before points were named by their trace (see `rename_points`)."""
        return self._parts.legacy or not self._parts.own_ids

    def _copy_live_points(self, olds: Sequence[EdgeShard], target: Callable[[str], EdgeShard],
                          fresh_shards: Callable[[], list[EdgeShard]], name: Callable[[str], str]) -> int:
        """Every point of the `olds` into the fresh shard(s) `target(scope_key)` picks (opened as
        they are needed; `fresh_shards()` lists them), each under the id `name(trace_id)` gives
        in its new folder; the caller closes them."""
        copied = 0
        for old in olds:
            copied += self._copy_shard(old, target, name)
        expected = sum(int(old.count(CountRequest(exact=True))) for old in olds)
        landed = sum(int(shard.count(CountRequest(exact=True))) for shard in fresh_shards())
        if landed != expected or copied != expected:
            raise VectorStoreUnavailable(
                f"compacting {self.location}: {copied} points copied of {expected}; the shard was left as it was",
                url=self.location)
        return copied

    @staticmethod
    def _copy_shard(old: EdgeShard, target: Callable[[str], EdgeShard], name: Callable[[str], str]) -> int:
        copied, offset = 0, None
        while True:
            records, offset = old.scroll(ScrollRequest(
                offset=offset, limit=_SCROLL_PAGE, with_payload=True, with_vector=True))
            batches: dict[int, tuple[EdgeShard, list[Point]]] = {}
            for r in records:
                payload = _payload(r)
                shard = target(payload.get("scope_key", ""))
                batches.setdefault(id(shard), (shard, []))[1].append(Point(name(payload["trace_id"]), _vector(r),
                                                                           payload))
            for shard, points in batches.values():
                shard.update(UpdateOperation.upsert_points(points))
            copied += len(records)
            if offset is None:
                return copied

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _shards.release(self._path)  # the last index on the folder flushes and closes the shards
        _make_private(self._path)  # files the engine made since it opened

    def __enter__(self) -> EdgeVectorIndex:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
