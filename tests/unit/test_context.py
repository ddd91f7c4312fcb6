"""MemoryContext: what the layers below the facade get instead of the store or a handle."""

from __future__ import annotations

import pytest

from cogmem_graph.clock import ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.context import MemoryContext
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.model import Hexaco, Mood


def _owner() -> MemoryContext:
    return MemoryContext(graph=None, vectors=None, embedder=None, config=CogmemConfig(), clock=ManualClock(0))


def test_the_owner_context_has_no_caller() -> None:
    owner = _owner()
    with pytest.raises(ValueError, match="no agent identity"):
        _ = owner.visible_scope_keys
    assert owner.current_mood() == Mood()
    assert owner.agent_traits("anyone") is None


def test_an_agent_context_sees_its_scopes_and_feels_its_mood() -> None:
    identity = AgentIdentity(agent_id="helper", user_id="u1")
    sad = Mood(valence=-0.5)
    agent = _owner().for_agent(identity, Hexaco(openness=0.9), lambda: sad)
    assert agent.visible_scope_keys == identity.visible_scope_keys()
    assert agent.agent_id == "helper"
    assert agent.traits.openness == 0.9
    assert agent.current_mood() is sad
