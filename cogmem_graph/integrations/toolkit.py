"""What every framework's memory tools share, with no framework imported: the arguments a
model passes (pydantic models, whose JSON schemas the tools publish), the tools'
descriptions, and the text the model reads back. One wording for every framework, so a
prompt written for one reads the same answers in another."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

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
        raise ValueError(f"agent must be a cogmem agent handle (store.agent(...) or cg.connect(...)), "
                         f"not {type(agent).__name__} (it has no {', '.join(missing)})")
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
