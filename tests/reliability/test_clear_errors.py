"""Clear errors at the edge, and nothing that grows without bound per store.

- `store.agent(..., mood=..., traits=...)` takes the models or plain dicts (validated into
  them at once); anything else is refused at once, naming the argument;
- ids at the documented limit (256 characters each) work in every scope, even when the
  qualified scope id joins three of them; one character more is refused naming the id;
- the FalkorDB write lanes of a process (one per server URL and graph) are dropped when the
  last store using them closes.
"""

from __future__ import annotations

import pytest

import cogmem_graph as cg
from cogmem_graph.graph.falkordb import write_lane
from cogmem_graph.model import MAX_ID_CHARS

# ---------------------------------------------------------------- 11. mood and traits


def test_mood_and_traits_given_as_dicts_are_validated_into_the_models(store: cg.MemoryStore) -> None:
    agent = store.agent("dicts", user_id="u", mood={"valence": 0.6, "arousal": -0.2},
                        traits={"openness": 0.9, "honesty": 0.8})
    assert agent.current_mood() == cg.Mood(valence=0.6, arousal=-0.2)
    assert agent.traits == cg.Hexaco(openness=0.9, honesty=0.8)
    assert store.agent_traits("dicts") == agent.traits
    trace = agent.encode("A happy memory about the Atlas launch")
    assert trace.id and -1.0 <= trace.valence <= 1.0
    assert agent.retrieve("Atlas launch").traces
    agent.set_mood({"valence": -0.5})
    assert agent.current_mood() == cg.Mood(valence=-0.5)


@pytest.mark.parametrize("argument, value, problem", [
    ("mood", {"valence": 5}, "valence"),
    ("mood", {"happiness": 0.5}, "happiness"),
    ("mood", 42, "Mood"),
    ("mood", "cheerful", "Mood"),
    ("traits", {"openness": 2}, "openness"),
    ("traits", {"bravery": 0.5}, "bravery"),
    ("traits", [0.5] * 6, "Hexaco"),
])
def test_bad_mood_or_traits_are_refused_at_once_naming_the_argument(
        store: cg.MemoryStore, argument: str, value, problem: str) -> None:
    with pytest.raises(ValueError, match=rf"^{argument}\b") as info:
        store.agent("bad", user_id="u", **{argument: value})
    assert problem in str(info.value)
    if argument == "mood":
        agent = store.agent("ok", user_id="u")
        with pytest.raises(ValueError, match=r"^mood\b"):
            agent.set_mood(value)


def test_a_mood_provider_still_works(store: cg.MemoryStore) -> None:
    agent = store.agent("provider", user_id="u", mood=lambda: cg.Mood(arousal=0.7))
    assert agent.current_mood() == cg.Mood(arousal=0.7)


# ---------------------------------------------------------------- 12. ids at the limit


def test_ids_at_the_documented_limit_work_in_every_scope(store: cg.MemoryStore) -> None:
    ids = {name: letter * MAX_ID_CHARS for name, letter in
           (("agent_id", "a"), ("user_id", "u"), ("thread_id", "t"), ("persona_id", "p"), ("organization_id", "o"))}
    agent = store.agent(ids.pop("agent_id"), **ids)
    stored = {}
    for scope in cg.Scope:
        stored[scope] = agent.encode(f"Atlas note kept in the {scope.value} scope", scope=scope.value)
        assert stored[scope].scope is scope
    found = {hit.trace.id for hit in agent.retrieve("Atlas note kept in the scope", top_k=10).traces}
    assert found == {t.id for t in stored.values()}
    assert agent.multi_hop("Atlas note", top_k=10).traces
    assert agent.remind("Atlas review", on_keywords=["Atlas"], scope="thread").scope_key.startswith("thread:")
    assert agent.observe("user", "We talked about Atlas today.").buffered_turns >= 1


@pytest.mark.parametrize("argument", ["agent_id", "user_id", "thread_id", "persona_id", "organization_id"])
def test_an_id_past_the_limit_is_refused_naming_it(store: cg.MemoryStore, argument: str) -> None:
    identity = {"agent_id": "a", "user_id": "u", "thread_id": "t", "persona_id": "p", "organization_id": "o"}
    identity[argument] = "x" * (MAX_ID_CHARS + 1)
    with pytest.raises(ValueError, match=rf"{argument} is longer than {MAX_ID_CHARS} characters"):
        store.agent(identity.pop("agent_id"), **identity)


# ---------------------------------------------------------------- 13. write lanes


def test_write_lanes_are_dropped_when_their_last_store_closes(tmp_path, clock) -> None:
    before = set(write_lane._lanes)
    keys = []
    for i in range(3):
        with cg.open(home=tmp_path / f"home{i}", embedder="hash", clock=clock) as store:
            store.agent("a", user_id="u").encode(f"memory {i} of a short-lived store")
            keys.append((store.graph.url, store.graph.config.graph_name))
            assert keys[-1] in write_lane._lanes
        assert keys[-1] not in write_lane._lanes
    assert len(set(keys)) == 3 and set(write_lane._lanes) == before


def test_a_lane_shared_by_two_stores_lives_until_both_close(tmp_path, clock) -> None:
    first = cg.open(home=tmp_path / "shared", embedder="hash", clock=clock)
    second = cg.open(home=tmp_path / "shared", embedder="hash", clock=clock)
    key = (first.graph.url, first.graph.config.graph_name)
    assert (second.graph.url, second.graph.config.graph_name) == key
    first.close()
    assert key in write_lane._lanes
    second.agent("a", user_id="u").encode("still writing through the shared lane")
    second.close()
    assert key not in write_lane._lanes
