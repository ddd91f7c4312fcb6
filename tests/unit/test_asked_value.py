"""Two memories that give different values of what a question asks for: the newer answers,
and only when both speak of everything the question names."""

from __future__ import annotations

import pytest

from cogmem_graph.language.asked_value import asked_kinds, disagree_on_asked_value


def _pairs(question: str, *texts: str) -> list[tuple[str, str]]:
    return disagree_on_asked_value(question, [(f"m{i}", t) for i, t in enumerate(texts)])


@pytest.mark.parametrize(("question", "kinds"), [
    ("What time is the school run?", {"time"}),
    ("Which day is bin collection?", {"day", "date"}),
    ("When does the ferry leave?", {"time", "day", "date"}),
    ("How often do we water the ferns?", {"frequency"}),
    ("How much is the parking permit?", {"number", "money", "percent"}),
    ("How many kids are in the carpool?", {"number", "money", "percent"}),
    ("Who looks after the cat?", {"name"}),
    ("Where do we pick up the keys?", {"name", "code", "number", "place"}),
    ("Which room is the workshop in?", {"name", "code", "number", "place"}),
])
def test_the_question_says_which_kind_of_value_it_asks_for(question, kinds):
    assert asked_kinds(question) == frozenset(kinds)


def test_a_question_that_asks_for_no_value_asks_for_no_kind():
    assert asked_kinds("Why did the boiler stop working?") == frozenset()
    assert _pairs("Why did the boiler stop working?", "The boiler is serviced on Mondays.",
                  "The boiler is serviced on Fridays.") == []


@pytest.mark.parametrize(("question", "old", "new"), [
    # a move, worded with a verb no rule lists
    ("What time are the movers coming?", "The movers are coming at 9 am.",
     "The movers are coming at 11 am instead, they just phoned."),
    # the same thing said in another order
    ("Which day is the book swap?", "The book swap is on Thursdays.", "On Saturdays now, the book swap."),
    # a person, the name opening the sentence
    ("Who is treasurer of the allotment society?", "Greta is treasurer of the allotment society.",
     "Since the vote, Hamid is treasurer of the allotment society."),
    # a place in lower case
    ("Where does the choir rehearse?", "The choir rehearses in the school gym.",
     "The choir rehearses at the old library these days."),
    # an amount
    ("How much is the window cleaner?", "The window cleaner is 25 euros a visit.",
     "The window cleaner is 30 euros a visit since spring."),
    # a change told as something that happened: its result holds now
    ("Which gate does the Oslo flight leave from?", "The Oslo flight leaves from gate 12.",
     "The airline switched the Oslo flight to gate 31."),
    ("Who runs the allotment newsletter?", "Priya runs the allotment newsletter.",
     "The allotment newsletter was handed to Joaquim."),
    # the newer leaves out the verb the question asks with
    ("How often does the community choir practise?", "The community choir practises twice a week.",
     "The community choir is down to once a week."),
])
def test_two_statements_of_one_thing_with_other_values_the_newer_answers(question, old, new):
    assert _pairs(question, old, new) == [("m0", "m1")]


@pytest.mark.parametrize(("question", "old", "new"), [
    # another thing of the same kind: the older lacks nothing, the newer lacks "yoga"
    ("When is the yoga class?", "The yoga class is on Tuesdays.", "The pottery class is on Wednesdays."),
    ("When is the pottery class?", "The yoga class is on Tuesdays.", "The pottery class is on Wednesdays."),
    # another qualifier, a number that says which room
    ("How much does room 204 cost a night?", "Room 204 costs 90 a night.", "Room 310 costs 120 a night."),
    # another person
    ("Where does my sister live?", "My sister lives in Ghent.", "My brother lives in Lyon."),
    # another day of the same thing
    ("What time is the Monday standup?", "The Monday standup is at 9 am.", "The Thursday standup is at 10 am."),
    # the word the newer leaves out is the one that tells the two apart
    ("Who coaches the junior rugby squad?", "Femi coaches the junior rugby squad.",
     "Lorna coaches the senior rugby squad."),
    ("When does the evening pottery course start?", "The evening pottery course starts on 3 March.",
     "The weekend pottery course starts on 10 March."),
    # a past event that moved nothing
    ("Where does the reading group meet?", "The reading group meets in the library annexe.",
     "We walked the reading group over to the café for cake."),
])
def test_statements_of_different_things_both_stand(question, old, new):
    assert _pairs(question, old, new) == []


def test_a_past_event_or_another_time_is_not_a_newer_value():
    assert _pairs("Where is the conference?", "The conference is in Vienna.",
                  "I went to the conference in Prague.") == []
    assert _pairs("Where is the conference this year?", "The conference was in Vienna last year.",
                  "The conference is in Prague this year.") == []


def test_a_denial_or_a_question_gives_no_value():
    assert _pairs("Which day is the market?", "The market is on Saturdays.",
                  "The market is not on Sundays.") == []
    assert _pairs("Which day is the market?", "The market is on Saturdays.",
                  "Is the market on Sundays now?") == []


def test_the_same_value_again_is_no_change():
    assert _pairs("Which day is the market?", "The market is on Saturdays.",
                  "The market is on Saturdays, as always.") == []


def test_two_speakers_do_not_replace_each_other():
    assert _pairs("Which day is the market?", "Ana: The market is on Saturdays.",
                  "Ben: The market is on Sundays.") == []


def test_the_older_always_comes_first_in_the_pair():
    pairs = _pairs("What time is the school run?", "The school run is at 8:00.", "The school run is at 7:45.",
                   "The school run is at 8:10.")
    assert set(pairs) == {("m0", "m1"), ("m0", "m2"), ("m1", "m2")}


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="question"):
        asked_kinds(None)  # type: ignore[arg-type]


def test_someone_who_does_what_many_may_do_is_not_a_replacement():
    assert _pairs("Who plays chess on Fridays?", "On Fridays, Tom plays chess.", "On Fridays, Sara plays chess.") == []


def test_someone_who_holds_the_one_place_asked_about_is():
    assert _pairs("Who coaches the swim team?", "Nadia coaches the swim team.",
                  "Viktor coaches the swim team from this season.") == [("m0", "m1")]


def test_a_question_that_names_no_one_thing_replaces_nothing():
    assert _pairs("When are my classes?", "The yoga class is on Tuesdays.",
                  "The pottery class has been moved to Wednesdays.") == []


def test_what_someone_owns_is_not_them():
    assert _pairs("Where does Alice live?", "Alice's brother lives in Madrid.", "Alice lives in Porto now.") == []
    assert _pairs("Where is my holiday flat?", "My sister's holiday flat is in Ghent.",
                  "My holiday flat is in Leuven.") == []
    assert _pairs("What time is our cat's vet appointment?", "Our cat's vet appointment is at 4 pm.",
                  "The vet appointment for our cat is at 4:40 pm.") == [("m0", "m1")]


@pytest.mark.parametrize(("question", "old", "new"), [
    # a day of the month: the 9th and the 23rd are two dates, though one month
    ("When is the roof inspection?", "The roof inspection is on 9 April.", "The roof inspection is on April 23."),
    # the thing named with words between the asking words and the noun
    ("Which lecture hall is the statistics exam in?", "The statistics exam is in lecture hall 2.",
     "The statistics exam is in lecture hall 5."),
    ("What is my weekly grocery budget?", "My weekly grocery budget is 120 euros.",
     "My weekly grocery budget is 95 euros."),
    # written as one word, with a hyphen, or as two
    ("What time is the airport check-in?", "The airport check-in opens at 6:10.",
     "We check in at the airport at 5:40."),
    ("Where is the parcel drop off?", "The parcel drop off is at the corner shop.",
     "The parcel drop-off has moved to the post office."),
    # who does it, named from the verb
    ("Who instructs the beginners' pottery class?", "Yusuf instructs the beginners' pottery class.",
     "The beginners' pottery class instructor is Marta."),
    # a value the owner has: the value's own noun is no other thing
    ("How often does the tenants' committee meet?", "The tenants' committee meets once a month.",
     "The tenants' committee's schedule is every two weeks now."),
    # someone changed it for the user: "us" names nothing, the subject does
    ("Which table are we at for the gala dinner?", "At the gala dinner we are at table 14.",
     "The gala dinner organisers moved us to table 3."),
    # a change told as a state reached, to a place in lower case
    ("Where is the spare bike kept?", "The spare bike is kept in the garden shed.",
     "The spare bike has been moved to the cellar."),
])
def test_values_read_as_they_are_said(question, old, new):
    assert _pairs(question, old, new) == [("m0", "m1")]


@pytest.mark.parametrize(("question", "old", "new"), [
    # the same month, another day of another thing
    ("When is the roof inspection?", "The roof inspection is on 9 April.", "The boiler inspection is on 23 April."),
    # an owner's relative is someone else
    ("How often does the tenants' committee meet?", "The tenants' committee meets once a month.",
     "The tenants' committee's lawyer meets us every two weeks."),
    # a bare past event: where something went once, not where it is now
    ("Where is the spare bike kept?", "The spare bike is kept in the garden shed.",
     "We wheeled the spare bike over to the repair shop."),
    # the one who does it, of another class
    ("Who instructs the beginners' pottery class?", "Yusuf instructs the beginners' pottery class.",
     "The advanced pottery class instructor is Marta."),
])
def test_the_readings_keep_different_things_apart(question, old, new):
    assert _pairs(question, old, new) == []
