"""`memory_context`: before each model call, what the memory holds for the latest user
message (`assemble_for_prompt`) goes after the agent's instructions, between `<memory>`
tags. Given as `RunConfig(call_model_input_filter=memory_context(agent))`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agents.run_config import CallModelData, ModelInputData

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.integrations.calls import acall
from cogmem_graph.integrations.openai_agents.items import latest_user_text
from cogmem_graph.integrations.toolkit import checked_agent


def memory_context(agent: Any, *, token_budget: int | None = None,
                   top_k: int = 20) -> Callable[[CallModelData[Any]], Awaitable[ModelInputData]]:
    """A `call_model_input_filter` for one agent handle. The context is assembled again for each
    model call of a run (after a tool call too), so what a tool just remembered is in the next.
    `token_budget` bounds it (None: the store's default); nothing is added when nothing is
    worth showing."""
    checked_agent(agent, ("assemble_for_prompt",))
    if token_budget is not None and (isinstance(token_budget, bool) or not isinstance(token_budget, int)
                                     or token_budget < 1):
        raise InvalidArgument(f"token_budget must be a positive integer or None, got {token_budget!r}",
                              argument="token_budget")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise InvalidArgument(f"top_k must be a positive integer, got {top_k!r}", argument="top_k")

    async def with_memory(call: CallModelData[Any]) -> ModelInputData:
        data = call.model_data
        query = latest_user_text(data.input)
        if not query:
            return data
        text = (await acall(agent, "assemble_for_prompt", query, token_budget=token_budget, top_k=top_k)).text
        if not text:
            return data
        memory = f"<memory>\n{text}\n</memory>"
        return ModelInputData(input=data.input,
                              instructions=f"{data.instructions}\n\n{memory}" if data.instructions else memory)

    return with_memory
