"""Silent updates read as templates: one value slot changed, the rest the same, the same subject,
a state rather than an event."""

import pytest

from cogmem_graph.language.contradiction import (
    candidate_query,
    detect_contradiction,
    restatement_queries,
)
from cogmem_graph.language.value_slots import (
    SAME_FRAME_CONFIDENCE,
    WIDER_FRAME_CONFIDENCE,
    changed_slot,
    reports_past_event,
    restatable_sentences,
    restated_with_new_value,
    sentence_tokens,
)


def _values(sentence: str) -> list[tuple[str, str]]:
    return [(t.kind, t.key) for t in sentence_tokens(sentence) if t.is_value]


@pytest.mark.parametrize(("sentence", "values"), [
    ("The call is at 4:30 pm.", [("time", "16:30")]),
    ("The call is at 16:30.", [("time", "16:30")]),
    ("Rent is $1,450 a month.", [("money", "1450")]),
    ("Rent is 1,450 euros a month.", [("money", "1450")]),
    ("Lessons are on Fridays at 7 o'clock.", [("day", "friday"), ("number", "7")]),
    ("The play is on the 14th of June.", [("date", "14"), ("date", "june")]),
    ("She is seven.", [("number", "7")]),
    ("We may go in May.", [("date", "may")]),
    ("Our doctor is Dr. Haddad.", [("name", "haddad")]),
    ("Thanks, Melanie!", []),  # spoken to, not a value
    ("Anna lives in Rome.", [("name", "rome")]),  # a capital opening a sentence names nothing for sure
])
def test_values_are_normalised(sentence, values) -> None:
    assert _values(sentence) == values


def test_one_changed_slot_or_none() -> None:
    def change(old: str, new: str):
        return changed_slot(sentence_tokens(old), sentence_tokens(new))

    one = change("Our lease ends on 31 August 2026.", "Our lease ends on 30 September 2026.")
    assert one is not None and [t.word for t in one.old] == ["31", "august"]
    assert [t.word for t in one.new] == ["30", "september"]
    assert change("Room 204 costs 95 euros.", "Room 310 costs 140 euros.") is None, "two separate slots"
    assert change("The party is at 8 pm.", "The party is at Luigi's.") is None, "a time is no place"
    assert change("On Fridays, Tom plays chess.", "On Fridays, Sara plays chess.") is None, "the subject"
    assert change("The party is on Friday.", "The party is on Friday at 8 pm.") is None, "nothing lost"
    assert change("Dinner is at the Cedar room.", "Dinner is at the Maple room.") is not None


@pytest.mark.parametrize(("sentence", "past"), [
    ("I bought 3 kilos of apples.", True),
    ("We visited Porto in May.", True),
    ("The flight departs at 8:40.", False),
    ("The call is scheduled for 3 pm.", False),
    ("I'm flying to Denver on Friday.", False),
    ("We booked the room for 2 nights, and it is on the 4th floor.", False),
])
def test_a_past_event_is_no_state(sentence, past) -> None:
    assert reports_past_event(sentence_tokens(sentence)) is past


@pytest.mark.parametrize(("old", "new", "similarity", "confidence"), [
    ("The dentist appointment is at 3 pm on Tuesday.", "The dentist appointment on Tuesday is at 4:30 pm.",
     None, SAME_FRAME_CONFIDENCE),
    ("My monthly rent is 1,450 euros.", "The monthly rent I pay is 1,600 euros.", 0.9, WIDER_FRAME_CONFIDENCE),
    ("My monthly rent is 1,450 euros.", "The monthly rent I pay is 1,600 euros.", None, 0.0),  # needs closeness
    ("My monthly rent is 1,450 euros.", "The monthly rent I pay is 1,600 euros.", 0.5, 0.0),
    ("The conference starts on 3 May.", "The conference dinner starts on 4 May.", 0.95, 0.0),  # narrower subject
    ("My sister lives in Oslo.", "My brother lives in Rome.", 0.9, 0.0),
    ("My sister lives in Oslo.", "My sister's husband lives in Rome.", 0.9, 0.0),  # another owner
    ("Tom's birthday is on July 2.", "Sara's birthday is on July 2.", 0.9, 0.0),
    ("I bought 3 kilos of apples.", "I bought 2 kilos of apples.", 0.99, 0.0),  # two purchases
    ("The gym opens at 6 am.", "The gym doesn't open at 7 am.", 0.9, 0.0),  # a denial is negation's matter
    ("The gym opens at 6 am.", "Does the gym open at 7 am?", 0.9, 0.0),
    ("Ana: The gym opens at 6 am.", "Bo: The gym opens at 7 am.", 0.9, 0.0),  # two speakers
    ("Ana: The gym opens at 6 am.", "Ana: The gym opens at 7 am.", 0.9, SAME_FRAME_CONFIDENCE),
    ("Bye Mel!", "Bye Melanie!", 0.9, 0.0),  # nothing stated
])
def test_restated_with_a_new_value(old, new, similarity, confidence) -> None:
    assert restated_with_new_value(new, old, similarity).confidence == confidence


def test_the_contradiction_judge_reads_silent_updates_and_finds_their_candidates() -> None:
    verdict = detect_contradiction("The plumber charges 85 pounds per hour.", "The plumber charges 70 pounds an hour.")
    assert (verdict.reason, verdict.old_value, verdict.new_value) == ("new_value", "70", "85")
    assert verdict.confidence == SAME_FRAME_CONFIDENCE
    # The lexical candidates of a restatable sentence hold all its content words, whatever the value.
    assert restatable_sentences("The plumber charges 85 pounds per hour. Thanks!") == (
        "The plumber charges 85 pounds per hour.",)
    assert restatement_queries("The plumber charges 85 pounds per hour. Thanks!") == ("plumber charges hour",)
    assert candidate_query("The plumber charges 85 pounds per hour.") is None  # no fact or change: no word alone
    assert restatement_queries("Thanks, Melanie!") == () and candidate_query("Thanks, Melanie!") is None
    assert restatement_queries("Note 2948: concert recipe ticket river doctor number 286") == (
        "note concert recipe ticket river doctor number",)


@pytest.mark.parametrize(("old", "new"), [
    # Numbered notes of a store filled by benchmarks/governance.py: the number after "Note" says
    # which note it is, not a value of it; five of twenty words shared is no restatement either.
    ("Note 690: laptop holiday concert doctor tax number 192",
     "Note 2937: laptop doctor concert coffee tax number 192"),
    ("Note 388: invoice laptop doctor garden tax number 9670",
     "Note 2751: invoice doctor server garden tax number 388"),
    ("Note 785: garden concert ticket river doctor number 2948",
     "Note 2948: concert recipe ticket river doctor number 286"),
    ("Room 204 costs 95 euros a night.", "Room 310 costs 95 euros a night."),
    ("Bus 42 leaves the depot at 7:15.", "Bus 17 leaves the depot at 7:15."),
    ("Gate 9 closes at midnight.", "Gate 4 closes at midnight."),
    ("Apartment 3 has a balcony facing the park.", "Apartment 8 has a balcony facing the park."),
    ("Step 3: the price is 40 euros", "Step 4: the price is 40 euros"),
    ("Our locker 12 holds the ski gear.", "Our locker 19 holds the ski gear."),  # another locker, the same gear
])
def test_a_number_naming_what_the_sentence_is_about_is_no_value_of_it(old, new) -> None:
    assert restated_with_new_value(new, old, 0.9).confidence == 0.0
    assert detect_contradiction(new, old).confidence < 0.5
    assert detect_contradiction(new, old, similarity=0.9).confidence < 0.5


def test_the_same_numbered_thing_with_another_value_is_restated() -> None:
    numbered = restated_with_new_value("Note 5: deploy invoice garden concert train number 12",
                                       "Note 5: deploy invoice garden concert train number 9")
    assert numbered.confidence == SAME_FRAME_CONFIDENCE
    assert restated_with_new_value("Our room 204 costs 110 euros a night.",
                                   "Our room 204 costs 95 euros a night.").confidence == SAME_FRAME_CONFIDENCE
    assert restated_with_new_value("I take 40 mg of lisinopril each morning.",  # a verb before the number
                                   "I take 20 mg of lisinopril each morning.").confidence == SAME_FRAME_CONFIDENCE
    assert restated_with_new_value("Take 3 pills after dinner.", "Take 2 pills after dinner.").confidence > 0
    assert restated_with_new_value("Feed 2 scoops to the cat at night.",
                                   "Feed 3 scoops to the cat at night.").confidence > 0
    assert restated_with_new_value("Bus 42 leaves the depot at 7:15.",
                                   "Bus 42 leaves the depot at 7:40.").confidence > 0
    assert restated_with_new_value("Our runtime is Python 3.13.", "Our runtime is Python 3.12.").confidence > 0
