"""The sentences of a memory, as spans of its text: what gets a vector of its own.

A chat message runs several things together ("Yep, taking care of ourselves is vital. I'm
off to go swimming with the kids."); one vector for the whole message averages them, and a
question about one of them ("What does Melanie do with her kids?") matches the average
weakly. Each sentence's own vector (pooled from the same forward pass as the message's,
`providers.embedders`) lets the index find a memory by its best sentence.

Pure: no I/O. A transcript's "Speaker: " is not part of any sentence (who said it is no
content of what was said); fragments of fewer than `MIN_WORDS` words ("Wow!", "Thanks,
Mel!") are no sentence of their own. A text with no such sentence is one span: its body.
"""

from __future__ import annotations

import re

from cogmem_graph.language.speakers import speaker_prefix_length

MIN_WORDS = 3
"""Fewer words than this is a fragment ("Wow, nice!"), not a sentence worth a vector."""

MAX_SENTENCES = 16
"""The most spans one memory gets (the first ones): bounds a long document's vectors."""

_BREAK = re.compile(r"(?<=[.!?])\s+|\s+[-–—]\s+|;\s+|\n+")
"""Where one sentence ends: after . ! or ?, at a dash between spaces, a semicolon, a line break."""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the sentences of `text`, in order: at least one
    (the body, when no part has `MIN_WORDS` words) and at most `MAX_SENTENCES`."""
    start = speaker_prefix_length(text)
    spans: list[tuple[int, int]] = []
    position = start
    for cut in [*_BREAK.finditer(text, start), None]:
        end = cut.start() if cut is not None else len(text)
        if len(text[position:end].split()) >= MIN_WORDS:
            spans.append((position, end))
            if len(spans) == MAX_SENTENCES:
                break
        if cut is not None:
            position = cut.end()
    if not spans:
        spans.append((start, len(text)) if start < len(text) else (0, len(text)))
    return spans
