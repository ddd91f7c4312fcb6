"""Consistency between the graph (source of truth) and Qdrant (an index over it).

The write protocol is graph first with `indexed=false`, then the Qdrant upsert, then
`indexed=true`. Faults injected between those steps must leave traces unindexed
(never visible as complete), retrieval must never return a trace whose vector or
node is missing, and `repair()` must converge to the state a fault-free run reaches.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from qdrant_client.http.exceptions import ResponseHandlingException

import cogmem_graph as cg
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import VectorStoreUnavailable
from cogmem_graph.write.encode import BACKGROUND_INDEXING_MIN

from .conftest import assert_consistent, owner_traces, run_test_cypher

THREAD = {"agent_id": "helper", "user_id": "u1", "thread_id": "t1"}


def _open(tmp_path: Path, clock, **vectors) -> cg.MemoryStore:
    config = CogmemConfig()
    for name, value in vectors.items():
        setattr(config.vectors, name, value)
    return cg.open(home=tmp_path / "home", embedder="hash", clock=clock, config=config)


def _items(n: int, start: int = 0) -> list[dict]:
    # One entity (Biscuit) and one thread: the new traces are linked to the old one by
    # SHARED_ENTITY and TEMPORAL_SEQUENCE edges, so spreading activation can reach them.
    return [{"content": f"Biscuit fact {i}: the dog likes item {i} of the list"} for i in range(start, start + n)]


def _assert_retrieval_only_returns_complete_traces(store: cg.MemoryStore, agent) -> list[str]:
    """Every returned trace exists, is active and indexed in the graph, and has its vector."""
    result = agent.retrieve("Biscuit dog likes item list fact", top_k=20, record_access=False)
    ids = result.ids + [t.trace.id for t in result.partial]
    graph = owner_traces(store)
    vectors = store.vectors.existing_ids(ids)
    for tid in ids:
        assert tid in graph, f"retrieval returned {tid}, which has no node"
        assert graph[tid].is_active and graph[tid].indexed, f"retrieval returned incomplete trace {tid}"
        assert tid in vectors, f"retrieval returned {tid}, which has no vector"
    return result.ids


def test_exception_in_the_middle_of_a_vector_batch_leaves_every_trace_of_it_unindexed(
        tmp_path, clock, monkeypatch) -> None:
    with _open(tmp_path, clock, upsert_batch=2, embedded="local") as store:  # faults go into qdrant-client
        agent = store.agent(**THREAD)
        anchor = agent.encode("Biscuit is my dog and he is a golden retriever")
        clock.advance(1_000)

        real_upsert = store.vectors._client.upsert
        calls: list[int] = []

        def fail_on_second_request(*args, **kwargs):
            calls.append(len(kwargs.get("points", ())))
            if len(calls) == 2:
                raise RuntimeError("injected fault in the middle of the vector batch")
            return real_upsert(*args, **kwargs)

        monkeypatch.setattr(store.vectors._client, "upsert", fail_on_second_request)
        with pytest.raises(RuntimeError, match="injected"):
            agent.encode_many(_items(6))
        monkeypatch.undo()
        assert calls == [2, 2], "the first two points reached Qdrant, the third request failed"

        graph = owner_traces(store)
        new = [t for t in graph.values() if t.id != anchor.id]
        assert len(new) == 6 and all(t.is_active and not t.indexed for t in new)
        assert len(store.vectors.existing_ids([t.id for t in new])) == 2, "half the batch has vectors"
        assert store.stats().unindexed_traces == 6
        assert_consistent(store)
        edges = store.graph.get_edges([anchor.id], agent.visible_scope_keys)
        assert {e.src for e in edges} & {t.id for t in new}, "the unindexed traces are linked to the anchor"

        returned = _assert_retrieval_only_returns_complete_traces(store, agent)
        assert returned == [anchor.id], "not even spreading activation brings an unindexed trace back"

        assert store.repair().reindexed == 6
        assert store.stats().unindexed_traces == 0
        assert_consistent(store)
        returned = _assert_retrieval_only_returns_complete_traces(store, agent)
        assert set(returned) == {anchor.id} | {t.id for t in new}
        assert store.repair().changed == 0, "repair converged"


def test_qdrant_unavailable_during_encode_names_it_and_repair_converges_when_it_returns(
        tmp_path, clock, monkeypatch) -> None:
    with _open(tmp_path, clock, retry_attempts=2, embedded="local") as store:  # faults go into qdrant-client
        agent = store.agent(**THREAD)
        agent.encode("Biscuit is my dog and he is a golden retriever")

        def unreachable(*args, **kwargs):
            raise ResponseHandlingException(ConnectionRefusedError("connection refused"))

        monkeypatch.setattr(store.vectors._client, "upsert", unreachable)
        with pytest.raises(VectorStoreUnavailable) as info:
            agent.encode_many(_items(3))
        assert store.vectors.location in str(info.value) and info.value.url == store.vectors.location
        assert store.stats().unindexed_traces == 3
        assert_consistent(store)
        with pytest.raises(VectorStoreUnavailable):
            store.repair()  # still down: repair fails loudly and leaves the traces unindexed
        assert store.stats().unindexed_traces == 3
        monkeypatch.undo()

        _assert_retrieval_only_returns_complete_traces(store, agent)
        assert store.repair().reindexed == 3
        assert store.stats().unindexed_traces == 0 and store.vectors.count(agent.visible_scope_keys) == 4
        assert store.repair().changed == 0


def test_graph_fault_after_the_vector_upsert_leaves_the_trace_unindexed_and_unseen(
        tmp_path, clock, monkeypatch) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        anchor = agent.encode("Biscuit is my dog and he is a golden retriever")

        def graph_gone(ids, indexed=True):
            raise ConnectionError("graph connection lost before indexed=true")

        monkeypatch.setattr(store.graph, "set_indexed", graph_gone)
        with pytest.raises(ConnectionError):
            agent.encode_many(_items(2))
        monkeypatch.undo()
        new = [t for t in owner_traces(store).values() if t.id != anchor.id]
        assert len(new) == 2 and not any(t.indexed for t in new)
        assert store.vectors.existing_ids([t.id for t in new]) == {t.id for t in new}, "vectors were written"
        assert _assert_retrieval_only_returns_complete_traces(store, agent) == [anchor.id], (
            "a vector whose trace is not confirmed is not returned")
        assert store.repair().reindexed == 2
        assert set(_assert_retrieval_only_returns_complete_traces(store, agent)) == {anchor.id} | {t.id for t in new}


def test_a_large_batch_writes_its_vectors_beside_the_edges_after_its_traces(tmp_path, clock, monkeypatch) -> None:
    """From BACKGROUND_INDEXING_MIN new traces, the vectors are written on a worker thread
    while the graph derives edges: only after the traces are in the graph, unindexed, and
    marked indexed only once both are done."""
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        seen: list[tuple[str, int, int]] = []
        real_upsert = store.vectors.upsert

        def watched(points):
            graph = owner_traces(store)
            ids = [p.trace_id for p in points]
            seen.append((threading.current_thread().name, sum(i in graph for i in ids),
                         sum(graph[i].indexed for i in ids if i in graph)))
            return real_upsert(points)

        monkeypatch.setattr(store.vectors, "upsert", watched)
        traces = agent.encode_many(_items(BACKGROUND_INDEXING_MIN))
        agent.encode_many(_items(3, start=BACKGROUND_INDEXING_MIN))
        monkeypatch.undo()
        (worker, present, indexed), (inline, *_) = seen
        assert worker.startswith("cogmem-index")
        assert not inline.startswith("cogmem-index"), "a small batch stays in line"
        assert (present, indexed) == (BACKGROUND_INDEXING_MIN, 0), "vectors only after unindexed traces"
        assert all(t.indexed for t in traces) and store.stats().unindexed_traces == 0
        assert store.vectors.count(agent.visible_scope_keys) == BACKGROUND_INDEXING_MIN + 3
        assert_consistent(store)


def test_a_vector_fault_on_the_worker_reaches_the_caller_and_repair_converges(tmp_path, clock, monkeypatch) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)

        def qdrant_down(points):
            raise ConnectionError("qdrant went away")

        monkeypatch.setattr(store.vectors, "upsert", qdrant_down)
        with pytest.raises(ConnectionError, match="qdrant went away"):
            agent.encode_many(_items(BACKGROUND_INDEXING_MIN))
        monkeypatch.undo()
        assert store.stats().unindexed_traces == BACKGROUND_INDEXING_MIN
        assert_consistent(store)
        assert _assert_retrieval_only_returns_complete_traces(store, agent) == []
        assert store.repair().reindexed == BACKGROUND_INDEXING_MIN
        assert len(_assert_retrieval_only_returns_complete_traces(store, agent)) == 20


def test_a_graph_fault_while_vectors_are_written_waits_for_them_and_leaves_traces_unindexed(
        tmp_path, clock, monkeypatch) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        finished = threading.Event()
        real_upsert = store.vectors.upsert

        def slow_upsert(points):
            threading.Event().wait(0.3)  # still writing when the graph fails
            written = real_upsert(points)
            finished.set()
            return written

        def graph_gone(ids, scope_keys, **_):
            raise ConnectionError("graph connection lost while deriving edges")

        monkeypatch.setattr(store.vectors, "upsert", slow_upsert)
        monkeypatch.setattr(store.graph, "derive_structural_edges", graph_gone)
        with pytest.raises(ConnectionError, match="deriving edges"):
            agent.encode_many(_items(BACKGROUND_INDEXING_MIN))
        assert finished.is_set(), "nothing is still writing once encode_many has raised"
        monkeypatch.undo()
        assert store.stats().unindexed_traces == BACKGROUND_INDEXING_MIN
        assert _assert_retrieval_only_returns_complete_traces(store, agent) == []
        assert store.repair().reindexed == BACKGROUND_INDEXING_MIN
        assert_consistent(store)


def test_vector_without_a_node_is_never_returned_and_repair_removes_it(tmp_path, clock) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        keep, lost = agent.encode_many(_items(2))
        # The node disappears behind the index's back (a restore from an older graph backup).
        run_test_cypher(store, "fault_delete_trace_node", {"id": lost.id}, write=True)
        assert lost.id in store.vectors.all_ids(active=True)
        assert _assert_retrieval_only_returns_complete_traces(store, agent) == [keep.id]
        repaired = store.repair()
        assert repaired.removed_vectors == 1 and lost.id not in store.vectors.all_ids()
        assert store.repair().changed == 0


def test_vector_of_a_deactivated_trace_is_never_returned_and_repair_deactivates_it(tmp_path, clock) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        keep, gone = agent.encode_many(_items(2))
        store.graph.soft_delete([gone.id], agent.visible_scope_keys, reason="test")
        assert _assert_retrieval_only_returns_complete_traces(store, agent) == [keep.id]
        assert store.repair().deactivated_vectors == 1
        assert_consistent(store)
        assert store.vectors.all_ids(active=True) == {keep.id}


def test_repair_restores_a_vector_lost_behind_the_graphs_back(tmp_path, clock) -> None:
    """The graph says `indexed=true` but Qdrant lost the point (a Qdrant server restored
    from an older snapshot, an un-fsynced server WAL, a deleted local storage file). The
    trace is still in the graph, the source of truth, so repair must put its vector back."""
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        anchor, lost = agent.encode_many(_items(2))
        store.vectors.delete([lost.id])
        store.repair()
        assert store.vectors.existing_ids([lost.id]) == {lost.id}, "repair re-indexes an indexed trace without vector"
        assert_consistent(store)
        assert set(_assert_retrieval_only_returns_complete_traces(store, agent)) == {anchor.id, lost.id}
        assert store.repair().changed == 0


# Owner maintenance that must leave the two stores consistent. Hook for the lead:
# consolidation joins here ("consolidate": lambda store: store.consolidate()), and with it
# merges, prunes and gists are checked never to leave an inactive trace with an active
# vector or an active+indexed trace without one.
MAINTENANCE = {"repair": lambda store: store.repair(), "reembed": lambda store: store.repair(reembed=True),
               "consolidate": lambda store: store.consolidate()}


@pytest.mark.parametrize("name", sorted(MAINTENANCE))
def test_maintenance_leaves_the_stores_consistent(tmp_path, clock, monkeypatch, name: str) -> None:
    with _open(tmp_path, clock) as store:
        agent = store.agent(**THREAD)
        traces = agent.encode_many(_items(12))
        clock.advance(1_000)
        agent.encode_many(_items(4, start=100))  # near-duplicates of the first ones
        if name in ("repair", "reembed"):  # a delete behind Qdrant's back is drift only repair() is asked to mend
            store.graph.soft_delete([traces[0].id], agent.visible_scope_keys, reason="test")

        def index_fails(*args, **kwargs):
            raise RuntimeError("injected index failure")

        monkeypatch.setattr(store.vectors, "upsert", index_fails)
        with pytest.raises(RuntimeError):
            agent.encode("Biscuit fact written while the index failed")
        monkeypatch.undo()
        MAINTENANCE[name](store)
        assert_consistent(store)
        _assert_retrieval_only_returns_complete_traces(store, agent)
        store.repair()
        assert store.stats().unindexed_traces == 0
        assert_consistent(store)
        assert store.repair().changed == 0
