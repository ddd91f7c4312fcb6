"""What one consolidation run did."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass


class ConsolidationResult:
    """What one run did. Counts are summed over the scope keys consolidated."""

    pruned: int = 0
    """Traces soft-deleted by decay (`RetentionConfig.forgetting = "delete"`)."""
    dormant: int = 0
    """Traces made dormant by decay (the default forgetting): out of the default candidate set."""
    merged: int = 0
    edges_created: int = 0
    schemas_created: int = 0
    conflicts_resolved: int = 0
    reinforced: int = 0
    compacted: int = 0
    gisted: int = 0
    archived: int = 0
    """Verbatim originals written to the archive (write-ahead of the gists)."""
    total_processed: int = 0
    """Active traces in the consolidated scope keys when the run started."""
    duration_ms: float = 0.0
    confidence_decayed: int = 0
    regulated: int = 0
    gist_failures: int = 0
    """Gists not applied because their original could not be archived (retried next run)."""
    archive_pruned: int = 0
    search_graph_ms: float = 0.0
    """Time `MemoryStore.consolidate` spent after the run building the embedded vector index's
    search graphs for what was written since the last run (`VectorIndex.build_search_graphs`)."""
    cluster_algorithm: str | None = None
    scope_keys: list[str] = field(default_factory=list)
    skipped: bool = False
    """True when another run held the mutex: this one did nothing."""

    by_scope: dict[str, dict[str, int]] = field(default_factory=dict)
    """The counts of `COUNTS` each scope key contributed (non-zero ones only): what a caller
    who sees some scopes only may be told of a run over many."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTS}

    def credit(self, scope_key: str, before: dict[str, int]) -> None:
        """Add to `by_scope[scope_key]` what the counts grew by since `before` (`counts()`)."""
        grown = {name: getattr(self, name) - n for name, n in before.items() if getattr(self, name) != n}
        if grown:
            mine = self.by_scope.setdefault(scope_key, {})
            for name, n in grown.items():
                mine[name] = mine.get(name, 0) + n


COUNTS = ("pruned", "dormant", "merged", "edges_created", "schemas_created", "conflicts_resolved", "reinforced",
          "compacted", "gisted", "archived", "confidence_decayed", "regulated", "gist_failures")
"""The per-run counts that belong to one scope key each."""
