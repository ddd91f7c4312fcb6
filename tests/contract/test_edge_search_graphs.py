"""The embedded vector index builds its segments' search graphs (HNSW) when asked, and only
for segments of `vectors.edge_search_graph_kb` and more: searches find what they found by
scanning, points written afterwards are found and indexed by the next build, the files it
writes are private, and a compaction after a forget still leaves nothing behind."""

from __future__ import annotations

import os
import random
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.vectors.port import VectorPoint
from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex

DIM = 32
MINE, OTHERS = "user:acme/u1", "user:acme/u2"


def _vectors(n: int, seed: int) -> list[list[float]]:
    """Clustered vectors, as embeddings are: 20 centres, each point near one."""
    rng = random.Random(seed)
    centres = [[rng.gauss(0, 1) for _ in range(DIM)] for _ in range(20)]
    return [[c + 0.4 * rng.gauss(0, 1) for c in centres[i % 20]] for i in range(n)]


def _points(scope_key: str, prefix: str, vectors: list[list[float]], marker: str = "") -> list[VectorPoint]:
    return [VectorPoint(trace_id=f"{prefix}{i}", scope_key=scope_key, type="episodic", created_at=i, dense=v,
                        content_hash=marker) for i, v in enumerate(vectors)]


@contextmanager
def _index(path: Path, graph_kb: int, quantization: str = "none") -> Iterator[EdgeVectorIndex]:
    # One partition: both users' points share the segments the graphs are built on.
    index = EdgeVectorIndex(model="m", dim=DIM, path=path,
                            config=VectorConfig(edge_partitions=1, edge_search_graph_kb=graph_kb,
                                                edge_quantization=quantization))
    try:
        yield index
    finally:
        index.close()


def _nearest(index: EdgeVectorIndex, queries: list[list[float]]) -> list[list[str]]:
    return [[hit.trace_id for hit in index.search_dense(q, [MINE], 10)] for q in queries]


def test_built_graphs_find_what_the_scan_found_within_the_scope(tmp_path: Path) -> None:
    mine, others = _vectors(1500, seed=1), _vectors(1500, seed=2)
    with _index(tmp_path, graph_kb=16) as index:
        index.upsert(_points(MINE, "m", mine) + _points(OTHERS, "o", others))
        queries = mine[:40]
        scanned = _nearest(index, queries)
        report = index.build_search_graphs()
        assert report["partitions_optimized"] == 1 and report["points"] == 3000, report
        built = _nearest(index, queries)
        assert all(found[0] == f"m{i}" for i, found in enumerate(built))  # a stored vector finds itself first
        assert all(tid.startswith("m") for found in built for tid in found)  # never another user's point
        shared = sum(len(set(a) & set(b)) for a, b in zip(scanned, built, strict=True)) / (10 * len(queries))
        assert shared >= 0.9, shared
        assert index.build_search_graphs()["partitions_optimized"] == 0  # nothing new: nothing to do


def test_int8_vectors_are_built_with_the_graphs_and_searches_rescored_find_what_the_scan_found(
        tmp_path: Path) -> None:
    """`edge_quantization="int8"`: a build also writes each segment's vectors quantized (kept in
    RAM, the originals on disk), and a search, rescored with the originals, still finds what
    the scan found, scores and scope included; a folder made without it takes it on."""
    mine, others = _vectors(1500, seed=1), _vectors(1500, seed=2)
    with _index(tmp_path, graph_kb=16) as index:  # made without quantization
        index.upsert(_points(MINE, "m", mine) + _points(OTHERS, "o", others))
        queries = mine[:40]
        scanned = [index.search_dense(q, [MINE], 10) for q in queries]
    assert not list(tmp_path.rglob("quantized.data"))
    with _index(tmp_path, graph_kb=16, quantization="int8") as index:
        index.build_search_graphs()
        assert list(tmp_path.rglob("quantized.data")), "the built segments hold their int8 vectors"
        built = [index.search_dense(q, [MINE], 10) for q in queries]
    assert all(hits[0].trace_id == f"m{i}" for i, hits in enumerate(built))
    assert all(hit.trace_id.startswith("m") for hits in built for hit in hits)
    shared = sum(len({h.trace_id for h in a} & {h.trace_id for h in b})
                 for a, b in zip(scanned, built, strict=True)) / (10 * len(queries))
    assert shared >= 0.9, shared
    for by_scan, by_graph in zip(scanned, built, strict=True):
        exact = {h.trace_id: h.score for h in by_scan}
        assert all(abs(h.score - exact[h.trace_id]) < 1e-4 for h in by_graph if h.trace_id in exact), (
            "rescored with the originals: the same cosine as the scan's")


def test_points_written_after_a_build_are_found_and_the_next_build_indexes_them(tmp_path: Path) -> None:
    with _index(tmp_path, graph_kb=16) as index:
        index.upsert(_points(MINE, "m", _vectors(1500, seed=1)))
        first = index.build_search_graphs()
        late = _vectors(1500, seed=3)
        index.upsert(_points(MINE, "late", late))
        assert [index.search_dense(v, [MINE], 1)[0].trace_id for v in late[:20]] == [f"late{i}" for i in range(20)]
        second = index.build_search_graphs()
        assert second["points"] == 3000 and second["indexed_vectors"] > first["indexed_vectors"], (first, second)


def test_a_build_out_of_time_leaves_the_other_partitions_to_the_next(tmp_path: Path) -> None:
    index = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path,
                            config=VectorConfig(edge_partitions=8, edge_search_graph_kb=16))
    try:
        index.upsert(_points(MINE, "m", _vectors(1500, seed=1)) + _points(OTHERS, "o", _vectors(1500, seed=2)))
        one = index.build_search_graphs(budget_s=0)  # one partition at least, then out of time
        assert one["partitions_optimized"] == 1 and one["partitions_left"] == 1, one
        other = index.build_search_graphs(budget_s=0)  # the next run starts with the one left
        assert other["partitions_optimized"] == 1 and other["partitions_left"] == 1, other
        done = index.build_search_graphs(budget_s=None)
        assert done["partitions_optimized"] == 0 and done["partitions_left"] == 0, done
    finally:
        index.close()


def test_a_segment_under_the_threshold_or_a_threshold_of_zero_is_left_to_the_scan(tmp_path: Path) -> None:
    with _index(tmp_path / "small", graph_kb=100_000) as index:
        index.upsert(_points(MINE, "m", _vectors(500, seed=1)))
        assert index.build_search_graphs()["partitions_optimized"] == 0
    with _index(tmp_path / "never", graph_kb=0) as index:
        index.upsert(_points(MINE, "m", _vectors(1500, seed=1)))
        assert "skipped" in index.build_search_graphs()


def test_what_a_build_writes_is_private_and_a_compaction_after_it_leaves_nothing_behind(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with _index(tmp_path, graph_kb=16) as index:
            index.upsert(_points(MINE, "m", _vectors(1500, seed=1), marker="keep")
                         + _points(OTHERS, "o", _vectors(1500, seed=2), marker="leaver-secret"))
            assert index.build_search_graphs()["partitions_optimized"] == 1
            for root, dirs, files in os.walk(index.location):
                for name in dirs:
                    assert stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode) == 0o700, (root, name)
                for name in files:
                    assert stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode) == 0o600, (root, name)
            index.delete_scopes([OTHERS])
            index.compact()
            for root, _dirs, files in os.walk(index.location):
                for name in files:
                    assert b"leaver-secret" not in Path(root, name).read_bytes(), os.path.join(root, name)
            assert index.build_search_graphs()["partitions_optimized"] == 1  # the rebuilt partition, again
            assert index.search_dense(_vectors(1500, seed=1)[7], [MINE], 1)[0].trace_id == "m7"
    finally:
        os.umask(old)


@pytest.mark.parametrize("graph_kb", [16])
def test_consolidation_builds_the_graphs_of_what_was_written(tmp_path: Path, graph_kb: int) -> None:
    import cogmem_graph as cg
    from cogmem_graph.clock import ManualClock

    config = cg.CogmemConfig()
    config.vectors.edge_search_graph_kb = graph_kb
    with cg.open(home=tmp_path / "home", embedder="hash", config=config, clock=ManualClock(1_700_000_000_000)) as store:
        agent = store.agent("a", user_id="u1")
        texts = [f"Parcel {i} for the {['north', 'south', 'east'][i % 3]} depot leaves on dock {i % 13}"
                 for i in range(1200)]
        agent.encode_many([{"content": t} for t in texts])
        result = store.consolidate()
        assert result.search_graph_ms > 0
        assert store.vectors.build_search_graphs()["partitions_optimized"] == 0  # consolidation built them
        assert store.consolidation_log.runs()[0]["search_graph_ms"] == result.search_graph_ms
        assert agent.retrieve(texts[321], top_k=3, record_access=False).traces[0].trace.content == texts[321]
