"""HyDE, the zero-LLM template form (second reference; Gao et al. 2022): a question and
the statements that would answer it sit apart in embedding space, so the query vector
is the centroid (`cognition/embedding_space.py`) of the question and two or three
hypothetical answers built from its declarative stem by templates of its intent. With an
LLM, one written answer takes the templates' place (the read path asks for it).

Pure functions of the text; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from cogmem_graph.language.query_intent import QueryIntent, declarative_stem

HYDE_TEMPLATES: dict[QueryIntent, tuple[str, ...]] = {
    QueryIntent.TEMPORAL: ("{stem} yesterday.", "{stem} last week."),
    QueryIntent.CAUSAL: ("{stem} because of it.", "The reason: {stem}."),
    QueryIntent.PREFERENCE: ("{stem}, and I love it.", "My favourite: {stem}."),
    QueryIntent.ENTITY_PROFILE: ("{stem} is my friend.", "About {stem}."),
    QueryIntent.FACTUAL: ("{stem}.",),
    QueryIntent.GENERAL: (),
}
"""Hypothetical answers per intent; `{stem}` is the question's declarative stem."""


def hypothetical_documents(query: str, intent: QueryIntent,
                           templates: dict[QueryIntent, Sequence[str]] | None = None) -> list[str]:
    """The hypothetical answers to embed beside `query` (none when the intent has no
    templates or the query has no stem)."""
    stem = declarative_stem(query)
    if not stem:
        return []
    chosen = (templates or HYDE_TEMPLATES).get(intent, ())
    return list(dict.fromkeys(t.format(stem=stem) for t in chosen))
