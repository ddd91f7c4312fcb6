"""The pre-retrieval gate (third reference): a turn that needs no memory skips retrieval,
embedding included.

Gated: greetings, thanks, acknowledgements and farewells made only of small-talk words
("hi", "ok thanks!", "thank you so much", "good morning"), slash commands ("/help"), and
turns with no letter or digit at all ("👍", "..."). A single word that is not small talk
("Lina?", "Docker") is a cue and is not gated.

Pure function of the text; no I/O.
"""

from __future__ import annotations

import re

SMALL_TALK_WORDS: frozenset[str] = frozenset(
    """hi hello hey hiya howdy yo hallo heya greetings morning evening afternoon night good day
    thanks thank thx ty cheers much so very lot a lots you u too again all
    ok okay k kk okey alright allright sure yes yeah yep yup no nope nah fine cool great nice awesome
    perfect got it gotcha noted understood sounds right agreed done lol haha hahaha lmao wow oh ah
    hmm hm mm uh um bye goodbye later see ya cya take care gn welcome np problem there everyone
    folks guys""".split()
)
"""Words a turn may be made of and still need no memory."""

MAX_SMALL_TALK_WORDS = 6
"""Longer turns carry content even when every word is small talk."""

_SLASH_COMMAND = re.compile(r"^/[A-Za-z][\w-]*(?:\s|$)")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def skips_retrieval(turn: str) -> bool:
    """True when `turn` needs no memory: small talk, a slash command, or no words at all."""
    text = turn.strip()
    if not text or _SLASH_COMMAND.match(text):
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return True
    return len(words) <= MAX_SMALL_TALK_WORDS and all(w in SMALL_TALK_WORDS for w in words)
