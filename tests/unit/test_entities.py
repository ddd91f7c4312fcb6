from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.cognition.entities import entity_key, extract_entities


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
