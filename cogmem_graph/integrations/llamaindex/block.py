"""`CogmemMemoryBlock`: cogmem as a block of LlamaIndex's `Memory`.

`Memory` keeps the recent chat itself and hands its blocks two things: each `get` asks
every block for text to put before the chat (in the system message, or the latest user
message), and the turns that leave its short-term window (past `token_limit ×
chat_history_token_ratio`) are put to every block. This block answers a `get` with
`assemble_for_prompt` for the latest user message, and feeds the turns it is put to
cogmem's observer, so what leaves the window becomes long-term memory.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import BaseMemoryBlock
from pydantic import Field, field_validator, model_validator

from cogmem_graph.integrations.calls import acall
from cogmem_graph.integrations.toolkit import checked_agent
from cogmem_graph.integrations.turns import observe_turns


class CogmemMemoryBlock(BaseMemoryBlock[str]):  # type: ignore[misc]  # base read untyped (pyproject skips the library)
    """One agent's cogmem memory in a LlamaIndex `Memory`.

    Reading: the text of `agent.assemble_for_prompt(latest user message)` within
    `token_budget` (the store's default when None), empty when nothing is worth showing.
    Writing: each user and assistant turn put to the block is observed (`agent.observe`);
    with `flush` (default) the observer then takes its notes and reflects them into
    long-term memory at once, since `Memory` puts only turns that the model no longer sees.
    System and tool messages are not observed. The agent may be an embedded handle, an
    async one (`cg.open_async`), or a server's (`cg.connect`, `cg.connect_async`; these
    cannot flush, so pass `flush=False` and the server's observer takes notes when its
    buffer is full). A sync handle's calls run on a worker thread, never on the loop.
    """

    name: str = Field("cogmem", description="the block's name: its tag in the memory template")
    agent: Any = Field(description="store.agent(...), an async handle, or cg.connect(...)")
    token_budget: int | None = Field(None, ge=1, le=10_000_000,
                                     description="tokens for the memory context; None: the store's default")
    top_k: int = Field(20, ge=1, le=1000, description="memories retrieved before the context is laid out")
    flush: bool = Field(True, description="take notes of the turns put to the block at once")

    @field_validator("agent")
    @classmethod
    def _agent(cls, agent: Any) -> Any:
        return checked_agent(agent, ("assemble_for_prompt", "observe"))

    @model_validator(mode="after")
    def _can_flush(self) -> CogmemMemoryBlock:
        if self.flush and not callable(getattr(self.agent, "flush_observations", None)):
            raise ValueError(f"flush needs a handle with flush_observations ({type(self.agent).__name__} has none): "
                             "pass flush=False")
        return self

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = latest_user_text(messages or [])
        if not query:
            return ""
        assembled = await acall(self.agent, "assemble_for_prompt", query, token_budget=self.token_budget,
                                top_k=self.top_k)
        text: str = assembled.text
        return text

    async def _aput(self, messages: list[ChatMessage]) -> None:
        await observe_turns(self.agent, [(m.role.value, m.content or "") for m in messages], flush=self.flush)


def latest_user_text(messages: list[ChatMessage]) -> str:
    """What the user said last: the query the memory answers."""
    for message in reversed(messages):
        content: str | None = message.content
        if message.role.value == "user" and content and content.strip():
            return content.strip()
    return ""
