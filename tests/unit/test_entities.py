import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.language.entities import entity_key, extract_entities, starts_sentence


def keys(text, **kw):
    return [e.key for e in extract_entities(text, **kw)]


def test_known_terms_match_case_insensitively_and_prefer_the_longer_term():
    assert keys("I prefer deploying with docker compose on Kubernetes.") == ["docker compose", "kubernetes"]


def test_capitalised_names_skip_sentence_words_and_pronouns():
    assert keys("Caroline went to the support group with Melanie. The group helped.") == ["caroline", "melanie"]
    assert "i" not in keys("I am here. We are there. Hey you!")
    assert keys("Hey Mel! Thanks.") == ["mel"]


def test_multi_word_names_and_quoted_titles():
    assert keys("We met at Lake Tahoe.") == ["lake tahoe"]
    assert keys('She loved the book "Becoming Nicole".') == ["becoming nicole"]


def test_given_entities_always_kept_first():
    assert keys("nothing capitalised here", extra=["Project X"]) == ["project x"]


def test_key_normalisation():
    assert entity_key("  New   York  ") == "new york"
    assert entity_key("Mel’s") == "mel's"


@given(st.text(max_size=300))
def test_extraction_never_crashes_and_keys_are_normalised(text):
    for entity in extract_entities(text):
        assert entity.key == entity_key(entity.key)
        assert entity.key


def test_sentence_starters_are_not_entities_and_possessives_name_the_owner():
    names = lambda text: [x.name for x in extract_entities(text)]  # noqa: E731
    assert names("Back then Maya's team moved to Berlin.") == ["Maya", "Berlin"]
    assert names("Next week Can you call Bob Smith?") == ["Bob Smith"]
    assert names("Caroline: Hey Mel! Last Friday I went to the LGBTQ support group.") == ["Caroline", "Mel", "LGBTQ"]
    assert names("Sounds great! Thanks Melanie.") == ["Melanie"]


def _names(text: str) -> list[str]:
    return [x.name for x in extract_entities(text)]


@pytest.mark.parametrize("text", [
    "Got it, thanks!",
    "Got my new bike yesterday.",
    "Thanks for the help.",
    "Sure, I can do that.",
    "Okay. Yes. Well, that settles it.",
    "Honestly I loved it. Anyway, see you.",
    "Spent the weekend hiking. Went home early.",
    "user: Got it, see you then",
    "- Went to bed early\n- Slept well",
    "(Absolutely worth it.) 'Definitely,' she said.",
])
def test_words_capitalised_only_to_start_a_sentence_are_not_entities(text: str) -> None:
    assert _names(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Alice went home.", ["Alice"]),
    ("Got it. Alice went home.", ["Alice"]),
    ("Thanks! Priya said yes.", ["Priya"]),
    ("maya: Caroline called, Decathlon had the bike.", ["Caroline", "Decathlon"]),
    ("Okay. Paris is lovely in spring.", ["Paris"]),
    ("Bob repairs old motorbikes. Mark sold his to Carl.", ["Bob", "Mark", "Carl"]),
    ("Initech moved its headquarters to Lisbon", ["Initech", "Lisbon"]),
])
def test_names_at_a_sentence_start_are_still_entities(text: str, expected: list[str]) -> None:
    assert _names(text) == expected


def test_a_common_word_inside_a_sentence_stays_a_candidate_and_the_text_itself_is_evidence() -> None:
    # Capitalised mid-sentence it reads as a name (a band, a product); at a sentence start it does not.
    assert _names("We saw Honestly live.") == ["Honestly"]
    # A word the text also writes in lower case was capitalised only to start a sentence.
    assert _names("Hiking is fun; we love hiking.") == []
    assert _names("Hiking Club meets weekly.") == ["Hiking Club"], "a run of capitalised words stays"


def test_sentence_starts_are_found_after_ends_speakers_and_openers() -> None:
    text = 'One. "Two" three: (four)\n* five'
    starts = [word for word in ("One", "Two", "three", "four", "five")
              if starts_sentence(text, text.index(word))]
    assert starts == ["One", "Two", "four", "five"]
