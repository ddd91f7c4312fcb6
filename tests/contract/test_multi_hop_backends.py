"""Multi-hop retrieval on each graph backend present: the embedded FalkorDB always (spreading
activation in Cypher), Neo4j when one is reachable (personalised PageRank on its GDS; the
Cypher walk where a Neo4j has none, tests/reliability/test_neo4j_faults.py). The chain, its
evidence path and the tenant boundary must hold on both."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

ALICE = "Alice Moreau joined Initech as a data engineer"
LISBON = "Initech moved its headquarters to Lisbon last year"
NOISE = ["The city council said the new stadium will be based near the river",
         "My employer is based in a big city with a lot of traffic",
         "The city where the employer of my cousin is based is Madrid"]


@pytest.fixture(params=["falkordb", "neo4j"])
def store(request, tmp_path) -> Iterator[cg.MemoryStore]:
    graph = None if request.param == "falkordb" else request.getfixturevalue("neo4j_uri")
    with cg.open(home=tmp_path / "home", graph=graph, vectors=":memory:", embedder="hash",
                 clock=ManualClock(1_700_000_000_000)) as s:
        s.graph.clear()
        s.graph.setup_schema()
        yield s


def test_the_chain_and_its_path_on_every_backend(store) -> None:
    mine = store.agent("helper", user_id="u1", organization_id="acme")
    ids = {t.content: t.id for t in mine.encode_many([{"content": c} for c in [ALICE, LISBON, *NOISE]])}
    theirs = store.agent("helper", user_id="u1", organization_id="globex")
    foreign = theirs.encode("Initech was acquired by Umbrella Corp")

    result = mine.multi_hop("Which city is Alice Moreau's employer based in?", hops=2, top_k=10)
    assert ids[LISBON] in result.ids and foreign.id not in result.ids
    found = next(t for t in result.traces if t.trace.id == ids[LISBON])
    assert found.path.trace_ids == [ids[ALICE], ids[LISBON]] and found.path.entities[-1] == "Initech"
    # The run's Neo4j has GDS: its personalised PageRank ranks, it does not fall back.
    assert result.ranking == {"falkordb": "spreading_activation", "neo4j": "personalized_pagerank"}[store.graph.dialect]
