"""`remember`, `recall` and `forget` as LangChain tools over one agent's memory.

Each tool has an argument schema the model sees, acts as the agent it was made for (its
scope keys decide what it may read and write), and answers in text a model can read: ids
to forget by, scores, what was deleted. Bad arguments come back to the model as the tool's
answer ("Error: ..."), so it can correct itself. The agent may be an embedded handle
(`store.agent(...)`), an async one (`cg.open_async`), or a server's (`cg.connect`,
`cg.connect_async`), through `invoke` and `ainvoke` alike: `invoke` on an async handle runs
its call on cogmem's own loop, and is refused (RuntimeError) inside a running event loop,
where `ainvoke` is the way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.documents import Document
from langchain_core.tools import StructuredTool, ToolException
from pydantic import ValidationError

from cogmem_graph.errors import field_problems
from cogmem_graph.integrations.calls import acall, call
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
from cogmem_graph.results import RetrievalResult

__all__ = ["MAX_FORGET", "MAX_RECALL", "ForgetArgs", "RecallArgs", "RememberArgs", "forget_tool", "memory_tools",
           "recall_tool", "remember_tool"]


INSTEAD = "the tool's ainvoke"


def _memory_tool(agent: Any, method: str, arguments: Callable[..., tuple[tuple[Any, ...], dict[str, Any]]],
                 answer: Callable[[Any], Any], **tool: Any) -> StructuredTool:
    """A tool calling `agent.method` with what `arguments` makes of the tool's arguments, and
    answering with `answer(result)`. Its sync form calls the handle from sync code (`calls.call`),
    its async form awaits an async handle or runs a sync one on a worker thread; in both, a
    ValueError (a bad argument) becomes the tool's answer rather than the run's end."""
    def run(**kwargs: Any) -> Any:
        args, options = arguments(**kwargs)
        try:
            return answer(call(agent, method, *args, instead=INSTEAD, **options))
        except ValueError as exc:
            raise ToolException(str(exc)) from exc

    async def arun(**kwargs: Any) -> Any:
        args, options = arguments(**kwargs)
        try:
            return answer(await acall(agent, method, *args, **options))
        except ValueError as exc:
            raise ToolException(str(exc)) from exc

    return StructuredTool.from_function(func=run, coroutine=arun, **tool, **ERRORS_AS_ANSWERS)


def _schema_problems(error: ValidationError) -> str:
    """Arguments the schema refused, each named, as the tool's answer."""
    return field_problems(error.errors())


ERRORS_AS_ANSWERS: dict[str, Any] = {"handle_tool_error": True, "handle_validation_error": _schema_problems}
"""A refused argument or call is the tool's answer to the model, which may try again."""


def remember_tool(agent: Any) -> StructuredTool:
    def arguments(content: str, type: str = "semantic",  # noqa: A002
                  tags: list[str] | None = None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (content,), {"type": type, "tags": list(tags or [])}

    return _memory_tool(agent, "encode", arguments, remembered, name="remember", description=REMEMBER,
                        args_schema=RememberArgs)


def recall_tool(agent: Any) -> StructuredTool:
    def arguments(query: str, top_k: int = 5) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (query,), {"top_k": top_k}

    def answer(result: RetrievalResult) -> tuple[str, list[Document]]:
        return recalled(result), documents_of(result)

    return _memory_tool(agent, "retrieve", arguments, answer, name="recall", description=RECALL,
                        args_schema=RecallArgs, response_format="content_and_artifact")


def forget_tool(agent: Any) -> StructuredTool:
    def arguments(ids: list[str]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (list(ids),), {}

    return _memory_tool(agent, "forget", arguments, forgot, name="forget", description=FORGET,
                        args_schema=ForgetArgs)


def memory_tools(agent: Any) -> list[StructuredTool]:
    """`remember`, `recall` and `forget` for one agent handle, sync or async (`store.agent(...)`,
    `cg.connect(...)`, or the same from `cg.open_async`, `cg.connect_async`)."""
    checked_agent(agent, ("encode", "retrieve", "forget"))
    return [remember_tool(agent), recall_tool(agent), forget_tool(agent)]
