"""Communities of traces for schema integration, found in the database: FalkorDB's label
propagation, GDS on Neo4j, or label propagation in plain Cypher as the fallback."""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.graph.cypher_store.graph_store import require_scope_keys
from cogmem_graph.graph.port import GdsCommunityAlgorithm
from cogmem_graph.model import EdgeType

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

CLUSTER_EDGE_TYPES: tuple[EdgeType, ...] = (EdgeType.SHARED_ENTITY, EdgeType.SAME_TOPIC, EdgeType.CAUSED_BY)
"""Edges that make traces "about the same thing" for cluster detection (not the
conversational TEMPORAL_SEQUENCE, nor CO_ACTIVATED, which one co-retrieval creates)."""
CLUSTER_MIN_EDGE_WEIGHT = 0.0
"""Edges lighter than this are ignored by GDS and the Cypher fallback (FalkorDB's label
propagation cannot weigh edges, so 0 keeps the backends alike)."""

_GDS_PROCEDURES: dict[GdsCommunityAlgorithm, str] = {
    "louvain": "gds.louvain.stream",
    "leiden": "gds.leiden.stream",
    "label_propagation": "gds.labelPropagation.stream",
}
_AUTO_GDS: tuple[GdsCommunityAlgorithm, ...] = ("louvain", "label_propagation")
"""What cluster_algorithm="auto" uses on Neo4j, the first the server has."""

_told_without_gds: weakref.WeakSet[object] = weakref.WeakSet()
"""Graph stores whose log already says that "auto" found no GDS (said once per store)."""
_told_lock = threading.Lock()


def detect_clusters(ctx: MemoryContext, keys: Sequence[str]) -> tuple[list[tuple[str, list[str]]], str]:
    """Communities of traces per scope key (members not yet in a schema, at least the
    minimum cluster size, the largest ones a run turns into schemas), found in the database;
    and which algorithm found them."""
    keys = require_scope_keys(keys)
    algorithm = ctx.config.consolidation.cluster_algorithm
    dialect = ctx.graph.dialect
    if algorithm == "cypher":
        return clusters_cypher(ctx, keys), "cypher_label_propagation"
    if dialect == "falkordb":
        if algorithm in ("louvain", "leiden"):
            raise InvalidArgument(
                f"consolidation.cluster_algorithm={algorithm!r} needs Neo4j with GDS; on FalkorDB use "
                "'auto' or 'label_propagation' (algo.labelPropagation) or 'cypher'",
                argument="consolidation.cluster_algorithm")
        return clusters_falkordb(ctx, keys), "falkordb_label_propagation"
    if dialect == "neo4j":
        available = ctx.graph.gds_procedures_available(list(_GDS_PROCEDURES.values()))
        choices: tuple[GdsCommunityAlgorithm, ...] = _AUTO_GDS if algorithm == "auto" else (algorithm,)
        for choice in choices:
            if _GDS_PROCEDURES[choice] in available:
                return clusters_gds(ctx, keys, choice), f"gds_{choice}"
        if algorithm != "auto":
            raise InvalidArgument(
                f"consolidation.cluster_algorithm={algorithm!r} needs the GDS procedure "
                f"{_GDS_PROCEDURES[algorithm]}, which this Neo4j does not have; use 'auto' or 'cypher'",
                argument="consolidation.cluster_algorithm")
        _say_once_without_gds(ctx.graph)
    return clusters_cypher(ctx, keys), "cypher_label_propagation"


def _say_once_without_gds(graph: object) -> None:
    """Warn, once per graph store, that "auto" found no GDS on this Neo4j and clusters in
    plain Cypher instead."""
    with _told_lock:
        if graph in _told_without_gds:
            return
        _told_without_gds.add(graph)
    missing = ", ".join(_GDS_PROCEDURES[choice] for choice in _AUTO_GDS)
    log.warning(
        "consolidation.cluster_algorithm='auto': %r has none of the Graph Data Science procedures %s, "
        "so schema integration finds clusters by label propagation in plain Cypher (several statements "
        "a run, slower on large graphs). Install the Neo4j Graph Data Science plugin (GDS 2.x: its jar "
        "in the server's plugins/ directory, or NEO4J_PLUGINS='[\"graph-data-science\"]' for the Docker "
        "image) for Louvain in one call, or set cluster_algorithm='cypher' to keep the fallback "
        "without this warning.", graph, missing)


def communities_wanted(ctx: MemoryContext) -> int:
    """How many communities a read returns (largest first): as many as a run turns into
    schemas, since schema integration takes them in that order and stops there."""
    return max(1, ctx.config.consolidation.max_schemas_per_cycle)


def clusters_falkordb(ctx: MemoryContext, keys: list[str]) -> list[tuple[str, list[str]]]:
    present = ctx.graph.relationship_types()
    rel_types = [e.value for e in CLUSTER_EDGE_TYPES if e.value in present]
    if not rel_types:
        return []
    cfg = ctx.config.consolidation
    return ctx.graph.label_propagation_communities(
        rel_types, keys, max_iterations=cfg.cluster_max_iterations, min_size=cfg.min_cluster_size,
        limit=communities_wanted(ctx))


def clusters_gds(ctx: MemoryContext, keys: list[str], choice: GdsCommunityAlgorithm) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for key in keys:
        name = f"cogmem_consolidation_{uuid.uuid4().hex}"
        relationships: int | None = None
        try:
            relationships = ctx.graph.project_community_graph(key, name, CLUSTER_MIN_EDGE_WEIGHT)
            if relationships:
                out += ctx.graph.gds_communities(choice, name, key, ctx.config.consolidation.min_cluster_size,
                                                 communities_wanted(ctx))
        except BaseException:
            # The projection may exist even though its statement failed (its answer was lost,
            # or a retry met the name taken): drop it, keeping the error that got here.
            with contextlib.suppress(Exception):
                ctx.graph.drop_gds_graph(name)
            raise
        if relationships is not None:
            ctx.graph.drop_gds_graph(name)
    return out


def clusters_cypher(ctx: MemoryContext, keys: list[str]) -> list[tuple[str, list[str]]]:
    """Label propagation in plain Cypher: a label per trace, rounds of weighted majority
    vote until nothing changes (or the iteration cap), then the communities."""
    cfg = ctx.config.consolidation
    out: list[tuple[str, list[str]]] = []
    for key in keys:
        if not ctx.graph.label_propagation_start(key, CLUSTER_MIN_EDGE_WEIGHT):
            continue
        for _ in range(cfg.cluster_max_iterations):
            if not ctx.graph.label_propagation_round(key, CLUSTER_MIN_EDGE_WEIGHT):
                break
        out += ctx.graph.label_propagation_result(key, min_size=cfg.min_cluster_size, limit=communities_wanted(ctx))
    return out
