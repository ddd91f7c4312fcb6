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
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from cogmem_graph.errors import field_problems
from cogmem_graph.integrations.langchain.documents import documents_of

MAX_RECALL = 50
MAX_FORGET = 100


class RememberArgs(BaseModel):
    content: str = Field(min_length=1, description="one self-contained statement to remember, e.g. \"The user's dog is "
                                     "named Biscuit\"")
    type: Literal["semantic", "episodic", "procedural"] = Field(
        "semantic", description="semantic: a fact; episodic: something that happened; procedural: how to do something")
    tags: list[str] = Field(default_factory=list, max_length=20, description="a few words to file it under")


class RecallArgs(BaseModel):
    query: str = Field(min_length=1, description="what to look for, as a question or a few words")
    top_k: int = Field(5, ge=1, le=MAX_RECALL, description="at most this many memories")


class ForgetArgs(BaseModel):
    ids: list[str] = Field(min_length=1, max_length=MAX_FORGET,
                           description="ids of memories to delete for good, as recall showed them")


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
        trace = agent.encode(content, type=type, tags=list(tags or []))
        return f"Remembered (id {trace.id})."

    run, arun = _as_tool_error(remember)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="remember", args_schema=RememberArgs, **ERRORS_AS_ANSWERS,
        description="Store a fact, event or procedure in long-term memory, to recall in later conversations.")


def recall_tool(agent: Any) -> StructuredTool:
    def recall(query: str, top_k: int = 5) -> tuple[str, list[Document]]:
        documents = documents_of(agent.retrieve(query, top_k=top_k))
        if not documents:
            return "No memory matches.", documents
        lines = [f"[{d.id}] (score {d.metadata['score']:.2f}) {d.page_content}" for d in documents]
        return "\n".join(lines), documents

    run, arun = _as_tool_error(recall)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="recall", args_schema=RecallArgs, **ERRORS_AS_ANSWERS,
        response_format="content_and_artifact",
        description="Search long-term memory by meaning. Each line is [id] (score) memory; the best come first.")


def forget_tool(agent: Any) -> StructuredTool:
    def forget(ids: list[str]) -> str:
        receipt = agent.forget(list(ids))
        n = len(receipt.forgotten)
        said = f"Forgot {n} {'memory' if n == 1 else 'memories'} (versions included)."
        if receipt.not_found:
            said += f" Not found: {', '.join(receipt.not_found)}."
        if receipt.skipped_pinned:
            said += f" Pinned, kept: {', '.join(receipt.skipped_pinned)}."
        return said

    run, arun = _as_tool_error(forget)
    return StructuredTool.from_function(
        func=run, coroutine=arun, name="forget", args_schema=ForgetArgs, **ERRORS_AS_ANSWERS,
        description="Delete memories for good, by the ids recall showed. Use when the user asks to forget "
                    "something or a memory is wrong.")


def memory_tools(agent: Any) -> list[StructuredTool]:
    """`remember`, `recall` and `forget` for one agent (`store.agent(...)` or `cg.connect(...)`)."""
    if not all(callable(getattr(agent, name, None)) for name in ("encode", "retrieve", "forget")):
        raise ValueError(f"agent must be a cogmem agent handle (store.agent(...) or cg.connect(...)), "
                         f"not {type(agent).__name__}")
    return [remember_tool(agent), recall_tool(agent), forget_tool(agent)]
