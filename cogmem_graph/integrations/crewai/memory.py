"""`CogmemCrewMemory`: cogmem as CrewAI's memory.

A crew or an agent with memory does two things with it: before a task (or a kickoff) it
recalls the memories closest to the task's description and adds them to the prompt, and
after it it extracts statements from the task and its result and remembers them; its
`Search memory` and `Save to memory` tools do the same on the model's request. CrewAI's own
`Memory` asks an LLM to extract, to file each memory under a scope and categories, and to
plan deep recalls, then keeps vectors in LanceDB. Here cogmem's write path does that work
(features, entities, interference, no LLM call), what one handle may read and write is its
scope keys (the crew's scope paths are not used), and recall is cogmem's graph-vector
retrieval. CrewAI's field `Crew.memory` accepts its `Memory` class only, hence a subclass.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from crewai.memory.types import MemoryMatch, MemoryRecord
from crewai.memory.unified_memory import Memory
from pydantic import ConfigDict, Field, field_validator

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.integrations.calls import acall, call
from cogmem_graph.integrations.toolkit import checked_agent

METHODS = ("encode", "retrieve", "forget")


class CogmemCrewMemory(Memory):  # type: ignore[misc]  # base read untyped (crewai: not installed)
    """One cogmem agent handle as a CrewAI `Memory` (`Crew(..., memory=CogmemCrewMemory(agent=h))`).

    `remember` stores a memory (its categories become tags, its metadata is kept); scope,
    importance, source and privacy come from cogmem (the handle's scope and the write
    path), so those arguments are not used. `recall` returns cogmem's best matches, each as
    a `MemoryMatch` whose record's id is the memory's (to `forget` by). `extract_memories`
    returns the text whole: cogmem reads it as it is stored. The agent may be a sync handle
    (`cg.open`) or an async one (`cg.open_async`; the sync methods then run its calls on
    cogmem's own loop, and are refused inside a running event loop, where the `a...`
    methods are awaited instead)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any = Field(exclude=True, description="store.agent(...), an async handle, or cg.connect(...)")
    memory_type: str = Field("semantic", description="the cogmem type of what is remembered")

    @field_validator("agent")
    @classmethod
    def _agent(cls, agent: Any) -> Any:
        return checked_agent(agent, METHODS)

    def model_post_init(self, __context: Any) -> None:
        """No LLM, embedder or vector store of CrewAI's is built: cogmem has its own."""

    def __repr__(self) -> str:
        return f"CogmemCrewMemory(agent={self.agent!r})"

    # -- writing

    def _encode_args(self, categories: list[str] | None, metadata: dict[str, Any] | None) -> dict[str, Any]:
        return {"type": self.memory_type, "tags": list(categories or []), "metadata": dict(metadata or {})}

    def remember(self, content: str, scope: str | None = None, categories: list[str] | None = None,
                 metadata: dict[str, Any] | None = None, importance: float | None = None, source: str | None = None,
                 private: bool = False, agent_role: str | None = None,
                 root_scope: str | None = None) -> MemoryRecord | None:
        if self.read_only:
            return None
        trace = call(self.agent, "encode", content, **self._encode_args(categories, metadata), instead="aremember")
        return record_of(trace)

    def remember_many(self, contents: list[str], scope: str | None = None, categories: list[str] | None = None,
                      metadata: dict[str, Any] | None = None, importance: float | None = None,
                      source: str | None = None, private: bool = False, agent_role: str | None = None,
                      root_scope: str | None = None) -> list[MemoryRecord]:
        """Remembered at once, not in the background as CrewAI's own does: a later `recall`
        need not wait for it."""
        if self.read_only:
            return []
        args = self._encode_args(categories, metadata)
        return [record_of(call(self.agent, "encode", text, **args, instead="aremember_many"))
                for text in contents if text and text.strip()]

    async def aremember(self, content: str, scope: str | None = None, categories: list[str] | None = None,
                        metadata: dict[str, Any] | None = None, importance: float | None = None,
                        source: str | None = None, private: bool = False, agent_role: str | None = None,
                        root_scope: str | None = None) -> MemoryRecord | None:
        if self.read_only:
            return None
        return record_of(await acall(self.agent, "encode", content, **self._encode_args(categories, metadata)))

    async def aremember_many(self, contents: list[str], scope: str | None = None,
                             categories: list[str] | None = None, metadata: dict[str, Any] | None = None,
                             importance: float | None = None, source: str | None = None, private: bool = False,
                             agent_role: str | None = None, root_scope: str | None = None) -> list[MemoryRecord]:
        if self.read_only:
            return []
        args = self._encode_args(categories, metadata)
        return [record_of(await acall(self.agent, "encode", text, **args)) for text in contents
                if text and text.strip()]

    def extract_memories(self, content: str) -> list[str]:
        return [content.strip()] if content and content.strip() else []

    async def aextract_memories(self, content: str) -> list[str]:
        return self.extract_memories(content)

    # -- reading

    def recall(self, query: str, scope: str | None = None, categories: list[str] | None = None, limit: int = 10,
               depth: str = "deep", source: str | None = None, include_private: bool = False) -> list[MemoryMatch]:
        """cogmem's best `limit` matches for `query`, best first (`depth` does not apply: there is
        one retrieval). `categories`, when given, keep the memories tagged with one of them."""
        result = call(self.agent, "retrieve", query, top_k=limit, instead="arecall")
        return matches_of(result, categories)

    async def arecall(self, query: str, scope: str | None = None, categories: list[str] | None = None,
                      limit: int = 10, depth: str = "deep", source: str | None = None,
                      include_private: bool = False) -> list[MemoryMatch]:
        return matches_of(await acall(self.agent, "retrieve", query, top_k=limit), categories)

    # -- deleting

    def forget(self, scope: str | None = None, categories: list[str] | None = None, older_than: datetime | None = None,
               metadata_filter: dict[str, Any] | None = None, record_ids: list[str] | None = None) -> int:
        """Deletes the memories `record_ids` names (versions included) and returns how many.
        Deleting by scope, category, age or metadata is refused: cogmem forgets by id, and
        fades the rest by itself."""
        if scope is not None or categories or older_than is not None or metadata_filter or not record_ids:
            raise InvalidArgument("CogmemCrewMemory.forget takes record_ids only (the ids recall returned)",
                                  argument="record_ids")
        return len(call(self.agent, "forget", list(record_ids), instead="aforget").forgotten)

    async def aforget(self, record_ids: list[str]) -> int:
        if not record_ids:
            raise InvalidArgument("CogmemCrewMemory.aforget takes record_ids (the ids recall returned)",
                                  argument="record_ids")
        return len((await acall(self.agent, "forget", list(record_ids))).forgotten)

    def reset(self, scope: str | None = None) -> None:
        raise ValueError("CogmemCrewMemory does not reset: forget memories by id (forget(record_ids=...))")

    def drain_writes(self) -> None:
        """Nothing is pending: every write is done when `remember` returns."""

    def close(self) -> None:
        """The handle belongs to its store, which the caller closes."""


def record_of(trace: Any) -> MemoryRecord:
    """A cogmem memory as CrewAI's record: its id, text, tags (as categories) and metadata."""
    created = trace.created_at
    when = datetime.fromtimestamp(created / 1000, UTC) if isinstance(created, int) else datetime.now(UTC)
    return MemoryRecord(id=trace.id, content=trace.content, scope=f"/{trace.scope_key.replace(':', '/')}",
                        categories=list(trace.tags), metadata=dict(trace.metadata or {}), created_at=when,
                        last_accessed=when)


def matches_of(result: Any, categories: list[str] | None) -> list[MemoryMatch]:
    wanted = set(categories or ())
    return [MemoryMatch(record=record_of(hit.trace), score=float(hit.score), match_reasons=["cogmem"])
            for hit in result.traces if not wanted or wanted & set(hit.trace.tags)]
