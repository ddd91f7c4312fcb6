"""Keyword content-feature detection: what a memory is *about*, without an LLM.

The encoding model needs to know which content features a text carries
(novelty, procedure, emotion, social content, cooperation, ethical content,
contradiction, relevance to the current topic) and the text's own sentiment.
This is the fast `keyword` strategy: cue words and phrases, a few negations,
no model. Each feature is a score in [0, 1] rather than a flag so one weak cue
counts for less than several: every cue closes half the remaining gap
(1 cue 0.5, 2 cues 0.75, 3 cues 0.875). An LLM classifier can produce the same
`ContentFeatures` with its own confidences, and a boolean "present" is 1.0.

Two extra scores the reference feature set does not use for strength but the
pipeline can use for routing: `personal` (first-person statements and
preferences) and `prospective` (reminders, plans, deadlines).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, fields
from functools import lru_cache

from cogmem_graph.errors import InvalidArgument

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# ---------------------------------------------------------------- feature model


@dataclass(frozen=True)
class ContentFeatures:
    """Feature scores of one text. All in [0, 1] except `sentiment`, in [-1, 1]."""

    novelty: float = 0.0
    procedure: float = 0.0
    emotion: float = 0.0
    social: float = 0.0
    cooperation: float = 0.0
    ethical: float = 0.0
    contradiction: float = 0.0
    topic_relevance: float = 0.0
    sentiment: float = 0.0
    personal: float = 0.0
    prospective: float = 0.0

    def __post_init__(self) -> None:
        for name, low in _FEATURE_RANGES:
            value = getattr(self, name)
            if type(value) is float and low <= value <= 1.0:  # the common case, checked cheaply
                continue
            self._refuse(name, value, low)

    @staticmethod
    def _refuse(name: str, value: object, low: float) -> None:
        """Raise for a value that is not a finite number in range (ints in range pass)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidArgument(f"ContentFeatures.{name} must be a number, got {value!r}", argument=name)
        if not math.isfinite(value) or not low <= value <= 1.0:
            raise InvalidArgument(f"ContentFeatures.{name} must be in [{low:g}, 1], got {value!r}", argument=name)


_FEATURE_RANGES: tuple[tuple[str, float], ...] = tuple(
    (f.name, -1.0 if f.name == "sentiment" else 0.0) for f in fields(ContentFeatures))
NO_FEATURES = ContentFeatures()


# ---------------------------------------------------------------- lexicons


@dataclass(frozen=True, eq=False)
class _Lexicon:
    """Cue words (exact), stems (entries ending in '*', prefix match) and multi-word phrases.
    Compared and hashed by identity: each lexicon is a module constant, and hashing its word
    sets on every lookup was a tenth of scoring a text's features."""

    words: frozenset[str]
    stems: tuple[str, ...]
    phrases: tuple[str, ...]
    stem_pattern: re.Pattern[str] | None = None
    """All stems as one anchored alternation: one C-level match per token instead of a
    Python loop over the stems (features are scored for every memory written)."""
    phrases_by_head: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The phrases grouped by their first word: a phrase can only occur where that word does."""

    @classmethod
    def of(cls, spec: str) -> _Lexicon:
        """Parse a '|'-separated spec: `word`, `stem*` or `multi word phrase`."""
        words: set[str] = set()
        stems: list[str] = []
        phrases: list[str] = []
        for raw in spec.split("|"):
            entry = " ".join(raw.split()).lower()
            if not entry:
                continue
            if " " in entry:
                phrases.append(entry)
            elif entry.endswith("*"):
                stems.append(entry[:-1])
            else:
                words.add(entry)
        pattern = re.compile("|".join(re.escape(s) for s in stems)) if stems else None
        by_head: dict[str, list[str]] = {}
        for phrase in phrases:
            by_head.setdefault(phrase.split()[0], []).append(phrase)
        heads = tuple((head, tuple(group)) for head, group in by_head.items())
        return cls(frozenset(words), tuple(stems), tuple(phrases), pattern, heads)

    def matches(self, token: str) -> bool:
        return token in self.words or (self.stem_pattern is not None and self.stem_pattern.match(token) is not None)

    def phrase_count(self, joined: str, present: Collection[str]) -> int:
        """Occurrences of the multi-word cues in ` token token … ` text whose tokens are
        `present` (a phrase whose first word is absent cannot occur, so it is not searched)."""
        return sum(joined.count(f" {phrase} ") for head, group in self.phrases_by_head if head in present
                   for phrase in group)


NOVELTY = _Lexicon.of(
    "new | novel | first time | for the first time | never before | never seen | discover* | "
    "invent* | idea | ideas | innovat* | creative | creativity | surpris* | unexpected* | unusual | "
    "curious | curiosity | experiment* | explore | exploring | brainstorm* | breakthrough | "
    "learned | learnt | realized | realised | just found out | turns out | original | imagine"
)
PROCEDURE = _Lexicon.of(
    "how to | step | steps | first | then | next | finally | afterwards | procedure | process | "
    "workflow | instructions | checklist | install* | configur* | setup | set up | deploy* | "
    "run | execute | command | recipe | method | routine | make sure | in order to | "
    "always | never forget | guideline* | protocol | pipeline | schedule | plan | commit* | "
    "organi* | structure*"
)
POSITIVE = _Lexicon.of(
    "happy | happier | happiest | glad | joy | joyful | love | loved | loves | loving | great | "
    "wonderful | amazing | awesome | excellent | fantastic | delighted | excited | exciting | "
    "thrilled | grateful | thankful | proud | pleased | relieved | enjoy* | fun | beautiful | "
    "best | good | nice | liked | won | win | success* | celebrat* | hope | hopeful | "
    "calm | peaceful | cheerful | laugh* | smile* | perfect | brilliant"
)
NEGATIVE = _Lexicon.of(
    "sad | sadder | unhappy | angry | anger | furious | mad | upset | hate | hated | hates | "
    "terrible | awful | horrible | worst | bad | worse | afraid | scared | fear* | anxious | "
    "anxiety | worried | worry | stress* | depress* | lonely | miserable | disappoint* | "
    "frustrat* | annoy* | cried | cry | crying | tears | hurt | pain* | grief | griev* | "
    "lost | lose | losing | failed | fail | failure | disaster | tragic | tragedy | "
    "shock* | devastat* | ashamed | guilty | sorry | broke | broken | died | death | dead | "
    "sick | ill | accident | panic* | nightmare | crisis"
)
EMOTION_STATE = _Lexicon.of(
    "feel | feels | feeling | feelings | felt | emotion* | mood | heart | overwhelm* | "
    "nervous | moved | touched | passionate | desperate"
)
SOCIAL = _Lexicon.of(
    "friend* | family | families | mom | mum | mother | dad | father | parent* | sister* | "
    "brother* | son | daughter | kid | kids | child* | wife | husband | partner | boyfriend | "
    "girlfriend | colleague* | coworker* | boss | manager | team* | people | community | "
    "neighbo* | party | parties | wedding | meeting | met | visit* | talked | chatted | "
    "conversation* | together | group | club | dinner with | hang out | hung out | "
    "relationship* | social*"
)
COOPERATION = _Lexicon.of(
    "help | helped | helping | helpful | collaborat* | cooperat* | share | shared | sharing | "
    "support* | agree* | teamwork | assist* | volunteer* | contribut* | mentor* | "
    "work together | worked together | working together | team up | teamed up | joint | "
    "thanks | thank you | appreciate* | compromise | consensus | mutual"
)
ETHICAL = _Lexicon.of(
    "honest* | dishonest* | fair | unfair | fairness | justice | injustice | ethic* | moral* | "
    "immoral | lie | lied | lying | lies | cheat* | steal* | stole | trust | trusted | "
    "betray* | integrity | privacy | consent | responsib* | accountab* | transparen* | "
    "principle* | right thing | wrong thing | corrupt* | bias* | discriminat* | rights"
)
CONTRADICTION = _Lexicon.of(
    "actually | however | instead | contrary | correction | incorrect | mistaken | mistake | "
    "wrong | not anymore | no longer | changed my mind | change of plan | used to | "
    "rather than | contradict* | retract* | but now | that was wrong | i was wrong | "
    "not true | isn't true | turns out"
)
PERSONAL = _Lexicon.of(
    "i | i'm | i've | i'd | i'll | me | my | mine | myself | prefer* | favorite | favourite | "
    "my name | i like | i love | i hate | i want | i need | i am"
)
PROSPECTIVE = _Lexicon.of(
    "remind* | tomorrow | tonight | later | soon | upcoming | deadline* | due | "
    "next week | next month | next year | next time | plan to | planning to | going to | "
    "will | i'll | we'll | don't forget | do not forget | need to | have to | must | "
    "schedul* | appointment* | intend* | by monday | by tuesday | by wednesday | "
    "by thursday | by friday | by saturday | by sunday | by tomorrow | by the end"
)

NEGATORS = frozenset(
    "not no never without hardly barely nothing nobody neither nor cannot isn't aren't wasn't "
    "weren't don't doesn't didn't won't wouldn't can't couldn't shouldn't haven't hasn't hadn't".split()
)
NEGATION_WINDOW = 3
"""A sentiment word is negated when a negator occurs up to this many tokens before it."""


# ---------------------------------------------------------------- scoring


_LEXICONS: tuple[_Lexicon, ...] = (
    NOVELTY, PROCEDURE, SOCIAL, COOPERATION, ETHICAL, CONTRADICTION, PERSONAL, PROSPECTIVE,
)
_EMOTIONAL = len(_LEXICONS)
"""Index, in a token profile, of "any emotional word" (positive, negative or a feeling)."""


@lru_cache(maxsize=65_536)
def _token_profile(token: str) -> tuple[bool, ...]:
    """Membership of one word in each scored lexicon, then whether it is emotional."""
    emotional = POSITIVE.matches(token) or NEGATIVE.matches(token) or EMOTION_STATE.matches(token)
    return (*(lexicon.matches(token) for lexicon in _LEXICONS), emotional)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens with inner apostrophes kept ("don't", "i'm")."""
    return _TOKEN.findall(text.lower().replace("\u2019", "'"))


def cue_score(hits: int) -> float:
    """Turn a cue count into a score in [0, 1): each cue closes half the remaining gap."""
    if hits <= 0:
        return 0.0
    return 1.0 - 0.5**hits


def _is_negated(tokens: list[str], index: int) -> bool:
    start = max(0, index - NEGATION_WINDOW)
    return any(t in NEGATORS for t in tokens[start:index])


@lru_cache(maxsize=65_536)
def _polarity(token: str) -> int:
    """+1 for a positive word, -1 for a negative one (positive wins a tie), else 0; looked up
    once per distinct word."""
    return 1 if POSITIVE.matches(token) else -1 if NEGATIVE.matches(token) else 0


def sentiment_score(tokens: list[str]) -> float:
    """Content valence in (-1, 1): (positive - negative) / (positive + negative + 1).

    A negator shortly before a sentiment word flips it ("not happy" counts as negative),
    and the +1 keeps one stray word from claiming full certainty.
    """
    pos = neg = 0
    for i, token in enumerate(tokens):
        polarity = _polarity(token)
        if not polarity:
            continue
        is_pos, is_neg = polarity > 0, polarity < 0
        if _is_negated(tokens, i):
            is_pos, is_neg = is_neg, is_pos
        if is_pos:
            pos += 1
        else:
            neg += 1
    return (pos - neg) / (pos + neg + 1)


def topic_relevance(tokens: Iterable[str], topic_terms: Iterable[str]) -> float:
    """Share of the topic's terms that occur in the text, in [0, 1]; 0 without a topic."""
    topic = {t for term in topic_terms for t in tokenize(term)}
    if not topic:
        return 0.0
    return len(topic & set(tokens)) / len(topic)


def detect_features(text: str, topic_terms: Iterable[str] = ()) -> ContentFeatures:
    """Keyword strategy: score every content feature of `text`.

    `topic_terms` are words of the current conversation topic (e.g. the query or
    the thread's recent entities); without them topic relevance is 0.
    """
    tokens = tokenize(text)
    if not tokens:
        return NO_FEATURES
    joined = f" {' '.join(tokens)} "
    present = frozenset(tokens)
    # Which lexicons each token belongs to, looked up once per distinct word; then one
    # column sum per lexicon (features are scored for every memory written).
    columns = [sum(column) for column in zip(*map(_token_profile, tokens), strict=True)]
    singles = dict(zip(_LEXICONS, columns[:_EMOTIONAL], strict=True))

    def score(lexicon: _Lexicon) -> float:
        return cue_score(singles[lexicon] + lexicon.phrase_count(joined, present))

    emotion_hits = columns[_EMOTIONAL]
    return ContentFeatures(
        novelty=score(NOVELTY),
        procedure=score(PROCEDURE),
        emotion=cue_score(emotion_hits),
        social=score(SOCIAL),
        cooperation=score(COOPERATION),
        ethical=score(ETHICAL),
        contradiction=score(CONTRADICTION),
        topic_relevance=topic_relevance(tokens, topic_terms),
        sentiment=sentiment_score(tokens),
        personal=score(PERSONAL),
        prospective=score(PROSPECTIVE),
    )
