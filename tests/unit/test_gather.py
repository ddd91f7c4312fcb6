"""Gathering an answer spread over several conversations (`RetrievalConfig.gather`): the
pure parts — which questions ask for several things, the query without its names, episodes
and the episode cap, and a further list in score fusion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.cognition.diversity import episode_capped, episodes
from cogmem_graph.cognition.query_intent import asks_for_several, without_names
from cogmem_graph.retrieval.fusion import with_relative_list
from cogmem_graph.vectors.port import VectorHit

HOUR = 3_600_000


@pytest.mark.parametrize("query", [
    "What activities does Melanie partake in?",
    "Which cities has Jon visited?",
    "Where has Melanie camped?",
    "What kinds of music does Ana like?",
    "What musical artists/bands has Melanie seen?",
    "How many times has Jon been to Paris?",
    "In what ways does Ana help?",
    "What did Jon and Gina both study?",
])
def test_questions_asking_for_several(query):
    assert asks_for_several(query)


@pytest.mark.parametrize("query", [
    "What did Caroline research?",
    "What is Caroline's identity?",
    "When did Melanie go camping?",
    "What does Melanie do to destress?",
    "Where does Ana live?",
    "What is the business address?",
])
def test_questions_asking_for_one_thing(query):
    assert not asks_for_several(query)


def test_without_names():
    assert without_names("What activities does Melanie partake in?", ["Melanie"]) == "What activities does partake in?"
    assert without_names("What are Melanie's pets' names?", ["Melanie"]) == "What are pets' names?"
    assert without_names("Where did Jon and Gina meet?", ["Gina", "Jon"]) == "Where did and meet?"
    assert without_names("Who is Melanie?", []) == "Who is Melanie?"


def test_episodes_split_at_gaps():
    times = [0, 10, 5 * HOUR, 20, 5 * HOUR + 30, 30 * HOUR]
    assert episodes(times, HOUR) == [0, 0, 1, 0, 1, 2]
    assert episodes([], HOUR) == []


def test_episode_cap_spreads_the_head_over_episodes():
    # Best first: four from the first conversation, then one each from two others.
    times = [0, 10, 20, 30, 5 * HOUR, 30 * HOUR]
    order = episode_capped(times, cap=2, window=4, gap_ms=HOUR)
    assert order == [0, 1, 4, 5, 2, 3]
    # A window as long as the list with room for all: the order is kept.
    assert episode_capped(times, cap=10, window=10, gap_ms=HOUR) == list(range(6))


@given(st.lists(st.integers(0, 100 * HOUR), max_size=30), st.integers(1, 4), st.integers(1, 12))
def test_episode_cap_is_a_permutation_and_caps_the_window(times, cap, window):
    order = episode_capped(times, cap, window, HOUR)
    assert sorted(order) == list(range(len(times)))
    episode = episodes(times, HOUR)
    # The head is as long as the cap lets it be; it holds at most `cap` of an episode, and
    # keeps the given order, as does the rest.
    room = sum(min(cap, episode.count(e)) for e in set(episode))
    head = order[:min(window, room)]
    assert all(sum(1 for i in head if episode[i] == e) <= cap for e in set(episode))
    assert head == sorted(head)
    assert order[len(head):] == sorted(order[len(head):])


def test_a_further_list_joins_score_fusion_without_reweighing_the_others():
    fused = [("a", 1.0), ("b", 0.5)]
    hits = [VectorHit("b", 0.9), VectorHit("c", 0.5)]
    out = dict(with_relative_list(fused, hits, 1.0))
    assert out == {"a": pytest.approx(0.5), "b": pytest.approx(0.75), "c": pytest.approx(0.0)}
    assert dict(with_relative_list(fused, [], 1.0)) == {"a": 1.0 / 2, "b": 0.5 / 2}
