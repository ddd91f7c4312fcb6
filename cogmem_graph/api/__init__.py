"""The facade: `open()`, the store, agent handles and what they return.

What belongs here: the objects a caller holds (`MemoryStore`, `AgentMemory`, their async
twins), the checks of their arguments, and the wiring of the layers below into them (each
call hands those layers a `MemoryContext`). It may import every layer below it; the layers
above it (`cli/`, `server/`, `client/`, `integrations/`) reach the memory through it and,
except the CLI, through nothing else (import-linter contracts in pyproject.toml).
"""

from cogmem_graph.api.agent import AgentMemory
from cogmem_graph.api.results import AssembledContext, RepairResult, RetrievalResult, ScoredTrace
from cogmem_graph.api.store import MemoryStore, StoreClosed, default_home, open  # noqa: A004
from cogmem_graph.write.request import EncodeRequest

__all__ = [
    "AgentMemory", "AssembledContext", "EncodeRequest", "MemoryStore", "RepairResult", "RetrievalResult", "ScoredTrace",
    "StoreClosed", "default_home", "open",
]
