"""A Neo4j override exists only because the embedded engine cannot run its text: each
statement under `cypher/neo4j/` is refused by FalkorDB, so none of them could be a shared
statement instead (docs/architecture.md, "Dialect overrides", says why each group exists)."""

from __future__ import annotations

import pytest

from cogmem_graph.errors import GraphQueryError
from cogmem_graph.graph.cypher import _strip_comments, cypher_root

NEO4J_OVERRIDES = sorted((cypher_root() / "neo4j").glob("*.cypher"))


def test_the_overrides_are_the_three_kinds_the_docs_name() -> None:
    names = [p.stem for p in NEO4J_OVERRIDES]
    kinds = {"schema": [n for n in names if n.startswith("schema_")],
             "fulltext": [n for n in names if n.startswith("fulltext_")],
             "gds": [n for n in names if "gds" in n]}
    assert sorted(n for group in kinds.values() for n in group) == names, "an override of a fourth kind"
    for path in NEO4J_OVERRIDES:
        assert not (cypher_root() / path.name).exists(), f"{path.name} shadows a shared statement"


@pytest.mark.parametrize("path", NEO4J_OVERRIDES, ids=lambda p: p.stem)
def test_falkordb_cannot_run_the_neo4j_override(embedded_falkor, path) -> None:
    with pytest.raises(GraphQueryError):
        embedded_falkor._run_text(_strip_comments(path.read_text()), {}, write=True, name=path.stem)
