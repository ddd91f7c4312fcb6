"""What a read, a write or a between-turn process needs, and nothing more.

The facade builds one (`AgentMemory` per handle, `MemoryStore` for owner
operations such as consolidation) so that the layers below it never see the
facade: they get the ports, the providers, the config and the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from cogmem_graph import aio_bridge
from cogmem_graph.model import Hexaco, Mood

if TYPE_CHECKING:
    # Type-only: the ports are Protocols, so any adapter that fits them can be passed in.
    from cogmem_graph.clock import Clock
    from cogmem_graph.config import CogmemConfig
    from cogmem_graph.graph.port import GraphStore
    from cogmem_graph.identity import AgentIdentity
    from cogmem_graph.providers.embedders import Embedder
    from cogmem_graph.providers.llm import LLM
    from cogmem_graph.providers.rerank import Reranker
    from cogmem_graph.vectors.port import VectorIndex

MoodSource = Mood | Callable[[], Mood] | None


def _no_traits(agent_id: str) -> Hexaco | None:
    return None


def _always_open() -> None:
    return None


@dataclass(frozen=True, eq=False)
class MemoryContext:
    """The graph and vector ports, the providers, config and clock, and who is asking
    (`identity` is None for the store owner, who sees every scope key it names)."""

    graph: GraphStore
    vectors: VectorIndex
    embedder: Embedder
    config: CogmemConfig
    clock: Clock
    reranker: Reranker | None = None
    llm: LLM | None = None
    identity: AgentIdentity | None = None
    traits: Hexaco = field(default_factory=Hexaco)
    mood: MoodSource = None
    agent_traits: Callable[[str], Hexaco | None] = _no_traits
    """The traits an agent's handle was opened with (consolidation judges contradictions by them)."""
    check_open: Callable[[], None] = _always_open
    """Raises `StoreClosed` once the store is closed (long-running steps check between runs)."""

    @cached_property
    def visible_scope_keys(self) -> list[str]:
        if self.identity is None:
            raise ValueError("the store owner's context has no agent identity")
        return self.identity.visible_scope_keys()

    @property
    def caller(self) -> AgentIdentity:
        """The agent asking, for the steps only an agent takes (the owner has no identity)."""
        if self.identity is None:
            raise ValueError("the store owner's context has no agent identity")
        return self.identity

    @property
    def agent_id(self) -> str:
        return self.caller.agent_id

    def current_mood(self) -> Mood:
        if self.mood is None:
            return Mood()
        # A provider may do I/O: inside a call of the async store on the event loop, it runs on the pool.
        return aio_bridge.blocking(self.mood) if callable(self.mood) else self.mood

    def for_agent(self, identity: AgentIdentity, traits: Hexaco, mood: MoodSource = None) -> MemoryContext:
        """The same store seen by one agent."""
        return replace(self, identity=identity, traits=traits, mood=mood)


class ContextSource(Protocol):
    """What makes a `MemoryContext`: a store (its owner's context) or an agent handle (its
    own). A module that is handed a store but needs only its ports names it by this, not
    by the facade's class, which it then need not import."""

    def context(self) -> MemoryContext: ...


def checked_context(source: ContextSource) -> MemoryContext:
    """`source`'s context, once its store is known to be open.

    Raises:
        StoreClosed: the store is closed.
    """
    ctx = source.context()
    ctx.check_open()
    return ctx
