"""What every framework's memory tools share, with no framework imported: the arguments a
model passes (pydantic models, whose JSON schemas the tools publish), the tools'
descriptions, and the text the model reads back. One wording for every framework, so a
prompt written for one reads the same answers in another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from cogmem_graph.errors import InvalidArgument, field_problems
from cogmem_graph.integrations.calls import acall
from cogmem_graph.results import RetrievalResult

MAX_RECALL = 50
MAX_FORGET = 100

REMEMBER = "Store a fact, event or procedure in long-term memory, to recall in later conversations."
RECALL = "Search long-term memory by meaning. Each line is [id] (score) memory; the best come first."
FORGET = ("Delete memories for good, by the ids recall showed. Use when the user asks to forget "
          "something or a memory is wrong.")


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


def checked_agent(agent: Any, methods: Iterable[str]) -> Any:
    """`agent` once it has the methods an integration calls (an embedded, async or server handle)."""
    missing = [name for name in methods if not callable(getattr(agent, name, None))]
    if missing:
        raise InvalidArgument(f"agent must be a cogmem agent handle (store.agent(...) or cg.connect(...)), "
                              f"not {type(agent).__name__} (it has no {', '.join(missing)})", argument="agent")
    return agent


def remembered(trace: Any) -> str:
    return f"Remembered (id {trace.id})."


def recalled(result: RetrievalResult) -> str:
    """One line per memory, best first: its id (to forget by), its score and its text."""
    if not result.traces:
        return "No memory matches."
    return "\n".join(f"[{hit.trace.id}] (score {hit.score:.2f}) {hit.trace.content}" for hit in result.traces)


def forgot(receipt: Any) -> str:
    """What `forget` deleted, and what it could not, in a sentence or three."""
    n = len(receipt.forgotten)
    said = f"Forgot {n} {'memory' if n == 1 else 'memories'} (versions included)."
    if receipt.not_found:
        said += f" Not found: {', '.join(receipt.not_found)}."
    if receipt.skipped_pinned:
        said += f" Pinned, kept: {', '.join(receipt.skipped_pinned)}."
    return said


@dataclass(frozen=True)
class MemoryTool:
    """One memory tool as an async framework calls it: its name, description and argument
    model, and what it does with validated arguments (the handle's call, awaited)."""

    name: str
    description: str
    model: type[BaseModel]
    run: Callable[[Any], Awaitable[str]]

    async def answer(self, arguments: Mapping[str, Any] | str) -> str:
        """The text the model reads back: the call's answer, or why its arguments (a mapping,
        or JSON text) were refused, by the argument model or by the memory, naming the field."""
        try:
            args = (self.model.model_validate_json(arguments or "{}") if isinstance(arguments, str)
                    else self.model.model_validate(arguments))
        except ValidationError as exc:
            return field_problems(exc.errors())
        try:
            return await self.run(args)
        except ValueError as exc:          # refused by the memory: a bad argument, said why
            return str(exc)


def memory_tools_for(agent: Any) -> dict[str, MemoryTool]:
    """`remember`, `recall` and `forget` acting as `agent` (a sync handle runs on a worker
    thread, an async one is awaited: `calls.acall`)."""

    async def remember(args: RememberArgs) -> str:
        return remembered(await acall(agent, "encode", args.content, type=args.type, tags=list(args.tags)))

    async def recall(args: RecallArgs) -> str:
        return recalled(await acall(agent, "retrieve", args.query, top_k=args.top_k))

    async def forget(args: ForgetArgs) -> str:
        return forgot(await acall(agent, "forget", list(args.ids)))

    return {tool.name: tool for tool in (MemoryTool("remember", REMEMBER, RememberArgs, remember),
                                         MemoryTool("recall", RECALL, RecallArgs, recall),
                                         MemoryTool("forget", FORGET, ForgetArgs, forget))}
