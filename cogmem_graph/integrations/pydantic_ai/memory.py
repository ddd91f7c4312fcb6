"""`CogmemMemory`: one agent handle's memory as a Pydantic AI capability
(`Agent(..., capabilities=[CogmemMemory(agent)])`).

Reading: before each model request of a run (after a tool call too), what the memory holds
for the latest user message (`assemble_for_prompt`) is added to the instructions, between
`<memory>` tags, so a new run with no message history is still given what earlier ones
learned. Writing: after each run, what the user and the model said in it (the run's new
messages) is fed to cogmem's observer (`agent.observe`), and with `flush` the observer
takes its notes and reflects them into long-term memory at once. System prompts, tool calls
and tool returns are not observed: a `recall`'s answer observed would come back as new
notes of what memory already holds. With `tools`, the capability also gives the model
`remember`, `recall` and `forget`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.run import AgentRunResult
from pydantic_ai.toolsets import FunctionToolset

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.integrations.calls import acall
from cogmem_graph.integrations.pydantic_ai.tools import memory_tools
from cogmem_graph.integrations.toolkit import checked_agent
from cogmem_graph.integrations.turns import observe_turns


def _budget(token_budget: int | None, top_k: int) -> None:
    if token_budget is not None and (isinstance(token_budget, bool) or not isinstance(token_budget, int)
                                     or token_budget < 1):
        raise InvalidArgument(f"token_budget must be a positive integer or None, got {token_budget!r}",
                              argument="token_budget")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise InvalidArgument(f"top_k must be a positive integer, got {top_k!r}", argument="top_k")


def memory_instructions(agent: Any, *, token_budget: int | None = None,
                        top_k: int = 20) -> Callable[[RunContext[Any]], Awaitable[str]]:
    """A dynamic instruction (`Agent(instructions=[..., memory_instructions(agent)])`): the memory
    for the latest user message, between `<memory>` tags, or nothing when nothing is worth
    showing. `token_budget` bounds it (None: the store's default)."""
    checked_agent(agent, ("assemble_for_prompt",))
    _budget(token_budget, top_k)

    async def memory(ctx: RunContext[Any]) -> str:
        query = latest_user_text(ctx.messages) or _text(ctx.prompt)
        if not query:
            return ""
        text = (await acall(agent, "assemble_for_prompt", query, token_budget=token_budget, top_k=top_k)).text
        return f"<memory>\n{text}\n</memory>" if text else ""

    return memory


@dataclass
class CogmemMemory(AbstractCapability[Any]):  # type: ignore[misc]  # base read untyped (pyproject skips the library)
    """Recall before each model request, observe after each run, and optionally the memory tools.

    The agent may be an embedded handle, an async one (`cg.open_async`), or a server's
    (`cg.connect`, `cg.connect_async`; these cannot flush, so pass `flush=False` and the
    server's observer takes notes when its buffer is full). A sync handle's calls run on a
    worker thread, never on the run's event loop."""

    agent: Any = field(kw_only=True)
    token_budget: int | None = field(default=None, kw_only=True)
    top_k: int = field(default=20, kw_only=True)
    tools: bool = field(default=False, kw_only=True)
    flush: bool = field(default=True, kw_only=True)

    def __post_init__(self) -> None:
        checked_agent(self.agent, ("assemble_for_prompt", "observe")
                      + (("encode", "retrieve", "forget") if self.tools else ()))
        _budget(self.token_budget, self.top_k)
        if self.flush and not callable(getattr(self.agent, "flush_observations", None)):
            raise InvalidArgument(f"flush needs a handle with flush_observations ({type(self.agent).__name__} has "
                                  "none): pass flush=False", argument="flush")

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None                        # holds a live handle: not part of a serialized agent spec

    def get_instructions(self) -> Callable[[RunContext[Any]], Awaitable[str]]:
        return memory_instructions(self.agent, token_budget=self.token_budget, top_k=self.top_k)

    def get_toolset(self) -> FunctionToolset[Any] | None:
        return FunctionToolset(memory_tools(self.agent)) if self.tools else None

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        await observe_turns(self.agent, turns_of(result.new_messages()), flush=self.flush)
        return result

    async def flush_now(self) -> Any:
        """Take notes of the observed turns and reflect them into long-term memory now (with
        `flush=False`, at a conversation's end, say)."""
        if not callable(getattr(self.agent, "flush_observations", None)):
            raise InvalidArgument(f"{type(self.agent).__name__} has no flush_observations: a server's observer takes "
                                  "notes when its buffer is full", argument="agent")
        return await acall(self.agent, "flush_observations")


def _text(content: Any) -> str:
    """The text of a user prompt: a string, or the strings among its parts (images and files
    are not text)."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, Iterable):
        return "\n".join(part.strip() for part in content if isinstance(part, str) and part.strip())
    return ""


def turns_of(messages: Iterable[ModelMessage]) -> list[tuple[str, str]]:
    """(role, text) of each user prompt and each model reply's text, in order."""
    turns: list[tuple[str, str]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            turns += [("user", _text(part.content)) for part in message.parts if isinstance(part, UserPromptPart)]
        elif isinstance(message, ModelResponse):
            text = "".join(part.content for part in message.parts if isinstance(part, TextPart))
            if text.strip():
                turns.append(("assistant", text))
    return [(role, text) for role, text in turns if text]


def latest_user_text(messages: Iterable[ModelMessage]) -> str:
    """What the user said last: the question the memory answers."""
    for role, text in reversed(turns_of(messages)):
        if role == "user":
            return text
    return ""
