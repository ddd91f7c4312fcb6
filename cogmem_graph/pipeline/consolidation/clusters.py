"""Communities of traces for schema integration, found in the database: FalkorDB's label
propagation, GDS on Neo4j, or label propagation in plain Cypher as the fallback."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.graph.base import require_scope_keys
from cogmem_graph.model import EdgeType

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

CLUSTER_EDGE_TYPES: tuple[EdgeType, ...] = (EdgeType.SHARED_ENTITY, EdgeType.SAME_TOPIC, EdgeType.CAUSED_BY)
"""Edges that make traces "about the same thing" for cluster detection (not the
conversational TEMPORAL_SEQUENCE, nor CO_ACTIVATED, which one co-retrieval creates)."""
CLUSTER_MIN_EDGE_WEIGHT = 0.0
"""Edges lighter than this are ignored by GDS and the Cypher fallback (FalkorDB's label
propagation cannot weigh edges, so 0 keeps the backends alike)."""

_GDS_PROCEDURES = {
    "louvain": ("gds.louvain.stream", "consolidation_gds_louvain"),
    "leiden": ("gds.leiden.stream", "consolidation_gds_leiden"),
    "label_propagation": ("gds.labelPropagation.stream", "consolidation_gds_label_propagation"),
}


def detect_clusters(ctx: MemoryContext, keys: Sequence[str]) -> tuple[list[tuple[str, list[str]]], str]:
    """Communities of traces per scope key (members not yet in a schema, at least the
    minimum cluster size), found in the database; and which algorithm found them."""
    keys = require_scope_keys(keys)
    algorithm = ctx.config.consolidation.cluster_algorithm
    dialect = ctx.graph.dialect
    if algorithm == "cypher":
        return clusters_cypher(ctx, keys), "cypher_label_propagation"
    if dialect == "falkordb":
        if algorithm in ("louvain", "leiden"):
            raise ValueError(
                f"consolidation.cluster_algorithm={algorithm!r} needs Neo4j with GDS; on FalkorDB use "
                "'auto' or 'label_propagation' (algo.labelPropagation) or 'cypher'")
        return clusters_falkordb(ctx, keys), "falkordb_label_propagation"
    if dialect == "neo4j":
        rows = ctx.graph.run("consolidation_gds_available", {"names": [p for p, _ in _GDS_PROCEDURES.values()]})
        available = set(rows[0]["names"]) if rows else set()
        choices = ["louvain", "label_propagation"] if algorithm == "auto" else [algorithm]
        for choice in choices:
            if _GDS_PROCEDURES[choice][0] in available:
                return clusters_gds(ctx, keys, choice), f"gds_{choice}"
        if algorithm != "auto":
            raise ValueError(
                f"consolidation.cluster_algorithm={algorithm!r} needs the GDS procedure "
                f"{_GDS_PROCEDURES[algorithm][0]}, which this Neo4j does not have; use 'auto' or 'cypher'")
    return clusters_cypher(ctx, keys), "cypher_label_propagation"


def clusters_falkordb(ctx: MemoryContext, keys: list[str]) -> list[tuple[str, list[str]]]:
    present = {r["type"] for r in ctx.graph.run("consolidation_relationship_types", {})}
    rel_types = [e.value for e in CLUSTER_EDGE_TYPES if e.value in present]
    if not rel_types:
        return []
    rows = ctx.graph.run("consolidation_clusters_label_propagation", {
        "relTypes": rel_types, "maxIterations": ctx.config.consolidation.cluster_max_iterations, "scopeKeys": keys,
        "minSize": ctx.config.consolidation.min_cluster_size})
    return [(r["scopeKey"], list(r["members"])) for r in rows]


def clusters_gds(ctx: MemoryContext, keys: list[str], choice: str) -> list[tuple[str, list[str]]]:
    statement = _GDS_PROCEDURES[choice][1]
    out: list[tuple[str, list[str]]] = []
    for key in keys:
        name = f"cogmem_consolidation_{uuid.uuid4().hex}"
        projected = ctx.graph.run("consolidation_gds_project", {
            "scopeKey": key, "graphName": name, "minWeight": CLUSTER_MIN_EDGE_WEIGHT}, write=True)
        try:
            if not projected or not projected[0]["relationships"]:
                continue
            rows = ctx.graph.run(statement, {
                "graphName": name, "scopeKey": key,
                "minSize": ctx.config.consolidation.min_cluster_size}, write=True)
            out += [(r["scopeKey"], list(r["members"])) for r in rows]
        finally:
            if projected:
                ctx.graph.run("consolidation_gds_drop", {"graphName": name}, write=True)
    return out


def clusters_cypher(ctx: MemoryContext, keys: list[str]) -> list[tuple[str, list[str]]]:
    """Label propagation in plain Cypher: a label per trace, rounds of weighted majority
    vote until nothing changes (or the iteration cap), then the communities."""
    cfg = ctx.config.consolidation
    out: list[tuple[str, list[str]]] = []
    for key in keys:
        params = {"scopeKey": key, "minWeight": CLUSTER_MIN_EDGE_WEIGHT}
        rows = ctx.graph.run("consolidation_lpa_init", params, write=True)
        if not rows or not rows[0]["labelled"]:
            continue
        for _ in range(cfg.cluster_max_iterations):
            rows = ctx.graph.run("consolidation_lpa_step", params, write=True)
            if not rows or not rows[0]["changed"]:
                break
        rows = ctx.graph.run("consolidation_lpa_clusters", {
            "scopeKey": key, "minSize": cfg.min_cluster_size, "limit": max(1, cfg.max_schemas_per_cycle)})
        out += [(r["scopeKey"], list(r["members"])) for r in rows]
    return out
