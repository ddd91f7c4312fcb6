"""A process killed after the embedded vector index built its search graphs leaves no stale
copies of points behind (the engine's log replay would put the moved points back beside
their new copies, for good), and a compaction drops copies a store made before that fix
still holds. Each step runs in a child process that ends as a killed one does: no close,
no flush."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex
from tests.reliability.conftest import python_child

DIM = 16
SCOPE = "user:acme/u1"

CHILD = """
import os, random, sys
from pathlib import Path
from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.vectors.port import VectorPoint
from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex

path, prefix, how, end = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
index = EdgeVectorIndex(model="m", dim=16, path=path, config=VectorConfig(edge_partitions=1, edge_search_graph_kb=16))
index.make_ready()
if prefix:
    rng = random.Random(prefix)
    index.upsert([VectorPoint(trace_id=f"{prefix}{i}", scope_key="user:acme/u1", type="episodic", created_at=i,
                              dense=[rng.gauss(0, 1) for _ in range(16)]) for i in range(1500)])
if how == "graphs":
    index.build_search_graphs(budget_s=None)
elif how == "engine":  # the engine's optimizer alone, as the index ran it before it flushed
    for _part, shard in index._parts.existing():
        shard.optimize()
if end == "kill":
    os._exit(0)
index.close()
"""


def _run(path: Path, prefix: str, how: str, end: str) -> None:
    child = python_child("-c", CHILD, str(path), prefix, how, end, stderr=subprocess.PIPE, text=True)
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err


def _index(path: Path) -> EdgeVectorIndex:
    return EdgeVectorIndex(model="m", dim=DIM, path=path,
                           config=VectorConfig(edge_partitions=1, edge_search_graph_kb=16))


def _each_found_once(index: EdgeVectorIndex, ids: list[str]) -> None:
    vectors = index.dense_vectors(ids, [SCOPE])
    assert len(vectors) == len(ids)
    for trace_id in ids[::50]:
        hits = [hit.trace_id for hit in index.search_dense(vectors[trace_id], [SCOPE], 20)]
        assert hits[0] == trace_id
        assert len(hits) == len(set(hits))


def test_search_graphs_built_before_a_kill_leave_no_stale_copies(tmp_path: Path) -> None:
    _run(tmp_path, "a", "graphs", "close")
    _run(tmp_path, "b", "graphs", "kill")   # written, graphs built, killed
    _run(tmp_path, "", "graphs", "kill")    # reopened after the kill, graphs built, killed again
    _run(tmp_path, "c", "graphs", "kill")
    index = _index(tmp_path)
    try:
        assert index.count(active=None) == 4500
        assert index.stale_copies() == 0
        _each_found_once(index, [f"{p}{i}" for p in "abc" for i in range(1500)])
    finally:
        index.close()


def test_a_compaction_drops_the_stale_copies_an_unclean_stop_left(tmp_path: Path, caplog) -> None:
    _run(tmp_path, "a", "engine", "close")
    _run(tmp_path, "b", "engine", "kill")
    _run(tmp_path, "", "engine", "kill")
    _run(tmp_path, "c", "engine", "kill")
    index = _index(tmp_path)
    try:
        stale = index.stale_copies()
        assert stale > 0, "the engine's optimizer alone no longer leaves stale copies: this test shows nothing"
        assert index.count(active=None) == 4500
        with caplog.at_level(logging.WARNING, logger="cogmem_graph.vectors.qdrant_edge"):
            report = index.compact()
        assert any(f"{stale} stale copies" in r.getMessage() for r in caplog.records), "the rebuild says why"
        assert report["stale_copies_dropped"] == stale and report["partitions_rebuilt"] == 1, report
        assert report["disk_bytes_after"] < report["disk_bytes_before"], report
        assert index.stale_copies() == 0
        assert index.count(active=None) == 4500
        _each_found_once(index, [f"{p}{i}" for p in "abc" for i in range(1500)])
        again = index.compact()
        assert again["partitions_rebuilt"] == 0 and again["stale_copies_dropped"] == 0, again
    finally:
        index.close()

