"""cogmem-graph: cognitive memory for LLM agents whose home is a graph database."""

from cogmem_graph.api import (
    AgentMemory,
    AssembledContext,
    MemoryStore,
    RepairResult,
    RetrievalResult,
    ScoredTrace,
    open,  # noqa: A004 - `cg.open()` is the entry point
)
from cogmem_graph.client import RemoteAgent, connect
from cogmem_graph.clock import Clock, ManualClock, SystemClock
from cogmem_graph.cognition.prospective import FiredReminder, Intention, TriggerKind
from cogmem_graph.config import CogmemConfig
from cogmem_graph.model import (
    EdgeType,
    Hexaco,
    MemoryCategory,
    MemoryTrace,
    MemoryType,
    Mood,
    Scope,
    SourceType,
)
from cogmem_graph.pipeline.perspective import Witness

__version__ = "0.1.0"

__all__ = [
    "AgentMemory",
    "AssembledContext",
    "CogmemConfig",
    "MemoryStore",
    "RepairResult",
    "RetrievalResult",
    "ScoredTrace",
    "open",
    "connect",
    "RemoteAgent",
    "Clock",
    "EdgeType",
    "FiredReminder",
    "Intention",
    "Hexaco",
    "ManualClock",
    "MemoryCategory",
    "MemoryTrace",
    "MemoryType",
    "Mood",
    "Scope",
    "SourceType",
    "SystemClock",
    "TriggerKind",
    "Witness",
    "__version__",
]
