"""The pre-retrieval gate: what needs no memory skips retrieval; what could be a cue does not."""

from __future__ import annotations

import pytest

from cogmem_graph.language.query_gate import skips_retrieval


@pytest.mark.parametrize("turn", [
    "hi", "Hello!", "hey there", "ok", "OK thanks!", "thank you so much", "Good morning :)", "lol",
    "sounds good", "got it, thanks", "bye", "/help", "/status now", "👍", "...", "   ", "yes", "nope",
])
def test_small_talk_and_commands_skip_retrieval(turn: str) -> None:
    assert skips_retrieval(turn)


@pytest.mark.parametrize("turn", [
    "Lina?", "Docker", "What is my daughter called?", "hi, where do I live?", "thanks, and my blood type?",
    "ok so what did we decide about the launch?", "no peanuts please", "/ not a command", "2019",
    "thank you thank you thank you thank you so much",  # ten words: too long to be only small talk
])
def test_cues_and_questions_are_retrieved(turn: str) -> None:
    assert not skips_retrieval(turn)
