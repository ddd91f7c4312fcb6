"""Communities of traces for schema integration: FalkorDB's label propagation, GDS on Neo4j,
or label propagation in plain Cypher (any engine). Each yields (scope key, member ids)."""

from __future__ import annotations

from collections.abc import Sequence

from cogmem_graph.graph.cypher_store.execution import StatementRunner
from cogmem_graph.graph.port import GdsCommunityAlgorithm

_GDS_STATEMENTS: dict[str, str] = {
    "louvain": "consolidation_gds_louvain",
    "leiden": "consolidation_gds_leiden",
    "label_propagation": "consolidation_gds_label_propagation",
}

Communities = list[tuple[str, list[str]]]


class CommunityStatements(StatementRunner):
    """Cluster detection in the database, and the GDS plumbing it shares with multi-hop."""

    def gds_procedures_available(self, names: Sequence[str]) -> set[str]:
        """Which of these Graph Data Science procedures the Neo4j server has."""
        rows = self.run("gds_procedures_available", {"names": list(names)})
        return set(rows[0]["names"] or ()) if rows else set()

    def drop_gds_graph(self, graph_name: str) -> None:
        """Drop a projected GDS graph (no error if it is already gone)."""
        self.run("gds_graph_drop", {"graphName": graph_name}, write=True)

    def relationship_types(self) -> set[str]:
        """The relationship types the graph holds (FalkorDB)."""
        return {r["type"] for r in self.run("consolidation_relationship_types", {})}

    def label_propagation_communities(self, rel_types: Sequence[str], scope_keys: Sequence[str], *,
                                      max_iterations: int, min_size: int, limit: int) -> Communities:
        """FalkorDB's `algo.labelPropagation` over `rel_types`: the `limit` largest communities
        of `scope_keys` (each within one scope key)."""
        rows = self.run("consolidation_clusters_label_propagation", {
            "relTypes": list(rel_types), "maxIterations": max_iterations, "scopeKeys": list(scope_keys),
            "minSize": min_size, "limit": limit})
        return [(r["scopeKey"], list(r["members"])) for r in rows]

    def project_community_graph(self, scope_key: str, graph_name: str, min_weight: float) -> int | None:
        """Project the scope key's trace graph for GDS: its relationship count, None when
        nothing was projected (then there is nothing to drop)."""
        rows = self.run("consolidation_gds_project", {"scopeKey": scope_key, "graphName": graph_name,
                                                      "minWeight": min_weight}, write=True)
        return int(rows[0]["relationships"] or 0) if rows else None

    def gds_communities(self, algorithm: GdsCommunityAlgorithm, graph_name: str, scope_key: str,
                        min_size: int, limit: int) -> Communities:
        """The `limit` largest communities GDS finds in the projected scope graph."""
        rows = self.run(_GDS_STATEMENTS[algorithm], {"graphName": graph_name, "scopeKey": scope_key,
                                                     "minSize": min_size, "limit": limit,
                                                     "concurrency": self.config.gds_concurrency}, write=True)
        return [(r["scopeKey"], list(r["members"])) for r in rows]

    def label_propagation_start(self, scope_key: str, min_weight: float) -> int:
        """Plain Cypher: one label per trace of the scope key; how many were labelled."""
        return self.run_count("consolidation_lpa_init", "labelled", {"scopeKey": scope_key, "minWeight": min_weight},
                              write=True)

    def label_propagation_round(self, scope_key: str, min_weight: float) -> bool:
        """One round of weighted majority vote; whether any label changed."""
        rows = self.run("consolidation_lpa_step", {"scopeKey": scope_key, "minWeight": min_weight}, write=True)
        return bool(rows and rows[0]["changed"])

    def label_propagation_result(self, scope_key: str, *, min_size: int, limit: int) -> Communities:
        rows = self.run("consolidation_lpa_clusters", {"scopeKey": scope_key, "minSize": min_size,
                                                       "limit": limit})
        return [(r["scopeKey"], list(r["members"])) for r in rows]
