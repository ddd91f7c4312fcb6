"""A change of value told as a move or a replacement supersedes the older statement of that
value; statements about other things, or of other times, are left alone."""

from __future__ import annotations

import pytest

from cogmem_graph.language.contradiction import contradicts, of_other_times
from cogmem_graph.language.value_moves import move_reading, moved_to_new_value, resolved_value
from cogmem_graph.language.value_slots import sentence_tokens

THRESHOLD = 0.5
"""`write.contradiction_min_confidence`: from here a CONTRADICTS edge is written."""


@pytest.mark.parametrize(("old", "new"), [
    # passive and perfect, with particles
    ("The quarterly planning session is on Thursday.", "The quarterly planning session has been shifted to Tuesday."),
    ("My eye test is at 10:30 am.", "My eye test was brought forward to 9 am."),
    ("Our flight to Oslo is on June 4.", "Our Oslo flight got bumped to June 6."),
    # active voice: someone changed it
    ("The parking permit costs 60 euros a year.", "The council raised the parking permit to 75 euros a year."),
    ("The choir concert is in the town hall.", "They relocated the choir concert to St Mary's Church."),
    # a person takes over
    ("Coach Ruiz trains the junior squad.", "The junior squad has been taken over by Coach Petrova."),
    # when it starts, a value given up
    ("The book club meets on Wednesdays.", "From next week the book club meets on Thursdays."),
    ("Swimming is on Saturdays.", "Swimming is on Sundays rather than Saturdays."),
    # a plan's state verb ("booked for") restates
    ("My dental check-up is booked for May 2.", "The dental check-up has been postponed to May 9."),
])
def test_a_moved_value_supersedes_the_old_statement(old, new) -> None:
    assert contradicts(new, old, similarity=0.75) >= THRESHOLD, (old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("The chess club meets on Mondays.", "The drama club has been moved to Tuesdays."),  # another thing moved
    ("The Monday standup is at 9:15.", "The Friday demo was pushed to 11:00."),
    ("Room 12 costs 80 a night.", "Room 14 costs 95 a night."),  # the number names the room
    ("My sister lives in Porto.", "My brother moved to Lisbon."),
    ("My daughter's allowance is 8 euros a week.", "My son's allowance was raised to 12 euros a week."),
])
def test_a_move_of_another_thing_leaves_the_old_statement_alone(old, new) -> None:
    assert contradicts(new, old, similarity=0.75) < THRESHOLD, (old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("The regatta was in Kiel last year.", "The regatta is in Gdansk this year."),
    ("In 2023 the marathon was on April 9.", "In 2025 the marathon is on April 13."),
    ("Last season Jonas coached the girls' team.", "This season Mira coaches the girls' team."),
])
def test_statements_of_other_times_both_stand(old, new) -> None:
    assert of_other_times(new, old)
    assert contradicts(new, old, similarity=0.8) == 0.0


def test_a_text_with_no_time_of_its_own_is_not_placed() -> None:
    assert not of_other_times("The regatta is in Gdansk.", "The regatta was in Kiel last year.")
    assert not of_other_times("The fair is on May 3 this year.", "This year the fair is on May 1.")


def test_the_reading_keeps_the_thing_and_the_new_value() -> None:
    reading = move_reading("They pushed the budget review back to Friday.")
    assert reading is not None and reading.moved
    assert [t.word for t in reading.tokens if t.kind != "function"] == ["budget", "review", "friday"]
    replaced = move_reading("Yoga is on Tuesdays instead of Mondays.")
    assert replaced is not None and [t.key for t in replaced.given_up] == ["monday"]
    assert move_reading("The yoga class is on Tuesdays.") is None  # tells of no change


def test_a_relative_change_is_read_as_an_amount_to_resolve() -> None:
    later = move_reading("The school pickup has been pushed back an hour.")
    assert later is not None and later.relative == "1 hour"
    dearer = move_reading("The cleaning service went up by 15 euros a visit.")
    assert dearer is not None and dearer.relative == "15 money"
    found = moved_to_new_value("The school pickup has been pushed back an hour.", "The school pickup is at 3 pm.")
    assert found.confidence >= THRESHOLD and found.new_value == "1 hour"


@pytest.mark.parametrize("text", ["The bins go out every week.", "The bins go out once a week.",
                                  "The bins go out weekly."])
def test_how_often_is_one_value_however_it_is_said(text) -> None:
    frequencies = [t.key for t in sentence_tokens(text) if t.kind == "frequency"]
    assert frequencies == [[t.key for t in sentence_tokens("Bins: every week.") if t.kind == "frequency"][0]]


def test_other_rates_differ_and_a_monthly_thing_is_no_rate() -> None:
    def rate(text: str) -> list[str]:
        return [t.key for t in sentence_tokens(text) if t.kind == "frequency"]

    assert rate("Lessons are every other week.") == rate("Lessons are every two weeks.") != rate("Lessons are weekly.")
    assert rate("Lessons are twice a week.") == rate("Lessons are 2 times per week.")
    assert rate("My monthly budget is 300 euros.") == []
    assert rate("My rent is 900 euros monthly.") == []
    assert contradicts("The allergy jabs have been changed to every other week.", "The allergy jabs are weekly.",
                       similarity=0.8) >= THRESHOLD


@pytest.mark.parametrize(("old", "new", "comes_to"), [
    ("The school pickup is at 3 pm.", "The school pickup has been pushed back an hour.", "4 pm"),
    ("The ferry leaves at 07:40.", "The ferry now leaves 20 minutes earlier.", "7:20"),
    ("The cleaner costs 60 euros a visit.", "The cleaner went up by 15 euros a visit.", "75 euros"),
    ("The open day is on October 14.", "The open day was moved up by three days.", "October 11"),
    ("The open day is on October 14.", "The open day was put back 2 days.", "October 16"),
])
def test_a_relative_change_comes_to_a_value_against_the_old_one(old, new, comes_to) -> None:
    assert resolved_value(new, old) == comes_to


def test_a_change_that_gives_its_value_needs_no_resolving() -> None:
    assert resolved_value("The open day was moved to October 20.", "The open day is on October 14.") is None
    assert resolved_value("The cleaner went up by 15 euros a visit.", "The gardener costs 60 euros a visit.") is None


@pytest.mark.parametrize(("old", "new", "comes_to"), [
    ("The pottery course takes 10 students.", "The pottery course was expanded by 4 students.", "14 students"),
    ("I do physio three sessions a week.", "Physio is now one more session a week.", "4 sessions"),
    ("We have 9 people on the weekend rota.", "We now have two fewer people on the weekend rota.", "7 people"),
    ("My evening walk is 40 minutes.", "My evening walk is now 20 minutes longer.", "60 minutes"),
    ("My daily iron dose is 30 mg.", "My daily iron dose was lowered by 10 mg.", "20 mg"),
])
def test_a_count_changed_by_an_amount_of_its_own_unit_comes_to_a_new_count(old, new, comes_to) -> None:
    assert resolved_value(new, old) == comes_to
    assert moved_to_new_value(new, old).confidence >= THRESHOLD


def test_a_count_of_another_thing_or_another_unit_is_not_changed() -> None:
    assert moved_to_new_value("We now have two fewer people on the weekend rota.",
                              "We have 9 people on the weekday rota.").confidence == 0.0
    assert resolved_value("The pottery course was expanded by 4 students.", "The pottery course has 10 wheels.") is None


@pytest.mark.parametrize(("old", "new", "comes_to"), [
    ("The parents' evening starts at 6 pm.", "The parents' evening has been put back half an hour.", "6:30 pm"),
    ("My cycle commute is 50 minutes.", "My cycle commute is a quarter of an hour shorter now.", "35 minutes"),
    ("The webinar is at 14:00.", "The webinar was brought forward three quarters of an hour.", "13:15"),
    ("Choir practice begins at 7 pm.", "Choir practice now begins an hour and a half later.", "8:30 pm"),
    ("The coach leaves at 9 am.", "The coach now leaves two and a half hours later.", "11:30 am"),
    ("The clinic tour starts at 8 am.", "The clinic tour was pushed back by one hour.", "9 am"),
])
def test_a_change_by_a_part_of_an_hour_comes_to_its_minutes(old, new, comes_to) -> None:
    assert resolved_value(new, old) == comes_to


@pytest.mark.parametrize("new", ["We had a quarter of an hour to spare before the parents' evening.",
                                 "I spent half an hour at the parents' evening.",
                                 "The parents' evening ran an hour and a half."])
def test_a_part_of_an_hour_told_without_a_change_changes_nothing(new) -> None:
    assert resolved_value(new, "The parents' evening starts at 6 pm.") is None
    assert moved_to_new_value(new, "The parents' evening starts at 6 pm.").confidence == 0.0
