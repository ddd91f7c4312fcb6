"""One embedding pass over memories' texts, for every place that indexes a memory (encode,
repair and import, the gist's re-index): each text's vector and its sentences'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem_graph.language.memory_kind import fact_sentences
from cogmem_graph.language.sentences import sentence_spans
from cogmem_graph.providers.embedders import embed_with_sentences, gives_sentences

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


def embed_memories(ctx: MemoryContext, texts: list[str]) -> tuple[list[list[float]], list[list[list[float]]] | None]:
    """One embedding pass over memories' texts: each text's vector and, when
    `write.sentence_vectors` is on and the embedder gives them in the same pass, its
    sentences' vectors (else None)."""
    if not (ctx.config.write.sentence_vectors and gives_sentences(ctx.embedder)):
        return ctx.embedder.embed(texts), None  # (no sentence spans to find: nothing would take them)
    spans = [sentence_spans(t) for t in texts]
    vectors, sentences = embed_with_sentences(ctx.embedder, texts, spans)
    if sentences is not None and ctx.config.write.durable_sentence_vectors:
        embed_durable_sentences_alone(ctx, texts, spans, sentences)
    return vectors, sentences


def embed_durable_sentences_alone(ctx: MemoryContext, texts: list[str], spans: list[list[tuple[int, int]]],
                                  sentences: list[list[list[float]]]) -> None:
    """Give each sentence of a longer text that carries a fact (`fact_sentences`: durable, as
    in "Long day. Oh, my gym locker is number 38.", or giving names, numbers and dates) the
    vector of its own words, in place of the one pooled from the whole text's pass: pooled,
    the small talk around it seeps into it, and a question about the locker matches the
    sentence alone better. One further pass over those sentences only."""
    where: list[tuple[int, int]] = []
    said: list[str] = []
    for i, (text, text_spans) in enumerate(zip(texts, spans, strict=True)):
        if len(text_spans) < 2:
            continue
        durable = set(fact_sentences(text, ctx.config.retention))
        for j, (a, b) in enumerate(text_spans):
            if text[a:b] in durable and j < len(sentences[i]):
                where.append((i, j))
                said.append(text[a:b])
    if said:
        for (i, j), vector in zip(where, ctx.embedder.embed(said), strict=True):
            sentences[i][j] = vector
