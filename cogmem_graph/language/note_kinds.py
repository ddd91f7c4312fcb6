"""The kind of observation a sentence makes, read from its cue words: a correction, a
commitment, a preference, something emotional (the feature lexicon's emotion) or creative;
a plain fact when it carries enough new information; filler ("sounds good", "ok thanks")
is no observation at all. The observer's keyword rules (`cognition/observation.py`) build
their notes from these readings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from cogmem_graph.language.contradiction import extract_facts
from cogmem_graph.language.entities import extract_entities
from cogmem_graph.language.features import cue_score, detect_features, tokenize


class NoteType(StrEnum):
    FACTUAL = "factual"
    EMOTIONAL = "emotional"
    COMMITMENT = "commitment"
    PREFERENCE = "preference"
    CREATIVE = "creative"
    CORRECTION = "correction"


TYPE_PRIORITY: tuple[NoteType, ...] = (
    NoteType.CORRECTION, NoteType.COMMITMENT, NoteType.PREFERENCE, NoteType.EMOTIONAL, NoteType.CREATIVE,
)
"""Tie-break between cue types of equal strength: what changes memory most comes first."""

_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_NUMBER = re.compile(r"\d")
_TIME_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight yesterday morning "
    "evening week weekend month year january february march april may june july august september october "
    "november december".split()
)


@dataclass(frozen=True)
class _Cues:
    """Cue words (exact), stems (ending in '*') and phrases, matched on word tokens."""

    words: frozenset[str]
    stems: tuple[str, ...]
    phrases: tuple[str, ...]

    @classmethod
    def of(cls, spec: str) -> _Cues:
        entries = [" ".join(e.split()).lower() for e in spec.split("|") if e.strip()]
        return cls(
            frozenset(e for e in entries if " " not in e and not e.endswith("*")),
            tuple(e[:-1] for e in entries if " " not in e and e.endswith("*")),
            tuple(e for e in entries if " " in e),
        )

    def hits(self, tokens: Sequence[str]) -> int:
        joined = f" {' '.join(tokens)} "
        n = sum(1 for t in tokens if t in self.words or any(t.startswith(s) for s in self.stems))
        return n + sum(joined.count(f" {p} ") for p in self.phrases)


CORRECTION_CUES = _Cues.of(
    "actually | correction | i was wrong | that was wrong | not anymore | no longer | changed my mind | "
    "change of plan | turns out | turned out | i meant | mistaken | retract* | scratch that | not true | "
    "isn't true | i misspoke | used to"
)
COMMITMENT_CUES = _Cues.of(
    "promise* | i will | i'll | we will | we'll | i'm going to | we're going to | need to | have to | must | "
    "deadline* | due | by monday | by tuesday | by wednesday | by thursday | by friday | by saturday | "
    "by sunday | by tomorrow | by tonight | by the end | by next | remind* | don't forget | do not forget | "
    "todo | action item | action items | plan to | planning to | decided | decide to | agreed to | "
    "commit to | committed to | schedul* | appointment*"
)
PREFERENCE_CUES = _Cues.of(
    "prefer* | favorite | favourite | i like | i love | hate | hates | dislike* | loathe* | i enjoy | i'd rather | "
    "i would rather | can't stand | cannot stand | my go-to | not a fan | big fan | i'm a fan | "
    "i don't like | i do not like | i usually | i always | i never"
)
CREATIVE_CUES = _Cues.of(
    "idea | ideas | what if | imagine | brainstorm* | invent* | creative | concept | experiment* | explore | "
    "prototype* | how about | maybe we could | we could try | wouldn't it be | novel | innovat* | "
    "daydream* | story idea"
)
FILLER_PHRASES = _Cues.of(
    "sounds good | sounds great | got it | thank you | thanks | no problem | you're welcome | makes sense | "
    "all right | alright | ok | okay | sure | great | cool | nice | perfect | awesome | fine | good | yes | no | "
    "yeah | yep | nope | hmm | hi | hello | hey | bye | goodbye | lol"
)


def note_sentences(text: str, min_words: int) -> Iterator[str]:
    """The sentences of a turn that may hold a note: stripped, each with at least `min_words`
    words besides filler."""
    for sentence in _SENTENCES.split(text):
        sentence = sentence.strip()
        if len(_without_filler(tokenize(sentence))) >= min_words:
            yield sentence


def _without_filler(tokens: list[str]) -> list[str]:
    """Tokens left once filler phrases are removed (longest phrases first)."""
    text = f" {' '.join(tokens)} "
    for phrase in sorted(FILLER_PHRASES.phrases, key=len, reverse=True):
        text = text.replace(f" {phrase} ", " ")
    return [t for t in text.split() if t not in FILLER_PHRASES.words]


def _cue_word(key: str) -> bool:
    """A capitalised cue ("Actually, ...") starts a sentence; it names nothing."""
    lexicons = (CORRECTION_CUES, COMMITMENT_CUES, PREFERENCE_CUES, CREATIVE_CUES, FILLER_PHRASES)
    return " " not in key and any(key in c.words or any(key.startswith(s) for s in c.stems) for c in lexicons)


def note_entities(sentence: str, limit: int) -> tuple[str, ...]:
    """The names a sentence mentions, cue words aside, at most `limit`."""
    return tuple(e.name for e in extract_entities(sentence) if not _cue_word(e.key))[:limit]


def information_density(sentence: str) -> int:
    """New information in a sentence: entities + numbers + stated facts + time words."""
    tokens = tokenize(sentence)
    entities = len(note_entities(sentence, 100))
    numbers = len(re.findall(r"\d+(?:[.,:]\d+)*", sentence))
    facts = len(extract_facts(sentence))
    times = len({t for t in tokens if t in _TIME_WORDS})
    return entities + numbers + facts + times


def _cue_scores(sentence: str, tokens: list[str]) -> dict[NoteType, float]:
    return {
        NoteType.CORRECTION: cue_score(CORRECTION_CUES.hits(tokens)),
        NoteType.COMMITMENT: cue_score(COMMITMENT_CUES.hits(tokens)),
        NoteType.PREFERENCE: cue_score(PREFERENCE_CUES.hits(tokens)),
        NoteType.EMOTIONAL: detect_features(sentence).emotion,
        NoteType.CREATIVE: cue_score(CREATIVE_CUES.hits(tokens)),
    }


def classify_sentence(sentence: str, min_fact_density: int) -> tuple[NoteType, float] | None:
    """The note type of one sentence and its importance, or None when it is no observation."""
    tokens = tokenize(sentence)
    scores = _cue_scores(sentence, tokens)
    best = max(TYPE_PRIORITY, key=lambda t: (scores[t], -TYPE_PRIORITY.index(t)))
    if scores[best] > 0.0:
        return best, scores[best]
    density = information_density(sentence)
    if density >= min_fact_density:
        return NoteType.FACTUAL, cue_score(density - 1)
    return None
