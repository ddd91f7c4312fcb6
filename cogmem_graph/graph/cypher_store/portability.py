"""Export and import: every node and link read in cursor-ordered pages, and written back as
saved (`portable.py` turns them into JSON Lines and back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogmem_graph.graph.cypher_store.execution import StatementRunner
from cogmem_graph.graph.port import ExportSection, SavedNodes
from cogmem_graph.graph.rows import ExportRow
from cogmem_graph.model import EdgeType

_EXPORT_STATEMENTS: dict[str, str] = {
    "traces": "export_traces", "entities": "export_entities", "schemas": "export_schemas",
    "archived": "export_archived", "prospective": "export_prospective",
    "observation_notes": "export_observation_notes", "conversation_turns": "export_conversation_turns",
    "mentions": "export_mentions", "edges": "export_edges",
}
_IMPORT_SAVED: dict[str, str] = {
    "prospective": "import_prospective", "observation_notes": "import_observation_notes",
    "conversation_turns": "import_conversation_turns",
}


class PortabilityStatements(StatementRunner):
    """Pages of an export; the writes of an import."""

    def export_page(self, section: ExportSection, *, after: str, limit: int,
                    scope_keys: Sequence[str] | None) -> list[ExportRow]:
        """Up to `limit` rows of `section` after the cursor `after` (all scopes when
        `scope_keys` is None; entities then include those no visible trace mentions)."""
        name = _EXPORT_STATEMENTS[section]
        if section == "entities" and scope_keys is not None:
            name = "export_entities_of_scopes"
        return self.run(name, {"after": after, "limit": limit,
                               "scopeKeys": None if scope_keys is None else list(scope_keys)})

    def import_trace_props(self, extras: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Properties a backup holds beyond `MemoryTrace`'s fields, (trace id, props), set as saved."""
        self.run("import_trace_props", {"rows": [{"id": i, "props": p} for i, p in extras]}, write=True)

    def import_entities(self, entities: Sequence[dict[str, Any]]) -> None:
        self.run("import_entities", {"rows": [{"key": p["key"], "props": p} for p in entities]}, write=True)

    def import_schemas(self, schemas: Sequence[dict[str, Any]]) -> None:
        self.run("import_schemas", {"rows": [{"id": p["id"], "props": p} for p in schemas]}, write=True)

    def import_archived(self, archived: Sequence[dict[str, Any]]) -> None:
        self.run("import_archived", {"rows": [{"traceId": p["traceId"], "props": p} for p in archived]},
                 write=True)

    def import_saved_nodes(self, kind: SavedNodes, nodes: Sequence[dict[str, Any]]) -> int:
        """Reminders, notes or buffered turns written as saved; how many were written."""
        rows = [{"id": p["id"], "props": p} for p in nodes]
        return int(self.run(_IMPORT_SAVED[kind], {"rows": rows}, write=True)[0]["written"])

    def import_edge_props(self, edge_type: EdgeType, edges: Sequence[tuple[str, str, dict[str, Any]]]) -> int:
        """Each saved (src, dst, props) edge: SCHEMA_INSTANCE links made as saved, other edges'
        saved properties set (the edge itself made first with `merge_edges`). How many."""
        rows = [{"src": s, "dst": d, "type": edge_type.value, "props": p} for s, d, p in edges]
        name = "import_schema_instances" if edge_type is EdgeType.SCHEMA_INSTANCE else "import_edge_props"
        return int(self.run(name, {"rows": rows}, write=True)[0]["written"])
