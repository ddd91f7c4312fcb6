"""`CogmemRetriever`: cogmem's retrieval as a LangChain retriever."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

from cogmem_graph.filters import MemoryFilter, as_filter
from cogmem_graph.integrations.langchain.documents import documents_of
from cogmem_graph.integrations.toolkit import checked_agent


class CogmemRetriever(BaseRetriever):
    """The memories of one agent that best answer a query, as `Document`s whose metadata
    holds the memory's `id` and `score` (and its type, scope, tags and time). Retrieval
    strengthens what it finds, as any recall does (`record_access=False` does not). Its
    async form runs the retrieval on a worker thread."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any = Field(description="store.agent(...) or cg.connect(...)")
    top_k: int = Field(5, ge=1, le=1000)
    where: MemoryFilter | None = Field(None, description="keep to memories this filter passes")
    strategy: Literal["full", "dense", "lexical"] = "full"
    record_access: bool = True

    @field_validator("agent")
    @classmethod
    def _agent(cls, agent: Any) -> Any:
        return checked_agent(agent, ("retrieve",))

    @field_validator("where", mode="before")
    @classmethod
    def _where(cls, where: Any) -> MemoryFilter | None:
        return as_filter(where)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        result = self.agent.retrieve(query, top_k=self.top_k, where=self.where, strategy=self.strategy,
                                     record_access=self.record_access)
        return documents_of(result)
