"""A noun naming an act and the verb of the act meet at one key, so a change told of "the
flight" is read as a change of what "we fly" stated."""

from __future__ import annotations

import pytest

from cogmem_graph.language.act_nouns import act_key
from cogmem_graph.language.contradiction import candidate_query
from cogmem_graph.language.value_moves import moved_to_new_value, resolved_value
from cogmem_graph.text import stem


@pytest.mark.parametrize(("noun", "verb"), [("flight", "fly"), ("payment", "pay"), ("departure", "depart"),
                                            ("delivery", "deliver"), ("sale", "sell"), ("treatment", "treat"),
                                            ("arrival", "arrive")])
def test_a_noun_of_an_act_meets_its_verb(noun, verb) -> None:
    assert act_key(stem(noun)) == act_key(stem(verb))


@pytest.mark.parametrize(("one", "other"), [("hour", "our"), ("tour", "to"), ("flight", "fight"),
                                            ("payment", "paint"), ("delivery", "deli")])
def test_words_that_only_look_alike_stay_apart(one, other) -> None:
    assert act_key(stem(one)) != act_key(stem(other))


@pytest.mark.parametrize(("old", "new", "comes_to"), [
    ("We fly to Oslo on March 3.", "The Oslo flight got pushed back by a day.", "March 4"),
    ("The removal van departs at 8 am.", "The van's departure was put back an hour.", "9 am"),
    ("We pay 40 euros a month for the gym.", "The gym payment went up by 5 euros a month.", "45 euros"),
])
def test_a_change_told_of_the_act_s_noun_changes_what_the_verb_stated(old, new, comes_to) -> None:
    assert moved_to_new_value(new, old, 0.4).confidence > 0
    assert resolved_value(new, old) == comes_to


def test_a_change_of_another_act_changes_nothing() -> None:
    assert moved_to_new_value("The Oslo train got pushed back by a day.", "We fly to Oslo on March 3.",
                              0.4).confidence == 0.0


def test_a_change_is_looked_up_by_the_thing_it_names() -> None:
    """The older statement may share no other word with the change: its names find it."""
    assert set(candidate_query("The Dublin flight was moved up by two days.").split()) >= {"dublin", "flight"}
    assert candidate_query("Lovely weather today, isn't it?") is None
