"""`remember`, `recall` and `forget` as Pydantic AI tools (`Agent(tools=memory_tools(agent))`).

The arguments and answers are those of every cogmem integration (`integrations.toolkit`):
each tool publishes its argument model's JSON schema, acts as the agent handle it was made
for (its scope keys decide what it may read and write), and answers in text. A refused
argument is the tool's answer, naming the field, so the model can correct itself without
spending the run's retries; a failing store ends the run. An async handle is awaited, a
sync one runs on a worker thread.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_ai import Tool

from cogmem_graph.errors import field_problems
from cogmem_graph.integrations.calls import acall
from cogmem_graph.integrations.toolkit import (
    FORGET,
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

Args = TypeVar("Args", bound=BaseModel)


def _tool(name: str, description: str, model: type[Args], run: Callable[[Args], Awaitable[str]]) -> Tool[Any]:
    async def invoke(**arguments: Any) -> str:
        try:
            args = model.model_validate(arguments)
        except ValidationError as exc:
            return field_problems(exc.errors())
        try:
            return await run(args)
        except ValueError as exc:          # refused by the memory: a bad argument, said why
            return str(exc)

    # Pydantic AI skips its own validation for a schema given as is: the model above validates.
    return Tool.from_schema(invoke, name=name, description=description, json_schema=model.model_json_schema())


def remember_tool(agent: Any) -> Tool[Any]:
    async def remember(args: RememberArgs) -> str:
        return remembered(await acall(agent, "encode", args.content, type=args.type, tags=list(args.tags)))

    return _tool("remember", REMEMBER, RememberArgs, remember)


def recall_tool(agent: Any) -> Tool[Any]:
    async def recall(args: RecallArgs) -> str:
        return recalled(await acall(agent, "retrieve", args.query, top_k=args.top_k))

    return _tool("recall", RECALL, RecallArgs, recall)


def forget_tool(agent: Any) -> Tool[Any]:
    async def forget(args: ForgetArgs) -> str:
        return forgot(await acall(agent, "forget", list(args.ids)))

    return _tool("forget", FORGET, ForgetArgs, forget)


def memory_tools(agent: Any) -> list[Tool[Any]]:
    """`remember`, `recall` and `forget` for one agent handle: `store.agent(...)`, an async one
    (`cg.open_async`), or a server's (`cg.connect`, `cg.connect_async`)."""
    checked_agent(agent, ("encode", "retrieve", "forget"))
    return [remember_tool(agent), recall_tool(agent), forget_tool(agent)]
