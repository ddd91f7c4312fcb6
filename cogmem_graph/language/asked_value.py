"""Which kind of value a question asks for, and which memories give it different values.

"When is the design review?" asks for a day or a time. Shown "The design review is on
Fridays" (older) and "They've put the design review on Mondays from now on" (newer), the
two disagree on the very value asked for, and the newer one is the answer: no rule about
how the change was worded is needed, only what the question is about. A pair of memories
*disagrees on the asked value* when

1. **the question asks for a value**: a time or a day ("when", "what time", "which day"), a
   frequency ("how often"), an amount, a count or a duration ("how much", "how many", "how
   long"), a person ("who"), a place or a room ("where", "which room");
2. **both speak of what the question names**: a sentence of each holds every word of the
   question (its values and content words, not the words that ask: "when", "how much",
   "time"). Asked "When is the yoga class?", "The pottery class is on Wednesdays" lacks
   *yoga*: another class. Asked "How much does room 204 cost?", "Room 310 costs 120" lacks
   the number: another room. One word names too little ("When are my classes?"). An owner
   and what it owns must be the question's words too: asked "Where does Alice live?",
   "Alice's brother lives in Madrid" speaks of her brother. The newer sentence may leave out
   one plain word when two or more remain (`_names_it`): a change rarely repeats the verb;
3. **they give different values of that kind**: the newer sentence holds a value of the
   asked kind the older one does not (the question's own words are never the value), and
   the older holds one;
4. **both state how things are**: neither sentence is a question, a denial or a report of a
   past event (a change told as an event states its result: "they moved the class to
   Fridays" gives Fridays), the same speaker says both, and they are not told of two different times
   ("last year" / "this year").

Pure functions over text: no I/O, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.common_words import COMMON_WORDS
from cogmem_graph.language.contradiction import of_other_times
from cogmem_graph.language.speakers import speaker_of
from cogmem_graph.language.value_moves import move_reading
from cogmem_graph.language.value_slots import Token, sentence_tokens, sentences, states

__all__ = ["asked_kinds", "disagree_on_asked_value"]

_WHEN = frozenset({"time", "day", "date"})
_AMOUNT = frozenset({"number", "money", "percent"})
_PLACE = frozenset({"name", "code", "number", "place"})
_PERSON = frozenset({"name"})

_ASKS = (
    (re.compile(r"\bwhat time\b|\bhow early\b|\bhow late\b", re.IGNORECASE), frozenset({"time"})),
    (re.compile(r"\b(?:what|which) (?:day|days|night|nights|date|weekday|month)\b", re.IGNORECASE),
     frozenset({"day", "date"})),
    (re.compile(r"\bhow often\b|\bhow frequently\b|\bhow many times a\b", re.IGNORECASE), frozenset({"frequency"})),
    (re.compile(r"\bhow (?:much|many|long|big|far|old)\b|\bwhat(?:'s| is| are)? (?:the |my |our )?"
                r"(?:price|cost|fee|rent|dose|dosage|budget|limit|amount|number|total)\b", re.IGNORECASE), _AMOUNT),
    (re.compile(r"\b(?:which|what) (?:room|hall|floor|gate|platform|studio|office|desk|seat|table)\b",
                re.IGNORECASE), _PLACE),
    (re.compile(r"^\W*when\b|\bwhen (?:is|are|was|will|does|do)\b", re.IGNORECASE), _WHEN),
    (re.compile(r"^\W*where\b|\bwhere (?:is|are|does|do|will)\b", re.IGNORECASE), _PLACE),
    (re.compile(r"^\W*(?:who|whom)\b|\bwho (?:is|are|does|do|will)\b", re.IGNORECASE), _PERSON),
)
"""The first phrase that matches says what is asked: "what time" before "when", "which room"
before "where"."""

_QUESTION_ONLY = frozenset({
    "what", "which", "where", "who", "whom", "whose", "when", "how", "why", "time", "day", "days", "night",
    "nights", "date", "weekday", "month", "often", "frequently", "much", "many", "long", "big", "far", "old",
    "early", "late", "room", "price", "cost", "fee", "number", "amount", "total", "now", "currently", "these",
})
"""Words that say what is asked, not what it is asked about."""

_PLACE_PREPOSITIONS = frozenset({"in", "at", "to", "from"})
_BE = frozenset({"is", "are", "was", "were", "be", "'s"})
_DEFINITE = frozenset({"the", "my", "our", "your", "their", "his", "her", "its", "this", "that"})
_CLAUSE_OPENERS = frozenset({"and", "but", "so", "then", "while", "when", "because", "if", "though", "although"})
MIN_NAMING_WORDS = 2
"""Question words that must name the thing: "When are my classes?" names no one class."""


@dataclass(frozen=True, slots=True)
class _Reading:
    """A stating sentence as the question sees it."""

    covered: frozenset[str]
    values: frozenset[str]
    keys: tuple[str, ...] = ()
    """The sentence's token keys, in order."""
    plain: frozenset[str] = frozenset()
    """Its keys that are plain words (not names, numbers or other values)."""


def asked_kinds(question: str) -> frozenset[str]:
    """The token kinds of the value a question asks for (see `value_slots.Token.kind`; "place"
    for a place named in lower case), or none when it asks for no value."""
    if not isinstance(question, str):
        raise InvalidArgument("question must be a string", argument="question")
    for pattern, kinds in _ASKS:
        if pattern.search(question):
            return kinds
    return frozenset()


def _question_words(question: str) -> frozenset[str]:
    return frozenset(t.key for t in sentence_tokens(question)
                     if t.kind not in ("function", "punct") and t.word not in _QUESTION_ONLY)


def _first_word_name(sentence: str, first: Token) -> bool:
    """A capital opening a sentence names someone when the word is no common English word
    ("Greta is treasurer ...", not "Tuition is ...")."""
    raw = sentence.lstrip()[:len(first.word)]
    return raw[:1].isupper() and first.word not in COMMON_WORDS


def _holds_a_role(tokens: tuple[Token, ...], name: Token) -> bool:
    """Whether a person named in a sentence holds the one place the question asks about: named
    after a verb or a preposition ("the contact is Jonas", "handed over to Priya"), or doing
    something to a definite thing ("Nadia coaches *the* swim team", "Mr. Okafor teaches *my*
    son's lessons"). "On Fridays, Tom plays chess" names one of many who may: not a value."""
    before = tokens[name.position - 1] if name.position else None
    if before is not None and before.kind in ("word", "function") and before.word not in _CLAUSE_OPENERS:
        return True
    after = tokens[name.position + 1:]
    while after and after[0].kind == "name":
        after = after[1:]
    if not after or after[0].word in _BE:
        return True
    return any(t.word in _DEFINITE or t.possessor for t in after[1:])


def _values(sentence: str, tokens: tuple[Token, ...], kinds: frozenset[str], asked: frozenset[str]) -> frozenset[str]:
    """The values of the asked kinds in a sentence, less the question's own words."""
    out = {t.key for t in tokens if t.kind in kinds and t.key not in asked
           and (t.kind != "name" or kinds != _PERSON or _holds_a_role(tokens, t))}
    if "name" in kinds and tokens and tokens[0].kind == "word" and _first_word_name(sentence, tokens[0]) \
            and tokens[0].key not in asked and (kinds != _PERSON or _holds_a_role(tokens, tokens[0])):
        out.add(tokens[0].key)
    if "place" in kinds and not out:  # "in the church hall": the words after the last place preposition
        cut = max((t.position for t in tokens if t.word in _PLACE_PREPOSITIONS), default=-1)
        place = [t.key for t in tokens[cut + 1:] if t.kind == "word" and t.key not in asked] if cut >= 0 else []
        if place:
            out.add(" ".join(place))
    return frozenset(out)


def _owners_asked(tokens: tuple[Token, ...], asked: frozenset[str]) -> bool:
    """Whether every owner the sentence names, and what it owns, are words of the question:
    asked "Where does Alice live?", "Alice's brother lives in Madrid" speaks of another person."""
    return all(t.key in asked and tokens[t.position + 1].key in asked
               for t in tokens if t.possessor and t.position + 1 < len(tokens))


@lru_cache(maxsize=4_096)
def _reading(text: str, asked: frozenset[str], kinds: frozenset[str]) -> _Reading | None:
    """The text's stating sentence that holds the most of the question's words and a value of
    the asked kind; None when no sentence does."""
    best: _Reading | None = None
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        tokens = sentence_tokens(sentence)
        moved = move_reading(sentence)
        if moved is not None and moved.moved and not moved.relative:
            tokens, sentence = moved.tokens, ""  # "X was moved to Y": its result, Y, holds now
        elif not states(tokens):
            continue
        if not _owners_asked(tokens, asked):
            continue
        values = _values(sentence, tokens, kinds, asked)
        if not values:
            continue
        covered = asked & {t.key for t in tokens}
        if best is None or len(covered) > len(best.covered):
            best = _Reading(frozenset(covered), values, tuple(t.key for t in tokens),
                            frozenset(t.key for t in tokens if t.kind == "word"))
    return best


def _names_it(new: _Reading, old: _Reading, asked: frozenset[str]) -> bool:
    """Whether a newer sentence speaks of what the older one did: it holds every word the
    question names it with, or all but one plain word when at least `MIN_NAMING_WORDS` remain
    and the word left out does not tell the thing apart. A change need not repeat the verb
    ("the running group meets twice a week", then "the running group's schedule was adjusted
    to three times a week"); a word just before another word of the thing, in the older
    sentence, is what tells it apart ("the *swim* team" against "the tennis team"), and so is
    a name or a number."""
    missing = asked - new.covered
    if not missing:
        return True
    if len(missing) > 1 or len(new.covered) < MIN_NAMING_WORDS:
        return False
    (word,) = missing
    if word not in old.plain:
        return False
    return not any(key == word and following in new.covered for key, following in pairwise(old.keys))


def disagree_on_asked_value(question: str, memories: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(older id, newer id) for each pair of `memories` (id, text), given oldest first, that
    disagrees on the value `question` asks for (see the module's rule): the newer one answers."""
    kinds = asked_kinds(question)
    asked = _question_words(question) if kinds else frozenset()
    if len(asked) < MIN_NAMING_WORDS:
        return []
    read = [(tid, text, _reading(text, asked, kinds)) for tid, text in memories]
    out = []
    for i, (old_id, old_text, old) in enumerate(read):
        if old is None or old.covered != asked:
            continue
        for new_id, new_text, new in read[i + 1:]:
            if new is None or not _names_it(new, old, asked) or not new.values - old.values:
                continue
            if speaker_of(new_text) != speaker_of(old_text) or of_other_times(new_text, old_text):
                continue
            out.append((old_id, new_id))
    return out
