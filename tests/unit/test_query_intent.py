"""Query intent, declarative stems and compound-question decomposition (pure rules)."""

from __future__ import annotations

import pytest

from cogmem_graph.language.causality import refers_back_causally
from cogmem_graph.language.query_intent import (
    QueryIntent,
    asks_about_self,
    asks_about_the_past,
    asks_about_what_is_ahead,
    classify_intent,
    declarative_stem,
    decompose_query,
    without_time_cues,
)


@pytest.mark.parametrize(("query", "intent"), [
    ("When did Caroline go to the support group?", QueryIntent.TEMPORAL),
    ("How long has Nate been playing video games?", QueryIntent.TEMPORAL),
    ("What did I believe before the move?", QueryIntent.TEMPORAL),
    ("Which year did Jon open his studio?", QueryIntent.TEMPORAL),
    ("Why did Nate quit his job?", QueryIntent.CAUSAL),
    ("What made Melanie start painting?", QueryIntent.CAUSAL),
    ("Who is Priya?", QueryIntent.ENTITY_PROFILE),
    ("Tell me about Priya Raman", QueryIntent.ENTITY_PROFILE),
    ("What do you know about the Lisbon project?", QueryIntent.ENTITY_PROFILE),
    ("Which programming language do I like best?", QueryIntent.PREFERENCE),
    ("What is my favourite band?", QueryIntent.PREFERENCE),
    ("What is my blood type?", QueryIntent.FACTUAL),
    ("Where does my mother live?", QueryIntent.FACTUAL),
    ("Is Caroline married?", QueryIntent.FACTUAL),
    ("deploy notes for the release", QueryIntent.GENERAL),
])
def test_classify_intent(query: str, intent: QueryIntent) -> None:
    assert classify_intent(query) is intent


@pytest.mark.parametrize(("query", "stem"), [
    ("When did Caroline go to the support group?", "Caroline go to the support group"),
    ("What exercise do I do on weekends?", "exercise I do on weekends"),
    ("What chronic condition do I have?", "chronic condition I have"),
    ("Which of my children has an allergy?", "my children an allergy"),
    ("What kind of car does Evan drive?", "car Evan drive"),
    ("How many times has Melanie gone to the beach?", "times Melanie gone to the beach"),
    ("Is Caroline married?", "Caroline married"),
    ("Who is Priya?", "Priya"),
    ("I live in Paris.", "I live in Paris"),
])
def test_declarative_stem(query: str, stem: str) -> None:
    assert declarative_stem(query) == stem


def test_a_question_with_a_pronoun_before_the_auxiliary_keeps_it() -> None:
    # "What I did is ..." is no auxiliary inversion: nothing is dropped after the pronoun.
    assert declarative_stem("What I wanted was a quiet week?") == "I wanted was a quiet week"


@pytest.mark.parametrize(("query", "parts"), [
    ("Where do I live and what do I do for a living?", ["Where do I live", "what do I do for a living?"]),
    ("What is my blood type? When does my passport expire?",
     ["What is my blood type", "When does my passport expire?"]),
    ("Who is my dentist; who is my manager?", ["Who is my dentist", "who is my manager?"]),
    ("What car do I drive and also where do I park it?", ["What car do I drive", "where do I park it?"]),
])
def test_a_compound_question_is_split(query: str, parts: list[str]) -> None:
    assert decompose_query(query) == parts


@pytest.mark.parametrize("query", [
    "What do Jon and Gina both have in common?",
    "Did Melanie and her family go camping?",
    "Where do I live?",
    "Salt and pepper? Yes.",
])
def test_a_simple_question_is_one_part(query: str) -> None:
    assert decompose_query(query) == [query]


def test_decomposition_is_bounded() -> None:
    query = "; ".join(f"what is item number {i}" for i in range(10))
    assert len(decompose_query(query, max_parts=4)) == 4
    with pytest.raises(ValueError, match="max_parts"):
        decompose_query(query, max_parts=0)


@pytest.mark.parametrize(("text", "refers_back"), [
    ("That's why the nightly backup failed.", True),
    ("Maria: Yeah, that's why I love volunteering!", True),
    ("So I cancelled the trip.", True),
    ("As a result, we moved the launch to May.", True),
    ("It made me realize how much I missed painting.", True),
    ("The server ran out of disk space.", False),
    ("Why did the backup fail?", False),
    ("I bought a new sofa so the room looks nicer.", False),
    ("THEREFORE WE STOPPED.", True),
    ("Café closed early; that is why we left.", True),
    ("Zoë: So we took the café's last table.", True),
])
def test_a_turn_that_follows_from_the_one_before(text: str, refers_back: bool) -> None:
    assert refers_back_causally(text) is refers_back


@pytest.mark.parametrize(("query", "about_self"), [
    ("What am I allergic to?", True), ("What is my daughter called?", True), ("When does our team deploy?", True),
    ("Which seat do I like on planes?", True), ("What did Caroline research?", False),
    ("Where does Melanie live?", False), ("Is it raining in Iceland?", False),
])
def test_a_question_about_the_asker(query: str, about_self: bool) -> None:
    assert asks_about_self(query) is about_self


@pytest.mark.parametrize(("query", "past"), [
    ("When is the team meeting?", False), ("Where do I live?", False), ("When does our team deploy?", False),
    ("When did we move the launch?", True), ("Where was I staying before?", True),
    ("What did I say about the deploy tool?", True), ("Which editor did I use to prefer?", True),
])
def test_a_question_about_how_things_were(query: str, past: bool) -> None:
    assert asks_about_the_past(query) is past


def test_a_named_speaker_other_than_the_asker_is_someone_else():
    from cogmem_graph.language.query_intent import said_by_someone_else
    from cogmem_graph.language.speakers import speaker_of

    assert speaker_of("Joanna: I'm allergic to most animals with fur.") == "Joanna"
    assert speaker_of("My son Mateo is allergic to cats.") is None
    assert speaker_of("User: I run every Saturday") == "User"
    assert speaker_of("Dr. Okafor: the filling is done") == "Dr. Okafor"
    assert speaker_of("Seats when I fly: the airline shows which are free") is None
    assert said_by_someone_else(speaker_of("Joanna: I'm allergic to cats."), frozenset({"maya"}))
    assert not said_by_someone_else(speaker_of("My son Mateo is allergic to cats."), frozenset({"maya"}))
    assert not said_by_someone_else(speaker_of("User: I run every Saturday"), frozenset())
    assert not said_by_someone_else(speaker_of("Maya: I run every Saturday"), frozenset({"maya"}))


@pytest.mark.parametrize(("query", "ahead"), [
    ("Whose wedding is coming up?", True), ("What are my plans for next week?", True),
    ("Is the release scheduled yet?", True), ("What is upcoming for the team?", True),
    ("Where do I live?", False), ("When is the team meeting?", False),
    ("What did Caroline plan before the move?", False), ("Which wedding was last year?", False),
])
def test_a_question_about_what_is_still_to_come(query: str, ahead: bool) -> None:
    assert asks_about_what_is_ahead(query) is ahead


def test_time_cues_are_left_out_of_the_words_searched_for() -> None:
    assert without_time_cues("Whose wedding is coming up?").split() == ["Whose", "wedding", "is", "?"]
    assert without_time_cues("Any upcoming trips soon?").split() == ["Any", "trips", "?"]
    assert without_time_cues("Where do I live?") == "Where do I live?"
