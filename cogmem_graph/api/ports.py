"""What an agent handle and the governance operations use of the store, and governance of
the handle, as Protocols.

`MemoryStore` makes agent handles and calls the governance operations, so it imports
them; they name the store (and governance the handle) by what they call on it, and import
neither. `MemoryStore` and `AgentMemory` fit these by their shape. The backends are reached
through the caller's `MemoryContext` (`context.checked_context`), whose open check is the
store's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cogmem_graph.api.consolidation_log import ConsolidationLog
    from cogmem_graph.between_turns.consolidation import ConsolidationResult
    from cogmem_graph.clock import Clock
    from cogmem_graph.config import CogmemConfig
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.graph.port import GraphStore
    from cogmem_graph.identity import AgentIdentity
    from cogmem_graph.model import Hexaco
    from cogmem_graph.vectors.port import VectorIndex

__all__ = ["HandlePort", "StorePort"]


class StorePort(Protocol):
    """A store as its agent handles and the governance operations see it (`MemoryStore`)."""

    @property
    def home(self) -> Path: ...

    @property
    def config(self) -> CogmemConfig: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def graph(self) -> GraphStore: ...

    @property
    def vectors(self) -> VectorIndex: ...

    @property
    def consolidation_log(self) -> ConsolidationLog: ...

    def context(self) -> MemoryContext: ...

    def consolidate(self, scope_keys: list[str] | None = None, *, traits: Hexaco | None = None,
                    trigger: str = "call") -> ConsolidationResult: ...

    def compaction_due(self) -> None: ...

    def compact(self) -> dict[str, Any]: ...


class HandlePort(Protocol):
    """An agent handle as the governance operations it calls see it (`AgentMemory`)."""

    @property
    def store(self) -> StorePort: ...

    @property
    def identity(self) -> AgentIdentity: ...

    @property
    def visible_scope_keys(self) -> list[str]: ...

    def context(self) -> MemoryContext: ...

    def working_memory_forget(self, trace_ids: Sequence[str]) -> None: ...
