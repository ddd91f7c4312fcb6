"""The Cypher adapter of the `GraphStore` port, shared by both engines.

Each operation is one named statement (or a few, batched) and one round trip. The
operations live in `cypher_store/`, one module per aggregate; `CypherGraphStore` composes
them. Subclasses only know how to execute a statement on their engine (`_run`), set up
their schema, and phrase a full-text query; everything else (batching, deduplication,
scope checks, result shaping) lives in those modules once.
"""

from __future__ import annotations

from cogmem_graph.graph.cypher_store.activation import MAX_ACTIVATION_FRONTIER, ActivationStatements
from cogmem_graph.graph.cypher_store.archive import ArchiveStatements
from cogmem_graph.graph.cypher_store.communities import CommunityStatements
from cogmem_graph.graph.cypher_store.consolidation import ConsolidationStatements
from cogmem_graph.graph.cypher_store.edges import LINK_ROWS_PER_STATEMENT, EdgeStatements
from cogmem_graph.graph.cypher_store.execution import (
    BATCH_SIZE,
    REPEATABLE_WRITES,
    require_scope_keys,
)
from cogmem_graph.graph.cypher_store.governance import GovernanceStatements
from cogmem_graph.graph.cypher_store.intentions import IntentionStatements
from cogmem_graph.graph.cypher_store.multihop import MultiHopStatements
from cogmem_graph.graph.cypher_store.notes import NoteStatements
from cogmem_graph.graph.cypher_store.portability import PortabilityStatements
from cogmem_graph.graph.cypher_store.traces import TraceStatements
from cogmem_graph.graph.cypher_store.upgrade import UpgradeStatements

__all__ = ["BATCH_SIZE", "LINK_ROWS_PER_STATEMENT", "MAX_ACTIVATION_FRONTIER", "REPEATABLE_WRITES",
           "CypherGraphStore", "require_scope_keys"]


class CypherGraphStore(TraceStatements, EdgeStatements, ActivationStatements, GovernanceStatements,
                       NoteStatements, IntentionStatements, ArchiveStatements, ConsolidationStatements,
                       CommunityStatements, MultiHopStatements, PortabilityStatements, UpgradeStatements):
    """A GraphStore over a Cypher engine: every aggregate's statements, one engine's execution."""
