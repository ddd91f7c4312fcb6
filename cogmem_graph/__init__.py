"""cogmem-graph: cognitive memory for LLM agents whose home is a graph database."""

from cogmem_graph.clock import Clock, ManualClock, SystemClock
from cogmem_graph.model import (
    EdgeType,
    Hexaco,
    MemoryTrace,
    MemoryType,
    Mood,
    Scope,
    SourceType,
)

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "EdgeType",
    "Hexaco",
    "ManualClock",
    "MemoryTrace",
    "MemoryType",
    "Mood",
    "Scope",
    "SourceType",
    "SystemClock",
    "__version__",
]
