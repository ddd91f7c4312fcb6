"""`CogmemRetriever`: cogmem's retrieval as a LangChain retriever."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator, model_validator

from cogmem_graph.config.retrieval import MAX_TOP_K
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import MemoryFilter, as_filter
from cogmem_graph.integrations.calls import acall, call
from cogmem_graph.integrations.langchain.documents import documents_of
from cogmem_graph.integrations.toolkit import checked_agent

PER_CALL = ("k", "top_k", "where")
"""What a call may set for itself: `retriever.invoke(query, k=3, where={...})`."""
IGNORED = frozenset({"verbose"})
"""`invoke`'s own options, which LangChain passes on to the retriever too."""


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP_K:
        raise InvalidArgument(f"{name} must be an integer in [1, {MAX_TOP_K}], got {value!r}", argument=name)
    return value


def _one_count(options: dict[str, Any]) -> dict[str, Any]:
    """`options` with `k` (LangChain's name for how many documents) renamed `top_k`; both given is refused."""
    if "k" not in options:
        return options
    if "top_k" in options:
        raise InvalidArgument("give k or top_k, not both (they are the same setting: how many documents)", argument="k")
    options = dict(options)
    options["top_k"] = options.pop("k")
    return options


class CogmemRetriever(BaseRetriever):  # type: ignore[misc]  # base read untyped (pyproject skips the library)
    """The memories of one agent that best answer a query, as `Document`s whose metadata
    holds the memory's `id` and `score` (and its type, scope, tags and time). Retrieval
    strengthens what it finds, as any recall does (`record_access=False` does not).

    `top_k` (or LangChain's `k`) and `where` are the retriever's, and a call may give its own:
    `invoke(query, k=1)`, `invoke(query, where={"type": "episodic"})` (a call's `where`
    replaces the retriever's). The agent may be sync or async (`cg.open_async`,
    `cg.connect_async`) through `invoke` and `ainvoke` alike: `ainvoke` awaits an async handle
    and runs a sync one on a worker thread; `invoke` on an async handle runs its call on
    cogmem's own loop, and inside a running event loop is refused (RuntimeError) for `ainvoke`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any = Field(description="store.agent(...), an async handle, or cg.connect(...)")
    top_k: int = Field(5, ge=1, le=MAX_TOP_K, description="how many documents; `k` is taken for it too")
    where: MemoryFilter | None = Field(None, description="keep to memories this filter passes")
    strategy: Literal["full", "dense", "lexical"] = "full"
    record_access: bool = True

    @model_validator(mode="before")
    @classmethod
    def _k(cls, data: Any) -> Any:
        return _one_count(data) if isinstance(data, dict) else data

    @field_validator("agent")
    @classmethod
    def _agent(cls, agent: Any) -> Any:
        return checked_agent(agent, ("retrieve",))

    @field_validator("where", mode="before")
    @classmethod
    def _where(cls, where: Any) -> MemoryFilter | None:
        return as_filter(where)

    def _options(self, per_call: dict[str, Any]) -> dict[str, Any]:
        """The retrieval's options: the retriever's, with what the call gave checked and in their place."""
        unknown = sorted(set(per_call) - set(PER_CALL) - IGNORED)
        if unknown:
            raise InvalidArgument(f"CogmemRetriever takes {', '.join(PER_CALL)} per call, not {', '.join(unknown)}",
                                  argument=unknown[0])
        given = _one_count({name: value for name, value in per_call.items() if name in PER_CALL})
        top_k = self.top_k
        if "top_k" in given:
            top_k = _count("k" if "k" in per_call else "top_k", given["top_k"])
        where = as_filter(given["where"]) if "where" in given else self.where
        return {"top_k": top_k, "where": where, "strategy": self.strategy, "record_access": self.record_access}

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **per_call: Any) -> list[Document]:
        options = self._options(per_call)
        return documents_of(call(self.agent, "retrieve", query, instead="the retriever's ainvoke", **options))

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
                                       **per_call: Any) -> list[Document]:
        options = self._options(per_call)
        return documents_of(await acall(self.agent, "retrieve", query, **options))
