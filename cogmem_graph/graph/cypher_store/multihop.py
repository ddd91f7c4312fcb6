"""The multi-hop (GraphRAG) walk's reads: the query's entities, community summaries, one hop
trace -> entity -> trace at a time, and personalised PageRank where Neo4j has GDS."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from cogmem_graph.errors import GraphQueryError
from cogmem_graph.graph.cypher_store.execution import StatementRunner, require_scope_keys
from cogmem_graph.graph.port import CommunitySchema, EntityFan, EntityReach, Later
from cogmem_graph.graph.rows import EntityStep

log = logging.getLogger(__name__)

UNBIASED_SOURCES_HINT = "sourceNodes"
"""What a GDS that cannot weigh its PageRank sources names when refusing [node, bias] pairs."""


class MultiHopStatements(StatementRunner):
    """What the walk asks of the graph, always inside the caller's scope keys."""

    _pagerank_statement = "multihop_gds_pagerank"
    """Biased sources ([node, bias] pairs) until this server's GDS refuses them; then, for this
    store, the same sources with equal weights (GDS 2.13, the release for Neo4j 5.26)."""

    def entity_fans_later(self, keys: Sequence[str], scope_keys: Sequence[str]) -> Later[list[EntityFan]]:
        """Which of `keys` the caller's memories mention, with how many mention each (least first)."""
        rows = self.read_later("multihop_query_entities", {"keys": list(keys),
                                                           "scopeKeys": require_scope_keys(scope_keys)})
        return lambda: [EntityFan(r["key"], r["name"], int(r["fan"])) for r in rows()]

    def community_schemas(self, scope_keys: Sequence[str], limit: int) -> list[CommunitySchema]:
        """The newest `limit` schemas with their members inside the scope keys."""
        rows = self.run("multihop_schemas", {"scopeKeys": require_scope_keys(scope_keys), "limit": limit})
        return [CommunitySchema(r["id"], r.get("summary"), r["scopeKey"], tuple(r["members"] or ()),
                                r.get("centroid"), r.get("centroidModel")) for r in rows]

    def walk_to_entities(self, frontier: Sequence[dict[str, Any]], scope_keys: Sequence[str], *,
                         named: Sequence[str], fan_exponent: float, limit: int) -> list[EntityStep]:
        """From traces ({id, activation}) to the entities they mention, skipping `named`: rows
        {key, name, activation, fromId, fan, share}, strongest share first."""
        return self.run_rows(EntityStep, "multihop_trace_entities", {
            "frontier": list(frontier), "scopeKeys": require_scope_keys(scope_keys), "named": list(named),
            "fanExponent": fan_exponent, "limit": limit})

    def walk_to_traces(self, entities: Sequence[dict[str, Any]], scope_keys: Sequence[str], *, decay: float,
                       min_activation: float, limit: int) -> list[EntityReach]:
        """From entities ({key, activation, fromId, fan, exponent}) to the traces mentioning them."""
        rows = self.run("multihop_entity_traces", {
            "entities": list(entities), "scopeKeys": require_scope_keys(scope_keys), "decay": decay,
            "minActivation": min_activation, "limit": limit})
        return [EntityReach(r["id"], float(r["activation"]), r["entityKey"], r["fromId"]) for r in rows]

    def traces_mentioning(self, ids: Sequence[str], keys: Sequence[str],
                          scope_keys: Sequence[str]) -> list[tuple[str, list[str]]]:
        """(trace id, which of `keys` it mentions) for the visible active traces among `ids`."""
        rows = self.run("multihop_mentioned", {"ids": list(ids), "keys": list(keys),
                                               "scopeKeys": require_scope_keys(scope_keys)})
        return [(r["id"], list(r["keys"])) for r in rows]

    def project_pagerank_graph(self, graph_name: str, trace_ids: Sequence[str], entity_keys: Sequence[str],
                               scope_keys: Sequence[str]) -> bool:
        """Project the walk's neighbourhood for GDS; False when nothing was projected."""
        return bool(self.run("multihop_gds_project", {
            "graphName": graph_name, "traceIds": list(trace_ids), "entityKeys": list(entity_keys),
            "scopeKeys": require_scope_keys(scope_keys)}, write=True))

    def personalised_pagerank(self, graph_name: str, *, entity_sources: Sequence[dict[str, Any]],
                              trace_sources: Sequence[dict[str, Any]], scope_keys: Sequence[str], damping: float,
                              max_iterations: int, limit: int) -> dict[str, float]:
        """Trace id -> score, biased towards the sources ({key|id, bias}) where GDS can weigh
        them, else starting from them with equal weights."""
        params = {"graphName": graph_name, "entitySources": list(entity_sources), "traceSources": list(trace_sources),
                  "scopeKeys": require_scope_keys(scope_keys), "damping": damping, "maxIterations": max_iterations,
                  "limit": limit, "concurrency": self.config.gds_concurrency}
        try:
            rows = self.run(self._pagerank_statement, params, write=True)
        except GraphQueryError as exc:
            if self._pagerank_statement != "multihop_gds_pagerank" or UNBIASED_SOURCES_HINT not in str(exc):
                raise
            log.info("this GDS takes PageRank source nodes without biases: multi-hop ranking starts from "
                     "the query's entities and seed traces with equal weights")
            self._pagerank_statement = "multihop_gds_pagerank_unbiased"
            rows = self.run(self._pagerank_statement, params, write=True)
        return {r["id"]: float(r["score"]) for r in rows}
