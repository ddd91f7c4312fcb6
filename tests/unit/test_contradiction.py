"""Offline contradiction heuristics (pure, no I/O)."""

from __future__ import annotations

import pytest

from cogmem_graph.cognition.contradiction import (
    ContradictionVerdict,
    candidate_query,
    contradicts,
    detect_contradiction,
    extract_facts,
)

THRESHOLD = 0.5  # what a caller would treat as "contradiction"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I moved to Berlin", "I live in Paris"),
        ("I'm living in Lisbon these days", "I live in Paris"),
        ("My favorite color is green", "my favourite colour is blue"),
        ("I work at Google", "I work at Microsoft as an engineer"),
        ("I joined Amazon last week", "I work for Microsoft"),
        ("I'm 31", "I am 30 years old"),
        ("My name is Bob", "Call me Robert"),
        ("Sam lives in Boston", "Sam moved to Chicago in 2020"),
        ("The team meeting is now on Tuesday", "The team meeting is on Monday at 10"),
        ("My wife is Maria", "My wife is Anna"),
    ],
)
def test_same_subject_and_attribute_with_a_different_value(new, old) -> None:
    verdict = detect_contradiction(new, old)
    assert verdict.reason == "different_value"
    assert verdict.confidence >= THRESHOLD
    assert verdict.old_value != verdict.new_value


def test_the_verdict_names_the_attribute_and_both_values() -> None:
    verdict = detect_contradiction("I moved to Berlin last month", "I live in Paris and work at Google")
    assert verdict == ContradictionVerdict(0.9, "different_value", "residence", "paris", "berlin")
    assert bool(verdict)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I don't live in Paris anymore", "I live in Paris"),
        ("I used to live in Paris", "I live in Paris"),
        ("I don't like coffee", "I like coffee"),
        ("The server is not running", "The server is running"),
        ("Correction: actually the team meeting is not on Monday at 10, it moved", "The team meeting is on Monday at 10"),
    ],
)
def test_negation_of_the_same_statement(new, old) -> None:
    verdict = detect_contradiction(new, old)
    assert verdict.reason == "negation" and verdict.confidence >= THRESHOLD


def test_correction_words_about_the_same_thing() -> None:
    verdict = detect_contradiction("Actually, the deploy happens on Fridays", "The deploy happens on Thursdays")
    assert verdict.reason == "correction" and verdict.confidence >= THRESHOLD
    # with an embedding similarity the cue counts even when few words are shared
    assert contradicts("No, that was wrong, it is the blue one", "Pick the red folder", similarity=0.8) >= THRESHOLD
    assert contradicts("No, that was wrong, it is the blue one", "Pick the red folder", similarity=0.1) == 0.0


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I live in Berlin now", "I moved to Berlin last month"),  # restating is agreeing
        ("My favourite colour is blue", "My favorite color is blue."),
        ("Sam lives in Boston", "Alex lives in Chicago"),  # different subjects
        ("I had pasta for dinner", "I live in Paris"),  # unrelated
        ("I lived in Rome for a year", "I live in Paris"),  # history, not the current fact
        ("The weather is nice today", "I live in Paris"),
        ("I don't live in Paris", "I live in Berlin"),  # compatible
        ("Actually I love it", "The weather is nice today"),  # a cue about something else
        ("I moved to Berlin", "I love living near the river"),
        ("I live in a small flat", "I live in Paris"),
    ],
)
def test_no_contradiction(new, old) -> None:
    assert contradicts(new, old) < THRESHOLD


def test_multi_valued_attributes_are_only_a_weak_signal() -> None:
    assert 0.0 < contradicts("My hobby is chess", "My hobby is painting") < THRESHOLD


def test_third_person_pronouns_count_for_less() -> None:
    assert contradicts("She moved to Rome", "She lives in Milan") < contradicts("I moved to Rome", "I live in Milan")


def test_extract_facts_reads_coordinated_clauses() -> None:
    facts = extract_facts("I live in Paris and work at Google. My wife is Anna.")
    assert [(f.subject, f.attribute, f.value) for f in facts] == [
        ("speaker", "residence", "paris"), ("speaker", "employer", "google"), ("speaker", "wife", "anna")]
    assert all(f.single_valued for f in facts)


def test_candidate_query_finds_statements_about_the_same_attribute() -> None:
    query = candidate_query("I moved to Berlin")
    assert query is not None and {"live", "moved"} <= set(query.split())
    assert "sam" in candidate_query("Sam works at Google").split()
    assert candidate_query("My favourite colour is green") == "favorite color"
    assert candidate_query("The team meeting is on Tuesday") == "team meeting"
    assert candidate_query("What a lovely day") is None


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="strings"):
        contradicts(None, "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="similarity"):
        contradicts("a", "b", similarity=2.0)
    with pytest.raises(ValueError):
        extract_facts(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "fact"), [
    ("She turned 40 yesterday", ("she", "40")),
    ("I AM 22", ("speaker", "22")),
    ("My son is 7", ("my son", "7")),
    ("I'm 31 now", ("speaker", "31")),
])
def test_ages_are_read_whatever_the_verb_and_case(text, fact) -> None:
    assert fact in [(f.subject, f.value) for f in extract_facts(text) if f.attribute == "age"]
