"""Offline contradiction heuristics (pure, no I/O)."""

from __future__ import annotations

import pytest

from cogmem_graph.language.contradiction import (
    ContradictionVerdict,
    candidate_query,
    contradicts,
    detect_contradiction,
    extract_changes,
    extract_facts,
)
from cogmem_graph.text import stem, word_tokens

THRESHOLD = 0.5  # what a caller would treat as "contradiction"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I moved to Berlin", "I live in Paris"),
        ("I'm living in Lisbon these days", "I live in Paris"),
        ("My favorite color is green", "my favourite colour is blue"),
        ("I work at Google", "I work at Microsoft as an engineer"),
        ("I joined Amazon last week", "I work for Microsoft"),
        ("I'm 31", "I am 30 years old"),
        ("My name is Bob", "Call me Robert"),
        ("Sam lives in Boston", "Sam moved to Chicago in 2020"),
        ("The team meeting is now on Tuesday", "The team meeting is on Monday at 10"),
        ("My wife is Maria", "My wife is Anna"),
    ],
)
def test_same_subject_and_attribute_with_a_different_value(new, old) -> None:
    verdict = detect_contradiction(new, old)
    assert verdict.reason == "different_value"
    assert verdict.confidence >= THRESHOLD
    assert verdict.old_value != verdict.new_value


def test_the_verdict_names_the_attribute_and_both_values() -> None:
    verdict = detect_contradiction("I moved to Berlin last month", "I live in Paris and work at Google")
    assert verdict == ContradictionVerdict(0.9, "different_value", "residence", "paris", "berlin")
    assert bool(verdict)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I don't live in Paris anymore", "I live in Paris"),
        ("I used to live in Paris", "I live in Paris"),
        ("I don't like coffee", "I like coffee"),
        ("The server is not running", "The server is running"),
        ("Correction: actually the team meeting is not on Monday at 10, it moved",
         "The team meeting is on Monday at 10"),
    ],
)
def test_negation_of_the_same_statement(new, old) -> None:
    verdict = detect_contradiction(new, old)
    assert verdict.reason == "negation" and verdict.confidence >= THRESHOLD


def test_correction_words_about_the_same_thing() -> None:
    verdict = detect_contradiction("Actually, the deploy happens on Fridays", "The deploy happens on Thursdays")
    assert verdict.reason == "correction" and verdict.confidence >= THRESHOLD
    # with an embedding similarity the cue counts even when few words are shared
    assert contradicts("No, that was wrong, it is the blue one", "Pick the red folder", similarity=0.8) >= THRESHOLD
    assert contradicts("No, that was wrong, it is the blue one", "Pick the red folder", similarity=0.1) == 0.0


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I live in Berlin now", "I moved to Berlin last month"),  # restating is agreeing
        ("My favourite colour is blue", "My favorite color is blue."),
        ("Sam lives in Boston", "Alex lives in Chicago"),  # different subjects
        ("I had pasta for dinner", "I live in Paris"),  # unrelated
        ("I lived in Rome for a year", "I live in Paris"),  # history, not the current fact
        ("The weather is nice today", "I live in Paris"),
        ("I don't live in Paris", "I live in Berlin"),  # compatible
        ("Actually I love it", "The weather is nice today"),  # a cue about something else
        ("I moved to Berlin", "I love living near the river"),
        ("I live in a small flat", "I live in Paris"),
    ],
)
def test_no_contradiction(new, old) -> None:
    assert contradicts(new, old) < THRESHOLD


def test_multi_valued_attributes_are_only_a_weak_signal() -> None:
    assert 0.0 < contradicts("My hobby is chess", "My hobby is painting") < THRESHOLD


def test_third_person_pronouns_count_for_less() -> None:
    assert contradicts("She moved to Rome", "She lives in Milan") < contradicts("I moved to Rome", "I live in Milan")


def test_extract_facts_reads_coordinated_clauses() -> None:
    facts = extract_facts("I live in Paris and work at Google. My wife is Anna.")
    assert [(f.subject, f.attribute, f.value) for f in facts] == [
        ("speaker", "residence", "paris"), ("speaker", "employer", "google"), ("speaker", "wife", "anna")]
    assert all(f.single_valued for f in facts)


def test_candidate_query_finds_statements_about_the_same_attribute() -> None:
    query = candidate_query("I moved to Berlin")
    assert query is not None and {"live", "moved"} <= set(query.split())
    assert "sam" in candidate_query("Sam works at Google").split()
    assert candidate_query("My favourite colour is green") == "favorite color"
    assert candidate_query("The team meeting is on Tuesday") == "team meeting"
    assert candidate_query("What a lovely day") is None


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="strings"):
        contradicts(None, "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="similarity"):
        contradicts("a", "b", similarity=2.0)
    with pytest.raises(ValueError):
        extract_facts(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "fact"), [
    ("She turned 40 yesterday", ("she", "40")),
    ("I AM 22", ("speaker", "22")),
    ("My son is 7", ("my son", "7")),
    ("I'm 31 now", ("speaker", "31")),
])
def test_ages_are_read_whatever_the_verb_and_case(text, fact) -> None:
    assert fact in [(f.subject, f.value) for f in extract_facts(text) if f.attribute == "age"]


# ---------------------------------------------------------------- knowledge updates (change of value)

KNOWLEDGE_UPDATES = [  # (old statement, later correction)
    ("I live in Paris.", "I moved to Berlin last month, I live in Berlin now."),
    ("I work at Acme Corp as an analyst.", "I left Acme; I now work at Globex as a product manager."),
    ("We deploy with Jenkins.", "We switched from Jenkins to GitHub Actions for deployments."),
    ("My phone number is 555-0101.", "My new phone number is 555-0199."),
    ("My favourite food is sushi.", "Actually my favourite food is ramen now, not sushi."),
    ("I drive a Toyota Corolla.", "I sold the Corolla and bought a Tesla Model 3."),
    ("My manager is Sarah.", "Sarah left the company; my manager is now David."),
    ("The team meeting is on Mondays at 9.", "The team meeting moved to Wednesdays at 11."),
    ("I'm using Python 3.9 for the project.", "We upgraded the project to Python 3.12."),
    ("My gym is Fitness First on Main Street.", "I cancelled Fitness First and joined the climbing gym Boulderhaus."),
    # other wordings of the same kinds of change
    ("We deploy with Jenkins.", "We now deploy with ArgoCD instead of Jenkins"),
    ("I use Windows.", "I switched to Linux from Windows"),
    ("I drive an old Honda.", "I replaced my old Honda with a bike"),
    ("My address is 3 Main St", "My new address is 12 Rue X"),
    ("The standup is on Monday", "The standup moved from Monday to Friday"),
    ("I work at Acme", "I no longer work at Acme"),
    ("I live in Paris", "I moved from Paris to Berlin"),
    ("I'm using Python 3.9 for the project.", "We upgraded Python to 3.12"),
    ("My boyfriend is Tom", "I broke up with Tom"),
    ("I keep my notes in Notion", "I stopped using Notion and moved everything to Obsidian"),
]
CHANGE_ONLY = [  # the old statement read as new: nothing but the correction's words says "changed"
    pair for pair in KNOWLEDGE_UPDATES
    if pair[1].startswith(("We switched", "I sold", "We upgraded", "I cancelled", "We now deploy", "I switched",
                           "I replaced", "The standup", "I moved from", "I broke", "I stopped"))
]


@pytest.mark.parametrize("similarity", [None, 0.3, 0.5, 0.7])
@pytest.mark.parametrize(("old", "new"), KNOWLEDGE_UPDATES)
def test_knowledge_updates_contradict_the_old_statement(old, new, similarity) -> None:
    assert contradicts(new, old, similarity=similarity) >= THRESHOLD


@pytest.mark.parametrize(("old", "new"), KNOWLEDGE_UPDATES)
def test_candidate_query_of_a_correction_finds_the_old_statement(old, new) -> None:
    query = candidate_query(new)
    assert query is not None
    assert {stem(w) for w in word_tokens(query)} & {stem(w) for w in word_tokens(old)}


@pytest.mark.parametrize("similarity", [None, 0.5])
@pytest.mark.parametrize(("old", "new"), CHANGE_ONLY)
def test_the_old_statement_read_as_new_is_no_change(old, new, similarity) -> None:
    assert extract_changes(old) == []
    assert contradicts(old, new, similarity=similarity) < THRESHOLD


def test_the_verdict_of_a_change_names_both_values() -> None:
    verdict = detect_contradiction("We switched from Jenkins to GitHub Actions for deployments.",
                                   "We deploy with Jenkins.")
    assert verdict == ContradictionVerdict(0.85, "change", None, "jenkins", "github actions")
    version = detect_contradiction("We upgraded the project to Python 3.12.", "I'm using Python 3.9 for the project.")
    assert (version.reason, version.attribute, version.old_value, version.new_value) == (
        "change", "python", "3.9", "3.12")


@pytest.mark.parametrize(("text", "change"), [
    ("We switched from Jenkins to GitHub Actions for deployments.", ("we", "jenkins", True, "github actions")),
    ("I switched to Linux from Windows", ("speaker", "windows", True, "linux")),
    ("I replaced my old Honda with a bike", ("speaker", "honda", True, "bike")),
    ("I sold the Corolla and bought a Tesla Model 3.", ("speaker", "corolla", True, "")),
    ("The standup moved from Monday to Friday", ("the standup", "monday", True, "friday")),
    ("We now deploy with ArgoCD instead of Jenkins", ("we", "jenkins", True, "argocd")),
    ("Actually I quit Duolingo", ("speaker", "duolingo", True, "")),
])
def test_extract_changes_reads_the_value_given_up(text, change) -> None:
    assert [(c.subject, c.old, c.named, c.new) for c in extract_changes(text)] == [change]


@pytest.mark.parametrize("text", [
    "We didn't switch from Jenkins to GitHub Actions",
    "Should we switch from Jenkins to GitHub Actions?",
    "We will switch from Jenkins to GitHub Actions",
    "You can use coconut oil instead of butter",
    "I left early",
    "I left my keys at home",
    "I dropped off the cake at the shelter",
    "I left Sweden when I was young",
    "I went camping with my kids last weekend",
])
def test_plans_questions_advice_and_memories_report_no_change(text) -> None:
    assert extract_changes(text) == []


@pytest.mark.parametrize(("new", "old"), [
    ("I live in Paris.", "I love Paris in the spring."),
    ("I love Paris in the spring.", "I live in Paris."),
    ("We deploy with Jenkins.", "Jenkins is slow today."),
    ("Jenkins is slow today.", "We deploy with Jenkins."),
    ("I work at Acme Corp.", "Acme Corp released a new product."),
    ("Acme Corp released a new product.", "I work at Acme Corp."),
    ("My daughter's name is Lina.", "My son's name is Mateo."),
    ("My son's name is Mateo.", "My daughter's name is Lina."),
    ("Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
     "Melanie: That's awesome, Caroline! I went camping with my kids last weekend."),
    ("Melanie: That's awesome, Caroline! I went camping with my kids last weekend.",
     "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."),
])
@pytest.mark.parametrize("similarity", [None, 0.3, 0.5, 0.7])
def test_statements_that_only_share_a_name_do_not_contradict(new, old, similarity) -> None:
    assert contradicts(new, old, similarity=similarity) < THRESHOLD


@pytest.mark.parametrize(("new", "old"), [
    ("I moved from Paris to Berlin", "I live in Berlin now"),  # the old text knows the new value
    ("We now deploy with ArgoCD instead of Jenkins", "We deploy with ArgoCD"),
    ("I moved to Berlin from Paris", "I moved from Paris to Berlin"),  # the same change told twice
    ("We switched from Jenkins to GitHub Actions", "We switched from Jenkins to GitHub Actions"),
    ("We switched from Jenkins to GitHub Actions", "We don't use Jenkins anymore"),  # given up already
    ("We upgraded to Python 3.12", "I'm using Python 3.12 for the project."),
    ("I moved from Paris to Berlin", "I visited Paris last year"),  # history is not contradicted
    ("The bakery moved from Main Street to Oak Avenue", "My dentist is on Main Street"),  # another subject
    ("Sarah left Acme", "I work at Acme"),
    ("Caroline: I sold the Corolla", "Melanie: I drive a Toyota Corolla"),  # another speaker's "I"
    ("I use Python 3.12 for project B", "I use Python 3.9 for project A"),  # no change said
])
@pytest.mark.parametrize("similarity", [None, 0.7])
def test_a_change_agreeing_with_or_unrelated_to_the_old_text_is_no_contradiction(new, old, similarity) -> None:
    assert contradicts(new, old, similarity=similarity) < THRESHOLD


def test_a_common_noun_given_up_needs_the_texts_to_be_about_the_same_thing() -> None:
    new, old = "I switched from coffee to tea", "I drink coffee every morning"
    assert contradicts(new, old) < THRESHOLD  # "coffee" is held by many unrelated statements
    assert contradicts(new, old, similarity=0.7) >= THRESHOLD
    assert contradicts("We moved the meeting from the morning to the afternoon",
                       "The meeting is in the morning") >= THRESHOLD


def test_extract_changes_refuses_non_text() -> None:
    with pytest.raises(ValueError):
        extract_changes(None)  # type: ignore[arg-type]


def test_a_cue_word_in_chat_small_talk_corrects_nothing() -> None:
    # A question asks, it does not correct; turns of one chat are alike in meaning whatever they say.
    assert contradicts("Caroline: Wow, Mel! Any more paintings coming up?",
                       "Caroline: Wow Mel, that painting's amazing!", similarity=0.9) < THRESHOLD
    assert contradicts("Nate: Great actually! These little guys sure bring joy to my life!",
                       "Nate: Pets definitely bring tons of joy.", similarity=0.72) < THRESHOLD
    # Said plainly, with the thing it corrects named or the meaning close, the cue still corrects.
    assert contradicts("Actually, the deploy happens on Fridays", "The deploy happens on Thursdays") >= THRESHOLD
    assert contradicts("No, that was wrong, it is the blue one", "Pick the red folder", similarity=0.85) >= THRESHOLD
