"""Who spoke a text, read from its opening alone (the text up to its first ": "), as the read
path reads it from the ranking fields: the same speaker as the whole text names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.language.speakers import speaker_of

_pieces = st.sampled_from(["Anna", "Dr. Okafor", "Mary Ann Lee", "joanna", "A B C D", ":", ": ", ":\t", ":\n",
                           " ", "\t", "http://x.y", "said", "é", "Zoë", "'", "-", ".", "😀"])


def _from_opening(text: str) -> str | None:
    opening = text.split(": ")[0]
    return speaker_of(opening if opening == text else opening + ": ")


@given(st.lists(_pieces | st.text(max_size=6), max_size=8).map("".join))
def test_the_opening_names_the_speaker_the_whole_text_names(text: str) -> None:
    assert _from_opening(text) == speaker_of(text)


def test_examples() -> None:
    assert _from_opening("Caroline: I went hiking: it was great") == "Caroline"
    assert _from_opening("Caroline:\tI went: hiking") == speaker_of("Caroline:\tI went: hiking") == "Caroline"
    assert _from_opening("see http://x.y: a link") is None
    assert _from_opening("Plain text without a speaker") is None
