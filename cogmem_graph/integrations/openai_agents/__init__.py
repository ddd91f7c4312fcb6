"""The OpenAI Agents SDK on cogmem (extra `openai-agents`): `remember`, `recall` and `forget`
as function tools, `CogmemSession` (a conversation's history whose turns cogmem observes)
and `memory_context` (the memory for the latest question, before each model call). See
docs/integrations.md."""

from cogmem_graph.integrations import require

require("agents.memory", "openai-agents")

from cogmem_graph.integrations.openai_agents.context import memory_context  # noqa: E402
from cogmem_graph.integrations.openai_agents.session import CogmemSession  # noqa: E402
from cogmem_graph.integrations.openai_agents.tools import (  # noqa: E402
    forget_tool,
    memory_tools,
    recall_tool,
    remember_tool,
)

__all__ = ["CogmemSession", "forget_tool", "memory_context", "memory_tools", "recall_tool", "remember_tool"]
