"""A turn is read sentence by sentence: a durable sentence said in passing is found, makes the
turn durable, and no gist drops it."""

from __future__ import annotations

import pytest

from cogmem_graph.cognition.mechanisms import extractive_gist, kept_facts
from cogmem_graph.language.memory_kind import durable_sentences, information_density, memory_category
from cogmem_graph.model import MemoryCategory

PERMANENT = {MemoryCategory.IDENTITY, MemoryCategory.PREFERENCE, MemoryCategory.CORRECTION}

IN_PASSING = [
    # (the turn, the durable sentence in it)
    ("What a grim drive home, the bypass was shut again and I sat there for ages. Anyway, our boiler's a "
     "Worcester Bosch 30i, the engineer needs to know.", "our boiler's a Worcester Bosch 30i"),
    ("Spent the evening untangling fairy lights, never again. My pharmacy login is kt_ward88 by the way.",
     "My pharmacy login is kt_ward88"),
    ("The kids built a fort out of sofa cushions and refused to dismantle it. Dominic, my brother-in-law, "
     "is coming to fix the fence on Saturday.", "Dominic, my brother-in-law,"),
    ("Rained the whole walk back from the station. I've been on metformin since March, so I eat at regular times.",
     "I've been on metformin"),
    ("Lunch was a sad desk salad again. When we travel I always book a window seat, I like watching the clouds.",
     "I always book a window seat"),
    # where a thing is kept
    ("Someone nicked the hose from the front garden, cheeky so-and-so. The spare car keys are kept in the "
     "biscuit tin on top of the fridge.", "The spare car keys are kept in the biscuit tin"),
    ("Finally cleared my inbox, only took three weeks. My birth certificate is in the green folder behind the "
     "printer.", "My birth certificate is in the green folder"),
    # a treatment, an age
    ("Hay fever season is back and my eyes are streaming. The consultant started me on sertraline in the spring.",
     "started me on sertraline"),
    ("The builders next door have been drilling since dawn. Our tortoise turned forty this summer, older than "
     "both of us.", "Our tortoise turned forty"),
    # a treatment someone in the user's care is on
    ("Parking at the hospital cost a fortune. My mum's on blood thinners now, so no aspirin for her.",
     "My mum's on blood thinners"),
    ("The cat from next door keeps sneaking in. Our puppy has been on ear drops since the weekend, twice a day.",
     "Our puppy has been on ear drops"),
    # how the assistant is to answer, said in passing
    ("Three trains cancelled, what a commute. If a parcel needs signing for, ring me rather than the office.",
     "ring me rather than the office"),
    ("I can't face long emails today. Whenever you send me a recipe, list the ingredients before the steps.",
     "Whenever you send me a recipe"),
    ("My head is pounding after quiz night. Stick to metric units unless I say otherwise.",
     "Stick to metric units unless I say otherwise"),
    # someone named, and how they stand to the user; where the user comes from
    ("Printer's jammed again, of course. Odile Martin, who we rent the flat from, wants the boiler checked.",
     "Odile Martin, who we rent the flat from"),
    ("Bit of a slog getting the kids out today. A lad called Kwame cuts our hedges every other Friday.",
     "A lad called Kwame"),
    ("The storm took the bins halfway down the road. Pepper, his gecko, sheds her skin every month.",
     "Pepper, his gecko,"),
    ("Everyone at work is off with colds. I'm originally from Tromsø, so this cold snap is nothing.",
     "I'm originally from Tromsø"),
]
SMALL_TALK = [
    "Ugh, what a day, the printer jammed twice and the coffee machine is broken.",
    "Lovely weather today, we sat in the garden for a bit.",
    "The traffic was awful this morning, took forever to get in.",
    "If you need anything at all, just let me know.",
    "Mum rang when I got home and told me all about her cruise.",
    "The kids are watching cartoons while I make tea.",
    "Whenever it rains the cat sulks by the radiator.",
    "Honestly, who I am kidding, I'm never getting up at six.",
    "Our dog is on the sofa again, covered in mud.",
]


@pytest.mark.parametrize(("turn", "fact"), IN_PASSING)
def test_the_sentence_that_states_a_fact_is_found_and_makes_the_turn_durable(turn, fact) -> None:
    found = durable_sentences(turn)
    assert len(found) == 1 and fact in found[0], found
    assert fact not in turn.split(".")[0]  # said after the small talk
    assert memory_category(turn, information_density(turn, 1)) in PERMANENT | {MemoryCategory.COMMITMENT}


@pytest.mark.parametrize("text", SMALL_TALK)
def test_small_talk_states_nothing_durable(text) -> None:
    assert durable_sentences(text) == []


@pytest.mark.parametrize(("turn", "fact"), IN_PASSING)
def test_a_gist_keeps_the_durable_sentence(turn, fact) -> None:
    gist = extractive_gist(turn, max_words=8)
    assert fact in gist


def test_a_gist_still_shortens_the_rest() -> None:
    turn = ("What a grim drive home, the bypass was shut again and I sat there for ages. The radio was playing "
            "the same three songs on a loop and I nearly lost my mind. Anyway, our boiler's a Worcester Bosch 30i.")
    gist = extractive_gist(turn)
    assert "Worcester Bosch 30i" in gist and "same three songs" not in gist and len(gist) < len(turn)


def test_an_llm_gist_that_drops_a_durable_sentence_gets_it_back() -> None:
    turn, fact = IN_PASSING[1]
    assert fact in kept_facts(turn, "A tiring evening with fairy lights.")
    assert kept_facts(turn, turn) == turn  # nothing lost, nothing added
