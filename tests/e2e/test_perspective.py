"""Perspective encoding end to end on the embedded default (FalkorDB, Qdrant local mode, the hash
embedder) with a controlled clock: one event, several witnesses, each with a trace of its own —
objective without an LLM, first person through the real `openai` client against a local server."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.cognition.mechanisms import mechanism_meta
from cogmem_graph.model import Hexaco, Scope

from .fake_openai_chat import FakeOpenAIChat

START = 1_700_000_000_000
EVENT = "The dragon Vex attacked the village of Millhaven at dawn and burned the granary."


def _rewriter(system: str, user: str) -> str:
    """A model that writes a first-person memory coloured by the witness's emotionality."""
    name = re.search(r"^Witness: (.+)$", user, re.MULTILINE).group(1)
    scared = "emotionality high" in user
    feeling = "I watched in horror, frozen" if scared else "I noted the timing and counted the damage"
    return json.dumps({"memory": f"{feeling} when Vex came to Millhaven at dawn. ({name})"})


def test_without_an_llm_each_witness_keeps_the_objective_event_in_its_own_scope(store) -> None:
    lyra = store.agent("lyra", organization_id="realm")
    holt = store.agent("holt", organization_id="realm")
    out = store.encode_event(EVENT, [cg.Witness(lyra, relationships=["Millhaven"]), holt], importance=0.8,
                             created_at=START - 1_000)
    by_agent = {w.agent_id: w for w in out.witnesses}
    assert by_agent["lyra"].reason == "no_llm" and by_agent["holt"].reason == "no_entity_overlap"
    for agent in (lyra, holt):
        memory = by_agent[agent.identity.agent_id]
        assert memory.rewritten is False and memory.trace.content == EVENT
        assert memory.trace.scope is Scope.AGENT and memory.trace.scope_key == agent.identity.scope_key(Scope.AGENT)
        assert memory.trace.created_at == START - 1_000
        assert memory.trace.structured_data["perspective"]["eventId"] == out.event_id
    lyra_hits = [t.trace.id for t in lyra.retrieve("dragon attacked Millhaven", top_k=5).traces]
    assert lyra_hits == [by_agent["lyra"].trace.id], "a witness never sees another witness's memory"


def test_witnesses_remember_the_event_through_their_own_personality(tmp_path: Path, clock) -> None:
    with FakeOpenAIChat(_rewriter) as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, llm=api.chat()) as store:
        lyra = store.agent("lyra", traits=Hexaco(emotionality=0.9), organization_id="realm")
        holt = store.agent("holt", traits=Hexaco(emotionality=0.2, conscientiousness=0.9), organization_id="realm")
        out = store.encode_event(EVENT, [cg.Witness(lyra, relationships=["Millhaven"]),
                                         cg.Witness(holt, relationships=["Vex"])], importance=0.8)
        lyra_trace, holt_trace = out.trace_of("lyra"), out.trace_of("holt")
        assert lyra_trace.content.startswith("I watched in horror")
        assert holt_trace.content.startswith("I noted the timing")
        for trace in (lyra_trace, holt_trace):
            assert mechanism_meta(trace)["perspectiveEncoded"] is True, "retrieval drift is halved for it"
            assert store.rehydrate(trace.id) == EVENT, "the objective event is archived behind it"
        prompts = [r["messages"][1]["content"] for r in api.requests]
        assert len(prompts) == 2 and all(EVENT in p for p in prompts)
        assert any("emotionality high (0.90)" in p and "Witness: lyra" in p for p in prompts)
        assert [t.trace.id for t in holt.retrieve("Vex Millhaven dawn", top_k=5).traces] == [holt_trace.id]


def test_the_gates_decide_who_gets_a_rewrite(tmp_path: Path, clock) -> None:
    with FakeOpenAIChat(_rewriter) as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, llm=api.chat()) as store:
        knows = store.agent("mira", organization_id="realm")
        knows.encode("Vex burned my farm last winter")  # a relationship the graph already knows
        stranger = store.agent("stranger", organization_id="realm")
        guard = store.agent("guard", organization_id="realm")
        crowd = store.agent("crowd", organization_id="realm")
        out = store.encode_event(EVENT, [knows, stranger, cg.Witness(guard, tier="combatant", relationships=["Vex"]),
                                         cg.Witness(crowd, tier="background")], importance=0.8)
        reasons = {w.agent_id: (w.rewritten, w.reason) for w in out.witnesses}
        assert reasons == {"mira": (True, "rewrite"), "stranger": (False, "no_entity_overlap"),
                           "guard": (False, "tier"), "crowd": (False, "background")}
        assert out.trace_of("crowd") is None and crowd.retrieve("Vex Millhaven", top_k=5).traces == []
        assert out.trace_of("guard").content == EVENT and out.trace_of("stranger").content == EVENT
        assert len(api.requests) == 1, "only the gated witness cost an LLM call"

        minor = store.encode_event("Vex was seen far away over the hills.", [knows], importance=0.1)
        assert minor.witnesses[0].reason == "low_importance" and len(api.requests) == 1


def test_a_malformed_rewrite_falls_back_to_the_objective_event(tmp_path: Path, clock, caplog) -> None:
    with FakeOpenAIChat(lambda system, user: '{"memory": ') as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, llm=api.chat()) as store:
        lyra = store.agent("lyra", organization_id="realm")
        with caplog.at_level(logging.WARNING, logger="cogmem_graph"):
            out = store.encode_event(EVENT, [cg.Witness(lyra, relationships=["Vex"])], importance=0.9)
        memory = out.witnesses[0]
        assert api.requests and memory.rewritten is False and memory.reason == "llm_failed"
        assert memory.trace.content == EVENT and "perspective rewrite for lyra failed" in caplog.text
        assert "perspectiveEncoded" not in mechanism_meta(memory.trace)


def test_witness_memories_never_cross_tenants(store) -> None:
    acme = store.agent("scout", user_id="u1", organization_id="acme")
    globex = store.agent("scout", user_id="u1", organization_id="globex")  # same ids, another tenant
    out = store.encode_event(EVENT, [acme, globex], importance=0.8)
    acme_trace, globex_trace = out.trace_of("scout"), out.witnesses[1].trace
    assert acme_trace.id != globex_trace.id and acme_trace.scope_key != globex_trace.scope_key
    assert [t.trace.id for t in acme.retrieve("Vex Millhaven granary", top_k=5).traces] == [acme_trace.id]
    assert [t.trace.id for t in globex.retrieve("Vex Millhaven granary", top_k=5).traces] == [globex_trace.id]
    outsider = store.agent("scout", user_id="u1", organization_id="initech")
    assert outsider.retrieve("Vex Millhaven granary", top_k=5).traces == []
    colleague = store.agent("other", user_id="u1", organization_id="acme")  # same tenant, other agent
    assert colleague.retrieve("Vex Millhaven granary", top_k=5).traces == []


def test_bad_arguments_are_refused_naming_the_field(store, tmp_path: Path, clock) -> None:
    lyra = store.agent("lyra")
    with pytest.raises(ValueError, match="witnesses"):
        store.encode_event(EVENT, [])
    with pytest.raises(ValueError, match="importance"):
        store.encode_event(EVENT, [lyra], importance=1.5)
    with pytest.raises(ValueError, match="event"):
        store.encode_event("  ", [lyra])
    with pytest.raises(ValueError, match=r"witnesses\[0\].tier"):
        store.encode_event(EVENT, [cg.Witness(lyra, tier="boss")])
    with pytest.raises(ValueError, match=r"witnesses\[1\] repeats"):
        store.encode_event(EVENT, [lyra, store.agent("lyra")])
    with cg.open(home=tmp_path / "other", embedder="hash", clock=clock) as other, \
            pytest.raises(ValueError, match=r"witnesses\[0\] is an agent of another store"):
        store.encode_event(EVENT, [other.agent("lyra")])
