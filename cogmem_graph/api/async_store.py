"""`cg.open_async()`: a memory store whose methods are awaitables.

The store underneath is the one `cg.open()` opens, and the sync core runs its calls, as it
does for `cogmem serve`, without ever holding the event loop: on a graph with an asyncio
client (FalkorDB, Neo4j) an agent handle's short calls run on the loop, each graph round trip
awaited through that client (`aio_bridge`, `CogmemConfig.async_native_calls`); every other
call runs on a pool of worker threads the async store owns (`CogmemConfig.async_workers`,
or `workers=`), which also takes what the calls on the loop cannot await (the embedded
vector index, the embedder). Every public method of `MemoryStore` is here under its name,
awaitable, with the same results and exceptions; `agent()` returns an
`AsyncAgentMemory`. `agent`, `agent_traits` and `context` stay plain: they touch no
backend. Closed, every call raises `StoreClosed`, and `health()` says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogmem_graph.api.async_agent import AsyncAgentMemory
from cogmem_graph.api.offload import CLOSED, Offload, add_twins, checked_workers
from cogmem_graph.api.store import CLOSED_HEALTH, MemoryStore
from cogmem_graph.api.store import open as open_store
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import InvalidArgument, StoreClosed

if TYPE_CHECKING:
    from collections.abc import Generator

    from cogmem_graph.between_turns.perspective import EventEncoding
    from cogmem_graph.clock import Clock
    from cogmem_graph.context import MoodSource
    from cogmem_graph.model import Hexaco
    from cogmem_graph.providers import Embedder

__all__ = ["PLAIN", "AsyncMemoryStore", "OpeningStore", "open_async"]

PLAIN = frozenset({"agent", "agent_traits", "context"})
"""The methods that stay plain: no backend is asked (`agent` is written here, returning the async handle)."""


@add_twins(MemoryStore, plain=PLAIN)
class AsyncMemoryStore:
    """`MemoryStore`'s methods as awaitables, run on `workers` threads of its own. Made by
    `cg.open_async()`, or around an open store: `AsyncMemoryStore(cg.open(...))`, which it
    then owns (closing one closes the other). `sync` is that store."""

    def __init__(self, store: MemoryStore, *, workers: int | None = None) -> None:
        if not isinstance(store, MemoryStore):
            raise InvalidArgument(f"store must be a MemoryStore (cg.open(...)), not {type(store).__name__}",
                                  argument="store")
        self.sync = store
        native = store.config.async_native_calls if getattr(store.graph, "native_async", False) else 0
        self._offload = Offload(store.config.async_workers if workers is None else checked_workers(workers),
                                native_calls=native)

    def __repr__(self) -> str:
        return f"AsyncMemoryStore({self.sync!r}, workers={self.workers})"

    @property
    def workers(self) -> int:
        return self._offload.workers

    @property
    def native_calls(self) -> int:
        """How many of its handles' calls may run on the event loop at once, waiting for the graph
        through its asyncio client (`config.async_native_calls`); 0 when every call runs on the
        threads (the setting is 0)."""
        return self._offload.native_calls

    @property
    def home(self) -> Path:
        return self.sync.home

    @property
    def config(self) -> CogmemConfig:
        return self.sync.config

    @property
    def clock(self) -> Clock:
        return self.sync.clock

    @property
    def closed(self) -> bool:
        """True once `close()` began: new calls are refused from then on."""
        return not self._offload.accepting

    def agent(
        self, agent_id: str, *, traits: Hexaco | Mapping[str, Any] | None = None, user_id: str | None = None,
        thread_id: str | None = None, persona_id: str | None = None, organization_id: str | None = None,
        mood: MoodSource | Mapping[str, Any] = None,
    ) -> AsyncAgentMemory[AsyncMemoryStore]:
        """A handle for one agent, as `MemoryStore.agent` makes it, whose methods are awaitables."""
        if self.closed:
            raise StoreClosed(CLOSED)
        return AsyncAgentMemory(self, self.sync.agent(
            agent_id, traits=traits, user_id=user_id, thread_id=thread_id, persona_id=persona_id,
            organization_id=organization_id, mood=mood), self._offload)

    async def health(self) -> dict[str, Any]:
        """As `MemoryStore.health()`: never raises; once closed, says so without asking the backends."""
        if self.closed:
            return dict(CLOSED_HEALTH)
        return await self._offload.run(self.sync.health)

    async def encode_event(self, event: str, witnesses: Any, **options: Any) -> EventEncoding:
        """As `MemoryStore.encode_event`; the witnesses may be async agent handles of this store."""
        return await self._offload.run(self.sync.encode_event, event, _sync_witnesses(witnesses), **options)

    async def close(self) -> None:
        """Refuse new calls at once, wait for those in progress (the threads' on a thread), close
        the loop's asyncio clients of the backends, then close the store: the embedded graph server
        stops. Closing again does nothing."""
        self._offload.stop()
        await self._offload.settle()
        for backend in (self.sync.graph, self.sync.vectors):  # their asyncio clients of this loop
            native_close = getattr(backend, "aclose_native", None)
            if native_close is not None:
                await native_close()
        await asyncio.to_thread(self._shut)

    aclose = close

    def _shut(self) -> None:
        self._offload.drain()
        self.sync.close()

    async def __aenter__(self) -> AsyncMemoryStore:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def _call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return await self._offload.run(getattr(self.sync, name), *args, **kwargs)

    def _call_plain(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return getattr(self.sync, name)(*args, **kwargs)


def _sync_witnesses(witnesses: Any) -> Any:
    """The witnesses with each async handle (alone or in a `Witness`) replaced by its sync one;
    anything else as given, for `MemoryStore.encode_event` to check."""
    if isinstance(witnesses, str | bytes) or not isinstance(witnesses, Sequence):
        return witnesses
    out = []
    for item in witnesses:
        agent = getattr(item, "agent", None)
        if isinstance(item, AsyncAgentMemory):
            item = item.sync
        elif isinstance(agent, AsyncAgentMemory) and dataclasses.is_dataclass(item) and not isinstance(item, type):
            item = dataclasses.replace(item, agent=agent.sync)
        out.append(item)
    return out


class OpeningStore:
    """What `open_async()` returns: `await` it for the store, or `async with` it to have the
    store closed at the end of the block."""

    def __init__(self, opening: Callable[[], MemoryStore], workers: int | None) -> None:
        self._opening = opening
        self._workers = workers
        self._store: AsyncMemoryStore | None = None

    def __await__(self) -> Generator[Any, None, AsyncMemoryStore]:
        return self._open().__await__()

    async def __aenter__(self) -> AsyncMemoryStore:
        self._store = await self._open()
        return self._store

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._store is not None:
            await self._store.close()

    async def _open(self) -> AsyncMemoryStore:
        """The sync store opened on a thread of its own (starting the embedded graph takes
        seconds). Cancelled meanwhile, the opening still ends on its thread, and what it
        opened is closed there."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogmem-open")
        opening = pool.submit(self._opening)
        pool.shutdown(wait=False)
        try:
            store = await asyncio.wrap_future(opening)
        except asyncio.CancelledError:
            opening.add_done_callback(_close_when_opened)
            raise
        return AsyncMemoryStore(store, workers=self._workers)


def _import_call_paths() -> None:
    """Import what the calls run on the event loop import on first use (`AsyncAgentMemory.BRIDGED`):
    an import there would hold the loop for tens of milliseconds."""
    from cogmem_graph.cognition import prompt  # noqa: F401
    from cogmem_graph.retrieval import graph_rag, read_path  # noqa: F401
    from cogmem_graph.write import encode  # noqa: F401


def _close_when_opened(opening: Future[MemoryStore]) -> None:
    """Close what an abandoned opening opened, on a thread (this may run on the loop's)."""
    if not opening.cancelled() and opening.exception() is None:
        threading.Thread(target=opening.result().close, name="cogmem-close-abandoned", daemon=True).start()


def open_async(
    home: str | Path | None = None, *, graph: str | None = None, vectors: str | None = None,
    embedder: str | Embedder | None = None, reranker: Any = None, llm: Any = None,
    config: CogmemConfig | None = None, clock: Clock | None = None, upgrade: bool = True,
    workers: int | None = None,
) -> OpeningStore:
    """Open a memory store whose methods are awaitables: `store = await cg.open_async(...)`, or
    `async with cg.open_async(...) as store:`. The store opens on a thread of its own, and
    its vector index makes itself ready there (Qdrant Edge opens or creates every partition:
    its binding stops every thread, the event loop too, while it does, so this happens once,
    here, rather than at a new user's first write).

    Args:
        home, graph, vectors, embedder, reranker, llm, config, clock, upgrade: as `cg.open()`.
        workers: the threads its calls run on (default `config.async_workers`, 4).

    Returns:
        An `OpeningStore`: awaited, the `AsyncMemoryStore`.

    Raises:
        ValueError: `workers` is not an integer from 1 to 256 (at once); when awaited, what
            `cg.open()` raises.
    """
    if workers is not None:
        checked_workers(workers)  # refused now, before anything opens

    def opening() -> MemoryStore:
        store = open_store(home, graph=graph, vectors=vectors, embedder=embedder, reranker=reranker, llm=llm,
                           config=config, clock=clock, upgrade=upgrade)
        try:  # on this thread, not later under the event loop: see VectorIndex.make_ready
            store.vectors.make_ready()
            _import_call_paths()
        except BaseException:
            store.close()
            raise
        return store

    return OpeningStore(opening, workers)
