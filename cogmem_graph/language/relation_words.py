"""Words that name the same relation to the user: a question's words for a person or a pet,
with the other words people use for that relation.

A user says "my brother works as a paramedic" and later asks "What's my sibling's
profession?"; says "Sarah, my wife, ..." and asks about "my other half". The relation is the
same and no word is shared, and a small sentence embedder rarely closes the gap. Each class
below names one relation (a partner, a sibling, a parent, a child, a grandparent, someone
at work, a friend, a dog, a cat); a question naming one member as the asker's ("my", "our")
is searched by words with the others too. Only the lexical search reads the added words: the
question's meaning, its vector, is left as asked.

Pure functions over text: no I/O, no model.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["with_relation_words"]

RELATION_CLASSES: tuple[frozenset[str], ...] = (
    frozenset({"partner", "wife", "husband", "spouse", "boyfriend", "girlfriend", "fiance", "fiancee"}),
    frozenset({"sibling", "siblings", "brother", "brothers", "sister", "sisters"}),
    frozenset({"mum", "mom", "mother", "mam", "mummy", "mommy"}),
    frozenset({"dad", "father", "daddy"}),
    frozenset({"parents", "folks"}),
    frozenset({"kid", "kids", "child", "children", "son", "daughter", "sons", "daughters"}),
    frozenset({"grandma", "grandmother", "nan", "nana", "granny", "gran"}),
    frozenset({"grandpa", "grandfather", "grandad", "granddad"}),
    frozenset({"boss", "manager", "supervisor"}),
    frozenset({"colleague", "colleagues", "coworker", "coworkers", "workmate", "workmates"}),
    frozenset({"friend", "friends", "mate", "mates", "pal", "pals", "buddy"}),
    frozenset({"dog", "dogs", "pooch", "pup", "puppy", "doggo", "hound"}),
    frozenset({"cat", "cats", "kitty", "kitten", "moggy"}),
)
"""One relation each, as people name it; a word belongs to one class only."""

_PHRASES = {"other half": "partner", "better half": "partner", "significant other": "partner",
            "line manager": "manager", "co-worker": "coworker", "co-workers": "coworkers"}
"""Several words naming one member of a class."""

_OWNERS = frozenset({"my", "our"})
_OWNER_REACH = 3
"""A relation is the asker's when "my" or "our" stands at most this many words before it ("my
oldest friend", "our little pooch"): "Caroline's kids" names someone else's, whose words
the memory has as they were said."""
_CLASS_OF = {word: members for members in RELATION_CLASSES for word in members}
_WORD = re.compile(r"[a-z][a-z'-]*")
_PHRASE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in _PHRASES) + r")\b")


@lru_cache(maxsize=4_096)
def with_relation_words(query: str) -> str:
    """The query, followed by the other words of each relation of the asker's it names ("What's
    my sibling's job?" gains "brother brothers sister sisters siblings"); the query itself when
    it names none."""
    lowered = query.lower().replace("\u2019", "'")
    words = [w.removesuffix("'s").removesuffix("'") for w in _WORD.findall(_PHRASE.sub(
        lambda m: _PHRASES[m.group(0)], lowered))]
    named = [w for i, w in enumerate(words) if _OWNERS & set(words[max(0, i - _OWNER_REACH):i])]
    added: list[str] = []
    seen = {w.removesuffix("'s").removesuffix("'") for w in _WORD.findall(lowered)}
    for word in named:
        for other in sorted(_CLASS_OF.get(word, ())):
            if other not in seen:
                seen.add(other)
                added.append(other)
    return f"{query} {' '.join(added)}" if added else query
