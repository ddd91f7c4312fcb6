"""One embedding pass over memories' texts, for every place that indexes a memory (encode,
repair and import, the gist's re-index): each text's vector and its sentences'."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    return embed_with_sentences(ctx.embedder, texts, [sentence_spans(t) for t in texts])
