"""Pydantic AI on cogmem (extra `pydantic-ai`): `remember`, `recall` and `forget` as tools, and
`CogmemMemory`, a capability that puts the memory for the latest user message before each
model request and feeds what the user and the model said to the observer after each run.
See docs/integrations.md."""

from cogmem_graph.integrations import require

require("pydantic_ai.capabilities", "pydantic-ai")

from cogmem_graph.integrations.pydantic_ai.memory import CogmemMemory, memory_instructions  # noqa: E402
from cogmem_graph.integrations.pydantic_ai.tools import (  # noqa: E402
    forget_tool,
    memory_tools,
    recall_tool,
    remember_tool,
)

__all__ = ["CogmemMemory", "forget_tool", "memory_instructions", "memory_tools", "recall_tool", "remember_tool"]
