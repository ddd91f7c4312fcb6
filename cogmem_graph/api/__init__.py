"""The public API: `open()`, the store, agent handles and what they return."""

from cogmem_graph.api.agent import AgentMemory
from cogmem_graph.api.results import AssembledContext, RepairResult, RetrievalResult, ScoredTrace
from cogmem_graph.api.store import MemoryStore, StoreClosed, default_home, open  # noqa: A004
from cogmem_graph.write.request import EncodeRequest

__all__ = [
    "AgentMemory", "AssembledContext", "EncodeRequest", "MemoryStore", "RepairResult", "RetrievalResult", "ScoredTrace",
    "StoreClosed", "default_home", "open",
]
