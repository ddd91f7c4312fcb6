"""Contract tests of the VectorIndex adapters: Qdrant Edge (the embedded default),
qdrant-client in memory and on a local path, and a server when `COGMEM_TEST_QDRANT_URL`
points at one."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import VectorStoreUnavailable
from cogmem_graph.lexical import bm25_document_vector, bm25_query_vector
from cogmem_graph.vectors import QdrantVectorIndex, VectorPoint
from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex

DIM = 4


def unit(*xs: float) -> list[float]:
    norm = math.sqrt(sum(x * x for x in xs))
    return [x / norm for x in xs]


def point(trace_id: str, vec: list[float], scope_key: str = "user:acme/u1", text: str = "",
          active: bool = True) -> VectorPoint:
    return VectorPoint(trace_id=trace_id, scope_key=scope_key, type="episodic", created_at=1, dense=vec,
                       sparse=bm25_document_vector(text) if text else None, active=active)


@pytest.fixture(params=["edge", "memory", "local", "server"])
def index(request, tmp_path: Path) -> Iterator[QdrantVectorIndex | EdgeVectorIndex]:
    if request.param == "edge":
        idx = EdgeVectorIndex(model="test", dim=DIM, path=tmp_path / "edge")
    elif request.param == "memory":
        idx = QdrantVectorIndex(model="test", dim=DIM, config=VectorConfig(url=":memory:"))
    elif request.param == "local":
        idx = QdrantVectorIndex(model="test", dim=DIM, config=VectorConfig(), local_path=tmp_path / "qdrant")
    else:
        url = os.environ.get("COGMEM_TEST_QDRANT_URL")
        if not url:
            pytest.skip("Qdrant server backend skipped: set COGMEM_TEST_QDRANT_URL to a Qdrant server")
        idx = QdrantVectorIndex(model=f"test-{tmp_path.name}", dim=DIM, config=VectorConfig(url=url))
    yield idx
    idx.close()


def test_dense_search_ranks_nearest_first_within_visible_scopes(index) -> None:
    index.upsert([
        point("a", unit(1, 0, 0, 0)),
        point("b", unit(1, 1, 0, 0)),
        point("c", unit(0, 0, 1, 0)),
        point("other", unit(1, 0, 0, 0), scope_key="user:evil/u9"),
    ])
    hits = index.search_dense(unit(1, 0.1, 0, 0), ["user:acme/u1"], limit=10)
    assert [h.trace_id for h in hits] == ["a", "b", "c"]
    assert hits[0].score > hits[1].score > hits[2].score
    assert [h.trace_id for h in index.search_dense(unit(1, 0, 0, 0), ["user:evil/u9"], 10)] == ["other"]


def test_inactive_and_excluded_points_are_not_returned(index) -> None:
    index.upsert([point("a", unit(1, 0, 0, 0)), point("b", unit(1, 1, 0, 0))])
    index.set_active(["a"], False)
    assert [h.trace_id for h in index.search_dense(unit(1, 0, 0, 0), ["user:acme/u1"], 10)] == ["b"]
    index.set_active(["a"], True)
    hits = index.search_dense(unit(1, 0, 0, 0), ["user:acme/u1"], 10, exclude_ids=["a"])
    assert [h.trace_id for h in hits] == ["b"]
    assert index.count(["user:acme/u1"]) == 2


def test_score_threshold_keeps_only_near_neighbours(index) -> None:
    index.upsert([point("a", unit(1, 0, 0, 0)), point("c", unit(0, 0, 1, 0))])
    hits = index.search_dense(unit(1, 0, 0, 0), ["user:acme/u1"], 10, score_threshold=0.9)
    assert [h.trace_id for h in hits] == ["a"]


def test_sparse_bm25_finds_the_document_with_the_rare_term(index) -> None:
    index.upsert([
        point("a", unit(1, 0, 0, 0), text="We went hiking near the lake on Sunday"),
        point("b", unit(1, 0, 0, 0), text="I adopted a puppy named Biscuit"),
        point("c", unit(1, 0, 0, 0), text="The lake was cold and we went swimming"),
        point("x", unit(1, 0, 0, 0), text="puppy puppy puppy", scope_key="user:evil/u9"),
    ])
    hits = index.search_sparse(bm25_query_vector("What is the name of the puppies?"), ["user:acme/u1"], 10)
    assert [h.trace_id for h in hits] == ["b"]
    lake = index.search_sparse(bm25_query_vector("lake hiking"), ["user:acme/u1"], 10)
    assert [h.trace_id for h in lake][:1] == ["a"] and {h.trace_id for h in lake} == {"a", "c"}
    assert index.search_sparse(bm25_query_vector("the and of"), ["user:acme/u1"], 10) == []


def test_upsert_is_idempotent_and_delete_removes(index) -> None:
    index.upsert([point("a", unit(1, 0, 0, 0)), point("b", unit(0, 1, 0, 0))])
    index.upsert([point("a", unit(0, 0, 0, 1))])
    assert index.count(None, active=None) == 2
    assert index.search_dense(unit(0, 0, 0, 1), ["user:acme/u1"], 1)[0].trace_id == "a"
    assert index.existing_ids(["a", "b", "zzz"]) == {"a", "b"}
    index.delete(["a"])
    assert index.all_ids() == {"b"}


def test_bad_arguments_name_the_problem(index) -> None:
    with pytest.raises(ValueError, match="dimensions"):
        index.upsert([point("a", [1.0, 0.0])])
    with pytest.raises(ValueError, match="scope_keys"):
        index.search_dense(unit(1, 0, 0, 0), [], 5)


def test_local_path_keeps_vectors_across_reopen_and_shares_one_client(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    first = QdrantVectorIndex(model="m", dim=DIM, local_path=path)
    second = QdrantVectorIndex(model="m", dim=DIM, local_path=path)  # same folder, same process: shared
    first.upsert([point("a", unit(1, 0, 0, 0))])
    first.close()
    assert second.existing_ids(["a"]) == {"a"}
    second.close()
    reopened = QdrantVectorIndex(model="m", dim=DIM, local_path=path)
    assert reopened.all_ids() == {"a"}
    reopened.close()


def test_edge_folder_keeps_vectors_across_reopen_and_shares_one_shard(tmp_path: Path) -> None:
    first = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")
    second = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")  # same folder, same process: shared
    first.upsert([point("a", unit(1, 0, 0, 0), text="golden retriever"), point("b", unit(0, 1, 0, 0))])
    first.set_active(["b"], False)
    first.close()
    assert second.existing_ids(["a", "b"]) == {"a", "b"}
    second.close()
    reopened = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")
    assert reopened.all_ids(active=True) == {"a"} and reopened.all_ids(active=False) == {"b"}
    assert [h.trace_id for h in reopened.search_sparse(bm25_query_vector("retriever"), ["user:acme/u1"], 5)] == ["a"]
    other = EdgeVectorIndex(model="m", dim=DIM + 1, path=tmp_path / "edge")  # another embedding space
    assert other.name != reopened.name and other.count(None, active=None) == 0
    other.close()
    reopened.close()


def test_neighbour_searches_answer_each_vector_within_its_own_scope(index) -> None:
    index.upsert([point("a", unit(1, 0, 0, 0)), point("b", unit(0, 1, 0, 0)),
                  point("theirs", unit(1, 0, 0, 0), scope_key="user:evil/u9")])
    hits = index.search_dense_many([unit(1, 0.05, 0, 0), unit(0, 1, 0, 0), unit(1, 0, 0, 0)],
                                   [["user:acme/u1"], ["user:acme/u1"], ["user:evil/u9"]], 5, score_threshold=0.9)
    assert [[h.trace_id for h in found] for found in hits] == [["a"], ["b"], ["theirs"]]
    assert all(0.9 <= h.score <= 1.0 for found in hits for h in found)


def test_collections_are_separate_per_embedding_space() -> None:
    a = QdrantVectorIndex(model="openai:text-embedding-3-small", dim=DIM, config=VectorConfig(url=":memory:"))
    assert a.name == "cogmem_openai-text-embedding-3-small_4"
    a.close()


def test_unreachable_server_names_the_url_and_what_to_start() -> None:
    config = VectorConfig(url="http://127.0.0.1:9", retry_attempts=2, timeout_s=1)
    with pytest.raises(VectorStoreUnavailable) as err:
        QdrantVectorIndex(model="m", dim=DIM, config=config)
    assert "http://127.0.0.1:9" in str(err.value) and "qdrant" in str(err.value).lower()
    assert err.value.url == "http://127.0.0.1:9"


def test_batched_searches_each_use_their_own_scope(index) -> None:
    index.upsert([point("a", unit(1, 0, 0, 0)), point("x", unit(1, 0, 0, 0), scope_key="user:evil/u9")])
    results = index.search_dense_many(
        [unit(1, 0, 0, 0)] * 3, [["user:acme/u1"], ["user:evil/u9"], ["user:acme/u1"]], limit=5, score_threshold=0.5
    )
    assert [[h.trace_id for h in r] for r in results] == [["a"], ["x"], ["a"]]


def test_a_cosine_is_never_past_one_even_for_float32_rounding(index) -> None:
    """Identical vectors whose float32 norm rounds up (these give 1.0000000149 in qdrant-client's
    local mode): the write path checks similarities against [-1, 1]."""
    vectors = [[0.1 * (i + 1) + 0.0137 * j for j in range(DIM)] for i in range(40)]
    vectors = [[x / math.sqrt(sum(y * y for y in v)) for x in v] for v in vectors]
    index.upsert([point(f"t{i}", v) for i, v in enumerate(vectors)])
    for v in vectors:
        for hits in (index.search_dense(v, ["user:acme/u1"], 3), *index.search_dense_many([v], [["user:acme/u1"]], 3)):
            assert all(-1.0 <= h.score <= 1.0 for h in hits)
            assert hits[0].score == pytest.approx(1.0, abs=1e-5)



def test_stored_vectors_are_read_back_by_id_within_the_callers_scopes(index) -> None:
    index.upsert([point("a", unit(1, 2, 0, 0)), point("b", unit(0, 0, 3, 1)),
                  point("theirs", unit(0, 1, 0, 0), scope_key="user:evil/u9")])
    found = index.dense_vectors(["a", "b", "theirs", "zzz"], ["user:acme/u1"])
    assert set(found) == {"a", "b"}, "another scope's point and a missing one are left out"
    for trace_id, expected in (("a", unit(1, 2, 0, 0)), ("b", unit(0, 0, 3, 1))):
        assert found[trace_id] == pytest.approx(expected, abs=1e-6)
    assert index.dense_vectors([], ["user:acme/u1"]) == {}
    with pytest.raises(ValueError, match="scope_keys"):
        index.dense_vectors(["a"], [])


def test_a_memory_is_found_by_its_best_sentence(index) -> None:
    """The sentence vectors: a memory scores its best sentence's cosine (MaxSim), within the
    caller's scopes and filter; a memory written without sentence vectors is not among them."""
    index.upsert([
        VectorPoint("two-topics", "user:acme/u1", "episodic", 1, unit(1, 1, 0, 0),
                    sentences=[unit(1, 0, 0, 0), unit(0, 1, 0, 0)]),
        VectorPoint("one-topic", "user:acme/u1", "episodic", 1, unit(0, 1, 1, 0), sentences=[unit(0, 1, 1, 0)]),
        VectorPoint("plain", "user:acme/u1", "episodic", 1, unit(0, 1, 0, 0)),
        VectorPoint("elsewhere", "user:acme/u2", "episodic", 1, unit(0, 1, 0, 0), sentences=[unit(0, 1, 0, 0)]),
    ])
    hits = index.search_sentences(unit(0, 1, 0, 0), ["user:acme/u1"], 5)
    assert [h.trace_id for h in hits] == ["two-topics", "one-topic"]
    assert hits[0].score == pytest.approx(1.0, abs=2e-3)  # float16 storage
    assert hits[1].score == pytest.approx(math.sqrt(0.5), abs=2e-3)
    index.set_active(["two-topics"], False)
    assert [h.trace_id for h in index.search_sentences(unit(0, 1, 0, 0), ["user:acme/u1"], 5)] == ["one-topic"]
    with pytest.raises(ValueError, match="dimensions"):
        index.search_sentences([1.0, 0.0], ["user:acme/u1"], 5)


def test_an_edge_shard_made_before_sentence_vectors_opens_and_its_compaction_adds_them(tmp_path: Path) -> None:
    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeShard,
        EdgeSparseVectorParams,
        EdgeVectorParams,
        Modifier,
    )

    from cogmem_graph.vectors.naming import DENSE, SPARSE

    first = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")
    folder = Path(first.location)
    first.close()
    for child in folder.iterdir():  # a folder as an older version made it: one shard, no sentences
        child.unlink()
    EdgeShard.create(str(folder), EdgeConfig(
        vectors={DENSE: EdgeVectorParams(size=DIM, distance=Distance.Cosine)},
        sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)})).close()
    old = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")
    old.upsert([VectorPoint("a", "user:acme/u1", "episodic", 1, unit(1, 0, 0, 0), sentences=[unit(0, 1, 0, 0)])])
    assert old.search_sentences(unit(0, 1, 0, 0), ["user:acme/u1"], 5) == []  # kept its own vector only
    assert [h.trace_id for h in old.search_dense(unit(1, 0, 0, 0), ["user:acme/u1"], 5)] == ["a"]
    old.compact()
    old.upsert([VectorPoint("b", "user:acme/u1", "episodic", 1, unit(0, 0, 1, 0), sentences=[unit(0, 1, 0, 0)])])
    assert [h.trace_id for h in old.search_sentences(unit(0, 1, 0, 0), ["user:acme/u1"], 5)] == ["b"]
    assert old.existing_ids(["a", "b"]) == {"a", "b"}
    old.close()


def _sentence_storages(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("vector_storage-sentences") if p.is_dir()]


def test_an_edge_index_for_an_embedder_without_sentences_stores_none(tmp_path: Path) -> None:
    """An embedder that gives no sentence vectors (hash, an API's) gets shards without the
    sentence storage, whose empty files every segment would otherwise map; its memories are
    found by their own vector and words as before."""
    index = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge", sentences=False)
    index.upsert([VectorPoint("a", "user:acme/u1", "episodic", 1, unit(1, 0, 0, 0), sentences=[unit(0, 1, 0, 0)]),
                  VectorPoint("b", "user:acme/u1", "episodic", 1, unit(0, 0, 1, 0))])
    assert [h.trace_id for h in index.search_dense(unit(1, 0, 0, 0), ["user:acme/u1"], 5)][0] == "a"
    assert index.search_sentences(unit(0, 1, 0, 0), ["user:acme/u1"], 5) == []
    assert _sentence_storages(Path(index.location)) == []
    index.compact()
    assert index.existing_ids(["a", "b"]) == {"a", "b"}
    assert _sentence_storages(Path(index.location)) == [], "a compaction rewrites the shard the same way"
    index.close()

    with_sentences = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "other")
    with_sentences.upsert([VectorPoint("a", "user:acme/u1", "episodic", 1, unit(1, 0, 0, 0))])
    assert _sentence_storages(Path(with_sentences.location)), "the default keeps the sentence storage"
    with_sentences.close()


def test_shards_made_with_sentence_storage_lose_it_at_the_compaction_after_the_embedder_gives_none(
        tmp_path: Path) -> None:
    made = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge")
    made.upsert([VectorPoint("a", "user:acme/u1", "episodic", 1, unit(1, 0, 0, 0))])
    folder = Path(made.location)
    made.close()
    assert _sentence_storages(folder)
    reopened = EdgeVectorIndex(model="m", dim=DIM, path=tmp_path / "edge", sentences=False)
    reopened.upsert([VectorPoint("b", "user:acme/u1", "episodic", 1, unit(0, 0, 1, 0))])
    assert reopened.existing_ids(["a", "b"]) == {"a", "b"}, "the shard opens as it was made"
    reopened.compact()
    assert _sentence_storages(folder) == [], "and its compaction rewrites it without the storage"
    assert [h.trace_id for h in reopened.search_dense(unit(0, 0, 1, 0), ["user:acme/u1"], 5)][0] == "b"
    assert reopened.existing_ids(["a", "b"]) == {"a", "b"}
    reopened.close()
