"""Causal links between consecutive turns: a turn that says its content follows from what
was just said ("that's why ...", "so I ...", "as a result ...") was caused by its
predecessor in the conversation. The write path links it CAUSED_BY that predecessor (the
TEMPORAL_SEQUENCE one), which causal questions ("why ...?") then walk.

Pure function of the text; no I/O.
"""

from __future__ import annotations

import re

from cogmem_graph.language.caseless import Caseless

_SPEAKER = re.compile(r"^\s*[A-Z][\w .'-]{0,40}:\s+")
_REFERS_BACK = Caseless(
    r"\b(?:that'?s why|that is why|this is why|which is why|because of (?:that|this|it)|due to (?:that|this)|"
    r"as a result|as a consequence|consequently|therefore|thanks to (?:that|this|it)|"
    r"(?:that|this|it) (?:made|led|caused|forced|pushed|inspired|motivated|got) (?:me|us|him|her|them)\b|"
    r"(?:that|this|it) led to)\b|^(?:so|and so|hence)\s+(?:i|we|he|she|they)\b")


def refers_back_causally(text: str) -> bool:
    """Whether a turn presents itself as a consequence of the turn before it (a chat
    transcript's "Name: " prefix is ignored)."""
    return bool(_REFERS_BACK.search(_SPEAKER.sub("", text, count=1)))
