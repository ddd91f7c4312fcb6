"""What a question names, read from its words: the entities it carries as the offline
extractor finds them in stored text, lower-case word n-grams as candidate names ("where does
alice work"), and whether it asks about the memory as a whole (a global question). The
multi-hop walk starts from these (`retrieval/multihop/`); the read path gathers around them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cogmem_graph.language.entities import NOT_ENTITIES, entity_key, extract_entities
from cogmem_graph.text import STOPWORDS

_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?(?:[.-][^\W_]+)*", re.UNICODE)
NGRAM_WORDS = 3
MAX_NGRAM_KEYS = 64


def query_entity_keys(query: str, max_entities: int) -> list[tuple[str, str]]:
    """(key, surface name) of the entities a query names, as the offline extractor finds them
    in stored text. A possessive ("Caroline's") also tries the bare name."""
    out: dict[str, str] = {}
    for entity in extract_entities(query, max_entities=max_entities):
        for key in (entity.key, entity_key(_POSSESSIVE.sub("", entity.name))):
            if key and key not in NOT_ENTITIES:
                out.setdefault(key, _POSSESSIVE.sub("", entity.name) or entity.name)
    return list(out.items())[:max_entities]


def query_ngram_keys(query: str, max_words: int = NGRAM_WORDS, max_keys: int = MAX_NGRAM_KEYS) -> list[tuple[str, str]]:
    """Word n-grams of a query as candidate entity keys, for names written in lower case
    ("where does alice work"). Stopwords and pronouns never start or end one; a long
    query gives its first `max_keys`, longest first."""
    words = [_POSSESSIVE.sub("", w) for w in _WORDS.findall(query)][:max_keys]
    out: dict[str, str] = {}
    for size in range(max_words, 0, -1):
        for start in range(len(words) - size + 1):
            gram = words[start:start + size]
            edge = {gram[0].lower(), gram[-1].lower()}
            if edge & (STOPWORDS | NOT_ENTITIES) or any(len(w) < 2 for w in gram):
                continue
            key = entity_key(" ".join(gram))
            if key:
                out.setdefault(key, " ".join(gram))
    return list(out.items())[:max_keys]


def is_global_question(query: str, cues: Iterable[str]) -> bool:
    """A question about the memory as a whole ("what are the main themes?") rather than about
    one thing in it: it names a cue phrase as whole words."""
    text = " " + " ".join(_WORDS.findall(query.lower())) + " "
    return any(f" {cue.lower().strip()} " in text for cue in cues if cue.strip())
