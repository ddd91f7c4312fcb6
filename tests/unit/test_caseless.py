"""Caseless patterns (language/caseless.py) find what their case-insensitive originals find."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogmem_graph.language import memory_kind, stated_bounds
from cogmem_graph.language.caseless import Caseless, lowered_letters

LIBRARY_PATTERNS = [(name, value) for module in (memory_kind, stated_bounds) for name, value in vars(module).items()
                    if isinstance(value, Caseless)] + [
    (f"_BOUNDS[{i}]", pattern) for i, (_kind, pattern) in enumerate(stated_bounds._BOUNDS)]

TEXTS = [
    "Actually, I moved to Berlin on 3 May and I'm in Lisbon until Friday",
    "MY NAME IS Dana. I Prefer Tea. From Now On answer me in Spanish, please!",
    "We'll ship it Next Week; the deadline is Thursday. Remind me.",
    "I'm a nurse at St Mary's. I have an allergy to nuts. Call me Jo.",
    "I'm away till the 14th of June, 2024 and offline For The Next Two Weeks",
    "Through The End Of The Month I work at ACME for Dr. Ito",
    "When I ask for a summary, please keep it short. Never schedule calls before 9",
    "Caroline: Hey Mel! I keep two cats named Biscuit and Pickle; my sister lives in Oslo.",
    "Café in Zürich until Sunday — I moved to Genève",  # not ASCII: the original pattern runs
]
WORDS = ["i", "my", "we", "moved", "to", "until", "till", "the", "end", "of", "month", "friday", "may",
         "Monday", "actually", "prefer", "tea", "always", "answer", "me", "in", "for", "next", "two", "weeks",
         "3", "14th", "june", "2024", "name", "is", "call", "at", "Acme", "love", "cats", "allergic", "work",
         ",", ".", "!", "?", "'ll", "i'm", "don't", "sister", "lives", "every", "day", "since", "quit"]


def _spans(matches) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


@pytest.mark.parametrize(("name", "pattern"), LIBRARY_PATTERNS, ids=[n for n, _ in LIBRARY_PATTERNS])
@pytest.mark.parametrize("text", TEXTS)
def test_the_library_patterns_match_where_their_originals_do(name: str, pattern: Caseless, text: str) -> None:
    for variant in (text, text.upper(), text.lower(), text.swapcase()):
        assert _spans(pattern.finditer(variant)) == _spans(pattern.pattern.finditer(variant)), (name, variant)
        assert (pattern.search(variant) is None) == (pattern.pattern.search(variant) is None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.booleans()), max_size=14))
def test_generated_texts_match_alike(words: list[tuple[str, bool]]) -> None:
    text = " ".join(w.upper() if up else w for w, up in words)
    for name, pattern in LIBRARY_PATTERNS:
        assert _spans(pattern.finditer(text)) == _spans(pattern.pattern.finditer(text)), (name, text)


def test_found_is_findall_lower_cased() -> None:
    pattern = Caseless(r"\b(?:friday|next\s+week)\b")
    text = "Friday or NEXT  Week, not fridays"
    assert pattern.found(text) == [m.lower() for m in re.findall(pattern.pattern, text)] == ["friday", "next  week"]


def test_escapes_and_group_names_keep_their_case() -> None:
    assert lowered_letters(r"(?P<Day>Mon)\W+\S\B(?P=Day)[A-Z]") == r"(?P<Day>mon)\W+\S\B(?P=Day)[a-z]"
    with pytest.raises(ValueError, match="not supported"):
        Caseless(r"\x41")
    with pytest.raises(ValueError, match="off"):
        Caseless(r"a(?-i:B)")
