"""`remember`, `recall` and `forget` as function tools of the OpenAI Agents SDK.

The arguments and answers are those of every cogmem integration (`integrations.toolkit`):
each tool publishes its argument model as a strict JSON schema, acts as the agent handle
it was made for (its scope keys decide what it may read and write), and answers in text.
A refused argument is the tool's answer, naming the field, so the model can correct
itself; a failing store ends the run. An async handle is awaited, a sync one runs on a
worker thread.
"""

from __future__ import annotations

from typing import Any

from agents import FunctionTool
from agents.strict_schema import ensure_strict_json_schema
from agents.tool_context import ToolContext

from cogmem_graph.integrations.toolkit import MemoryTool, checked_agent, memory_tools_for


def _tool(tool: MemoryTool) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        return await tool.answer(arguments)

    return FunctionTool(name=tool.name, description=tool.description, on_invoke_tool=invoke,
                        params_json_schema=ensure_strict_json_schema(tool.model.model_json_schema()))


def remember_tool(agent: Any) -> FunctionTool:
    return _tool(memory_tools_for(agent)["remember"])


def recall_tool(agent: Any) -> FunctionTool:
    return _tool(memory_tools_for(agent)["recall"])


def forget_tool(agent: Any) -> FunctionTool:
    return _tool(memory_tools_for(agent)["forget"])


def memory_tools(agent: Any) -> list[FunctionTool]:
    """`remember`, `recall` and `forget` for one agent handle: `store.agent(...)`, an async one
    (`cg.open_async`), or a server's (`cg.connect`, `cg.connect_async`)."""
    checked_agent(agent, ("encode", "retrieve", "forget"))
    return [_tool(tool) for tool in memory_tools_for(agent).values()]
