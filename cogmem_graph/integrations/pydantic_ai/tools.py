"""`remember`, `recall` and `forget` as Pydantic AI tools (`Agent(tools=memory_tools(agent))`).

The arguments and answers are those of every cogmem integration (`integrations.toolkit`):
each tool publishes its argument model's JSON schema, acts as the agent handle it was made
for (its scope keys decide what it may read and write), and answers in text. A refused
argument is the tool's answer, naming the field, so the model can correct itself without
spending the run's retries; a failing store ends the run. An async handle is awaited, a
sync one runs on a worker thread.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Tool

from cogmem_graph.integrations.toolkit import MemoryTool, checked_agent, memory_tools_for


def _tool(tool: MemoryTool) -> Tool[Any]:
    async def invoke(**arguments: Any) -> str:
        return await tool.answer(arguments)

    # Pydantic AI skips its own validation for a schema given as is: `MemoryTool.answer` validates.
    return Tool.from_schema(invoke, name=tool.name, description=tool.description,
                            json_schema=tool.model.model_json_schema())


def remember_tool(agent: Any) -> Tool[Any]:
    return _tool(memory_tools_for(agent)["remember"])


def recall_tool(agent: Any) -> Tool[Any]:
    return _tool(memory_tools_for(agent)["recall"])


def forget_tool(agent: Any) -> Tool[Any]:
    return _tool(memory_tools_for(agent)["forget"])


def memory_tools(agent: Any) -> list[Tool[Any]]:
    """`remember`, `recall` and `forget` for one agent handle: `store.agent(...)`, an async one
    (`cg.open_async`), or a server's (`cg.connect`, `cg.connect_async`)."""
    checked_agent(agent, ("encode", "retrieve", "forget"))
    return [_tool(tool) for tool in memory_tools_for(agent).values()]
