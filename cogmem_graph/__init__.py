"""cogmem-graph: cognitive memory for LLM agents whose home is a graph database.

The names below are loaded on first use (PEP 562), so a process that only needs part of
the package (the `cogmem` command talking to a server, `cg.connect`) does not pay for
importing the graph and vector drivers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_WHERE: dict[str, str] = {
    "AgentMemory": "cogmem_graph.api",
    "AssembledContext": "cogmem_graph.api",
    "MemoryStore": "cogmem_graph.api",
    "RepairResult": "cogmem_graph.api",
    "RetrievalResult": "cogmem_graph.api",
    "ScoredTrace": "cogmem_graph.api",
    "open": "cogmem_graph.api",
    "AsyncAgentMemory": "cogmem_graph.api.async_agent",
    "AsyncMemoryStore": "cogmem_graph.api.async_store",
    "open_async": "cogmem_graph.api.async_store",
    "connect": "cogmem_graph.client",
    "RemoteAgent": "cogmem_graph.client",
    "AsyncRemoteAgent": "cogmem_graph.client.aio",
    "connect_async": "cogmem_graph.client.aio",
    "Clock": "cogmem_graph.clock",
    "ManualClock": "cogmem_graph.clock",
    "SystemClock": "cogmem_graph.clock",
    "FiredReminder": "cogmem_graph.cognition.prospective",
    "Intention": "cogmem_graph.cognition.prospective",
    "TriggerKind": "cogmem_graph.cognition.prospective",
    "CogmemConfig": "cogmem_graph.config",
    "EdgeType": "cogmem_graph.model",
    "Hexaco": "cogmem_graph.model",
    "MemoryCategory": "cogmem_graph.model",
    "MemoryTrace": "cogmem_graph.model",
    "MemoryType": "cogmem_graph.model",
    "Mood": "cogmem_graph.model",
    "Scope": "cogmem_graph.model",
    "SourceType": "cogmem_graph.model",
    "Witness": "cogmem_graph.pipeline.perspective",
    "MemoryFilter": "cogmem_graph.filters",
    "MemoryState": "cogmem_graph.filters",
    "MemoryRecord": "cogmem_graph.api.governance",
    "MemoryPage": "cogmem_graph.api.governance",
    "MemoryNotFound": "cogmem_graph.api.governance",
    "ForgetReceipt": "cogmem_graph.api.governance",
    "EraseReceipt": "cogmem_graph.api.governance",
}

__all__ = [
    "AgentMemory",
    "AssembledContext",
    "MemoryStore",
    "RepairResult",
    "RetrievalResult",
    "ScoredTrace",
    "open",
    "AsyncAgentMemory",
    "AsyncMemoryStore",
    "open_async",
    "connect",
    "RemoteAgent",
    "AsyncRemoteAgent",
    "connect_async",
    "Clock",
    "ManualClock",
    "SystemClock",
    "FiredReminder",
    "Intention",
    "TriggerKind",
    "CogmemConfig",
    "EdgeType",
    "Hexaco",
    "MemoryCategory",
    "MemoryTrace",
    "MemoryType",
    "Mood",
    "Scope",
    "SourceType",
    "Witness",
    "MemoryFilter",
    "MemoryState",
    "MemoryRecord",
    "MemoryPage",
    "MemoryNotFound",
    "ForgetReceipt",
    "EraseReceipt",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'cogmem_graph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


if TYPE_CHECKING:
    from cogmem_graph.api import (
        AgentMemory,
        AssembledContext,
        MemoryStore,
        RepairResult,
        RetrievalResult,
        ScoredTrace,
        open,  # noqa: A004 - `cg.open()` is the entry point
    )
    from cogmem_graph.api.async_agent import AsyncAgentMemory
    from cogmem_graph.api.async_store import AsyncMemoryStore, open_async
    from cogmem_graph.api.governance import (
        EraseReceipt,
        ForgetReceipt,
        MemoryNotFound,
        MemoryPage,
        MemoryRecord,
    )
    from cogmem_graph.client import RemoteAgent, connect
    from cogmem_graph.client.aio import AsyncRemoteAgent, connect_async
    from cogmem_graph.clock import Clock, ManualClock, SystemClock
    from cogmem_graph.cognition.prospective import FiredReminder, Intention, TriggerKind
    from cogmem_graph.config import CogmemConfig
    from cogmem_graph.filters import MemoryFilter, MemoryState
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
