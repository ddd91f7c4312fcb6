"""The embedded vector index keeps each user's memories in one partition (one Qdrant Edge
shard), so that compacting after an erase rewrites that partition only; reads of several
scopes ask every partition they live in and rank the answers together."""

from __future__ import annotations

import os
from pathlib import Path

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.vectors.naming import collection_name
from cogmem_graph.vectors.port import VectorPoint
from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex, _open_shard, owner_of, partition_of

DIM = 8


def _vec(i: int) -> list[float]:
    return [1.0 if j == i % DIM else 0.1 * ((i + j) % 3) for j in range(DIM)]


def _points(scope_key: str, prefix: str, n: int, *, marker: str = "") -> list[VectorPoint]:
    return [VectorPoint(trace_id=f"{prefix}{i}", scope_key=scope_key, type="episodic", created_at=i,
                        dense=_vec(i), content_hash=marker) for i in range(n)]


def _two_keys_in_different_partitions(partitions: int) -> tuple[str, str]:
    first = "user:acme/u0"
    for k in range(1, 200):
        other = f"user:acme/u{k}"
        if partition_of(other, partitions) != partition_of(first, partitions):
            return first, other
    raise AssertionError("no two users in different partitions")


def _tree_state(folder: Path) -> tuple[int, set[str]]:
    """The shard folder's inode and its segments' names: a rebuilt shard has new ones of both."""
    return folder.stat().st_ino, {p.name for p in (folder / "segments").iterdir()}


def test_a_thread_lives_with_its_user() -> None:
    assert owner_of("thread:acme/u1/t9") == "user:acme/u1"
    assert owner_of("thread:u1/t9") == "user:u1"
    assert owner_of("organization:acme") == "organization:acme"
    for partitions in (2, 8, 31):
        assert partition_of("thread:acme/u1/t9", partitions) == partition_of("user:acme/u1", partitions)


def test_compaction_rewrites_only_the_partitions_that_lost_points(tmp_path: Path) -> None:
    leaver, stayer = _two_keys_in_different_partitions(8)
    thread = "thread:" + leaver.split(":", 1)[1] + "/t1"
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        assert index.partitions == 8
        index.upsert(_points(leaver, "l", 30, marker="leaver-secret")
                     + _points(thread, "lt", 10, marker="leaver-secret")
                     + _points(stayer, "s", 30))
        stayer_folder = Path(index.location) / f"p{partition_of(stayer, 8)}"
        untouched = _tree_state(stayer_folder)
        index.delete_scopes([leaver, thread])
        report = index.compact()
        assert report["partitions_rebuilt"] == 1 and report["points"] == 0, report
        assert _tree_state(stayer_folder) == untouched  # the other user's shard was not rewritten
        assert index.count([stayer]) == 30 and index.count([leaver, thread]) == 0
        assert index.compact()["partitions_rebuilt"] == 0  # nothing left to do
        for root, _dirs, files in os.walk(index.location):
            for name in files:
                assert b"leaver-secret" not in Path(root, name).read_bytes(), os.path.join(root, name)


def test_what_is_due_survives_a_restart(tmp_path: Path) -> None:
    key = "user:u1"
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        index.upsert(_points(key, "t", 20))
        index.delete(["t0", "t1"])
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as reopened:
        report = reopened.compact()
        assert report["partitions_rebuilt"] == 1 and report["points"] == 18, report
        assert reopened.existing_ids(["t0", "t2"]) == {"t2"}


def test_a_read_of_several_scopes_ranks_across_partitions(tmp_path: Path) -> None:
    mine, shared = _two_keys_in_different_partitions(4)
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path, config=VectorConfig(edge_partitions=4)) as index:
        index.upsert([VectorPoint(trace_id="near", scope_key=shared, type="semantic", created_at=1, dense=_vec(3)),
                      VectorPoint(trace_id="far", scope_key=mine, type="semantic", created_at=2, dense=_vec(5)),
                      VectorPoint(trace_id="nearish", scope_key=mine, type="semantic", created_at=3,
                                  dense=[x + (0.3 if j == 4 else 0.0) for j, x in enumerate(_vec(3))])])
        hits = index.search_dense(_vec(3), [mine, shared], limit=2)
        assert [h.trace_id for h in hits] == ["near", "nearish"]
        assert [h.trace_id for h in index.search_dense(_vec(3), [mine], limit=5)] == ["nearish", "far"]
        many = index.search_dense_many([_vec(3), _vec(5)], [[mine, shared], [shared]], limit=1)
        assert [[h.trace_id for h in hits] for hits in many] == [["near"], ["near"]]
        assert index.count() == 3 and index.all_ids() == {"near", "far", "nearish"}
        index.set_active(["far", "missing"], False)  # a point in no partition is left alone
        assert index.count([mine]) == 1


def test_a_folder_from_before_partitions_is_read_then_rewritten_into_them(tmp_path: Path) -> None:
    """A home made when the index was one shard keeps working; its first compaction moves it
    into partitions with every live point."""
    root = tmp_path / collection_name("cogmem", "m", DIM)
    root.mkdir(parents=True)
    old, _ = _open_shard(root, DIM)
    old.close()
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        assert index.partitions == 1
        index.upsert(_points("user:a", "a", 15) + _points("user:b", "b", 15))
        index.delete(["a0"])
        assert index.count(["user:a"]) == 14
        report = index.compact()
        assert report["points"] == 29 and index.partitions == 8, report
        assert not (root / "edge_config.json").exists() and (root / "partitions.json").exists()
        assert index.count(["user:a"]) == 14 and index.count(["user:b"]) == 15
        assert index.search_dense(_vec(2), ["user:b"], limit=1)[0].trace_id == "b2"
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as reopened:
        assert reopened.partitions == 8 and reopened.count() == 29


def test_make_ready_opens_every_partition_so_no_write_creates_one(tmp_path: Path) -> None:
    with EdgeVectorIndex(model="m", dim=DIM, path=tmp_path) as index:
        folder = Path(index.location)
        assert not [p for p in folder.iterdir() if p.is_dir()]  # nothing written: no partition yet
        index.make_ready()
        made = sorted(p.name for p in folder.iterdir() if p.is_dir())
        assert made == [f"p{i}" for i in range(8)]
        states = {name: _tree_state(folder / name) for name in made}
        index.make_ready()  # again: nothing to do
        assert {name: _tree_state(folder / name) for name in made} == states
        key = "user:acme/u1"
        index.upsert(_points(key, "a", 3))
        assert index.count([key]) == 3 and sorted(p.name for p in folder.iterdir() if p.is_dir()) == made
