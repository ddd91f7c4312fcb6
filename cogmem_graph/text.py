"""Words of a text, as every lexical part of the library sees them.

One tokenizer for full-text queries (both engines) and for BM25 sparse vectors,
so "what counts as a word" has a single answer.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import snowballstemmer

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have he her his how i if in into is
    it its me my of on or our she so that the their them then there these they this to was we were
    what when where which who whom why will with you your yours am been being can could would should
    than too very just about also not no nor only own same s t don""".split()
)

MAX_TERMS = 32

class _ThreadStemmers(threading.local):
    """A Snowball stemmer per thread: one keeps the word it is stemming in its own fields, so
    two threads sharing one corrupt each other's word (a wrong stem, or an IndexError)."""

    def __init__(self) -> None:
        self.english = snowballstemmer.stemmer("english")


_stemmers = _ThreadStemmers()


def query_terms(text: str, max_terms: int | None = MAX_TERMS) -> list[str]:
    """Distinct lower-cased word terms of a text, in order, stopwords and one-letter words dropped."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text):
        term = match.group(0).lower().replace("’", "'")
        if len(term) < 2 or term in STOPWORDS or term in seen:
            continue
        seen[term] = None
        if max_terms is not None and len(seen) >= max_terms:
            break
    return list(seen)


def word_tokens(text: str) -> list[str]:
    """Every lower-cased word (with repeats), stopwords and one-letter words dropped."""
    if text.isascii():  # lower-casing ASCII moves no word boundary: the words of the lower-cased text
        return [term for term in _WORD.findall(text.lower()) if len(term) >= 2 and term not in STOPWORDS]
    out = []
    for match in _WORD.finditer(text):
        term = match.group(0).lower().replace("’", "'")
        if len(term) >= 2 and term not in STOPWORDS:
            out.append(term)
    return out


def stem(term: str) -> str:
    """English Snowball stem: "deploying" and "deployment" meet at "deploy". A number is
    its own stem; the stemmer would take ~20 µs to say so, and most numbers are new."""
    if term.isdigit() and term.isascii():
        return term
    return _snowball_stem(term)


@lru_cache(maxsize=65_536)
def _snowball_stem(term: str) -> str:
    return _stemmers.english.stemWord(term)
