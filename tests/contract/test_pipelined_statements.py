"""Statements that do not make the caller wait: a retrieval's bookkeeping write may return
before the engine confirms it (`after_retrieval(wait=False)`), and a read may be started
now and read later (`read_later`). Whatever the engine does with that freedom, nothing that
runs afterwards may see the graph without the write, each reply must reach its own read,
and a failure must still surface."""

from __future__ import annotations

import pytest

from cogmem_graph.errors import GraphQueryError
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.graph.port import VITALS_LEAD_CHARS, AccessUpdate
from cogmem_graph.model import EdgeType, MemoryTrace, Scope

U1 = ["user:u1"]


def make(content: str) -> MemoryTrace:
    return MemoryTrace(content=content, scope=Scope.USER, scope_id="u1", agent_id="agent-1",
                       created_at=1_700_000_000_000)


def access(trace: MemoryTrace, stability: float = 9e6) -> AccessUpdate:
    return AccessUpdate(trace.id, last_accessed_at=5_000, stability=stability, reinforcement_interval=7,
                        next_reinforcement_at=9)


def test_the_next_read_sees_an_unconfirmed_write(graph):
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    for _ in range(3):
        graph.after_retrieval([access(a), access(b)], [a.id, b.id], [], U1, wait=False)
    back = {t.id: t for t in graph.get_traces([a.id, b.id], U1)}
    assert [back[a.id].retrieval_count, back[b.id].retrieval_count] == [3, 3]
    (edge,) = [e for e in graph.get_edges([a.id], U1) if e.type is EdgeType.CO_ACTIVATED]
    eta = graph.config.edges.hebbian_learning_rate
    assert edge.weight == pytest.approx(1 - (1 - eta) ** 3)


def test_a_later_write_lands_after_an_unconfirmed_one(graph):
    t = make("t")
    graph.upsert_traces([t])
    graph.after_retrieval([access(t, stability=1.0)], [], [], U1, wait=False)
    graph.after_retrieval([access(t, stability=2.0)], [], [], U1)
    (back,) = graph.get_traces([t.id], U1)
    assert (back.retrieval_count, back.stability) == (2, 2.0)


def test_a_failed_unconfirmed_write_is_raised_by_the_next_statement_once(graph):
    """A statement the engine rejects at run time (rows that are not maps): the error
    reaches the caller, at once or from the next statement, and the store goes on working."""
    t = make("t")
    graph.upsert_traces([t])
    statement = graph.cypher.get("set_strengths")
    with pytest.raises(GraphQueryError):
        graph._run_unconfirmed(statement, {"rows": [1, 2], "scopeKeys": U1, "now": 1}, name="set_strengths")
        graph.get_traces([t.id], U1)
    assert [x.id for x in graph.get_traces([t.id], U1)] == [t.id]


def test_closing_confirms_what_was_sent(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    store.setup_schema()
    t = make("t")
    store.upsert_traces([t])
    store.after_retrieval([access(t)], [], [], U1, wait=False)
    store.close()
    store = FalkorGraphStore(data_dir=home)
    try:
        (back,) = store.get_traces([t.id], U1)
        assert back.retrieval_count == 1
    finally:
        store.close()



# ---------------------------------------------------------------- reads started now, read later


def test_reads_started_together_come_back_as_run_alone(graph):
    """Several reads in flight at once (a retrieval sends the candidates' vitals with the
    first activation hop): each reply belongs to its own read."""
    traces = [make(f"t{i}") for i in range(5)]
    graph.upsert_traces(traces)
    ids = [t.id for t in traces]
    graph.set_indexed(ids, True)
    later = [graph.read_later("trace_vitals", {"ids": ids[:k], "scopeKeys": U1, "leadChars": VITALS_LEAD_CHARS})
             for k in (1, 3, 5)]
    vitals = graph.trace_vitals_later(ids, U1)
    assert [sorted(r["id"] for r in read()) for read in later] == [sorted(ids[:k]) for k in (1, 3, 5)]
    assert vitals() == graph.trace_vitals(ids, U1)
    assert graph.trace_vitals_later(ids, ["user:u2"])() == []  # scoped like every read


def test_a_read_started_after_an_unconfirmed_write_sees_it(graph):
    t = make("t")
    graph.upsert_traces([t])
    graph.after_retrieval([access(t)], [], [], U1, wait=False)
    rows = graph.read_later("get_traces", {"ids": [t.id], "scopeKeys": U1})
    assert rows()[0]["trace"]["retrievalCount"] == 1


def test_a_failing_read_raises_when_read(graph):
    t = make("t")
    graph.upsert_traces([t])
    rows = graph.read_later("get_traces", {"ids": [t.id], "scopeKeys": "not a list"})  # IN needs a list
    with pytest.raises(GraphQueryError):
        rows()
    assert graph.trace_vitals([], U1) == []  # the store goes on


def test_a_read_nobody_reads_gives_its_connection_back(embedded_falkor):
    """A caller that fails between starting a read and reading it must not leak the
    connection the reply waits on (FalkorDB leaves reads in flight; Neo4j's adapter has
    read every reply before it returns)."""
    graph = embedded_falkor
    pool = graph._db.connection.connection_pool
    graph.trace_vitals([], U1)
    before = len(pool._in_use_connections)
    for _ in range(5):
        graph.read_later("trace_vitals", {"ids": ["mt_x"], "scopeKeys": U1, "leadChars": VITALS_LEAD_CHARS})  # unread
    assert len(pool._in_use_connections) == before
    assert graph.trace_vitals(["mt_x"], U1) == []


# ---------------------------------------------------------------- writes sent now, confirmed later


def test_traces_upserted_later_are_there_for_the_next_statement_and_counted(graph):
    """The write path sends a batch's traces and builds their vectors while the engine
    writes them: every later statement sees them, and the confirmation counts them."""
    traces = [make(f"t{i}") for i in range(4)]
    written = graph.upsert_traces_later(traces, fresh=True)
    assert sorted(t.id for t in graph.get_traces([t.id for t in traces], U1)) == sorted(t.id for t in traces)
    assert written() == 4
    assert written() == 4  # confirming again gives the same answer


def test_a_write_confirmed_by_a_later_statement_still_reports_to_its_owner(graph):
    """A rejected write left unconfirmed: the later statement that confirms it is not the
    one that failed and runs; the write's own caller gets the error."""
    t = make("t")
    graph.upsert_traces([t])
    statement = graph.cypher.get("set_strengths")
    result = graph._write_later(statement, {"rows": [1, 2], "scopeKeys": U1, "now": 1}, name="set_strengths")
    assert [x.id for x in graph.get_traces([t.id], U1)] == [t.id]
    with pytest.raises(GraphQueryError):
        result()


def test_a_write_confirmed_by_its_owner_raises_there(graph):
    statement = graph.cypher.get("set_strengths")
    result = graph._write_later(statement, {"rows": [1, 2], "scopeKeys": U1, "now": 1}, name="set_strengths")
    with pytest.raises(GraphQueryError):
        result()
    assert graph.trace_vitals([], U1) == []  # the store goes on

