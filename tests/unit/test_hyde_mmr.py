"""HyDE templates and centroid, and maximal marginal relevance (pure rules)."""

from __future__ import annotations

import math

import pytest

from cogmem_graph.cognition.diversity import maximal_marginal_relevance, term_vector, text_cosine
from cogmem_graph.cognition.embedding_space import centroid
from cogmem_graph.language.hyde import HYDE_TEMPLATES, hypothetical_documents
from cogmem_graph.language.query_intent import QueryIntent


def test_hypothetical_answers_are_statements_built_from_the_stem() -> None:
    docs = hypothetical_documents("When did Caroline go to the support group?", QueryIntent.TEMPORAL)
    assert docs == ["Caroline go to the support group yesterday.", "Caroline go to the support group last week."]
    assert all("?" not in d and "When" not in d for d in docs)


def test_an_intent_without_templates_has_no_hypothetical_answers() -> None:
    assert HYDE_TEMPLATES[QueryIntent.GENERAL] == ()
    assert hypothetical_documents("notes for the release", QueryIntent.GENERAL) == []
    custom = {QueryIntent.GENERAL: ("Note: {stem}.",)}
    assert hypothetical_documents("notes for the release", QueryIntent.GENERAL, custom) == [
        "Note: notes for the release."]


def test_centroid_weighs_each_text_alike_and_has_unit_length() -> None:
    c = centroid([[10.0, 0.0], [0.0, 1.0]])  # the long vector counts no more than the short one
    assert c == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2)])
    with pytest.raises(ValueError, match="vectors"):
        centroid([])


def test_text_cosine_compares_stemmed_words() -> None:
    a, b = term_vector("I deployed the service"), term_vector("deploying services")
    assert text_cosine(a, b) == pytest.approx(1.0)
    assert text_cosine(a, term_vector("the cat sleeps")) == 0.0
    assert text_cosine(a, term_vector("")) == 0.0


def test_mmr_passes_over_a_second_wording_of_the_same_fact() -> None:
    texts = ["My blood type is O negative.", "Blood type: O negative, mine.", "I am allergic to peanuts."]
    relevance = [1.0, 0.95, 0.8]
    assert maximal_marginal_relevance(relevance, texts, 2, lam=0.7) == [0, 2]
    # λ = 1 is the relevance order.
    assert maximal_marginal_relevance(relevance, texts, 3, lam=1.0) == [0, 1, 2]


def test_mmr_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="one entry per candidate"):
        maximal_marginal_relevance([1.0], ["a", "b"], 1)
    with pytest.raises(ValueError, match="lam"):
        maximal_marginal_relevance([1.0], ["a"], 1, lam=1.5)
    assert maximal_marginal_relevance([], [], 3) == []
