"""The retention rules (cognition/retention.py), the readers of what a memory is
(language/memory_kind.py) and the prior-weighted score, by hand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.cognition.retention import density_stability_factor, min_retention_ms
from cogmem_graph.cognition.scoring import (
    Signals,
    SignalTable,
    composite_score,
    prior_weighted_score,
    prior_weighted_scores,
)
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.config.retrieval import SignalWeights
from cogmem_graph.language.memory_kind import (
    carries_different_facts,
    information_density,
    memory_category,
    tells_of_what_is_ahead,
    value_tokens,
)
from cogmem_graph.language.speakers import turn_body
from cogmem_graph.model import MemoryCategory


@pytest.mark.parametrize(("text", "category"), [
    ("I prefer window seats when I fly.", MemoryCategory.PREFERENCE),
    ("My favourite band is Radiohead.", MemoryCategory.PREFERENCE),
    ("Melanie: I love painting landscapes.", MemoryCategory.PREFERENCE),
    ("Actually, I moved to Berlin last month.", MemoryCategory.CORRECTION),
    ("My daughter's name is Lina.", MemoryCategory.IDENTITY),
    ("I am allergic to peanuts.", MemoryCategory.IDENTITY),
    ("I work as a data engineer at Northwind.", MemoryCategory.IDENTITY),
    ("I'll send the report by Friday.", MemoryCategory.COMMITMENT),
    ("We decided to ship the beta next week.", MemoryCategory.COMMITMENT),
    ("Caroline: I went to a LGBTQ support group yesterday.", MemoryCategory.FACT),
    ("Sounds good, thanks!", MemoryCategory.OTHER),
    ("Melanie: I love it!", MemoryCategory.OTHER),
])
def test_memory_categories(text: str, category: MemoryCategory) -> None:
    assert memory_category(text, information_density(text, 1 if ":" in text[:12] else 0)) is category


@pytest.mark.parametrize("text", [
    # people, by relation and name
    "our youngest, Mira, started kindergarten and loves it",
    "My sister-in-law Dana is a midwife in Leeds.",
    "Tomasz is my landlord, he lives downstairs.",
    "my husband's called Arjun btw",
    "Uncle Felix taught me to sail.",
    # animals the user keeps
    "We have two rabbits in the shed out back.",
    "got a rescue greyhound last month and named her Biscuit",
    # health
    "I was diagnosed with type 1 diabetes when I was twelve.",
    "Penicillin gives me hives, I'm allergic to it.",
    "I'm lactose intolerant so no cheese board for me",
    # home and places
    "We live on a houseboat near Utrecht.",
    "my in-laws retired to a bungalow by the sea",
    # belongings, accounts, dates, work
    "I bought a second-hand Vespa for commuting.",
    "my gym membership number is 88-1204",
    "Our anniversary is in late June.",
    "I'm a nurse practitioner at St Olav's, nights mostly.",
])
def test_what_matters_about_the_users_life_is_identity(text: str) -> None:
    """Family, animals, health, home, belongings, accounts, dates and work, however phrased,
    are kept like a name: decay never makes them dormant."""
    assert memory_category(text, information_density(text, 0)) is MemoryCategory.IDENTITY


@pytest.mark.parametrize("text", [
    "Please never book me on a flight before 8am.",
    "don't send me links to paywalled articles",
    "From now on keep your answers under three sentences.",
    "Reply to me in French, I need the practice.",
    "Show me distances in kilometres please",
    "whenever I ask for a recipe, give me the metric amounts",
    "If I mention the gym, remind me to stretch afterwards.",
])
def test_standing_instructions_to_the_assistant_are_preferences(text: str) -> None:
    assert memory_category(text, information_density(text, 0)) is MemoryCategory.PREFERENCE


@pytest.mark.parametrize("text", [
    "Gina: Always here to help. Can't wait to see the vid!",
    "Melanie: Nope, never been to something like that. What was it about?",
    "John: Don't feel like I'm making much of an impact here.",
    "Don't worry about it, see you tomorrow.",
])
def test_chat_that_only_sounds_like_an_instruction_is_not_one(text: str) -> None:
    assert memory_category(text, information_density(text, 1)) is not MemoryCategory.PREFERENCE


def test_information_density_counts_entities_numbers_dates_and_corrections() -> None:
    assert information_density("Sounds good!", 0) == 0
    # 2 entities + the number 3 + "may" is no month in lower case + "last week" + a correction cue
    assert information_density("Actually we paid 3 euros last week", 2) == 2 + 1 + 1 + 1
    assert information_density("Meeting on Tuesday and Friday at 10", 0) == 3
    assert turn_body("Caroline: hi there") == "hi there"
    assert turn_body("Dr. Okafor: the filling is done") == "the filling is done"
    assert turn_body("Seats when I fly: window, always") == "Seats when I fly: window, always"


def test_minimum_retention_by_category() -> None:
    assert min_retention_ms(MemoryCategory.PREFERENCE) is None
    assert min_retention_ms("identity") is None
    assert min_retention_ms(MemoryCategory.COMMITMENT) == 45 * MS_PER_DAY
    assert min_retention_ms(MemoryCategory.FACT) == 14 * MS_PER_DAY
    assert min_retention_ms(MemoryCategory.OTHER) == 7 * MS_PER_DAY
    reference = CogmemConfig.reference_preset().retention
    assert min_retention_ms(MemoryCategory.PREFERENCE, reference) == 0


def test_density_lengthens_stability_up_to_a_cap() -> None:
    assert density_stability_factor(0) == 1.0
    assert density_stability_factor(2) == pytest.approx(3.0)  # 1 + 1.0 * 2
    assert density_stability_factor(50) == pytest.approx(7.0)  # capped at 6
    assert density_stability_factor(5, RetentionConfig(density_stability_gain=0.0)) == 1.0
    with pytest.raises(ValueError, match="density"):
        density_stability_factor(-1)


def test_value_tokens_tell_facts_apart() -> None:
    assert value_tokens("The launch code is V0012.") == {"v0012"}
    assert carries_different_facts("The launch code is V0012.", "The launch code is V0013.")
    assert carries_different_facts("Dinner with Ana on Friday.", "Dinner with Ana on Monday.")
    assert carries_different_facts("I met Tom at the gym.", "I met Sam at the gym.")
    assert not carries_different_facts("I really like hiking.", "I like hiking a lot.")
    assert not carries_different_facts("The meeting is at 10.", "Reminder: the meeting is at 10!")
    assert "may" not in value_tokens("We may go out on Friday.")


def test_counts_and_rates_said_in_words_tell_facts_apart() -> None:
    """However alike two sentences read, another count or rate in words is another fact: a
    near-duplicate may not stand for it."""
    assert carries_different_facts("The quiz team has five members.", "Six members make up the quiz team.")
    assert carries_different_facts("We water the ferns every day.", "We water the ferns every other day.")
    assert carries_different_facts("The choir meets once a week.", "The choir meets twice a week now.")
    assert not carries_different_facts("The choir meets once a week.", "Once a week the choir meets.")
    assert not carries_different_facts("We water the ferns daily.", "We water the ferns every day.")


# ---------------------------------------------------------------- prior-weighted scoring


def _signals(**values: float) -> Signals:
    return Signals(**{"strength": 0.0, "similarity": 0.0, "recency": 0.0, "emotional": 0.0,
                      "activation": 0.0, "importance": 0.0, **values})


def test_prior_weighted_score_hand_computed() -> None:
    s = _signals(strength=0.5, similarity=0.8, recency=1.0, emotional=0.0, activation=0.2, importance=1.0)
    # relevance = (0.35*0.8 + 0.10*0.2) / 0.45 = 0.3 / 0.45 = 0.6667
    # prior     = (0.25*0.5 + 0.10*1.0 + 0.15*0 + 0.05*1.0) / 0.55 = 0.275 / 0.55 = 0.5
    # score     = 0.6667 * (1 - 0.3 + 0.3*0.5) = 0.6667 * 0.85 = 0.5667
    assert prior_weighted_score(s) == pytest.approx(0.3 / 0.45 * 0.85)


def test_a_memory_that_does_not_match_scores_nothing_however_strong() -> None:
    loud = _signals(strength=1.0, recency=1.0, emotional=1.0, importance=1.0)
    quiet = _signals(similarity=0.3)
    assert prior_weighted_score(loud) == 0.0
    assert prior_weighted_score(quiet) > prior_weighted_score(loud)
    assert composite_score(loud) > composite_score(quiet), "the additive form lets strength outvote relevance"


def test_the_prior_lowers_a_relevant_memory_by_at_most_its_weight() -> None:
    full = {"similarity": 1.0, "activation": 1.0}
    best = prior_weighted_score(_signals(**full, strength=1.0, recency=1.0, emotional=1.0, importance=1.0))
    worst = prior_weighted_score(_signals(**full))
    assert best == pytest.approx(1.0)
    assert worst == pytest.approx(0.7)


unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(st.lists(st.tuples(unit, unit, unit, unit, unit, unit), min_size=1, max_size=20),
       st.floats(min_value=0.0, max_value=1.0), unit)
def test_the_array_form_matches_the_scalar_form(rows, prior_weight, w) -> None:
    weights = SignalWeights(strength=w, similarity=0.35, recency=0.1, emotional=0.15, activation=0.1,
                            importance=0.05)
    table = SignalTable(*(list(column) for column in zip(*rows, strict=True)))
    array = prior_weighted_scores(table, weights, prior_weight)
    for index in range(len(rows)):
        assert array[index] == pytest.approx(prior_weighted_score(table.row(index), weights, prior_weight))


@pytest.mark.parametrize(("text", "ahead"), [
    ("My sister Ana is getting married in Lisbon on 4 October.", True),
    ("We'll deploy the new build on Friday.", True),
    ("John: Next week I have a community meeting coming up.", True),
    ("I'm flying to Osaka in March for the conference.", True),
    ("Melanie: I can't wait for the camping trip!", True),
    ("Caroline: It must have been special at your wedding.", False),
    ("New ideas kept coming up all day at the offsite.", False),
    ("Our team deploys every Tuesday at 10 am.", False),
    ("I went to a support group yesterday.", False),
])
def test_a_memory_that_tells_of_something_ahead(text: str, ahead: bool) -> None:
    assert tells_of_what_is_ahead(text) is ahead
