"""What a consolidation step is given: one run's context. The steps are plain functions of
it, so none of them needs the consolidator (which imports them)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cogmem_graph.model import Hexaco, MemoryTrace

if TYPE_CHECKING:
    from cogmem_graph.between_turns.archive import MemoryArchive
    from cogmem_graph.between_turns.consolidation.result import ConsolidationResult
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)


@dataclass
class NeighbourBudget:
    """Qdrant neighbour queries the merge step may still make in one run, shared fairly by
    the scope keys it has yet to merge. Each run makes its own; `queries` None: no limit."""

    queries: int | None = None
    keys_left: int = 0

    def next_key(self) -> int | None:
        """The next scope key's share of what is left, rounded up (None: no limit)."""
        share = max(1, self.keys_left)
        self.keys_left -= 1
        return None if self.queries is None else -(-self.queries // share)

    def spend(self, queries: int) -> None:
        if self.queries is not None:
            self.queries -= queries


@dataclass(frozen=True, eq=False)
class StepContext:
    """One run of consolidation as its steps see it: the store owner's memory context (ports,
    providers, config, clock), the archive, the result being filled, the merge step's
    neighbour budget, and the run's settings."""

    ctx: MemoryContext
    archive: MemoryArchive
    result: ConsolidationResult
    scope_keys: tuple[str, ...] = ()
    """Every scope key the run was asked for, with active traces or not."""
    budget: NeighbourBudget = field(default_factory=NeighbourBudget)
    traits: Hexaco | None = None
    """Decide every contradiction of the run (None: the traits of the agent that stated the
    newer side, else `fallback_traits`)."""
    fallback_traits: Hexaco = field(default_factory=Hexaco)
    full_pass: bool = False
    """The steps read every trace, as if no bookkeeping were kept (see `Consolidator.full_pass`)."""

    def now(self) -> int:
        return self.ctx.clock.now_ms()

    def load(self, found: Iterable[dict[str, Any]]) -> list[MemoryTrace]:
        """Traces from their property maps; an invalid one is skipped with a warning."""
        traces = []
        for props in found:
            try:
                traces.append(MemoryTrace.from_graph_props(props))
            except ValidationError as exc:
                log.warning("consolidation skips trace %r: its stored properties are invalid (%s)",
                            props.get("id"), exc.errors()[:1])
        return traces

    def state(self, key: str) -> dict[str, Any]:
        """What consolidation remembered about `key` at its last run (empty: nothing)."""
        return self.ctx.graph.consolidation_state(key)

    def set_state(self, key: str, props: dict[str, Any]) -> None:
        self.ctx.graph.set_consolidation_state(key, props, self.now())

    def deactivate_vectors(self, ids: Sequence[str]) -> None:
        """The graph is the truth; if Qdrant fails here, `store.repair()` finishes the job."""
        if ids:
            self.ctx.vectors.set_active(list(ids), False)

    def count_edges(self, ids: Sequence[str]) -> int:
        return self.ctx.graph.count_edges_of(ids)
