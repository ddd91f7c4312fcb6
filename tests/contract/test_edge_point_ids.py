"""The embedded vector index names a point by its trace id's own UUID, so a search reads
ids and scores and no payload; ids it did not mint, and folders made with hashed ids, keep
working as before."""

from __future__ import annotations

import json
from pathlib import Path

from qdrant_edge import UpdateOperation

from cogmem_graph.lexical import bm25_document_vector, bm25_query_vector
from cogmem_graph.model import new_trace_id
from cogmem_graph.vectors.naming import collection_name, own_point_id, point_id
from cogmem_graph.vectors.port import VectorPoint
from cogmem_graph.vectors.qdrant_edge import LAYOUT_FILE, EdgeVectorIndex, _open_shard

DIM = 4
KEY = "user:acme/u1"


def _point(trace_id: str, dense: list[float], text: str = "", scope_key: str = KEY) -> VectorPoint:
    return VectorPoint(trace_id=trace_id, scope_key=scope_key, type="episodic", created_at=1, dense=dense,
                       sparse=bm25_document_vector(text) if text else None, content_hash=f"h-{trace_id}")


def _ids_in_shards(index: EdgeVectorIndex, trace_ids: list[str]) -> set[str]:
    """The point ids the shards hold for these traces, either way they may be named."""
    wanted = [own_point_id(t) for t in trace_ids] + [point_id(t) for t in trace_ids]
    return {str(r.id) for shard in index.shards_for(None) for r in shard.retrieve(wanted, False, False)}


def test_searches_name_minted_traces_by_their_point_ids(tmp_path: Path) -> None:
    first, second, other = new_trace_id(), new_trace_id(), new_trace_id()
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        assert index.own_point_ids
        index.upsert([_point(first, [1, 0, 0, 0], "the blue kayak by the lake"),
                      _point(second, [1, 1, 0, 0], "a red bicycle"),
                      _point(other, [1, 0, 0, 0], "the blue kayak", scope_key="user:evil/u9")])
        assert _ids_in_shards(index, [first, second]) == {own_point_id(first), own_point_id(second)}
        # The payload's trace id is not what a search reads: spoil it, and the hits still name the traces.
        for shard in index.shards_for([KEY]):
            shard.update(UpdateOperation.set_payload([own_point_id(first), own_point_id(second)],
                                                     {"trace_id": "spoiled"}))
        assert [h.trace_id for h in index.search_dense([1, 0.1, 0, 0], [KEY], 10)] == [first, second]
        assert [h.trace_id for h in index.search_dense_many([[1, 0.1, 0, 0]], [[KEY]], 10)[0]] == [first, second]
        assert [h.trace_id for h in index.search_sparse(bm25_query_vector("kayak"), [KEY], 10)] == [first]
        assert [h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10, exclude_ids=[first])] == [second]


def test_ids_not_minted_here_are_hashed_and_found_beside_minted_ones(tmp_path: Path) -> None:
    minted = new_trace_id()
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        index.upsert([_point(minted, [1, 0, 0, 0], "kayak trip"), _point("imported-7", [1, 0.2, 0, 0], "kayak rental"),
                      _point("mt_" + "0" * 32, [1, 0.4, 0, 0])])  # looks minted, is not a UUIDv4
        assert _ids_in_shards(index, [minted, "imported-7", "mt_" + "0" * 32]) == {
            own_point_id(minted), point_id("imported-7"), point_id("mt_" + "0" * 32)}
        hits = index.search_dense([1, 0, 0, 0], [KEY], 10)
        assert [h.trace_id for h in hits] == [minted, "imported-7", "mt_" + "0" * 32]
        [many] = index.search_dense_many([[1, 0, 0, 0]], [[KEY]], 10)
        assert [h.trace_id for h in many] == [minted, "imported-7", "mt_" + "0" * 32]
        assert {h.trace_id for h in index.search_sparse(bm25_query_vector("kayak"), [KEY], 10)} == {
            minted, "imported-7"}
        assert [h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10, exclude_ids=["imported-7"])] == [
            minted, "mt_" + "0" * 32]
        index.set_active(["imported-7"], False)
        assert [h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10)] == [minted, "mt_" + "0" * 32]
        index.delete([minted, "imported-7"])
        assert index.all_ids(active=None) == {"mt_" + "0" * 32}
        index.compact()  # the rebuilt partition keeps each point's id
        assert _ids_in_shards(index, ["mt_" + "0" * 32]) == {point_id("mt_" + "0" * 32)}


def test_a_folder_made_with_hashed_ids_keeps_them(tmp_path: Path) -> None:
    """A folder whose layout predates own ids: its points stay hashed through writes and
    compactions, and its searches read the trace ids from the payload."""
    root = tmp_path / collection_name("cogmem", "m", DIM)
    root.mkdir(parents=True)
    (root / LAYOUT_FILE).write_text(json.dumps({"partitions": 8, "placed_by": "crc32 of the scope's owner"}))
    traces = [new_trace_id() for _ in range(3)]
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        assert not index.own_point_ids
        index.upsert([_point(t, [1, n * 0.3, 0, 0], "kayak") for n, t in enumerate(traces)])
        assert _ids_in_shards(index, traces) == {point_id(t) for t in traces}
        assert [h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10)] == traces
        index.delete([traces[0]])
        assert index.compact()["partitions_rebuilt"] == 1
        assert _ids_in_shards(index, traces) == {point_id(t) for t in traces[1:]}
        assert [h.trace_id for h in index.search_sparse(bm25_query_vector("kayak"), [KEY], 10)] != []
        assert {h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10)} == set(traces[1:])
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as reopened:
        assert not reopened.own_point_ids


def test_a_folder_from_before_partitions_gets_own_ids_when_rewritten(tmp_path: Path) -> None:
    root = tmp_path / collection_name("cogmem", "m", DIM)
    root.mkdir(parents=True)
    old, _ = _open_shard(root, DIM)
    old.close()
    traces = [new_trace_id() for _ in range(4)]
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        assert not index.own_point_ids
        index.upsert([_point(t, [1, n * 0.3, 0, 0]) for n, t in enumerate(traces)])
        assert _ids_in_shards(index, traces) == {point_id(t) for t in traces}
        index.compact()
        assert index.own_point_ids and index.partitions == 8
        assert _ids_in_shards(index, traces) == {own_point_id(t) for t in traces}
        assert [h.trace_id for h in index.search_dense([1, 0, 0, 0], [KEY], 10)] == traces
        index.delete([traces[1]])
        assert index.all_ids() == set(traces) - {traces[1]}
