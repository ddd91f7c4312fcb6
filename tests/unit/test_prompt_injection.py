"""Confidence-gated injection: the level for a score, and the abbreviated form."""

from __future__ import annotations

import pytest

from cogmem_graph.cognition.prompt import ELLIPSIS, Injection, abbreviate, injection_level
from cogmem_graph.config import CogmemConfig


@pytest.mark.parametrize(("score", "level"), [
    (0.95, Injection.FULL), (0.7, Injection.FULL), (0.69, Injection.ABBREVIATED), (0.4, Injection.ABBREVIATED),
    (0.39, Injection.LEFT_OUT), (0.0, Injection.LEFT_OUT),
])
def test_the_reference_thresholds(score: float, level: Injection) -> None:
    assert injection_level(score) is level


def test_thresholds_are_settings_and_must_be_ordered() -> None:
    assert injection_level(0.5, full_at=0.5, abbreviated_at=0.2) is Injection.FULL
    with pytest.raises(ValueError, match="abbreviated_at"):
        CogmemConfig(prompt={"injection": {"full_at": 0.3, "abbreviated_at": 0.5}})


def test_abbreviated_is_the_first_sentence_or_a_cut_at_a_word() -> None:
    assert abbreviate("I moved to Berlin. It is cold here.  Very cold.", 60) == "I moved to Berlin."
    long = "My sister Ana is getting married in Lisbon on the fourth of October next year"
    short = abbreviate(long, 30)
    assert short.endswith(ELLIPSIS) and len(short) <= 30 and long.startswith(short[:-1])
    assert not short[:-1].endswith(" ")
    assert abbreviate("v3.2 is out", 40) == "v3.2 is out"  # a dot inside a word ends no sentence
    with pytest.raises(ValueError, match="max_chars"):
        abbreviate("text", 0)
