"""Retrieved memories as LangChain `Document`s: the content, and in the metadata the id,
the score and what a chain may want to cite or filter on."""

from __future__ import annotations

from langchain_core.documents import Document

from cogmem_graph.results import RetrievalResult, ScoredTrace


def document_of(hit: ScoredTrace) -> Document:
    trace = hit.trace
    return Document(page_content=trace.content, id=trace.id, metadata={
        "id": trace.id, "score": hit.score, "type": trace.type.value, "scope": trace.scope.value,
        "tags": list(trace.tags), "created_at": trace.created_at, "sources": list(hit.sources),
        "metadata": dict(trace.metadata),
    })


def documents_of(result: RetrievalResult) -> list[Document]:
    return [document_of(hit) for hit in result.traces]
