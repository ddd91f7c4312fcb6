"""`CogmemSession`: the SDK's `Session` for one conversation, whose turns cogmem observes.

A session must give back the items it was given, exactly (tool calls and their ids
included), and cogmem's memories are not a transcript: they merge, fade and are rewritten
by consolidation. So the history is kept by another session (`SQLiteSession` in memory by
default; pass one on a file, or any `Session`, to keep it), and what cogmem gets is each
user and assistant message, fed to its observer (`agent.observe`) as the SDK adds it. The
observer turns them into notes, and the notes into long-term memories, when its buffer
holds `observer.activation_threshold_tokens`, or at once on `flush()`.
"""

from __future__ import annotations

from typing import Any

from agents.memory import Session, SessionSettings, SQLiteSession

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.integrations.calls import acall
from cogmem_graph.integrations.openai_agents.items import turns_of
from cogmem_graph.integrations.toolkit import checked_agent
from cogmem_graph.integrations.turns import observe_turns


class CogmemSession:
    """One conversation (`session_id`, by default the handle's `thread_id`) of one cogmem
    agent handle, as an Agents SDK `Session` (`Runner.run(..., session=...)`).

    `pop_item` and `clear_session` change the history only: a turn already observed stays
    observed, as what was said stays said (`forget` removes memories). Tool calls, their
    outputs and system messages are not observed."""

    def __init__(self, agent: Any, *, session_id: str | None = None, history: Session | None = None) -> None:
        self.agent = checked_agent(agent, ("observe",))
        thread_id = getattr(getattr(agent, "identity", None), "thread_id", None)
        session_id = thread_id if session_id is None else session_id
        if not isinstance(session_id, str) or not session_id.strip():
            raise InvalidArgument(f"session_id must be a non-empty string (or give the agent handle a thread_id), "
                                  f"got {session_id!r}", argument="session_id")
        if thread_id is not None and session_id != thread_id:
            raise InvalidArgument(f"session_id {session_id!r} is not the agent handle's thread_id {thread_id!r}: "
                                  "one conversation is one thread", argument="session_id")
        if history is None:
            history = SQLiteSession(session_id)
        elif not isinstance(history, Session):
            raise InvalidArgument(
                f"history must be an Agents SDK Session (SQLiteSession, ...), not {type(history).__name__}",
                argument="history")
        elif history.session_id != session_id:
            raise InvalidArgument(f"history is session {history.session_id!r}, not session_id {session_id!r}",
                                  argument="history")
        self.session_id = session_id
        self.history = history

    def __repr__(self) -> str:
        return f"CogmemSession(session_id={self.session_id!r}, agent={self.agent!r})"

    @property
    def session_settings(self) -> SessionSettings | None:
        return self.history.session_settings

    async def get_items(self, limit: int | None = None) -> list[Any]:
        items: list[Any] = await self.history.get_items(limit)
        return items

    async def add_items(self, items: list[Any]) -> None:
        """Keep the items in the history, then observe their user and assistant messages."""
        await self.history.add_items(items)
        await observe_turns(self.agent, turns_of(items))

    async def pop_item(self) -> Any | None:
        return await self.history.pop_item()

    async def clear_session(self) -> None:
        await self.history.clear_session()

    async def flush(self) -> Any:
        """Take notes of the observed turns and reflect them into long-term memory now (at a
        conversation's end, say), rather than when the observer's buffer is full."""
        if not callable(getattr(self.agent, "flush_observations", None)):
            raise InvalidArgument(f"flush needs a handle with flush_observations; {type(self.agent).__name__} has none "
                                  "(a server's observer takes notes when its buffer is full)", argument="agent")
        return await acall(self.agent, "flush_observations")
