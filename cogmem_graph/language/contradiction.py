"""Offline contradiction detection: does a new statement contradict an old one?

Four heuristics, each giving a confidence in [0, 1]; the verdict is the strongest:

1. **Same subject and attribute, different value.** Simple fact patterns are
   read from both texts — where someone lives ("I live in Paris" / "I moved to
   Berlin"), works, how old they are, their name, "my favourite colour is
   blue", "the meeting is on Monday" — as (subject, attribute, value). The same
   subject and attribute with a different value is a contradiction; how sure we
   are depends on whether the attribute holds one value at a time (a home town,
   an age, a favourite) or may hold several (a hobby).
2. **Negation.** The same fact, or the same sentence, once affirmed and once
   denied ("I like coffee" / "I don't like coffee"; "I live in Paris" / "I don't
   live in Paris anymore").
3. **Correction cues.** The new text says it corrects something ("actually",
   "correction", "no longer", "I was wrong", "turns out", ...) in a sentence that
   asks nothing, and is about the same thing as the old one (shared words, or a
   high embedding similarity).
4. **Change of value.** The new text reports a change ("we switched from Jenkins
   to GitHub Actions", "I sold the Corolla", "... instead of Jenkins", "we
   upgraded to Python 3.12") and the old one holds the value given up ("we
   deploy with Jenkins", "I drive a Toyota Corolla", "I use Python 3.9"). Only
   the new text's words can say so: the old statement read as new is no change.

Pure functions: no I/O, no model. Restating the same value ("I moved to Berlin"
/ "I live in Berlin now") is agreement, not contradiction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.value_moves import move_reading, moved_to_new_value
from cogmem_graph.language.value_slots import (
    anchor_words,
    restatable_sentences,
    restated_with_new_value,
    sentence_tokens,
)
from cogmem_graph.text import word_tokens

__all__ = [
    "Change",
    "ContradictionVerdict",
    "Fact",
    "candidate_query",
    "contradicts",
    "detect_contradiction",
    "extract_changes",
    "extract_facts",
    "restatement_queries",
]

Reason = Literal["different_value", "negation", "correction", "change", "new_value", "none"]

# ---------------------------------------------------------------- confidences

SINGLE_VALUED = 0.9
"""Different values of an attribute that holds one value at a time."""
SAME_KIND = 0.75
"""Different values of the same kind (two weekdays, two names, two numbers)."""
LOOSE = 0.35
"""Different values of an attribute that may hold several, of unlike kinds."""
PRONOUN_FACTOR = 0.8
"""He/she/they may not be the same person in both texts."""
FACT_NEGATION = 0.9
SENTENCE_NEGATION = 0.8
CORRECTION_BASE = 0.5
CORRECTION_MAX = 0.8
CORRECTION_MIN_SIMILARITY = 0.6
CORRECTION_CUE_MIN_SIMILARITY = 0.8
"""A correction cue with few words shared needs the texts this close in meaning: turns of one
chat score 0.6-0.8 with MiniLM whatever they say, and "actually" or "turns out" is common in them."""
CORRECTION_MIN_OVERLAP = 0.3
SENTENCE_NEGATION_OVERLAP = 0.8
CHANGE_NAMED = 0.85
"""The new text gives up a named value (a name, a number) that the old one holds."""
CHANGE_RELATED = 0.7
"""The new text gives up a common-noun value the old one holds, and both are about the same
thing: "the party" or "my job" is held by many unrelated statements, so closeness is required."""
CHANGE_VERSION = 0.8
"""The new text upgrades a named thing to another version than the one the old text names."""

# ---------------------------------------------------------------- vocabulary

_NEGATIONS = frozenset({
    "not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't",
    "won't", "can't", "cannot", "haven't", "hasn't", "hadn't", "shouldn't", "wouldn't", "couldn't",
    "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "cant", "nobody", "nothing",
    "neither", "nor", "anymore", "longer",
})
_CORRECTION_CUES = (
    "actually", "correction", "incorrect", "mistaken", "i was wrong", "that was wrong", "not anymore",
    "no longer", "changed my mind", "change of plan", "used to", "turns out", "turned out", "instead",
    "rather than", "not true", "isn't true", "contrary", "retract", "but now", "any more", "anymore",
)
_SINGLE_VALUED_ATTRIBUTES = frozenset({
    "residence", "employer", "age", "name", "birthday", "address", "email", "phone number", "phone",
    "job", "wife", "husband", "partner", "boyfriend", "girlfriend", "boss", "manager", "hometown",
    "home town", "city", "password", "number", "title", "role", "deadline", "date", "time", "day",
    "location", "school", "university", "major", "salary", "rank", "status",
})
_SPELLING = {"favourite": "favorite", "colour": "color", "colours": "colors", "neighbour": "neighbor",
             "centre": "center", "organisation": "organization"}
_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                       "weekend", "weekends", "weekday", "weekdays", "today", "tomorrow", "tonight"})
_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
_COLORS = frozenset({"red", "blue", "green", "yellow", "orange", "purple", "violet", "pink", "black",
                     "white", "grey", "gray", "brown", "teal", "turquoise", "gold", "silver", "beige",
                     "navy", "cyan", "magenta", "maroon", "indigo"})
_VALUE_STOP = frozenset({
    "and", "but", "or", "now", "since", "for", "because", "as", "with", "when", "where", "which", "who",
    "after", "before", "until", "last", "this", "next", "ago", "anymore", "currently", "today",
    "recently", "these", "then", "so", "though", "although", "while", "in", "on", "at", "from", "by",
    "to", "of", "any", "still", "again", "too", "also", "already", "yet", "if", "than", "instead",
    "nowadays", "lately", "forever", "permanently", "temporarily", "anyway",
})
_NOT_NAMES = frozenset({
    "the", "this", "that", "these", "those", "it", "there", "here", "what", "when", "where", "who",
    "why", "how", "my", "our", "his", "her", "their", "your", "a", "an", "yes", "no", "ok", "okay",
    "so", "but", "and", "also", "actually", "correction", "well", "oh", "hey", "hi", "today",
    "yesterday", "tomorrow", "now", "then", "i", "we", "he", "she", "they", "you", "some", "every",
})
_LEADING_FILLERS = ("now ", "still ", "actually ", "really ", "currently ", "finally ", "just ")
_NEWNESS = ("new ", "current ", "updated ", "latest ")

# ---------------------------------------------------------------- fact patterns

_SUBJECT = (
    r"(?P<subj>(?i:i|we|he|she|they)|(?i:my|our|his|her|their)\s+[a-z][\w-]*|"
    r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
)
_FILLERS = (
    r"now|currently|still|just|recently|finally|also|actually|really|officially|permanently|temporarily|"
    r"already|soon|happily|and|have|has|had|am|is|are|was|were|be|been|do|does|did|don't|doesn't|didn't|"
    r"do\s+not|does\s+not|did\s+not|not|no|longer|never|used\s+to|will|won't|gonna|going\s+to|to"
)
_MID = r"(?P<mid>(?:'(?:m|re|ve|d))?(?:\s+(?i:" + _FILLERS + r")){0,3}?)"
_VALUE = r"(?P<value>[^.,;!?:()\n]+)"

_RESIDENCE = re.compile(
    _SUBJECT + _MID + r"\s+(?P<verb>(?i:live|lives|living|lived|reside|resides|residing|moved|move|moves|moving|"
    r"relocated|relocate|relocating|settled|based))"
    r"\s+(?i:(?:back\s+|over\s+|out\s+|away\s+)?(?:in|to|into|at))\s+" + _VALUE
)
_EMPLOYER = re.compile(
    _SUBJECT + _MID + r"\s+(?P<verb>(?i:work|works|working|worked|employed))\s+(?i:at|for|by)\s+" + _VALUE
    + r"|" + _SUBJECT.replace("subj", "subj2") + _MID.replace("mid", "mid2")
    + r"\s+(?P<verb2>(?i:joined|join|joining|started\s+at|started\s+working\s+(?:at|for)|"
    r"got\s+a\s+job\s+(?:at|with)|took\s+a\s+job\s+(?:at|with)))\s+" + _VALUE.replace("value", "value2")
)
_AGE = re.compile(
    _SUBJECT + _MID + r"\s+(?i:am|'m|is|are|turned|turn|turning)\s+(?P<value>\d{1,3})\b(?:\s+(?i:years?\s+old))?"
)
_AGE_CONTRACTED = re.compile(r"(?P<subj>(?i:i))'m" + _MID + r"\s+(?P<value>\d{1,3})\b")
_NAME = re.compile(r"(?i:\b(?:my\s+name\s+is|call\s+me|i\s+am\s+called|i'm\s+called))\s+(?P<value>[A-Z][\w'-]*)")
_POSSESSIVE = re.compile(
    r"(?P<owner>\b(?i:my|our|his|her|their)|\b[A-Z][\w'-]*'s)\s+(?P<attr>(?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*)"
    r"\s+(?P<cop>(?i:is|are|was\s+changed\s+to|has\s+changed\s+to|changed\s+to|became|has\s+become))"
    r"(?P<neg>\s+(?i:not|no\s+longer|never))?\s+" + _VALUE
)
_DEFINITE = re.compile(
    r"(?:^|\b)(?i:the|our)\s+(?P<attr>(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*)"
    r"\s+(?P<cop>(?i:is|are|was|has\s+been|will\s+be|has\s+moved\s+to|moved\s+to|was\s+moved\s+to|"
    r"was\s+rescheduled\s+to|is\s+rescheduled\s+to|has\s+been\s+rescheduled\s+to|got\s+moved\s+to))"
    r"(?P<neg>\s+(?i:not|no\s+longer|never))?\s+" + _VALUE
)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


@dataclass(frozen=True)
class Fact:
    """One simple fact read from a text: who, what about them, which value."""

    subject: str
    attribute: str
    value: str
    negated: bool = False
    single_valued: bool = False
    kind: str = "other"
    """Kind of value: weekday, month, time, number, color, proper (a name), other."""
    pronoun: bool = False


@dataclass(frozen=True)
class ContradictionVerdict:
    """How sure we are that `new` contradicts `old`, and why."""

    confidence: float
    reason: Reason
    attribute: str | None = None
    old_value: str | None = None
    new_value: str | None = None

    def __bool__(self) -> bool:
        return self.confidence > 0.0


NO_CONTRADICTION = ContradictionVerdict(0.0, "none")

# ---------------------------------------------------------------- helpers


def _norm_words(text: str) -> str:
    words = text.lower().replace("’", "'").split()
    return " ".join(_SPELLING.get(w, w) for w in words)


def _subject(raw: str) -> tuple[str, bool] | None:
    """Normalised subject and whether it is a third-person pronoun; None if not a subject."""
    s = _norm_words(raw)
    if s in ("i", "me"):
        return "speaker", False
    if s in ("we", "us"):
        return "we", False
    if s in ("he", "she", "they"):
        return s, True
    first = s.split()[0]
    if first in ("my", "our", "his", "her", "their"):
        return s, first in ("his", "her", "their")
    if first in _NOT_NAMES:
        return None
    return s, False


def _value_kind(value: str, original: str) -> str:
    words = value.split()
    if not words:
        return "other"
    if all(w in _WEEKDAYS for w in words):
        return "weekday"
    if words[0] in _MONTHS:
        return "month"
    if re.fullmatch(r"\d{1,2}(?::\d{2})?\s*(?:am|pm|h)?|noon|midnight", value):
        return "time"
    if re.fullmatch(r"[\d.,]+%?", value):
        return "number"
    if all(w in _COLORS or w in ("dark", "light", "bright", "pale") for w in words):
        return "color"
    if original[:1].isupper():
        return "proper"
    return "other"


def _clean_value(raw: str) -> tuple[str, str]:
    """The value phrase without trailing qualifiers ("Berlin last month" -> "berlin"), plus
    the original spelling of what was kept (for the kind of value)."""
    text = raw.strip().replace("’", "'")
    lowered = text.lower()
    for filler in _LEADING_FILLERS:
        while lowered.startswith(filler):
            text, lowered = text[len(filler):], lowered[len(filler):]
    kept: list[str] = []
    for word in text.split():
        bare = word.strip("\"'`").lower()
        if kept and bare in _VALUE_STOP:
            break
        if not kept and bare in ("the", "a", "an", "on", "at", "in", "to"):
            continue
        if not kept and bare in _VALUE_STOP:
            break
        kept.append(word.strip("\"'`"))
        if len(kept) >= 5:
            break
    original = " ".join(kept)
    return _norm_words(original), original


def _attribute(raw: str) -> str:
    """The attribute's name: "my new phone number" is still the phone number ("new" only
    says the value changed, which is what makes it contradict the old value)."""
    attribute = _norm_words(raw)
    for prefix in _NEWNESS:
        if attribute.startswith(prefix) and len(attribute) > len(prefix):
            return attribute[len(prefix):]
    return attribute


def _negated(mid: str) -> bool:
    words = set(_norm_words(mid).split())
    return bool(words & _NEGATIONS) or "used to" in _norm_words(mid)


def _past_only(mid: str, verb: str) -> bool:
    """Past-tense statements ("I lived in Rome for a year") are history, not the current fact."""
    words = _norm_words(mid).split()
    if "used" in words:
        return False  # "used to live": a denial of the present, handled as negation
    return verb.lower() in ("lived", "worked") or any(w in ("was", "were", "had") for w in words)


_PREPOSITIONS = frozenset({"in", "to", "at", "from", "for", "with", "of", "by", "near", "into", "about", "on"})
_LEADING_SUBJECT = re.compile(r"^\W*(?:(?i:actually|well|so|now|oh|correction|update|btw)\W+)*" + _SUBJECT)


def _resolve_subject(sentence: str, m: re.Match, group: str, mid: str) -> str | None:
    """The subject a verb belongs to. A capitalised word right after a preposition is an
    object ("... in Paris and work at Google"): the verb then shares the sentence's subject."""
    before = sentence[: m.start(group)].split()
    if before and before[-1].lower() in _PREPOSITIONS:
        if "and" not in _norm_words(mid).split():
            return None
        lead = _LEADING_SUBJECT.match(sentence)
        return lead["subj"] if lead else None
    return m[group]


def _fact(subject_raw: str | None, attribute: str, value_raw: str, *, negated: bool, single: bool,
          require_proper: bool = False) -> Fact | None:
    if subject_raw is None:
        return None
    subject = _subject(subject_raw)
    if subject is None:
        return None
    value, original = _clean_value(value_raw)
    if not value:
        return None
    kind = _value_kind(value, original)
    if require_proper and kind != "proper":
        return None
    return Fact(subject=subject[0], attribute=attribute, value=value, negated=negated,
                single_valued=single, kind=kind, pronoun=subject[1])


_RESIDENCE_WORDS = ("liv", "resid", "mov", "relocat", "settled", "based")
_EMPLOYER_WORDS = ("work", "employed", "join", "started", "job")
_DIGIT = re.compile(r"\d")
_AGE_CUE = re.compile(r"(?i:am|'m|is|are|turned|turn|turning)\s+\d")
"""What `_AGE` cannot match without: its verb right before the number."""


def _sentence_facts(sentence: str) -> list[Fact]:
    # Each pattern runs only if a word it cannot match without occurs (a plain substring
    # test): the verb alternations are case-insensitive, so a lower-cased check is exact.
    lowered = sentence.lower()
    facts: list[Fact] = []
    residence = _RESIDENCE.finditer(sentence) if any(w in lowered for w in _RESIDENCE_WORDS) else ()
    for m in residence:
        if _past_only(m["mid"], m["verb"]):
            continue
        fact = _fact(_resolve_subject(sentence, m, "subj", m["mid"]), "residence", m["value"],
                     negated=_negated(m["mid"] + " " + m["value"]), single=True)
        if fact and fact.kind != "proper":  # "in a small flat": a place, but not where on the map
            fact = replace(fact, single_valued=False)
        if fact:
            facts.append(fact)
    employer = _EMPLOYER.finditer(sentence) if any(w in lowered for w in _EMPLOYER_WORDS) else ()
    for m in employer:
        group = "subj" if m["subj"] else "subj2"
        mid, verb, value = (m["mid"], m["verb"], m["value"]) if m["subj"] else (m["mid2"], m["verb2"], m["value2"])
        subj = _resolve_subject(sentence, m, group, mid)
        if _past_only(mid, verb):
            continue
        fact = _fact(subj, "employer", value, negated=_negated(mid + " " + value), single=True,
                     require_proper=True)
        if fact:
            facts.append(fact)
    ages = ((_AGE,) if _AGE_CUE.search(sentence) else ()) + ((_AGE_CONTRACTED,) if "'m" in sentence else ()) \
        if _DIGIT.search(sentence) else ()
    for pattern in ages:
        for m in pattern.finditer(sentence):
            fact = _fact(_resolve_subject(sentence, m, "subj", m["mid"]), "age", m["value"],
                         negated=_negated(m["mid"]), single=True)
            if fact:
                facts.append(fact)
    names = _NAME.finditer(sentence) if "name" in lowered or "call" in lowered or not sentence.isascii() else ()
    for m in names:
        fact = _fact("I", "name", m["value"], negated=False, single=True)
        if fact:
            facts.append(fact)
    for m in _POSSESSIVE.finditer(sentence):
        owner = m["owner"]
        attribute = _attribute(m["attr"])
        subject = "I" if owner.lower() == "my" else (owner[:-2] if owner.endswith("'s") else owner)
        single = attribute.startswith("favorite ") or attribute in _SINGLE_VALUED_ATTRIBUTES
        fact = _fact(subject, attribute, m["value"], negated=bool(m["neg"]), single=single)
        if fact:
            facts.append(fact)
    for m in _DEFINITE.finditer(sentence):
        attribute = _attribute(m["attr"])
        if attribute.split()[0] in _NOT_NAMES:
            continue
        value, original = _clean_value(m["value"])
        if not value:
            continue
        facts.append(Fact(subject="the " + attribute, attribute="state", value=value, negated=bool(m["neg"]),
                          single_valued=attribute.split()[-1] in _SINGLE_VALUED_ATTRIBUTES,
                          kind=_value_kind(value, original)))
    return facts


def extract_facts(text: str) -> list[Fact]:
    """The simple facts a text states, sentence by sentence, in order."""
    if not isinstance(text, str):
        raise InvalidArgument("text must be a string", argument="text")
    return list(_text_facts(text))


@lru_cache(maxsize=16_384)
def _text_facts(text: str) -> tuple[Fact, ...]:
    """Cached per text, like its changes: a pair check looks its two texts up."""
    return tuple(f for sentence in _SENTENCES.split(text) if sentence.strip() for f in _sentence_facts_cached(sentence))


@lru_cache(maxsize=65_536)
def _sentence_facts_cached(sentence: str) -> tuple[Fact, ...]:
    """The write path compares each new text with several old ones and an old one with
    many new ones: a sentence's facts (immutable) are read once, not once per pair."""
    return tuple(_sentence_facts(sentence))


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    wa, wb = a.split(), b.split()
    shorter, longer = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return bool(shorter) and longer[: len(shorter)] == shorter  # "berlin" vs "berlin germany"


def _compare(new: Fact, old: Fact) -> ContradictionVerdict:
    if (new.subject, new.attribute) != (old.subject, old.attribute):
        return NO_CONTRADICTION
    factor = PRONOUN_FACTOR if (new.pronoun or old.pronoun) else 1.0
    if _same_value(new.value, old.value):
        if new.negated != old.negated:
            return ContradictionVerdict(FACT_NEGATION * factor, "negation", new.attribute, old.value, new.value)
        return NO_CONTRADICTION
    if new.negated or old.negated:
        return NO_CONTRADICTION  # "not in Paris" vs "in Berlin": compatible
    if new.single_valued and old.single_valued:
        base = SINGLE_VALUED
    elif new.kind == old.kind and new.kind != "other":
        base = SAME_KIND
    else:
        base = LOOSE
    return ContradictionVerdict(base * factor, "different_value", new.attribute, old.value, new.value)


@lru_cache(maxsize=16_384)
def _is_negated_text(text: str) -> bool:
    """Whether the text is negated: an odd number of negations. Cached: a new memory is
    compared with several neighbours, and neighbours recur."""
    raw = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower().replace("’", "'"))
    return sum(1 for w in raw if w in _NEGATIONS or w.endswith("n't")) % 2 == 1


@lru_cache(maxsize=16_384)
def _content_words(text: str) -> frozenset[str]:
    """Content words (negations removed), stemmed. Only read when a sentence negation or
    a correction cue needs the overlap: stemming is most of a pair check's cost."""
    lowered = text.lower().replace("’", "'")
    words = {w for w in word_tokens(lowered) if w not in _NEGATIONS and not w.endswith("n't")}
    return frozenset(_SPELLING.get(w, w) for w in words)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


@lru_cache(maxsize=16_384)
def _has_correction_cue(text: str) -> bool:
    """Whether a sentence of the text that asks nothing says it corrects something ("Any more
    paintings coming up?" corrects nothing)."""
    statements = " ".join(s for s in _SENTENCES.split(text) if not s.rstrip().endswith("?"))
    lowered = " " + " ".join(re.findall(r"[a-z']+", statements.lower().replace("’", "'"))) + " "
    return any(f" {cue} " in lowered for cue in _CORRECTION_CUES)


# ---------------------------------------------------------------- change of value

_CHANGE_SUBJECT = (
    r"(?P<subj>\b(?:(?i:i|we|he|she|they)|(?i:my|our|his|her|their|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?|"
    r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))"
)
_CHANGE_VALUE = r"[^.,;!?:()\n]+?"
_REST = r"[^.,;!?:()\n]+"
_SWITCH_VERBS = (
    r"(?P<verb>(?i:switched|moved|migrated|changed|upgraded|downgraded|transitioned|converted|shifted|"
    r"relocated))"
)
_SWITCH = re.compile(
    _CHANGE_SUBJECT + _MID + r"\s+" + _SWITCH_VERBS + r"(?:\s+(?!(?i:from|to)\b)[\w'-]+){0,4}?"
    r"\s+(?i:from)\s+(?P<old>" + _CHANGE_VALUE + r")\s+(?i:to|into)\s+(?P<new>" + _REST + r")"
)
"""X changed from the old value to the new one ("we switched from Jenkins to GitHub Actions")."""
_SWITCH_BACK = re.compile(
    _CHANGE_SUBJECT + _MID + r"\s+" + _SWITCH_VERBS + r"(?:\s+(?!(?i:from|to)\b)[\w'-]+){0,4}?"
    r"\s+(?i:to|into)\s+(?P<new>" + _CHANGE_VALUE + r")\s+(?i:from)\s+(?P<old>" + _REST + r")"
)
"""The same, new value first ("I switched to Linux from Windows")."""
_REPLACE = re.compile(
    _CHANGE_SUBJECT + _MID + r"\s+(?P<verb>(?i:replaced|swapped|traded|exchanged|substituted))"
    r"\s+(?P<old>" + _CHANGE_VALUE + r")\s+(?i:with|for|by)\s+(?P<new>" + _REST + r")"
)
_INSTEAD = re.compile(r"(?P<new>\b[\w'-]+(?:\s+[\w'-]+){0,2})\s+(?i:instead\s+of)\s+(?P<old>" + _REST + r")")
_GIVE_UP = re.compile(
    _CHANGE_SUBJECT + _MID + r"\s+(?P<verb>(?i:left|sold|sold\s+off|cancell?ed|canceled|quit|dropped|ditched|"
    r"gave\s+up(?:\s+on)?|got\s+rid\s+of|stopped\s+using|resigned\s+from|retired\s+from|unsubscribed\s+from|"
    r"moved\s+out\s+of|moved\s+away\s+from|broke\s+up\s+with|divorced|uninstalled))"
    r"(?!\s+(?i:off|by|in|out|over|behind|early|late|on)\b)\s+(?P<old>" + _REST + r")"
)
"""The old value given up, nothing said of a new one ("I sold the Corolla")."""
_VERSION_UPGRADE = re.compile(
    r"\b(?i:upgraded|updated|downgraded|migrated|moved|switched|bumped|changed)\b(?:[^.;!?:\n]|\.(?=\d)){0,60}?"
    r"\b(?i:to)\s+(?i:version\s+)?(?P<thing>[A-Z][\w+#-]*)\s+(?P<version>v?\d+(?:\.\d+)*)\b"
    r"|\b(?i:upgraded|updated|downgraded|migrated|bumped)\s+(?:(?i:the|our|my)\s+)?(?P<thing2>[A-Z][\w+#-]*)"
    r"(?:\s+(?i:from)\s+v?\d+(?:\.\d+)*)?\s+(?i:to)\s+(?i:version\s+)?(?P<version2>v?\d+(?:\.\d+)*)\b"
)
"""A named thing moved to a version ("we upgraded the project to Python 3.12")."""

_SWITCH_WORDS = ("switched", "moved", "migrated", "changed", "upgraded", "downgraded", "transitioned",
                 "converted", "shifted", "relocated")
_REPLACE_WORDS = ("replaced", "swapped", "traded", "exchanged", "substituted")
_GIVE_UP_WORDS = ("left", "sold", "cancel", "quit", "dropped", "ditched", "gave up", "got rid", "stopped using",
                  "resigned", "retired", "unsubscribed", "moved out", "moved away", "broke up", "divorced",
                  "uninstalled")
_VERSION_WORDS = ("upgraded", "updated", "downgraded", "migrated", "moved", "switched", "bumped", "changed")
_PLANNED = frozenset({"will", "won't", "gonna", "going", "would", "should", "could", "might", "may"})
_ADVICE = _PLANNED | {"can", "try", "if", "maybe", "want", "wanna", "rather", "prefer", "suggest", "recommend"}
"""Before "instead of": a suggestion or a wish ("you can use oil instead of butter"), no change."""
_NAMED_ONLY_VERBS = frozenset({"left", "dropped"})
"""Given-up verbs whose common-noun objects are mostly no value held ("I left my keys at home")."""
_HISTORY = frozenset({"was", "were", "had", "visited", "went", "used", "ago", "once", "previously",
                      "formerly"})
"""In the old clause before a value: history ("I visited Paris"), which a change does not contradict."""
_VALUE_LEAD = frozenset({"the", "a", "an", "my", "our", "his", "her", "their", "your", "this", "that", "old",
                         "former", "previous", "current", "existing", "trusty", "beloved", "whole", "entire"})
_NOT_VALUES = frozenset({
    "it", "them", "him", "her", "me", "you", "us", "this", "that", "those", "these", "everything", "something",
    "anything", "nothing", "home", "work", "school", "early", "late", "behind", "alone", "here", "there",
    "out", "off", "up", "town", "bed", "one", "some", "all", "everyone", "someone", "way", "place", "house",
    "room", "things", "stuff", "lot", "bit",
})
"""Objects of "left", "quit", ... that are no value anyone holds ("I left early", "I left it there")."""
_CLAUSE_LEAD = frozenset({"the", "a", "an", "my", "our", "his", "her", "their", "your", "this", "that",
                          "these", "those", "so", "but", "and", "also", "actually", "well", "oh", "hey", "yes",
                          "no", "ok", "okay", "now", "then", "btw", "plus"})
_CLAUSE_BREAK = re.compile(r"[.,;!?:()\n]")
_LONG_AGO = re.compile(
    r"\b(?i:years\s+ago|when\s+(?:i|we)\s+(?:was|were)|as\s+a\s+(?:kid|child|teen|teenager)|back\s+then|"
    r"growing\s+up)\b"
)
"""A change told as a memory of long ago ("I left Sweden when I was young"), not as news."""
_SPEAKER = re.compile(r"^\s*([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*:\s")
"""A chat turn's speaker ("Caroline: I went ..."): "I" is someone else in another's turn."""
_NOT_SPEAKERS = frozenset({"note", "update", "correction", "fyi", "btw", "ps", "edit", "reminder", "todo",
                           "summary", "fact", "user", "q", "a"})
"""Labels that look like a speaker ("Update: we switched ...") but name nobody."""
_FIRST_PERSON = ("speaker", "we", "my ", "our ")


@dataclass(frozen=True)
class Change:
    """A change of value a text reports: who changed, the value given up, the one taken up."""

    subject: str | None
    """Normalised like `Fact.subject`; None when not read ("... instead of Jenkins")."""
    old: str = ""
    """Key words of the value given up ("toyota corolla"); empty for a version change."""
    named: bool = False
    """The value given up is a name or a number: recognisable wherever it is mentioned."""
    new: str = ""
    """Key words of the value taken up, when the text says ("github actions")."""
    thing: str = ""
    """A versioned thing ("python"), with the `version` it changed to ("3.12")."""
    version: str = ""
    pronoun: bool = False


def _value_key(raw: str) -> tuple[str, bool] | None:
    """Key words of a changed value and whether it is named ("my old Honda" -> "honda", True;
    "the LGBTQ support group" -> the whole phrase, False: a named modifier names no value)."""
    words = _clean_value(raw)[1].split()
    while words and words[0].lower() in _VALUE_LEAD:
        words.pop(0)
    if not words or all(w.lower() in _NOT_VALUES for w in words) or not word_tokens(" ".join(words)):
        return None
    named = [i for i, w in enumerate(words) if w[:1].isupper() or _DIGIT.search(w)]
    if named and named[-1] == len(words) - 1:
        return _norm_words(" ".join(words[named[0]:])), True
    return _norm_words(" ".join(words)), False


def _change_subject(raw: str | None) -> tuple[str | None, bool] | None:
    """The changer, normalised ("the standup" too: things move); (None, False) when
    unknown; None when not a subject."""
    if raw is None:
        return None, False
    if raw[:4].lower() == "the ":
        return _norm_words(raw), False
    words = raw.split()
    while len(words) > 1 and words[0].lower() in _NOT_NAMES:  # "Actually I", "Yesterday we"
        words.pop(0)
    return _subject(" ".join(words))


def _sentence_changes(sentence: str) -> list[Change]:
    """Each pattern family runs only if a word it cannot match without occurs, as for facts."""
    if sentence.rstrip().endswith("?") or _LONG_AGO.search(sentence):  # "should we switch ...?"
        return []
    lowered = sentence.lower()
    changes: list[Change] = []
    matches: list[re.Match] = []
    if any(w in lowered for w in _SWITCH_WORDS):
        matches += [*_SWITCH.finditer(sentence), *_SWITCH_BACK.finditer(sentence)]
    if any(w in lowered for w in _REPLACE_WORDS):
        matches += _REPLACE.finditer(sentence)
    if any(w in lowered for w in _GIVE_UP_WORDS):
        matches += _GIVE_UP.finditer(sentence)
    for m in matches:
        mid = _norm_words(m["mid"]).split()
        if _negated(m["mid"]) or _PLANNED.intersection(mid):
            continue
        subject = _change_subject(_resolve_subject(sentence, m, "subj", m["mid"]))
        old = _value_key(m["old"])
        if subject is None or old is None or (not old[1] and m["verb"].lower() in _NAMED_ONLY_VERBS):
            continue
        new = _value_key(m["new"]) if "new" in m.groupdict() and m["new"] else None
        changes.append(Change(subject[0], old[0], old[1], new[0] if new else "", pronoun=subject[1]))
    if "instead of" in lowered:
        for m in _INSTEAD.finditer(sentence):
            old, new = _value_key(m["old"]), _value_key(m["new"].split()[-1])  # "... with ArgoCD instead of"
            before = sentence[: m.start("old")]
            if old is not None and not _is_negated_text(before) and not _ADVICE.intersection(
                    _norm_words(before).split()):
                lead = _LEADING_SUBJECT.match(_SPEAKER.sub("", sentence))
                subject = _change_subject(lead["subj"] if lead else None) or (None, False)
                changes.append(Change(subject[0], old[0], old[1], new[0] if new else "", pronoun=subject[1]))
    if _DIGIT.search(sentence) and any(w in lowered for w in _VERSION_WORDS):
        for m in _VERSION_UPGRADE.finditer(sentence):
            thing, version = (m["thing"], m["version"]) if m["thing"] else (m["thing2"], m["version2"])
            lead = _LEADING_SUBJECT.match(_SPEAKER.sub("", sentence))
            subject = _change_subject(lead["subj"] if lead else None) or (None, False)
            changes.append(Change(subject[0], thing=thing.lower(), version=version.lower().lstrip("v"),
                                  pronoun=subject[1]))
    return changes


@lru_cache(maxsize=65_536)
def _sentence_changes_cached(sentence: str) -> tuple[Change, ...]:
    """A sentence's changes (immutable), read once like its facts."""
    return tuple(_sentence_changes(sentence))


def extract_changes(text: str) -> list[Change]:
    """The changes of value a text reports, sentence by sentence, in order."""
    if not isinstance(text, str):
        raise InvalidArgument("text must be a string", argument="text")
    return list(_text_changes(text))


@lru_cache(maxsize=16_384)
def _text_changes(text: str) -> tuple[Change, ...]:
    """Cached per text: most texts report no change, and a pair check should learn that
    from one lookup rather than from splitting the text again."""
    return tuple(c for sentence in _SENTENCES.split(text) if sentence.strip()
                 for c in _sentence_changes_cached(sentence))


@lru_cache(maxsize=16_384)
def _key_pattern(key: str) -> re.Pattern[str]:
    """Key words as they may occur in a lower-cased text, plural or not ("monday" finds "mondays")."""
    return re.compile(r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in key.split()) + r"(?:s|es)?(?![\w-])")


@lru_cache(maxsize=4_096)
def _version_pattern(thing: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(thing) + r"\s+(?:version\s+)?v?(\d+(?:\.\d+)*)\b")


def _lower(text: str) -> str:
    return text.lower().replace("’", "'")


def _held_at(lowered: str, start: int) -> bool:
    """Whether the value at `start` of a lower-cased text is held (used, owned, where something
    is), not what its clause is about, history or denied: "I drive a Toyota Corolla" holds the
    Corolla; "Jenkins is slow today" only speaks of Jenkins; "I visited Paris" is the past;
    "we don't use Jenkins" has given it up already."""
    before = _CLAUSE_BREAK.split(lowered[:start])[-1].split()
    return any(w not in _CLAUSE_LEAD for w in before) and not _HISTORY.intersection(before) and not any(
        w in _NEGATIONS or w.endswith("n't") for w in before)


def _names_as_value(key: str, lowered: str) -> bool:
    """Whether a lower-cased text holds `key` as a value somewhere (see `_held_at`)."""
    return any(_held_at(lowered, m.start()) for m in _key_pattern(key).finditer(lowered))


def _about_subject(change: Change, lowered: str) -> bool:
    """Whether the old text can be about the changer: "the standup moved from Monday to
    Friday" says nothing of "the dentist is on Monday"."""
    subject = change.subject
    if subject is None or change.pronoun or subject in ("speaker", "we"):
        return True
    words = [w for w in subject.split() if w not in _CLAUSE_LEAD]
    return not words or bool(_key_pattern(" ".join(words)).search(lowered))


def _speaker(text: str) -> str | None:
    m = _SPEAKER.match(text)
    return None if m is None or m[1].lower() in _NOT_SPEAKERS else m[1].lower()


def _other_speaker(change: Change, new_text: str, old_text: str) -> bool:
    """Whether "I" (or "my ...") of the change is not the old text's speaker."""
    if change.subject is not None and not change.subject.startswith(_FIRST_PERSON):
        return False
    new_speaker, old_speaker = _speaker(new_text), _speaker(old_text)
    return new_speaker is not None and old_speaker is not None and new_speaker != old_speaker


def _version_verdict(change: Change, lowered: str) -> ContradictionVerdict:
    """The old text holds the same thing at another version, and never names the new one
    ("I'm using Python 3.9" vs "we upgraded to Python 3.12")."""
    found = [(m[1].lstrip("v"), m.start()) for m in _version_pattern(change.thing).finditer(lowered)]
    versions = {version for version, start in found if _held_at(lowered, start)}
    if not versions or any(version == change.version for version, _ in found):
        return NO_CONTRADICTION
    factor = PRONOUN_FACTOR if change.pronoun else 1.0
    return ContradictionVerdict(CHANGE_VERSION * factor, "change", change.thing, min(versions), change.version)


def _change_verdict(new_text: str, old_text: str,
                    similarity: float | None) -> tuple[ContradictionVerdict, bool]:
    """The new text gives up a value the old one holds. Not when the old text already
    knows the new value or reports the same change, or denies the old value. Also whether
    the old text agrees: it names a value the new one changed to ("we deploy with ArgoCD"
    agrees with "we now deploy with ArgoCD instead of Jenkins")."""
    changes = _text_changes(new_text)
    if not changes:
        return NO_CONTRADICTION, False
    lowered = _lower(old_text)
    best, agrees = NO_CONTRADICTION, False
    for change in changes:
        if _other_speaker(change, new_text, old_text) or not _about_subject(change, lowered):
            continue
        if change.version:
            verdict = _version_verdict(change, lowered)
            best = verdict if verdict.confidence > best.confidence else best
            continue
        if change.new and _key_pattern(change.new).search(lowered):
            agrees = True
            continue
        if not _names_as_value(change.old, lowered):
            continue
        if any(o.old == change.old for o in _text_changes(old_text)):
            continue
        if change.named:
            confidence = CHANGE_NAMED
        else:
            related = _jaccard(_content_words(new_text), _content_words(old_text)) >= CORRECTION_MIN_OVERLAP or (
                similarity is not None and similarity >= CORRECTION_MIN_SIMILARITY)
            if not related:
                continue
            confidence = CHANGE_RELATED
        confidence *= PRONOUN_FACTOR if change.pronoun else 1.0
        if confidence > best.confidence:
            best = ContradictionVerdict(confidence, "change", None, change.old, change.new or None)
    return best, agrees


def detect_contradiction(new_text: str, old_text: str, similarity: float | None = None) -> ContradictionVerdict:
    """The strongest reason to believe `new_text` contradicts `old_text`.

    `similarity` is the embedding cosine of the two texts when the caller has it; it
    only gates the correction-cue heuristic (shared words stand in for it otherwise).
    """
    if not isinstance(new_text, str) or not isinstance(old_text, str):
        raise InvalidArgument("new_text and old_text must be strings", argument="new_text")
    if similarity is not None and not (-1.0 <= similarity <= 1.0 + 1e-9):
        raise InvalidArgument(f"similarity must be in [-1, 1], got {similarity!r}", argument="similarity")
    if of_other_times(new_text, old_text):
        return NO_CONTRADICTION
    best = NO_CONTRADICTION
    new_facts, old_facts = _text_facts(new_text), _text_facts(old_text)
    agreeing = False
    for nf in new_facts:
        for of in old_facts:
            verdict = _compare(nf, of)
            if verdict.confidence > best.confidence:
                best = verdict
            if (nf.subject, nf.attribute) == (of.subject, of.attribute) and _same_value(nf.value, of.value) \
                    and nf.negated == of.negated:
                agreeing = True

    change, agrees_with_change = _change_verdict(new_text, old_text, similarity)
    if change.confidence > best.confidence:
        best = change

    polarity_differs = _is_negated_text(new_text) != _is_negated_text(old_text)
    correcting = not agreeing and not agrees_with_change and _has_correction_cue(new_text)
    overlap = _jaccard(_content_words(new_text), _content_words(old_text)) if polarity_differs or correcting else 0.0
    if polarity_differs and overlap >= SENTENCE_NEGATION_OVERLAP and best.confidence < SENTENCE_NEGATION:
        best = ContradictionVerdict(SENTENCE_NEGATION, "negation")

    if correcting:
        related = overlap >= CORRECTION_MIN_OVERLAP if similarity is None else (
            similarity >= CORRECTION_CUE_MIN_SIMILARITY or overlap >= CORRECTION_MIN_OVERLAP)
        if related:
            closeness = overlap if similarity is None else max(overlap, similarity)
            confidence = min(CORRECTION_MAX, CORRECTION_BASE + 0.3 * max(0.0, min(1.0, closeness)))
            if confidence > best.confidence:
                best = ContradictionVerdict(confidence, "correction")

    # The same statement with another value in one slot, cue word or not (facts may "agree" on a
    # value they cut short: "is held in the Maple room" and "... Cedar room" both read "held").
    if best.confidence < SINGLE_VALUED and best.reason != "correction" and not agrees_with_change:
        restated = restated_with_new_value(new_text, old_text, similarity)
        if restated.confidence > best.confidence:
            best = ContradictionVerdict(restated.confidence, "new_value", None, restated.old_value,
                                        restated.new_value)
        # ... or a change of that value told as a move or a replacement ("moved to Mondays").
        moved = moved_to_new_value(new_text, old_text, similarity)
        if moved.confidence > best.confidence:
            best = ContradictionVerdict(moved.confidence, "new_value", None, moved.old_value, moved.new_value)
    return best


_TIME_FRAME = re.compile(
    r"\b(?P<which>last|this|next|previous|coming)\s+(?P<unit>year|term|semester|season|month|week|summer|winter|"
    r"spring|autumn|fall|time)\b|\b(?P<year>(?:19|20)\d\d)\b|\b(?P<ago>ago|used to)\b", re.IGNORECASE)


def _time_frames(text: str) -> frozenset[str]:
    """The times a text places itself in: "last year", "this term", "2023", a past ("ago")."""
    frames = set()
    for m in _TIME_FRAME.finditer(text):
        if m["which"]:
            which = {"previous": "last", "coming": "next"}.get(m["which"].lower(), m["which"].lower())
            frames.add(f"{which} {m['unit'].lower()}")
        elif m["year"]:
            frames.add(m["year"])
        else:
            frames.add("past")
    return frozenset(frames)


def of_other_times(new_text: str, old_text: str) -> bool:
    """Whether the two texts are placed in different times ("the conference was in Vienna last
    year" / "... is in Prague this year"; "last year the fair was on May 14" / "this year it is
    on May 20"): each holds for its own time, and neither replaces the other. A text with no
    time of its own is not placed."""
    new, old = _time_frames(new_text), _time_frames(old_text)
    return bool(new) and bool(old) and not new & old


_ATTRIBUTE_CUES = {
    "residence": "live lives living reside moved relocated settled based home",
    "employer": "work works working job joined employed company",
    "age": "age old years turned",
    "name": "name called",
}


def candidate_query(text: str) -> str | None:
    """Words that find older statements about the same subject and attribute in a lexical
    index ("I moved to Berlin" -> "live lives living ... moved ..."), since a contradiction is
    often not similar as a whole ("I live in Paris" vs "I moved to Berlin"), and for a change
    of value the value given up ("I sold the Corolla" -> "corolla"), and for a change by an
    amount, which names no value to find the older statement by, the words of the thing it
    changes ("the Dublin flight was moved up by two days" -> "dublin flight"). Any of these
    words finds a
    candidate; see `restatement_queries` for the older statements a text may restate. None:
    nothing read."""
    terms: dict[str, None] = {}
    for fact in _text_facts(text):
        cues = _ATTRIBUTE_CUES.get(fact.attribute)
        if cues is None:  # "my favorite color", "the team meeting": the attribute's own words
            cues = fact.subject.removeprefix("the ") if fact.attribute == "state" else fact.attribute
        terms.update(dict.fromkeys(cues.split()))
        if fact.subject not in ("speaker", "we") and fact.attribute != "state":
            terms.update(dict.fromkeys(w for w in fact.subject.split() if w not in _NOT_NAMES))
    for change in extract_changes(text):  # the value given up: old statements name it
        words = [change.thing] if change.version else change.old.split()
        if change.subject not in (None, "speaker", "we") and not change.pronoun:
            words += change.subject.split()  # "the standup moved from Monday to Friday"
        terms.update(dict.fromkeys(w for w in words if w not in _NOT_NAMES))
    for sentence in _SENTENCES.split(text):  # "the Dublin flight was moved up by two days": no value
        reading = move_reading(sentence) if sentence.strip() else None  # to find; the older names Dublin
        if reading is not None and reading.relative:
            terms.update(dict.fromkeys(t.word for t in reading.tokens if t.kind in ("word", "name")
                                       and t.word not in _NOT_NAMES))
    return " ".join(terms) or None


def restatement_queries(text: str) -> tuple[str, ...]:
    """For each sentence of the text that could restate an older one with another value, its
    content words ("The flight to Lisbon departs at 11:05" -> "flight departs"): an
    older statement it restates holds them all, whatever its value, and the dense neighbours
    may not find it similar enough (it holds another time). A lexical candidate must hold
    every word of one of them: one that lacks a word could only be judged a restatement with
    a similarity, which the dense neighbours bring; and words as common as "note" or
    "number", searched each alone, would bring the whole store to every write."""
    out: dict[str, None] = {}
    for sentence in restatable_sentences(text):
        tokens = sentence_tokens(sentence)
        anchors = anchor_words(tokens)
        words = dict.fromkeys(t.word for t in tokens if t.kind == "word" and t.key in anchors)
        if words:
            out[" ".join(words)] = None
    return tuple(out)


def contradicts(new_text: str, old_text: str, similarity: float | None = None) -> float:
    """Confidence in [0, 1] that `new_text` contradicts `old_text` (0: no sign of it)."""
    return detect_contradiction(new_text, old_text, similarity).confidence


READ_OVERLAP = 0.25
"""Share of content words two memories must have in common before the read path judges them
(`replaced_among`): most pairs of a retrieval share none, and are not read further."""


def replaced_among(memories: Sequence[tuple[str, str]], min_confidence: float) -> list[tuple[str, str]]:
    """(older id, newer id) for each pair of `memories` ((id, text), oldest first) in which the
    newer text contradicts the older at least `min_confidence`: the read path's own check, for
    statements whose write missed each other (told in another batch, or not among each other's
    nearest neighbours)."""
    words = [_content_words(text) for _, text in memories]
    out = []
    for j in range(1, len(memories)):
        for i in range(j):
            if _jaccard(words[i], words[j]) < READ_OVERLAP:
                continue
            if contradicts(memories[j][1], memories[i][1]) >= min_confidence:
                out.append((memories[i][0], memories[j][0]))
    return out
