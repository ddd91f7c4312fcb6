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
   "time"), as written, as one word or two ("drop-off" / "drop off"), or as the one who
   does it ("trainer" / "trains"). Asked "When is the yoga class?", "The pottery class is
   on Wednesdays" lacks *yoga*: another class. Asked "How much does room 204 cost?", "Room
   310 costs 120" lacks the number: another room. One word names too little ("When are my
   classes?"). An owner and what it owns must be the question's words too: asked "Where
   does Alice live?", "Alice's brother lives in Madrid" speaks of her brother (a noun naming
   the kind of value, "the choir's *schedule*", is the owner's own). The newer sentence may
   leave out one plain word when two or more remain (`_names_it`): a change rarely repeats
   the verb;
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
from cogmem_graph.language.act_nouns import act_key, act_keys
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
                r"(?:[\w-]+ ){0,2}(?:price|cost|fee|rent|dose|dosage|budget|limit|amount|number|total)\b",
                re.IGNORECASE), _AMOUNT),
    (re.compile(r"\b(?:which|what) (?:[\w-]+ ){0,2}(?:room|hall|floor|gate|platform|studio|office|desk|seat|table)\b",
                re.IGNORECASE), _PLACE),
    (re.compile(r"^\W*when\b|\bwhen (?:is|are|was|will|does|do)\b", re.IGNORECASE), _WHEN),
    (re.compile(r"^\W*where\b|\bwhere (?:is|are|does|do|will)\b", re.IGNORECASE), _PLACE),
    (re.compile(r"^\W*(?:who|whom)\b|\bwho (?:is|are|does|do|will)\b", re.IGNORECASE), _PERSON),
)
"""The first phrase that matches says what is asked: "what time" before "when", "which room"
before "where". The thing may stand between ("which *consulting* room", "what is my *daily
screen-time* limit")."""

_QUESTION_ONLY = frozenset({
    "what", "which", "where", "who", "whom", "whose", "when", "how", "why", "time", "day", "days", "night",
    "nights", "date", "weekday", "month", "often", "frequently", "much", "many", "long", "big", "far", "old",
    "early", "late", "room", "price", "cost", "fee", "number", "amount", "total", "now", "currently", "these",
})
"""Words that say what is asked, not what it is asked about."""

_PLACE_PREPOSITIONS = frozenset({"in", "at", "to", "from"})
_SLOT_NOUNS = frozenset({
    "schedule", "timetable", "timing", "time", "times", "date", "dates", "day", "days", "hours", "start",
    "arrival", "deadline", "venue", "location", "address", "price", "cost", "fee", "fees", "rate", "size", "number",
    "count", "amount", "total", "frequency", "dose", "dosage"})
"""Nouns that name a kind of value, not another thing: "the running group's *schedule*" is the
group's own frequency, where "Alice's *brother*" is someone else."""
_AGENT_ENDINGS = ("er", "or")
"""Who does a thing, named from the verb: "teach*er*" is who teaches, "supervis*or*" who supervises."""
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


def _date_key(tokens: tuple[Token, ...], month: Token) -> str:
    """A month with the day of the month beside it ("September 8", "28 November") as one
    value: the month alone would make the 8th and the 15th one date."""
    for at in (month.position + 1, month.position - 1):
        if 0 <= at < len(tokens) and tokens[at].kind == "number" and tokens[at].key.isdigit() \
                and 1 <= int(tokens[at].key) <= 31:
            return f"{month.key} {tokens[at].key}"
    return month.key


def _values(sentence: str, tokens: tuple[Token, ...], kinds: frozenset[str], asked: frozenset[str],
            value_start: int = -1) -> frozenset[str]:
    """The values of the asked kinds in a sentence, less the question's own words; a place
    named in lower case is read after the last place preposition, or where a change told of
    puts its new value (`value_start`)."""
    out = {_date_key(tokens, t) if t.kind == "date" else t.key for t in tokens if t.kind in kinds
           and t.key not in asked and (t.kind != "name" or kinds != _PERSON or _holds_a_role(tokens, t))}
    if "name" in kinds and tokens and tokens[0].kind == "word" and _first_word_name(sentence, tokens[0]) \
            and tokens[0].key not in asked and (kinds != _PERSON or _holds_a_role(tokens, tokens[0])):
        out.add(tokens[0].key)
    if "place" in kinds and not out:  # "in the church hall": the words after the last place preposition
        cut = max((t.position for t in tokens if t.word in _PLACE_PREPOSITIONS), default=value_start - 1)
        place = [t.key for t in tokens[cut + 1:] if t.kind == "word" and t.key not in asked] if cut >= 0 else []
        if place:
            out.add(" ".join(place))
    return frozenset(out)


def _owners_asked(tokens: tuple[Token, ...], asked: frozenset[str]) -> bool:
    """Whether every owner the sentence names, and what it owns, are words of the question:
    asked "Where does Alice live?", "Alice's brother lives in Madrid" speaks of another person."""
    return all(t.key in asked and (tokens[t.position + 1].key in asked or tokens[t.position + 1].word in _SLOT_NOUNS)
               for t in tokens if t.possessor and t.position + 1 < len(tokens))


def _agent_noun(word: str, other: str) -> bool:
    """Whether one word names who does what the other does ("teacher" / "teach")."""
    return len(other) >= 4 and word[:-2] == other and word.endswith(_AGENT_ENDINGS)


def _covered(asked: frozenset[str], asked_pairs: frozenset[tuple[str, str]],
             tokens: tuple[Token, ...]) -> frozenset[str]:
    """The question's words a sentence holds: as they are, or written as one word or two ("the
    school run" / "school-run", "pick up" / "pickup"), or the one who does it ("teaches" /
    "teacher")."""
    keys = [t.key for t in tokens if t.kind != "punct"]
    found = set(keys) | {k.replace("-", "") for k in keys} | {a + b for a, b in pairwise(keys)}
    acts = act_keys(keys)
    out = {w for w in asked if w in found or w.replace("-", "") in found or act_key(w) in acts
           or any(_agent_noun(k, w) or _agent_noun(w, k) for k in keys)}
    out |= {w for a, b in asked_pairs if a + b in found for w in (a, b)}
    return frozenset(out)


@lru_cache(maxsize=4_096)
def _reading(text: str, asked: frozenset[str], kinds: frozenset[str],
             asked_pairs: frozenset[tuple[str, str]] = frozenset()) -> _Reading | None:
    """The text's stating sentence that holds the most of the question's words and a value of
    the asked kind; None when no sentence does."""
    best: _Reading | None = None
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        tokens = sentence_tokens(sentence)
        moved = move_reading(sentence)
        value_start = -1
        if moved is not None and moved.moved and not moved.relative:
            tokens, sentence = moved.tokens, ""  # "X was moved to Y": its result, Y, holds now
            value_start = moved.value_start
        elif not states(tokens):
            continue
        if not _owners_asked(tokens, asked):
            continue
        values = _values(sentence, tokens, kinds, asked, value_start)
        if not values:
            continue
        covered = _covered(asked, asked_pairs, tokens)
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
    in_order = [t.key for t in sentence_tokens(question) if t.key in asked]
    pairs = frozenset(pairwise(in_order))
    read = [(tid, text, _reading(text, asked, kinds, pairs)) for tid, text in memories]
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
