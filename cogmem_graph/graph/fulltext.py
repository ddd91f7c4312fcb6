"""Turning free text into a safe full-text query for each engine.

Neo4j's full-text indexes speak Lucene syntax and FalkorDB's speak RediSearch
syntax; both give meaning to punctuation (`-`, `|`, `@`, `{}`, quotes, `AND`...).
A user's question must never be read as query syntax, so it is reduced to plain
word terms, each escaped, joined with the engine's OR; a group of words that must all
match (`every_word_of`) joins them with the engine's AND, in parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


def _groups(every_word_of: Sequence[str], escape: Callable[[str], str]) -> list[list[str]]:
    out = []
    for text in every_word_of:
        terms = [escape(t) for t in query_terms(text)]
        if terms:
            out.append(terms)
    return out


def lucene_query(text: str, every_word_of: Sequence[str] = ()) -> str | None:
    """OR of the escaped terms of `text` and of each group's terms joined by AND, or None when
    nothing is searchable."""
    terms = [escape_lucene(t) for t in query_terms(text)]
    terms += [group[0] if len(group) == 1 else "(" + " AND ".join(group) + ")"
              for group in _groups(every_word_of, escape_lucene)]
    return " OR ".join(terms) if terms else None


def redisearch_query(text: str, every_word_of: Sequence[str] = ()) -> str | None:
    """OR of the escaped terms of `text` and of each group's terms joined by AND, or None when
    nothing is searchable."""
    terms = [escape_redisearch(t) for t in query_terms(text)]
    terms += [group[0] if len(group) == 1 else "(" + " ".join(group) + ")"
              for group in _groups(every_word_of, escape_redisearch)]
    return "|".join(terms) if terms else None
