"""The facade: `open()`, the store, agent handles and what they return.

What belongs here: the objects a caller holds (`MemoryStore`, `AgentMemory`, their async
twins), the checks of their arguments, and the wiring of the layers below into them (each
call hands those layers a `MemoryContext`). It may import every layer below it; the layers
above it (`cli/`, `server/`, `client/`, `integrations/`) reach the memory through it and,
except the CLI, through nothing else (import-linter contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogmem_graph.api.records import AgentRecords
from cogmem_graph.api.results import AssembledContext, RepairResult, RetrievalResult, ScoredTrace
from cogmem_graph.api.store import MemoryStore, StoreClosed, default_home, open  # noqa: A004
from cogmem_graph.write.request import EncodeRequest

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory

__all__ = [
    "AgentMemory", "AgentRecords", "AssembledContext", "EncodeRequest", "MemoryStore", "RepairResult",
    "RetrievalResult", "ScoredTrace", "StoreClosed", "default_home", "open",
]


def __getattr__(name: str) -> Any:
    """`AgentMemory` on first use: its module imports the read and write paths (and numpy)."""
    if name == "AgentMemory":
        from cogmem_graph.api.agent import AgentMemory

        return AgentMemory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
