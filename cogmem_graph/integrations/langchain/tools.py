"""`remember`, `recall` and `forget` as LangChain tools over one agent's memory.

Each tool has an argument schema the model sees, acts as the agent it was made for (its
scope keys decide what it may read and write), and answers in text a model can read: ids
to forget by, scores, what was deleted. Bad arguments come back to the model as the tool's
answer ("Error: ..."), so it can correct itself. The agent may be an embedded handle
(`store.agent(...)`) or a server's (`cg.connect(...)`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.documents import Document
from langchain_core.tools import StructuredTool, ToolException
from pydantic import ValidationError

from cogmem_graph.errors import field_problems
from cogmem_graph.integrations.langchain.documents import documents_of
from cogmem_graph.integrations.toolkit import (
    FORGET,
    MAX_FORGET,
    MAX_RECALL,
    RECALL,
    REMEMBER,
    ForgetArgs,
    RecallArgs,
    RememberArgs,
    checked_agent,
    forgot,
    recalled,
    remembered,
)

__all__ = ["MAX_FORGET", "MAX_RECALL", "ForgetArgs", "RecallArgs", "RememberArgs", "forget_tool", "memory_tools",
           "recall_tool", "remember_tool"]


def _as_tool_error(call: Callable[..., Any]) -> tuple[Callable[..., Any], Callable[..., Awaitable[Any]]]:
    """`call` and its async form (on a worker thread: the memory's calls block), where a
    ValueError (a bad argument) becomes the tool's answer rather than the run's end."""
    def run(**kwargs: Any) -> Any:
        try:
            return call(**kwargs)
        except ValueError as exc:
            raise ToolException(str(exc)) from exc

    async def arun(**kwargs: Any) -> Any:
        return await asyncio.to_thread(run, **kwargs)

    return run, arun


def _schema_problems(error: ValidationError) -> str:
    """Arguments the schema refused, each named, as the tool's answer."""
    return field_problems(error.errors())


ERRORS_AS_ANSWERS: dict[str, Any] = {"handle_tool_error": True, "handle_validation_error": _schema_problems}
"""A refused argument or call is the tool's answer to the model, which may try again."""


def remember_tool(agent: Any) -> StructuredTool:
    def remember(content: str, type: str = "semantic", tags: list[str] | None = None) -> str:  # noqa: A002
        return remembered(agent.encode(content, type=type, tags=list(tags or [])))

    run, arun = _as_tool_error(remember)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="remember", description=REMEMBER, args_schema=RememberArgs,
        **ERRORS_AS_ANSWERS)


def recall_tool(agent: Any) -> StructuredTool:
    def recall(query: str, top_k: int = 5) -> tuple[str, list[Document]]:
        result = agent.retrieve(query, top_k=top_k)
        return recalled(result), documents_of(result)

    run, arun = _as_tool_error(recall)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="recall", description=RECALL, args_schema=RecallArgs,
        response_format="content_and_artifact", **ERRORS_AS_ANSWERS)


def forget_tool(agent: Any) -> StructuredTool:
    def forget(ids: list[str]) -> str:
        return forgot(agent.forget(list(ids)))

    run, arun = _as_tool_error(forget)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="forget", description=FORGET, args_schema=ForgetArgs,
        **ERRORS_AS_ANSWERS)


def memory_tools(agent: Any) -> list[StructuredTool]:
    """`remember`, `recall` and `forget` for one agent (`store.agent(...)` or `cg.connect(...)`)."""
    checked_agent(agent, ("encode", "retrieve", "forget"))
    return [remember_tool(agent), recall_tool(agent), forget_tool(agent)]
