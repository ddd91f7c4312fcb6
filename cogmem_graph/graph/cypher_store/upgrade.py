"""The graph's side of an upgrade: the version stamp of its data layout and the backfills
of properties older versions did not write (`cogmem_graph.api.upgrade` decides what runs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cogmem_graph.graph.cypher_store.execution import StatementRunner

STAMP_NAME = "cogmem-graph"
"""The one StoreVersion node's name (a graph holds one layout)."""


class UpgradeStatements(StatementRunner):
    """Read and write the graph's version stamp; backfill trace properties."""

    def store_version(self) -> tuple[int, str] | None:
        """(version, release that stamped it), or None for a graph never stamped."""
        rows = self.run("store_version_get", {"name": STAMP_NAME})
        if not rows or rows[0]["version"] is None:
            return None
        return int(rows[0]["version"]), str(rows[0]["release"] or "")

    def set_store_version(self, version: int, release: str, now: int) -> None:
        self.run("store_version_set", {"name": STAMP_NAME, "version": version, "release": release, "now": now},
                 write=True)

    def count_traces_without_meta(self) -> int:
        return self.run_count("upgrade_count_traces_without_meta", "n")

    def traces_without_meta(self, limit: int) -> list[tuple[str, str | None]]:
        """(id, metadata JSON) of up to `limit` traces lacking the metadata lists filters read."""
        return [(r["id"], r["metadata"]) for r in self.run("upgrade_traces_without_meta", {"limit": limit})]

    def backfill_trace_props(self, props_by_id: Mapping[str, dict[str, Any]]) -> int:
        """Set the given properties on each trace, whatever its scope (an owner's upgrade)."""
        rows = [{"id": i, "props": props} for i, props in props_by_id.items()]
        return len(self.run("upgrade_set_trace_props", {"rows": rows}, write=True)) if rows else 0
