"""A question naming a relation is searched by words with the other words of that relation."""

from __future__ import annotations

import pytest

from cogmem_graph.language.relation_words import RELATION_CLASSES, with_relation_words


@pytest.mark.parametrize(("question", "also"), [
    ("Where does my sis work these days?", set()),  # not a member: nothing is guessed
    ("What does my brother-in-law do?", set()),  # another relation than a brother
    ("Which school do our children go to?", {"kids", "son", "daughter"}),
    ("Which school do Maya's children go to?", set()),  # someone else's: their words are as they were said
    ("What's my better half allergic to?", {"partner", "wife", "husband"}),
    ("When is my line manager back from leave?", {"boss", "supervisor"}),
    ("What breed is our pup?", {"dog", "puppy"}),
    ("Where did my gran grow up?", {"grandma", "grandmother", "nan"}),
    ("What does my dad's co-worker do?", {"colleague", "workmate", "father"}),
])
def test_the_other_words_of_the_relation_are_searched_too(question: str, also: set[str]) -> None:
    searched = with_relation_words(question)
    assert searched.startswith(question), "the question itself is searched as asked"
    added = set(searched[len(question):].split())
    assert also <= added
    if not also:
        assert searched == question


def test_a_question_naming_no_relation_is_searched_as_asked() -> None:
    assert with_relation_words("When is the design review?") == "When is the design review?"


def test_each_word_names_one_relation() -> None:
    words = [w for members in RELATION_CLASSES for w in members]
    assert len(words) == len(set(words))
