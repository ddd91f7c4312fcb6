"""Turning free text into a safe full-text query for each engine.

Neo4j's full-text indexes speak Lucene syntax and FalkorDB's speak RediSearch
syntax; both give meaning to punctuation (`-`, `|`, `@`, `{}`, quotes, `AND`...).
A user's question must never be read as query syntax, so it is reduced to plain
word terms, each escaped, joined with the engine's OR.
"""

from __future__ import annotations

import re

from cogmem_graph.text import query_terms

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
_REDISEARCH_SPECIAL = re.compile(r"([^\w])", re.UNICODE)
_LUCENE_KEYWORDS = {"AND", "OR", "NOT", "TO"}


def escape_lucene(term: str) -> str:
    """Escape Lucene query syntax; keywords are lower-cased so they stay plain words."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", term)
    return escaped.lower() if escaped in _LUCENE_KEYWORDS else escaped


def escape_redisearch(term: str) -> str:
    """Escape every non-word character for RediSearch."""
    return _REDISEARCH_SPECIAL.sub(r"\\\1", term)


def lucene_query(text: str) -> str | None:
    """OR of the escaped terms, or None when the text has no searchable word."""
    terms = [escape_lucene(t) for t in query_terms(text)]
    return " OR ".join(terms) if terms else None


def redisearch_query(text: str) -> str | None:
    """OR of the escaped terms, or None when the text has no searchable word."""
    terms = [escape_redisearch(t) for t in query_terms(text)]
    return "|".join(terms) if terms else None
