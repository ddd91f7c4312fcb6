"""Step 9: archive retention. Archived originals nobody rehydrated within the retention
period are dropped, in every scope key the run was asked for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext


def prune_archive(sc: StepContext, keys: Sequence[str]) -> None:
    """`keys` hold active traces; the archive is pruned in every scope key of the run
    (`sc.scope_keys`), those without active traces too."""
    sc.result.archive_pruned = sc.archive.prune(sc.ctx.config.consolidation.archive_retention_ms,
                                                list(sc.scope_keys))
