"""The Neo4j Browser saved queries also run on the embedded FalkorDB, and the guide is current."""

from __future__ import annotations

import pytest

from cogmem_graph.graph.browser_guide import render_guide
from cogmem_graph.graph.cypher import cypher_root
from cogmem_graph.graph.port import Edge, Mention
from cogmem_graph.model import EdgeType, MemoryTrace

KEYS = ["user:u1"]


def make(content, **kw):
    return MemoryTrace(content=content, scope_id="u1", agent_id="a", created_at=1_000, **kw)


@pytest.fixture
def populated(graph):
    a, b, c = make("I live in Paris"), make("I moved to Berlin"), make("Berlin has good bakeries")
    foreign = MemoryTrace(content="foreign", scope_id="u2", agent_id="a")
    graph.upsert_traces([a, b, c, foreign])
    graph.merge_mentions([Mention(b.id, "berlin", "Berlin", "name"), Mention(c.id, "berlin", "Berlin", "name")])
    graph.merge_edges(EdgeType.CONTRADICTS, [Edge(b.id, a.id, 0.9)])
    graph.merge_edges(EdgeType.SUPERSEDES, [Edge(b.id, a.id, 1.0)])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(b.id, c.id, 0.6), Edge(b.id, foreign.id, 0.9)])
    return graph, a, b, c, foreign


def browser(graph, name, **params):
    return graph.run(f"browser/{name}", params)


def test_neighbourhood_stays_in_scope(populated):
    graph, a, b, c, foreign = populated
    rows = browser(graph, "trace_neighbourhood", traceId=b.id, scopeKeys=KEYS)
    assert len(rows) == 4  # a twice (CONTRADICTS, SUPERSEDES), c, and the Berlin entity
    assert browser(graph, "trace_neighbourhood", traceId=b.id, scopeKeys=["user:u2"]) == []


def test_why_retrieved_finds_the_path_and_its_activation(populated):
    graph, a, b, c, _ = populated
    rows = browser(graph, "why_retrieved", traceId=c.id, seedIds=[b.id], scopeKeys=KEYS)
    assert [round(r["activation"], 6) for r in rows] == [0.3]  # 0.6 * 0.5


def test_contradictions_hubs_decay_and_schemas(populated):
    graph, a, b, c, _ = populated
    assert len(browser(graph, "contradictions", scopeKeys=KEYS)) == 2
    hubs = browser(graph, "hebbian_hubs", scopeKeys=KEYS)
    assert [(h["id"], h["links"]) for h in hubs][:1] in ([(b.id, 1)], [(c.id, 1)])
    assert {h["id"] for h in hubs} == {b.id, c.id}  # the foreign link is not counted
    decay = browser(graph, "decay_status", scopeKeys=KEYS, now=1_000 + 3_600_000)
    assert len(decay) == 3
    assert decay[0]["strength"] == pytest.approx(0.5 * 2.718281828459045**-1)
    assert browser(graph, "schemas", scopeKeys=KEYS) == []


def test_committed_guide_matches_the_queries():
    committed = (cypher_root() / "browser" / "guide.html").read_text(encoding="utf-8")
    assert committed == render_guide(), (
        "run: python -c 'from cogmem_graph.graph.browser_guide import write_guide; write_guide()'")
    for path in (cypher_root() / "browser").glob("*.cypher"):
        assert path.stem.replace("_", " ").capitalize() in committed
