"""Conversation turns from a framework, fed to cogmem's observer (`agent.observe`).

Only what the user and the assistant said is observed. System prompts are instructions,
not conversation, and a tool's output is left out too: a `recall`'s answer observed would
come back as new notes of what memory already holds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cogmem_graph.integrations.calls import in_turn

OBSERVED_ROLES = {"user": "user", "assistant": "assistant", "chatbot": "assistant", "model": "assistant"}
"""A framework's role names → the observer's; roles not here are not observed."""


async def observe_turns(agent: Any, turns: Iterable[tuple[str, str]], *, flush: bool = False) -> int:
    """Observe each (role, text) turn in order, then, with `flush`, take notes of the buffered
    turns and reflect them into long-term memory at once (`flush_observations`) rather than
    when the observer's buffer is full. Returns how many turns were observed."""
    calls: list[tuple[str, tuple[Any, ...]]] = [
        ("observe", (OBSERVED_ROLES[role], text.strip())) for role, text in turns
        if role in OBSERVED_ROLES and text and text.strip()]
    if calls and flush:
        calls.append(("flush_observations", ()))
    if calls:
        await in_turn(agent, calls)
    return sum(1 for name, _ in calls if name == "observe")
