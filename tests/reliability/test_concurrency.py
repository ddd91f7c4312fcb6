"""Concurrency: one store, 8 threads, a fixed number of operations each.

No exceptions, no lost writes (every acknowledged encode is in the graph, indexed,
with its vector), counts agree between the graph and Qdrant, reads stay inside
each thread's scopes, and Hebbian learning loses no update: k concurrent
co-retrievals of one pair leave CO_ACTIVATED at exactly 1 - (1 - eta)^k.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from cogmem_graph.model import EdgeType, MemoryTrace

from ._workers import WORDS
from .conftest import assert_consistent, owner_traces, run_test_cypher

THREADS = 8
OPS_PER_THREAD = 12
NAMES = ["Biscuit", "Lena Park", "Lakeside"]  # entities every thread mentions: concurrent MERGE of one key
HEBBIAN_TRIALS = 6


def _identity(worker: int) -> dict:
    # Half the workers share one organization (and its scope); users are per worker.
    org = "acme" if worker < THREADS // 2 else f"solo{worker}"
    return {"agent_id": f"agent{worker % 3}", "user_id": f"user{worker}", "thread_id": "t1", "organization_id": org}


def test_eight_threads_encoding_and_retrieving_lose_nothing(store) -> None:
    start = threading.Barrier(THREADS)
    acked: dict[int, list[tuple[str, str]]] = {w: [] for w in range(THREADS)}
    leaks: list[str] = []

    def work(worker: int) -> None:
        agent = store.agent(**_identity(worker))
        visible = set(agent.visible_scope_keys)
        rng = random.Random(worker)
        start.wait()
        for op in range(OPS_PER_THREAD):
            if op % 3 == 2:
                result = agent.retrieve(" ".join(rng.sample(WORDS, 3)), top_k=5)
                leaks.extend(t.trace.id for t in result.traces if t.trace.scope_key not in visible)
            else:
                scope = "organization" if op % 4 == 0 else "user"
                content = f"w{worker} op{op} " + " ".join(rng.sample(WORDS, 5)) + f" with {rng.choice(NAMES)}"
                if op % 5 == 4:
                    traces = agent.encode_many([{"content": content, "scope": scope},
                                                {"content": content + " continued", "scope": scope}])
                    acked[worker] += [(t.id, t.content) for t in traces]
                else:
                    trace = agent.encode(content, scope=scope)
                    acked[worker].append((trace.id, trace.content))

    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(work, w) for w in range(THREADS)]
        errors = [f.exception() for f in futures]
    assert errors == [None] * THREADS, f"exceptions under concurrency: {[e for e in errors if e]}"
    assert not leaks, "a concurrent retrieval returned another tenant's trace"

    expected = {tid: content for items in acked.values() for tid, content in items}
    graph = owner_traces(store)
    lost = [tid for tid in expected if tid not in graph]
    assert not lost, f"acknowledged encodes missing from the graph: {lost}"
    assert all(graph[tid].content == content for tid, content in expected.items())
    stats = store.stats()
    assert stats.unindexed_traces == 0
    assert stats.active_traces == len(graph) == len(expected), "one trace per distinct acknowledged encode"
    assert store.vectors.count(None, active=True) == stats.active_traces, "graph and Qdrant agree on the count"
    assert store.vectors.all_ids() == set(graph)
    assert_consistent(store)
    assert store.repair().changed == 0, "nothing for repair to do after a concurrent run"
    entities = run_test_cypher(store, "owner_entity_counts")
    assert {r["key"] for r in entities} >= {n.lower() for n in NAMES}
    assert all(r["n"] == 1 for r in entities), f"duplicate entities from concurrent writes: {entities}"


@pytest.mark.parametrize("per_call", [1, 3])
def test_concurrent_hebbian_updates_equal_the_closed_form(store, per_call: int) -> None:
    """8 threads update one pair at once, on a graph where the edge (and, in the first
    trial, the relationship type) does not exist yet: exactly one CO_ACTIVATED edge must
    result, having counted every co-retrieval, at weight 1 - (1 - eta)^k."""
    keys = ["user:u1"]
    calls_per_thread = 5
    k = THREADS * calls_per_thread * per_call
    eta = store.config.graph.edges.hebbian_learning_rate
    for trial in range(HEBBIAN_TRIALS):
        store.graph.clear()  # a fresh graph each trial: the edge is created under contention
        store.graph.setup_schema()
        a, b = (MemoryTrace(content=f"trial {trial} trace {n}", scope_id="u1", agent_id="helper") for n in "ab")
        store.graph.upsert_traces([a, b])
        start = threading.Barrier(THREADS)

        def work(_: int, a=a, b=b, start=start) -> None:
            start.wait()
            for _ in range(calls_per_thread):
                # one call may carry the same pair several times (co-retrievals folded into one row)
                store.graph.hebbian_update([[a.id, b.id]] * per_call, keys)

        with ThreadPoolExecutor(THREADS) as pool:
            errors = [f.exception() for f in [pool.submit(work, w) for w in range(THREADS)]]
        assert errors == [None] * THREADS
        rows = run_test_cypher(store, "owner_co_activated_between", {"a": a.id, "b": b.id})
        assert len(rows) == 1, f"trial {trial}: {len(rows)} CO_ACTIVATED edges for one pair (concurrent MERGE)"
        assert rows[0]["count"] == k, f"trial {trial}: lost co-retrievals"
        assert rows[0]["weight"] == pytest.approx(1 - (1 - eta) ** k, rel=1e-9, abs=1e-12)
        (edge,) = [e for e in store.graph.get_edges([a.id], keys) if e.type is EdgeType.CO_ACTIVATED]
        assert edge.weight == pytest.approx(1 - (1 - eta) ** k, rel=1e-9, abs=1e-12)
