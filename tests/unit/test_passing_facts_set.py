"""`benchmarks/passing_facts_set.py` keeps its own promises: enough facts, every kind with as many tune as
confirm facts, halves that alternate within each kind, answers written in their turn after the small talk,
no turn or question twice, and questions that share little wording with their turns. Only the data is checked."""

from __future__ import annotations

import re
from collections import Counter

from benchmark_scripts import load_benchmark

SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+| - | \u2014 ")
"""Where a turn splits into sentences: after . ! ? and at spaced dashes."""
STOPWORDS = set(
    "about after again also been before does down from have into just more most much only over should some than "
    "that their them then there these they this very were what when where which while will with would your".split()
)


data = load_benchmark("passing_facts_set")


def _sentences(turn: str) -> list[str]:
    return [part for part in SENTENCE_BREAK.split(turn) if part.strip()]


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4} - STOPWORDS


def test_there_are_enough_facts() -> None:
    assert len(data.PASSING_FACTS) >= 60


def test_fields_take_their_declared_values() -> None:
    for fact in data.PASSING_FACTS:
        assert fact.kind in data.KINDS, fact
        assert fact.half in data.HALVES, fact
    assert {fact.kind for fact in data.PASSING_FACTS} == set(data.KINDS)


def test_every_kind_has_as_many_tune_as_confirm_facts() -> None:
    counts = Counter((fact.kind, fact.half) for fact in data.PASSING_FACTS)
    assert {
        kind: (counts[kind, "tune"], counts[kind, "confirm"])
        for kind in data.KINDS
        if counts[kind, "tune"] != counts[kind, "confirm"]
    } == {}


def test_halves_alternate_within_each_kind() -> None:
    for kind in data.KINDS:
        halves = [fact.half for fact in data.PASSING_FACTS if fact.kind == kind]
        assert halves == [data.HALVES[i % 2] for i in range(len(halves))], kind


def test_each_turn_has_small_talk_before_the_fact() -> None:
    for fact in data.PASSING_FACTS:
        sentences = _sentences(fact.turn)
        assert len(sentences) >= 2, fact
        assert fact.answer in fact.turn, fact
        assert fact.answer not in sentences[0], fact
        assert any(fact.answer in sentence for sentence in sentences[1:3]), fact


def test_no_turn_or_question_is_used_twice() -> None:
    for field in ("turn", "question"):
        values = [getattr(fact, field) for fact in data.PASSING_FACTS]
        assert [v for v, n in Counter(values).items() if n > 1] == [], field


def test_questions_are_questions_in_other_words() -> None:
    for fact in data.PASSING_FACTS:
        assert fact.question.endswith("?"), fact
        shared = _content_words(fact.question) & _content_words(fact.turn)
        assert len(shared) <= 2, (fact.question, sorted(shared))


holdout = load_benchmark("passing_facts_holdout")


def test_the_held_out_facts_keep_the_set_s_promises_and_repeat_none_of_it() -> None:
    facts = holdout.PASSING_HOLDOUT
    assert len(facts) == 16 and {f.half for f in facts} == {"holdout"}
    assert {f.kind for f in facts} <= set(data.KINDS)
    seen = {f.turn for f in data.PASSING_FACTS} | {f.question for f in data.PASSING_FACTS}
    for fact in facts:
        sentences = _sentences(fact.turn)
        assert len(sentences) >= 2 and fact.answer not in sentences[0], fact
        assert any(fact.answer in sentence for sentence in sentences[1:3]), fact
        assert fact.question.endswith("?") and fact.turn not in seen and fact.question not in seen, fact
        assert len(_content_words(fact.question) & _content_words(fact.turn)) <= 2, fact.question
