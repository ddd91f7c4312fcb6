"""`AsyncAgentMemory`: an agent handle whose methods are awaitables.

Every public method of `AgentMemory` is here under its name: a coroutine that runs the
sync method, on the event loop for the short calls of `BRIDGED` when the graph has an
asyncio client, else on its store's worker threads (`api/offload.py`), and returns what it
returns, the same result types and the same exceptions. The calls that read or change the handle's
working memory or its buffer of observed turns run one at a time, as `cogmem serve` runs
them for one key; the handle's other calls run side by side. `context` and `set_mood`
stay plain methods: they touch no backend.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from cogmem_graph import aio_bridge
from cogmem_graph.api.agent import AgentMemory
from cogmem_graph.api.offload import Offload, add_twins
from cogmem_graph.errors import InvalidArgument

if TYPE_CHECKING:
    from cogmem_graph.cognition.working_memory import WorkingMemory
    from cogmem_graph.identity import AgentIdentity
    from cogmem_graph.model import Hexaco

__all__ = ["BRIDGED", "PLAIN", "SERIALISED", "AsyncAgentMemory"]

SERIALISED = frozenset({"retrieve", "assemble_for_prompt", "forget", "working_memory_forget", "observe",
                        "flush_observations"})
"""The methods that read or change the handle's working memory or its observed turns: one at a time."""
BRIDGED = frozenset({"retrieve", "assemble_for_prompt", "multi_hop", "encode", "get", "list", "history", "stats",
                     "neighbourhood"})
"""The methods run on the event loop when the graph has an asyncio client (`Offload.run_bridged`): a
few round trips each and little Python work between them. The others (a batch, consolidation,
an export) run on the threads."""
PLAIN = frozenset({"context", "set_mood"})
"""The methods that stay plain: no backend, no lock."""

StoreT = TypeVar("StoreT")
"""The class of the async store that made the handle (`AsyncMemoryStore`), which this
module need not know: the handle uses nothing of it but the threads it is given."""


@add_twins(AgentMemory, plain=PLAIN)
class AsyncAgentMemory(Generic[StoreT]):
    """One agent's view of an `AsyncMemoryStore` (`store.agent(...)`): `AgentMemory`'s methods,
    awaitable, run on the store's worker threads (`offload`). `sync` is the `AgentMemory` it
    runs."""

    def __init__(self, store: StoreT, agent: AgentMemory, offload: Offload) -> None:
        if not isinstance(agent, AgentMemory):
            raise InvalidArgument(f"agent must be an AgentMemory, not {type(agent).__name__}", argument="agent")
        self.store = store
        self.sync = agent
        self._offload = offload
        self._one_at_a_time = threading.Lock()  # taken on the worker thread, so a cancelled task cannot drop it
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()
        """Where the serialised calls run on a loop wait their turn first (one lock per loop)."""

    def __repr__(self) -> str:
        return f"AsyncAgentMemory(agent_id={self.identity.agent_id!r}, scopes={self.visible_scope_keys!r})"

    @property
    def identity(self) -> AgentIdentity:
        return self.sync.identity

    @property
    def traits(self) -> Hexaco:
        return self.sync.traits

    @property
    def visible_scope_keys(self) -> list[str]:
        return self.sync.visible_scope_keys

    @property
    def working_memory(self) -> WorkingMemory:
        return self.sync.working_memory

    async def _call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        method: Callable[..., Any] = getattr(self.sync, name)
        if name in SERIALISED:
            method = functools.partial(_holding, self._one_at_a_time, method)
        if name not in BRIDGED or not self._offload.native_calls:
            return await self._offload.run(method, *args, **kwargs)
        # The serialised ones queue for the handle's turn on the loop, rather than polling its lock.
        turn = self._turns.setdefault(asyncio.get_running_loop(), asyncio.Lock()) if name in SERIALISED else None
        return await self._offload.run_bridged(method, *args, turn=turn, **kwargs)

    def _call_plain(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return getattr(self.sync, name)(*args, **kwargs)


def _holding(lock: threading.Lock, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    aio_bridge.acquire(lock)  # on the loop, a lock a thread holds is tried again between the loop's other tasks
    try:
        return method(*args, **kwargs)
    finally:
        lock.release()
