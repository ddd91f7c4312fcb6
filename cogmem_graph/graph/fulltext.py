"""Turning free text into a safe full-text query for each engine.

Neo4j's full-text indexes speak Lucene syntax and FalkorDB's speak RediSearch
syntax; both give meaning to punctuation (`-`, `|`, `@`, `{}`, quotes, `AND`...).
A user's question must never be read as query syntax, so it is reduced to plain
word terms, each escaped, joined with the engine's OR.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "you", "your", "yours", "am", "been", "being", "can", "could", "would", "should", "than", "too", "very", "just", "about", "also", "not", "no", "nor", "only", "own", "same", "s", "t", "don"]
)

MAX_TERMS = 32

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
_REDISEARCH_SPECIAL = re.compile(r"([^\w])", re.UNICODE)
_LUCENE_KEYWORDS = {"AND", "OR", "NOT", "TO"}


def query_terms(text: str, max_terms: int = MAX_TERMS) -> list[str]:
    """Distinct lower-cased word terms of a text, stopwords and one-letter words dropped."""
    seen: list[str] = []
    for match in _WORD.finditer(text):
        term = match.group(0).lower().replace("’", "'")
        if len(term) < 2 or term in STOPWORDS or term in seen:
            continue
        seen.append(term)
        if len(seen) >= max_terms:
            break
    return seen


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
