"""Which parts of a memory get a vector of their own (`language.sentences`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.language.sentences import MAX_SENTENCES, MIN_WORDS, sentence_spans


def parts(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def test_a_chat_message_splits_into_its_sentences_without_the_speaker_or_the_fragments() -> None:
    text = "Melanie: Yep, Caroline. Taking care of ourselves is vital. I'm off to go swimming with the kids. Bye!"
    assert parts(text) == ["Taking care of ourselves is vital.", "I'm off to go swimming with the kids."]


def test_dashes_semicolons_and_line_breaks_end_a_sentence_too() -> None:
    text = "the lease ends in January - we must tell the landlord by October; he wants it in writing\nnoted in my diary"
    assert parts(text) == ["the lease ends in January", "we must tell the landlord by October",
                           "he wants it in writing", "noted in my diary"]


def test_a_text_without_a_sentence_of_its_own_is_one_span_its_body() -> None:
    assert parts("Caroline: Thanks, Mel!") == ["Thanks, Mel!"]
    assert parts("Wow!") == ["Wow!"]
    assert parts("one two three") == ["one two three"]


def test_a_long_document_gets_at_most_the_first_sentences() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(40))
    spans = sentence_spans(text)
    assert len(spans) == MAX_SENTENCES and text[slice(*spans[0])] == "Sentence number 0 is here."


@given(st.text(max_size=300))
def test_spans_are_ordered_non_empty_slices_of_the_text(text: str) -> None:
    spans = sentence_spans(text)
    assert 1 <= len(spans) <= MAX_SENTENCES
    assert all(0 <= a <= b <= len(text) for a, b in spans)
    assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
    if len(spans) > 1:
        assert all(len(text[a:b].split()) >= MIN_WORDS for a, b in spans)
