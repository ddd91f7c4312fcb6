"""Gathering an answer spread over several conversations (`RetrievalConfig.gather`): the
pure parts — which questions ask for several things, the query without its names, and a
further list in score fusion."""

from __future__ import annotations

import pytest

from cogmem_graph.language.query_intent import asks_for_several, without_names
from cogmem_graph.retrieval.fusion import with_relative_list
from cogmem_graph.vectors.port import VectorHit


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


def test_a_further_list_joins_score_fusion_without_reweighing_the_others():
    fused = [("a", 1.0), ("b", 0.5)]
    hits = [VectorHit("b", 0.9), VectorHit("c", 0.5)]
    out = dict(with_relative_list(fused, hits, 1.0))
    assert out == {"a": pytest.approx(0.5), "b": pytest.approx(0.75), "c": pytest.approx(0.0)}
    assert dict(with_relative_list(fused, [], 1.0)) == {"a": 1.0 / 2, "b": 0.5 / 2}
