"""Observer and reflector end to end on the embedded default (FalkorDB started by the library,
Qdrant local mode, the hash embedder) with a controlled clock: the keyword rules without any LLM,
and the LLM path through the real `openai` client against a local server speaking its API."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, MS_PER_MINUTE, ManualClock
from cogmem_graph.cognition.observation import ConflictPolicy
from cogmem_graph.config import CogmemConfig
from cogmem_graph.language.note_kinds import NoteType
from cogmem_graph.model import EdgeType, Hexaco, SourceType

from .fake_openai_chat import KEY, FakeOpenAIChat

START = 1_700_000_000_000
SESSION = (
    "Actually, I moved to Berlin last month. I prefer dark mode in every editor. "
    "I need to ship the quarterly report by Friday. The demo made me nervous. "
    "What if we built a tiny robot that waters the plants? Alice works at Google since 2019."
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


def _config(observer_tokens: int = 40, reflector_tokens: int = 1_000_000) -> CogmemConfig:
    cfg = CogmemConfig()
    cfg.observer.activation_threshold_tokens = observer_tokens
    cfg.reflector.activation_threshold_tokens = reflector_tokens
    return cfg


@pytest.fixture
def store(tmp_path: Path, clock: ManualClock) -> Iterator[cg.MemoryStore]:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock, config=_config()) as s:
        yield s


def _edges(store: cg.MemoryStore, trace_id: str, keys: list[str], edge_type: EdgeType) -> list[tuple[str, str]]:
    return [(e.src, e.dst) for e in store.graph.get_edges([trace_id], keys) if e.type is edge_type]


# ---------------------------------------------------------------- rule-based path (no LLM)


def test_turns_stay_buffered_below_the_threshold_then_become_typed_notes(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    first = agent.observe("user", "Hello there, good morning!", created_at=START - MS_PER_DAY)
    assert first.notes == [] and first.buffered_turns == 1 and first.buffered_tokens > 0
    assert agent.observations() == []

    said_at = START - MS_PER_MINUTE
    result = agent.observe("user", SESSION, created_at=said_at)
    assert result.method == "rules"
    assert result.buffered_tokens == 0 and result.buffered_turns == 0, "the observer consumed the buffer"
    by_type = {n.type: n for n in result.notes}
    assert set(by_type) == set(NoteType), "one note of each type"
    assert by_type[NoteType.CORRECTION].content == "Actually, I moved to Berlin last month."
    assert by_type[NoteType.FACTUAL].entities == ("Alice", "Google")
    assert all(n.created_at == said_at for n in result.notes), "a note carries the time its turn was said"
    stored = agent.observations(limit=50)
    assert {n.id for n in stored} == {n.id for n in result.notes}
    assert all(n.reflected_at is None and n.scope_key == "user:u1" for n in stored)


def test_the_buffer_outlives_the_agent_handle(store) -> None:
    """Handles are cheap and short-lived (one per request); the buffer lives in the graph."""
    first = store.agent("helper", user_id="u1", thread_id="t1").observe(
        "user", "I prefer tea over coffee in the morning. It is a small ritual that starts my day.")
    assert first.notes == []
    again = store.agent("helper", user_id="u1", thread_id="t1")
    result = again.observe("user", "The demo made me nervous. I need to ship the report by Friday, "
                                   "so the next days will be busy.")
    assert {n.content for n in result.notes} >= {
        "I prefer tea over coffee in the morning.",
        "I need to ship the report by Friday, so the next days will be busy."}


def test_high_emotionality_keeps_an_emotional_note_that_low_emotionality_drops(store) -> None:
    text = ("The demo made me nervous. Alice works at Google since 2019. Bob joined Acme in Lisbon "
            "last year, and Carol runs the Porto office with Dan since the merger with Initech in 2021.")
    kept = {}
    for name, level in (("warm", 0.9), ("cool", 0.1)):
        agent = store.agent(name, user_id="u1", traits=Hexaco(emotionality=level))
        kept[name] = {n.type for n in agent.observe("user", text).notes}
    assert NoteType.EMOTIONAL in kept["warm"]
    assert NoteType.EMOTIONAL not in kept["cool"]
    assert NoteType.FACTUAL in kept["cool"], "facts are noticed whatever the temperament"


def test_reflection_writes_traces_the_agent_retrieves_and_merges_repeated_notes(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    agent.observe("user", "I prefer dark mode in every editor.")
    clock.advance(MS_PER_MINUTE)
    agent.observe("user", "As I said, I prefer dark mode in every editor! I need to ship the report by Friday.")
    flushed = agent.flush_observations()
    reflection = flushed.reflection
    assert reflection is not None and reflection.method == "rules"
    preference = [t for t in reflection.traces if "preference" in t.tags]
    assert len(preference) == 1, "the same preference observed twice becomes one memory"
    trace = preference[0]
    assert trace.source_type is SourceType.REFLECTION and trace.scope_key == "user:u1"
    assert len(trace.structured_data["observation"]["noteIds"]) == 2
    assert agent.observations(pending_only=True) == []
    notes = {n.id: n for n in agent.observations(limit=50)}
    assert all(trace.id in notes[i].trace_ids for i in trace.structured_data["observation"]["noteIds"])
    hits = agent.retrieve("which editor theme do I prefer", top_k=3)
    assert hits.traces and hits.traces[0].trace.id == trace.id


def test_the_reflector_runs_by_itself_past_its_threshold(tmp_path: Path, clock) -> None:
    with cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=_config(40, 20)) as store:
        agent = store.agent("helper", user_id="u1")
        result = agent.observe("user", SESSION)
        assert result.notes and result.reflection is not None
        assert {t.tags[1] for t in result.reflection.traces} >= {"correction", "preference", "commitment"}


def test_an_honest_agent_lets_a_correction_supersede_the_old_memory(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", traits=Hexaco(honesty=0.9))
    paris = agent.encode("I live in Paris")
    clock.advance(days=3)
    agent.observe("user", "Quick update about me. Actually, I moved to Berlin last month.")
    reflection = agent.flush_observations().reflection
    berlin = next(t for t in reflection.traces if "Berlin" in t.content)
    keys = agent.visible_scope_keys
    assert (berlin.id, paris.id) in _edges(store, berlin.id, keys, EdgeType.CONTRADICTS)
    assert (berlin.id, paris.id) in _edges(store, berlin.id, keys, EdgeType.SUPERSEDES)
    assert reflection.superseded == [paris.id]
    assert [c.policy for c in reflection.conflicts] == [ConflictPolicy.NEWER_WINS]
    old = store.graph.get_traces([paris.id], keys)[0]
    assert old.dormant is True and old.is_active is True, "superseded: dormant, not deleted"
    ranked = [t.trace.id for t in agent.retrieve("do I live in Paris or in Berlin", top_k=3).traces]
    assert ranked[0] == berlin.id
    assert paris.id not in ranked or ranked.index(paris.id) > ranked.index(berlin.id)


def test_an_agreeable_agent_keeps_both_sides_of_a_conflict(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", traits=Hexaco(honesty=0.5, agreeableness=0.9))
    paris = agent.encode("I live in Paris")
    clock.advance(days=3)
    agent.observe("user", "Quick update about me. Actually, I moved to Berlin last month.")
    reflection = agent.flush_observations().reflection
    berlin = next(t for t in reflection.traces if "Berlin" in t.content)
    keys = agent.visible_scope_keys
    assert [(c.policy, c.winner_id) for c in reflection.conflicts] == [(ConflictPolicy.KEEP_BOTH, None)]
    assert (berlin.id, paris.id) in _edges(store, berlin.id, keys, EdgeType.CONTRADICTS)
    assert _edges(store, berlin.id, keys, EdgeType.SUPERSEDES) == []
    assert all(t.is_active for t in store.graph.get_traces([paris.id, berlin.id], keys))


def test_notes_and_buffers_never_cross_tenants(store) -> None:
    acme = store.agent("helper", user_id="u1", organization_id="acme")
    evil = store.agent("helper", user_id="u1", organization_id="evil")  # same ids, another tenant
    acme.observe("user", "My locker code is 4711.")
    assert acme.observations() == [] and evil.observations() == []
    evil_result = evil.observe("user", "I prefer window seats on every long flight I take, and I always "
                                       "book the quiet carriage on trains to Berlin and Vienna.")
    assert all("locker" not in n.content for n in evil_result.notes), "evil's run never reads acme's turns"
    acme.flush_observations()
    assert any("locker" in n.content for n in acme.observations())
    assert all("locker" not in n.content for n in evil.observations(all_agents=True))
    assert all("locker" not in t.trace.content for t in evil.retrieve("locker code badge", top_k=5).traces)


def test_a_failed_note_write_keeps_every_buffered_turn(store, monkeypatch) -> None:
    agent = store.agent("helper", user_id="u1")
    real_run = store.graph.run

    def failing(name, params=None, **kwargs):
        if name == "observation_notes_write":
            raise ConnectionError("graph went away")
        return real_run(name, params, **kwargs)

    monkeypatch.setattr(store.graph, "run", failing)
    with pytest.raises(ConnectionError):
        agent.observe("user", SESSION)
    monkeypatch.setattr(store.graph, "run", real_run)
    assert agent.observations() == []
    result = agent.flush_observations()
    assert {n.type for n in result.notes} == set(NoteType), "the turns were still there, unclaimed"


@pytest.mark.parametrize(("role", "text", "field"), [
    ("robot", "hello there my friend", "role"), ("user", "", "text"), ("user", "   ", "text"),
    ("user", "bad\x00byte", "text"),
])
def test_bad_input_is_refused_naming_the_field(store, role, text, field) -> None:
    with pytest.raises(ValueError, match=field):
        store.agent("helper", user_id="u1").observe(role, text)


# ---------------------------------------------------------------- LLM path


def _llm_responder(observer_answer: str, reflector_answer: str):
    def respond(system: str, user: str) -> str:
        return reflector_answer if "long-term memories" in system else observer_answer
    return respond


def test_llm_observer_and_reflector_through_the_openai_client(tmp_path: Path, clock) -> None:
    observer_answer = json.dumps({"notes": [
        {"type": "preference", "content": "I prefer green tea over coffee", "importance": 0.8,
         "confidence": 0.9, "turn": 2, "entities": []},
        {"type": "emotional", "content": "I felt anxious before the board meeting", "importance": 0.7, "turn": 1},
        {"type": "gossip", "content": "not a note type", "turn": 1},
    ]})
    reflector_answer = json.dumps({"memories": [
        {"content": "I prefer green tea over coffee, especially in the morning", "type": "preference",
         "importance": 0.8, "confidence": 0.9, "notes": [1, 2]},
    ]})
    with FakeOpenAIChat(_llm_responder(observer_answer, reflector_answer)) as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=_config(20), llm=api.chat()) as store:
        agent = store.agent("helper", user_id="u1", traits=Hexaco(emotionality=0.9))
        agent.observe("user", "I was so anxious before the board meeting today.", created_at=START - 5)
        result = agent.observe("user", "Green tea please, I never drink coffee anymore these days.",
                               created_at=START - 1)
        assert result.method == "llm"
        notes = {n.type: n for n in result.notes}
        assert set(notes) == {NoteType.PREFERENCE, NoteType.EMOTIONAL}, "the unknown type was skipped"
        assert notes[NoteType.PREFERENCE].created_at == START - 1 and notes[NoteType.EMOTIONAL].created_at == START - 5
        assert all(n.method == "llm" for n in result.notes)
        request = api.requests[0]
        assert request["response_format"] == {"type": "json_object"}
        system, user = (m["content"] for m in request["messages"])
        assert "emotional shifts" in system, "the observer is told what this personality watches for"
        assert "[2] user: Green tea please" in user

        reflection = agent.flush_observations().reflection
        assert reflection.method == "llm" and len(reflection.traces) == 1
        trace = reflection.traces[0]
        assert trace.content == "I prefer green tea over coffee, especially in the morning"
        assert set(trace.structured_data["observation"]["noteIds"]) == {n.id for n in result.notes}
        assert agent.retrieve("green tea or coffee", top_k=3).traces[0].trace.id == trace.id


def test_malformed_llm_json_falls_back_to_the_rules_without_losing_turns(tmp_path: Path, clock, caplog) -> None:
    with FakeOpenAIChat(_llm_responder("notes: [oops", "{\"memories\": \"not a list\"}")) as api, \
            cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=_config(), llm=api.chat()) as store:
        agent = store.agent("helper", user_id="u1")
        with caplog.at_level(logging.WARNING, logger="cogmem_graph"):
            result = agent.observe("user", SESSION)
            reflection = agent.flush_observations().reflection
        assert api.requests, "the LLM was asked first"
        assert result.method == "rules" and {n.type for n in result.notes} == set(NoteType)
        assert result.buffered_turns == 0
        assert "observer LLM failed" in caplog.text and "reflector LLM failed" in caplog.text
        assert reflection.method == "rules" and reflection.traces
        assert agent.observations(pending_only=True) == []


def test_open_takes_an_openai_chat_spec(tmp_path: Path, clock, monkeypatch) -> None:
    answer = json.dumps({"notes": [{"type": "factual", "content": "I work at Initech", "turn": 1}]})
    with FakeOpenAIChat(_llm_responder(answer, "{}")) as api:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", api.url)
        with cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=_config(1),
                     llm="openai:gpt-4o-mini") as store:
            result = store.agent("helper", user_id="u1").observe("user", "I work at Initech these days.")
        assert result.method == "llm" and [n.content for n in result.notes] == ["I work at Initech"]
        assert api.requests[0]["model"] == "gpt-4o-mini"
    with pytest.raises(ValueError, match="llm"):
        cg.open(home=tmp_path / "h2", embedder="hash", clock=clock, llm="acme:model-9")


def test_unreflected_notes_reach_the_prompts_observations_section(store) -> None:
    agent = store.agent("helper", user_id="u1")
    agent.observe("user", SESSION)
    ctx = agent.assemble_for_prompt("what should I remember about the user", token_budget=2_000)
    assert "## Observations" in ctx.text and "I prefer dark mode in every editor." in ctx.text
    assert ctx.sections["observation_notes"] > 0
    agent.flush_observations()  # reflected notes are long-term memories now, not observations
    after = agent.assemble_for_prompt("what should I remember about the user", token_budget=2_000)
    assert after.sections["observation_notes"] == 0
