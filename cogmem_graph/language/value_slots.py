"""Silent updates: the same statement made again with another value in one slot.

"The dentist appointment is at 3 pm on Tuesday" and, days later, "The dentist appointment
on Tuesday is at 4:30 pm": no cue word says that anything changed, yet the second replaces
the first. Read as a template, each sentence is a frame (its content words) with value
slots (times, dates, numbers, prices, names, places). The newer sentence restates the older
one with another value when

1. **one slot changed**: the values the older sentence loses form one contiguous span, so do
   the values the newer one gains, and they are of one kind (a time for a time, a price for
   a number, a name for a name);
2. **the rest is the same**: the sentences share at least two words or unchanged values, and
   nearly all of their content words (Jaccard at least `SAME_FRAME`); or one sentence's
   content words are all in the other, whose own words stand apart from them ("the
   apartment we rent", not "the conference dinner") and the embedding similarity is high
   (`WIDER_FRAME_SIMILARITY`);
3. **the subject is the same**: the changed value is not who or what the sentence is about
   (a name that owns something — "Tom's" — or opens a clause before its verb: "On Fridays,
   Sara plays chess"; a number after the noun that opens the sentence: "Note 785: ...",
   "Room 204 costs ...", "Our locker 12 holds ..."; a capitalised word opening a sentence is never taken for a
   value), and the owners ("my sister's", "Leo's") are the same on both sides;
4. **a state, not an event**: neither sentence reports a past event ("I bought 3 kilos of
   apples" and "I bought 2 kilos" are two purchases), asks, or denies.

"My sister lives in Oslo" / "My brother lives in Rome" share one word of frame: two facts.
"The launch code for site 10 is V0010" / "... site 11 is V0011" change two separate slots:
two facts. Pure functions over text: no I/O, no model; the similarity, when there is one,
comes from the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.speakers import speaker_of, turn_body
from cogmem_graph.text import STOPWORDS, stem

__all__ = [
    "NO_RESTATEMENT",
    "possessors",
    "Restatement",
    "SlotChange",
    "Token",
    "anchor_words",
    "changed_slot",
    "reports_past_event",
    "restatable_sentences",
    "restated_with_new_value",
    "same_frame",
    "sentence_tokens",
    "sentences",
    "states",
]

SAME_FRAME = 0.75
"""Jaccard of the two sentences' words outside the changed slot at or above which they are
one statement."""
WIDER_FRAME_SIMILARITY = 0.7
"""One sentence's content words all in the other, the other's own words apart from them (it
says a little more: "the apartment we rent") and the texts' embedding similarity at least
this: one statement."""
MIN_SHARED = 2
"""Words (or unchanged values) both sentences must share: "Bye Mel!" / "Bye Melanie!" is no fact."""
SAME_FRAME_CONFIDENCE = 0.75
WIDER_FRAME_CONFIDENCE = 0.6

# ---------------------------------------------------------------- vocabulary

_WEEKDAYS = {d: d for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}
_WEEKDAYS |= {d + "s": d for d in list(_WEEKDAYS)} | {"weekend": "weekend", "weekends": "weekend"}
_RELATIVE_DAYS = frozenset({"today", "tonight", "tomorrow", "yesterday"})
_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})
_MONTHS_CAPITALISED_ONLY = frozenset({"may", "march"})
"""Months that are common words too: a month only when capitalised."""
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
                 "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
                 "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_CURRENCY_WORDS = frozenset({"euro", "euros", "dollar", "dollars", "pound", "pounds", "usd", "eur", "gbp", "bucks",
                             "francs", "kroner", "krona", "yen", "chf"})
_CLOCK_WORDS = frozenset({"am", "pm", "o'clock", "oclock", "h"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st"})
_RESTATING = frozenset(stem(w) for w in (
    "now", "currently", "still", "actually", "new", "updated", "latest", "current", "anymore", "already",
    "instead", "also", "really", "officially", "again"))
"""Words (stemmed) that say a statement holds now, not what it is about."""
_NOT_POSSESSIVE = frozenset({"it's", "that's", "he's", "she's", "what's", "there's", "here's", "let's", "who's",
                             "where's", "when's", "how's", "everyone's", "everything's", "today's"})
_FUNCTION_WORDS = STOPWORDS | {"per", "via", "a", "an"}
_GREETINGS = frozenset({"hey", "hi", "hello", "thanks", "thank", "wow", "congrats", "congratulations", "bye",
                        "dear", "oh", "yes", "yeah", "sorry", "welcome", "morning", "evening", "night"})
_JOINERS = frozenset({",", "-", "of", "at", "on", "the", "around", "about"})
"""What may stand between the parts of one value ("the 14th of June", "Tuesday at 3 pm")."""
_AFTER_AN_OBJECT = frozenset({
    ",", ".", ";", ":", "(", ")", "!", "?", "at", "on", "in", "for", "from", "to", "with", "by", "near", "of",
    "this", "next", "every", "each", "until", "since", "before", "after", "instead", "now", "today", "tonight",
    "tomorrow", "starting", "during", "per", "a", "an", "the", "because", "as",
})
"""What follows a name that is the value of a sentence, not its subject ("... is Chloe on Fridays")."""
_DETERMINERS = frozenset({"the", "our", "my", "your", "their", "his", "her", "its", "this", "that"})
"""Words before a noun: "our locker 12" names a locker, "I take 20" takes an amount."""
_IMPERATIVES = frozenset({"take", "give", "buy", "add", "use", "send", "bring", "pay", "drink", "eat", "make", "get",
                          "put", "keep", "order", "book", "allow", "wait", "set", "feed", "water", "walk", "run",
                          "do", "pack", "print", "leave", "reserve", "save", "charge"})
"""Verbs a sentence opens with as an instruction: "Take 3 pills" takes an amount, where
"Room 204 costs" names a room."""
_BE = frozenset({"is", "are", "was", "were", "be", "been", "am"})
_CLAUSE_OPENERS = frozenset({"and", "but", "so", "then", "while", "when", "because", "if", "though", "although"})
_NEGATIONS = frozenset({"not", "no", "never", "nobody", "nothing", "neither", "nor", "cannot"})
_PRESENT = frozenset({"is", "are", "am", "will", "gonna", "going", "shall", "now", "currently",
                      "usually", "always", "every", "each", "starts", "opens", "closes", "costs", "begins", "ends",
                      "runs", "leaves", "departs", "arrives", "meets", "takes", "lives", "works", "has", "have",
                      "need", "needs", "due", "get", "gets", "do", "does", "can", "must", "should"})
"""Auxiliaries, adverbs of the present, and verbs of schedules and prices in the present tense."""
_PAST = frozenset({
    "was", "were", "did", "had", "went", "ran", "bought", "saw", "got", "made", "took", "came", "met", "ate",
    "paid", "spent", "told", "said", "gave", "found", "won", "lost", "sold", "flew", "drove", "wrote", "heard",
    "felt", "thought", "brought", "built", "caught", "taught", "learnt", "swam", "sang", "yesterday", "ago",
})
"""Irregular pasts and past-time words; with a word in -ed they mark a past event unless a word of
the present stands beside them."""
_NOT_PAST = frozenset({"need", "feed", "seed", "indeed", "speed", "bed", "red", "shed", "weed", "hundred",
                       "scheduled", "planned", "based", "located", "supposed", "expected", "used"})
"""Words in -ed that tell of no past event ("the call is scheduled" is a plan)."""
_PRESENT_CONTRACTIONS = ("'m", "'re", "'ll")

_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)\s+|\n+")
"""Between sentences: after an end mark and its space, not after a title ("Dr. Haddad")."""
_HAS_DIGIT = re.compile(r"\d")
_CLOCK_TIME = re.compile(r"\d{1,2}:\d{2}")
_ORDINAL = re.compile(r"(\d{1,2})(?:st|nd|rd|th)")
_YEAR = re.compile(r"(?:19|20)\d\d")
_PLAIN_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_AM_PM = re.compile(r"\b([ap])\.m\.?", re.IGNORECASE)
_TOKEN = re.compile(
    r"[$€£]\s?\d[\d,]*(?:\.\d+)?"  # a price with its currency sign
    r"|\d[\w,.:/-]*\d[a-z%]*|\d[a-z%]*"  # numbers, times, dates, codes, ordinals, percentages
    r"|[A-Za-z][\w'-]*"  # words, possessives, contractions, codes that start with a letter
    r"|[,;:()\-]"  # clause punctuation
)
_CLOCK = re.compile(r"(\d{1,2})(?::(\d{2}))?")
_MAYBE_VALUE = re.compile(
    r"[\d$€£]|(?<=\w)[^\w.!?]+[A-Z]|\b(?i:" + "|".join(sorted(
        [*_WEEKDAYS, *_RELATIVE_DAYS, *_MONTHS, *_NUMBER_WORDS, "noon", "midday", "midnight", "every", "once",
         "twice", "thrice", "daily", "nightly", "weekly", "fortnightly", "biweekly", "monthly", "yearly", "annually"],
        key=len, reverse=True))
    + r")\b")
"""What any value needs (a digit, a currency sign, a capital past the first word, a day, month,
number or frequency word): most sentences hold none and are not tokenised at all."""


# ---------------------------------------------------------------- tokens


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a sentence as a template sees it."""

    key: str
    """What is compared: a stem for a word, a normalised value ("19:00", "1450", "friday")."""
    kind: str
    """word, function (a stopword), punct, or a value kind: time, day, date, year, number,
    money, percent, code, name."""
    position: int
    word: str = ""
    """The token as written, lower-cased (a possessive without its 's)."""
    possessor: bool = False
    """Owns what follows ("Tom's", "my sister's")."""

    @property
    def is_value(self) -> bool:
        return self.kind not in ("word", "function", "punct")


_VALUE_CLASS = {"time": "when", "day": "when", "date": "when", "year": "when", "frequency": "often", "number": "amount",
                "money": "amount", "percent": "amount", "code": "amount", "name": "name"}
"""Kinds that may replace one another: a time for a day, a price for a plain number."""


def _clock(raw: str, suffix: str) -> str:
    m = _CLOCK.fullmatch(raw)
    if m is None:
        return raw
    hour, minute = int(m[1]), int(m[2] or 0)
    if suffix == "pm" and hour < 12:
        hour += 12
    elif suffix == "am" and hour == 12:
        hour = 0
    return f"{hour}:{minute:02d}"


def _number_token(raw: str, following: str) -> tuple[str, str]:
    """(kind, key) of a token holding a digit."""
    if raw[0] in "$€£":
        return "money", raw[1:].strip().replace(",", "")
    if following in ("am", "pm"):
        return "time", _clock(raw, following)
    if _CLOCK_TIME.fullmatch(raw):
        return "time", _clock(raw, "")
    if following in _CURRENCY_WORDS:
        return "money", raw.replace(",", "")
    if m := _ORDINAL.fullmatch(raw):
        return "date", m[1]
    if raw.endswith("%"):
        return "percent", raw[:-1]
    if _YEAR.fullmatch(raw):
        return "year", raw
    if _PLAIN_NUMBER.fullmatch(raw):
        return "number", raw.replace(",", "")
    return "code", raw.lower()


@lru_cache(maxsize=16_384)
def _word_token(raw: str, first: bool) -> tuple[str, str, bool]:
    """(kind, key, possessor) of a word; cached, as most words recur from sentence to sentence."""
    lowered = raw.lower()
    possessor = lowered.endswith("'s") and lowered not in _NOT_POSSESSIVE
    bare = lowered[:-2] if possessor else lowered.rstrip("'")
    if bare in _WEEKDAYS:
        return "day", _WEEKDAYS[bare], possessor
    if bare in _RELATIVE_DAYS:
        return "day", bare, possessor
    if bare in _MONTHS and (bare not in _MONTHS_CAPITALISED_ONLY or raw[0].isupper()):
        return "date", bare, possessor
    if bare in _NUMBER_WORDS:
        return "number", str(_NUMBER_WORDS[bare]), possessor
    if bare in ("noon", "midday"):
        return "time", "12:00", possessor
    if bare == "midnight":
        return "time", "0:00", possessor
    if _HAS_DIGIT.search(bare):
        return "code", bare, possessor
    if raw[0].isupper() and not first and raw not in ("I", "I'm", "I'd", "I've", "I'll") and bare not in _TITLES:
        return "name", stem(bare), possessor  # (a capital opening a sentence names nothing for sure)
    if bare in _FUNCTION_WORDS or len(bare) < 2:
        return "function", bare, possessor
    return "word", stem(bare), possessor


@lru_cache(maxsize=16_384)
def sentence_tokens(sentence: str) -> tuple[Token, ...]:
    """The sentence's tokens: words stemmed, values normalised ("4:30 pm" -> "16:30", "$1,450"
    -> "1450", "Fridays" -> "friday"); am/pm and currency words fold into their number.
    Cached for the sentences a batch of new memories meets again among its neighbours. A
    sentence's tokens take ~2 KiB: 16,384 of them hold ~35 MiB, where 65,536 held ~140 MiB
    of a long-running process (100,000 memories ingested: 1,188 against 1,309 MiB) and saved
    23,000 of 122,000 tokenisations there, ~7 s of a ~330 s ingest."""
    text = sentence.replace("’", "'")
    if "." in text:  # (what `_AM_PM` cannot match without)
        text = _AM_PM.sub(r"\1m", text)
    raws = _TOKEN.findall(text)  # (the pattern has no groups: whole tokens)
    lowered = [raw.lower() for raw in raws] + [""]
    out: list[Token] = []
    skip = False
    opened = False  # a word or value came before (the first word's capital names nothing)
    for i, raw in enumerate(raws):
        if skip:
            skip = False
            continue
        following = lowered[i + 1]
        if raw[0].isdigit() or raw[0] in "$€£":
            kind, key = _number_token(raw, following)
            skip = kind in ("time", "money") and (following in _CLOCK_WORDS or following in _CURRENCY_WORDS)
            out.append(Token(key, kind, len(out), lowered[i]))
            opened = True
        elif raw[0].isalpha():
            word = lowered[i]
            if word in _CLOCK_WORDS and out and out[-1].kind in ("number", "time"):
                continue  # "at 7 o'clock"
            kind, key, possessor = _word_token(raw, not opened)  # (positional: the cache's cheaper key)
            opened = True
            possessor = possessor and following[:1].isalpha()  # "at Luigi's." is a place, not an owner
            out.append(Token(key, kind, len(out), word[:-2] if possessor else word, possessor))
        else:
            out.append(Token(raw, "punct", len(out), raw))
    return tuple(_without_vocatives(_with_frequencies(out)))


_PERIODS = {"day": 1.0, "days": 1.0, "morning": 1.0, "mornings": 1.0, "evening": 1.0, "evenings": 1.0,
            "night": 1.0, "nights": 1.0, "week": 7.0, "weeks": 7.0, "fortnight": 14.0, "month": 30.0,
            "months": 30.0, "year": 365.0, "years": 365.0}
_PER_PERIOD = {"daily": ("1", 1.0), "nightly": ("1", 1.0), "weekly": ("1", 7.0), "fortnightly": ("1", 14.0),
               "biweekly": ("1", 14.0), "monthly": ("1", 30.0), "yearly": ("1", 365.0), "annually": ("1", 365.0)}
_TIMES = {"once": "1", "twice": "2", "thrice": "3"}


def _frequency(count: str, days: float) -> str:
    """One key for one rate: "every other week", "every two weeks" and "fortnightly" are one."""
    return f"{float(count) / days:.4g}/day"


def _with_frequencies(tokens: list[Token]) -> list[Token]:
    """How often, read as one value: "every week", "every other day", "every two weeks", "twice a
    month", "3 times per week", "once a fortnight", "weekly" (a "frequency" token whose key is the
    rate per day, so that "every week" and "once a week" are the same value). "Monthly" before a
    noun names a kind of thing ("the monthly budget"), and after an amount its unit ("1,600 euros
    monthly"), not a rate of its own."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        window = [x.word for x in tokens[i:i + 4]] + ["", "", "", ""]
        made: tuple[str, int] | None = None
        if t.word == "every":
            if window[1] in _PERIODS:
                made = (_frequency("1", _PERIODS[window[1]]), 2)
            elif window[1] == "other" and window[2] in _PERIODS:
                made = (_frequency("1", 2 * _PERIODS[window[2]]), 3)
            elif tokens[i + 1:i + 2] and tokens[i + 1].kind == "number" and window[2] in _PERIODS:
                made = (_frequency("1", float(tokens[i + 1].key) * _PERIODS[window[2]]), 3)
        elif t.word in _PER_PERIOD and not (i + 1 < len(tokens) and tokens[i + 1].kind == "word") \
                and not (out and out[-1].kind in ("money", "number")):
            count, days = _PER_PERIOD[t.word]  # (not "the monthly budget", nor "1,600 euros monthly")
            made = (_frequency(count, days), 1)
        elif t.word in _TIMES or (t.kind == "number" and window[1] == "times"):
            count = _TIMES.get(t.word, t.key)
            skip = 1 if t.word in _TIMES else 2
            if window[skip] in ("a", "per", "each", "every") and window[skip + 1] in _PERIODS:
                made = (_frequency(count, _PERIODS[window[skip + 1]]), skip + 2)
        if made is None:
            out.append(Token(t.key, t.kind, len(out), t.word, t.possessor))
            i += 1
            continue
        key, width = made
        out.append(Token(key, "frequency", len(out), " ".join(x.word for x in tokens[i:i + width])))
        i += width
    return out


def _without_vocatives(tokens: list[Token]) -> list[Token]:
    """Names the sentence speaks to ("Thanks, Melanie!", "Wow, John, that's great") are no
    values of it: a name after a greeting or a comma (not in a list of values), before a
    comma or the end."""
    out = list(tokens)
    for i, t in enumerate(tokens):
        if t.kind != "name":
            continue
        end = i
        while end + 1 < len(tokens) and tokens[end + 1].kind == "name":
            end += 1
        before = tokens[i - 1] if i else None
        after = tokens[end + 1] if end + 1 < len(tokens) else None
        listed = before is not None and before.key == "," and i >= 2 and tokens[i - 2].is_value
        if (before is not None and (before.key == "," or before.word in _GREETINGS) and not listed
                and (after is None or after.key == ",")):
            for j in range(i, end + 1):
                out[j] = Token(tokens[j].key, "function", j, tokens[j].word)
    return out


def sentences(text: str) -> list[str]:
    """The sentences of a text's body (a transcript's "Speaker: " left out), titles such as
    "Dr." not taken for a sentence's end."""
    return [s for s in _SENTENCE_BREAK.split(turn_body(text)) if s and s.strip()]


# ---------------------------------------------------------------- the parts of the rule


@dataclass(frozen=True)
class SlotChange:
    """The one value slot in which two sentences differ."""

    old: tuple[Token, ...]
    new: tuple[Token, ...]


def _one_span(tokens: tuple[Token, ...], changed: list[Token]) -> bool:
    """Whether the changed tokens stand together: only joiners between them."""
    first, last = changed[0].position, changed[-1].position
    keys = {t.position for t in changed}
    return all(t.position in keys or t.key in _JOINERS for t in tokens[first:last + 1])


def _verb_like(token: Token) -> bool:
    """A word that can follow a numbered thing as its verb ("costs", "has"); a form of "be"
    is left out: "Python 3 is ..." may state a version."""
    return token.kind == "word" or token.kind == "function" and token.key not in _BE


def _numbers_the_subject(tokens: tuple[Token, ...], span: tuple[Token, ...]) -> bool:
    """Whether a changed whole number or code says which thing the sentence is about: it
    follows the word that opens the sentence and a colon or a content word follows it ("Note
    785: ...", "Room 204 costs ...", unless that word is an instruction: "Take 3 pills"), or it
    follows a noun that a determiner opens the sentence with ("Our locker 12 holds ...").
    Locker 12 and locker 19 are two lockers; "I take 20 mg" (a
    verb before the number) and "Python 3.12" (a version, not a whole number) hold values."""
    if not all(t.kind == "code" or t.kind == "number" and t.key.isdigit() for t in span):
        return False
    opening = tokens[:span[0].position]
    after = tokens[span[-1].position + 1] if span[-1].position + 1 < len(tokens) else None
    if len(opening) == 1:  # "Note 785: ...", "Room 204 costs ...", not "Python 3 is ..."
        return (opening[0].kind == "word" and after is not None
                and (after.key == ":" or _verb_like(after) and opening[0].word not in _IMPERATIVES))
    return (len(opening) == 2 and opening[0].word in _DETERMINERS and opening[1].kind == "word"
            and (after is None or not after.is_value))


def _subject_like(tokens: tuple[Token, ...], span: tuple[Token, ...]) -> bool:
    """Whether a changed value is who or what the sentence is about, not a value of it: a
    number that names the thing (see `_numbers_the_subject`), or a name that owns something
    ("Tom's") or opens a clause (the sentence, or after a comma or a conjunction) with its
    verb following ("On Fridays, Sara plays chess"). A name after a preposition or an
    article ("at the Cedar room", "is Chloe") is a value."""
    if _numbers_the_subject(tokens, span):
        return True
    if not any(t.kind == "name" for t in span):
        return False
    if any(t.possessor for t in span):
        return True
    start, end = span[0].position, span[-1].position
    before = tokens[start - 1] if start else None
    if before is not None and before.kind != "punct" and before.word not in _CLAUSE_OPENERS:
        return False
    after = tokens[end + 1] if end + 1 < len(tokens) else None
    return before is None or (after is not None and after.kind != "punct" and after.key not in _AFTER_AN_OBJECT
                              and not after.is_value)


def changed_slot(old: tuple[Token, ...], new: tuple[Token, ...]) -> SlotChange | None:
    """The single value slot the newer sentence fills differently, or None: no value lost or
    none gained, values changed in separate places, of unlike kinds, or in the subject."""
    old_keys = {t.key for t in old if t.kind != "punct"}
    new_keys = {t.key for t in new if t.kind != "punct"}
    lost = [t for t in old if t.is_value and t.key not in new_keys]
    gained = [t for t in new if t.is_value and t.key not in old_keys]
    if not lost or not gained or not _one_span(old, lost) or not _one_span(new, gained):
        return None
    if not {_VALUE_CLASS[t.kind] for t in lost} & {_VALUE_CLASS[t.kind] for t in gained}:
        return None
    span_old = old[lost[0].position: lost[-1].position + 1]
    span_new = new[gained[0].position: gained[-1].position + 1]
    if _subject_like(old, span_old) or _subject_like(new, span_new):
        return None
    return SlotChange(tuple(lost), tuple(gained))


def anchor_words(tokens: tuple[Token, ...], change: tuple[Token, ...] = ()) -> frozenset[str]:
    """What a sentence is about, outside a changed slot: its content words and unchanged
    values, without the words that only say the statement holds now."""
    skip = {t.position for t in change}
    return frozenset(t.key for t in tokens if t.kind not in ("function", "punct") and t.position not in skip
                     and t.key not in _RESTATING)


def _content_words(tokens: tuple[Token, ...], other: tuple[Token, ...]) -> frozenset[str]:
    """A sentence's content words, and its capitalised words that the other sentence writes in
    lower case ("Hotel check-in opens ..." / "Check-in at the hotel opens ...")."""
    lowered = {t.key for t in other if t.kind == "word"}
    return frozenset(t.key for t in tokens if t.key not in _RESTATING and (
        t.kind == "word" or t.kind == "name" and t.key in lowered))


def _stands_apart(tokens: tuple[Token, ...], words: frozenset[str], shared: frozenset[str]) -> bool:
    """Whether each of `words` stands apart from the shared words: an added word next to one
    narrows what the sentence is about ("the conference dinner", "the school bus"); one in a
    clause of its own ("the apartment we rent") does not."""
    for t in tokens:
        if t.key in words:
            around = tokens[max(0, t.position - 1): t.position + 2]
            if any(n.position != t.position and n.key in shared for n in around):
                return False
    return True


def same_frame(old: tuple[Token, ...], new: tuple[Token, ...], change: SlotChange,
               similarity: float | None) -> float:
    """Confidence that two sentences make one statement, by what they share outside the
    changed slot: `SAME_FRAME_CONFIDENCE` when their content words are nearly the same,
    `WIDER_FRAME_CONFIDENCE` when one sentence's content words are all in the other, the
    others stand apart (see `_stands_apart`) and the texts are close; else 0."""
    if len(anchor_words(old, change.old) & anchor_words(new, change.new)) < MIN_SHARED:
        return 0.0
    old_words, new_words = _content_words(old, new), _content_words(new, old)
    if not old_words or not new_words:
        old_words, new_words = anchor_words(old, change.old), anchor_words(new, change.new)
    shared = old_words & new_words
    if len(shared) / len(old_words | new_words) >= SAME_FRAME:
        return SAME_FRAME_CONFIDENCE
    if shared not in (old_words, new_words) or similarity is None or similarity < WIDER_FRAME_SIMILARITY:
        return 0.0
    if not (_stands_apart(old, old_words - shared, shared) and _stands_apart(new, new_words - shared, shared)):
        return 0.0
    return WIDER_FRAME_CONFIDENCE


def possessors(tokens: tuple[Token, ...], change: tuple[Token, ...]) -> frozenset[str]:
    """Who owns what the sentence speaks of ("my sister's", "Tom's"), outside a changed slot."""
    skip = {t.position for t in change}
    return frozenset(t.key for t in tokens if t.possessor and t.position not in skip)


def reports_past_event(tokens: tuple[Token, ...]) -> bool:
    """A past event ("I bought 3 kilos of apples"), not a state or a plan: a word of the past
    and none of the present. Two events with other values are two events."""
    words = {t.word for t in tokens if t.kind != "punct"}
    past = bool(words & _PAST) or any(w.endswith("ed") and len(w) > 4 and w not in _NOT_PAST for w in words)
    present = bool(words & _PRESENT) or any(w.endswith(_PRESENT_CONTRACTIONS) for w in words)
    return past and not present


def states(tokens: tuple[Token, ...]) -> bool:
    """Whether the sentence can state a current value: not a past event, not denied."""
    return not reports_past_event(tokens) and not any(
        t.word in _NEGATIONS or t.word.endswith("n't") for t in tokens)


# ---------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class Restatement:
    """How sure we are that a newer text restates an older one with another value."""

    confidence: float
    old_value: str = ""
    new_value: str = ""


NO_RESTATEMENT = Restatement(0.0)


def restated_with_new_value(new_text: str, old_text: str, similarity: float | None = None) -> Restatement:
    """The strongest sentence pair in which `new_text` restates `old_text` with another value
    in one slot (see the module's rule); `NO_RESTATEMENT` when none does. Texts of two
    different speakers never restate each other."""
    if not isinstance(new_text, str) or not isinstance(old_text, str):
        raise InvalidArgument("new_text and old_text must be strings", argument="new_text")
    if speaker_of(new_text) != speaker_of(old_text):
        return NO_RESTATEMENT
    old_sentences = restatable_sentences(old_text)
    if not old_sentences:  # (the new text is not read at all)
        return NO_RESTATEMENT
    best = NO_RESTATEMENT
    for new_sentence in restatable_sentences(new_text):
        new = sentence_tokens(new_sentence)
        for old_sentence in old_sentences:
            old = sentence_tokens(old_sentence)
            change = changed_slot(old, new)
            if change is None or possessors(old, change.old) != possessors(new, change.new):
                continue
            confidence = same_frame(old, new, change, similarity)
            if confidence > best.confidence:
                best = Restatement(confidence, " ".join(t.word for t in change.old),
                                   " ".join(t.word for t in change.new))
    return best


@lru_cache(maxsize=16_384)
def restatable_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a text that can state a current value (see `states`)."""
    return tuple(s for s in sentences(text) if not s.rstrip().endswith("?") and _MAYBE_VALUE.search(s)
                 and _restatable(sentence_tokens(s)))


def _restatable(tokens: tuple[Token, ...]) -> bool:
    """A value to change and, beside it, enough to share: a state, not an event or a denial."""
    values = [t for t in tokens if t.is_value]
    return bool(values) and len(anchor_words(tokens)) > MIN_SHARED and states(tokens)
