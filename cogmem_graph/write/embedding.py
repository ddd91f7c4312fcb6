"""One embedding pass over memories' texts, for every place that indexes a memory (encode,
repair and import, the gist's re-index): each text's vector and its sentences'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from cogmem_graph.language.memory_kind import fact_sentences
from cogmem_graph.language.sentences import sentence_spans
from cogmem_graph.model import MemoryCategory
from cogmem_graph.providers.embedders import embed_with_sentences, gives_sentences

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


class Embedded(NamedTuple):
    """One embedding pass over memories' texts."""

    vectors: list[list[float]]
    sentences: list[list[list[float]]] | None
    """Each text's sentences' vectors, or None when the embedder gives none or they are off."""
    stating: frozenset[int]
    """The positions of the texts that carry a fact of their own: a longer text with a sentence
    `fact_sentences` finds, a one-sentence text whose category (given) is not OTHER. Such a text
    means something without the conversation before it (`context_vectors.index_vectors`)."""


def embed_memories(ctx: MemoryContext, texts: list[str],
                   categories: Sequence[MemoryCategory] | None = None) -> Embedded:
    """One embedding pass over memories' texts: each text's vector, which of them carry a fact
    of their own (`categories`: the texts' own, read by the write path; None: not asked) and,
    when `write.sentence_vectors` is on and the embedder gives them in the same pass, their
    sentences' vectors (else None). A one-sentence text's category is that sentence's, so
    only longer texts are read sentence by sentence."""
    write = ctx.config.write
    spans = [sentence_spans(t) for t in texts]
    wanted = write.durable_sentence_vectors or (categories is not None and write.context_vectors)
    facts = [fact_sentences(text, ctx.config.retention) if wanted and len(text_spans) > 1 else []
             for text, text_spans in zip(texts, spans, strict=True)]
    stating = frozenset(i for i, found in enumerate(facts) if found) | frozenset(
        i for i, category in enumerate(categories or ()) if len(spans[i]) < 2 and category != MemoryCategory.OTHER)
    if not (write.sentence_vectors and gives_sentences(ctx.embedder)):
        return Embedded(ctx.embedder.embed(texts), None, stating)
    vectors, sentences = embed_with_sentences(ctx.embedder, texts, spans)
    if sentences is not None and write.durable_sentence_vectors:
        embed_durable_sentences_alone(ctx, texts, spans, sentences, facts)
    return Embedded(vectors, sentences, stating)


def embed_durable_sentences_alone(ctx: MemoryContext, texts: list[str], spans: list[list[tuple[int, int]]],
                                  sentences: list[list[list[float]]], facts: list[list[str]]) -> None:
    """Give each sentence of a longer text that carries a fact (`facts`, by text: its
    `fact_sentences`, durable, as in "Long day. Oh, my gym locker is number 38.", or giving
    names, numbers and dates) the vector of its own words, in place of the one pooled from the
    whole text's pass: pooled, the small talk around it seeps into it, and a question about the
    locker matches the sentence alone better. One further pass over those sentences only."""
    where: list[tuple[int, int]] = []
    said: list[str] = []
    for i, (text, text_spans) in enumerate(zip(texts, spans, strict=True)):
        if len(text_spans) < 2:
            continue
        durable = set(facts[i])
        for j, (a, b) in enumerate(text_spans):
            if text[a:b] in durable and j < len(sentences[i]):
                where.append((i, j))
                said.append(text[a:b])
    if said:
        for (i, j), vector in zip(where, ctx.embedder.embed(said), strict=True):
            sentences[i][j] = vector
