"""A chat transcript's speaker: the "Name: " in front of a turn, which is who spoke, not
what was said. Read here once for every reader that must set it aside (sentences, value
slots, a memory's category and density) or compare it with the asker (the read path)."""

from __future__ import annotations

import re

_SPEAKER_NAME = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}):\s+")
"""A chat transcript's "Name: " before the turn: up to three capitalised words before the
colon ("Joanna:", "Dr. Okafor:"). The speaker is no content of the turn."""


def turn_body(text: str) -> str:
    """The text without a leading "Speaker: " (what was said, not who said it)."""
    return text[speaker_prefix_length(text):]


def speaker_prefix_length(text: str) -> int:
    """How many characters a chat transcript's leading "Speaker: " takes (0: none)."""
    match = _SPEAKER_NAME.match(text)
    return match.end() if match else 0


def speaker_of(text: str) -> str | None:
    """The name before a chat transcript's "Speaker: ", or None for a memory said plainly
    (a lower-case lead-in such as "Seats when I fly: ..." is no speaker)."""
    match = _SPEAKER_NAME.match(text)
    return match.group(1) if match else None
