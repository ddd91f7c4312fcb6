"""A change of value told as a move or a replacement, read as the plain statement it makes.

"The design review has been moved to Mondays" states what "The design review is on Mondays"
states, and says so by reporting the change. "They upped the ad budget to 1,020 euros", "the
reading group has been handed over to Priya", "Team lunch is on Fridays rather than
Thursdays", "Starting Monday the plan will be 6 euros": each names a thing and gives it a new
value. The reading keeps the thing and the value and drops what only tells of the change:

* the verb of the change: a past form (a word in -ed, or an irregular past participle)
  followed, after particles ("forward", "back", "over"), by a preposition that leads to the
  new value ("to", "for", "until", "into"; "by" before a name: "taken over by Coach Amara");
  in the active voice ("they upped the budget to ...") what stands before the verb is the
  one who changed it, and the thing is the object between the verb and the preposition;
* a value given up: "rather than X", "instead of X", "in place of X", "no more X", "no longer X";
* when the new value starts: "starting Monday", "from next month", "as of today", "going
  forward", "effective immediately", "from here on".

A relative change ("pushed back an hour", "went up by 50 euros", "moved up by two days")
gives no value to read; the reading marks it `relative` with the amount and unit, so the caller
can resolve it against the old value.

Pure functions over text: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from cogmem_graph.language.act_nouns import act_keys
from cogmem_graph.language.speakers import speaker_of
from cogmem_graph.language.value_slots import (
    NO_RESTATEMENT,
    Restatement,
    SlotChange,
    Token,
    anchor_words,
    changed_slot,
    possessors,
    restatable_sentences,
    sentence_tokens,
    sentences,
    states,
)
from cogmem_graph.text import stem

__all__ = ["MoveReading", "move_reading", "moved_to_new_value", "resolved_value"]

_PARTICLES = frozenset({"forward", "back", "up", "down", "over", "off", "out", "ahead", "around", "along"})
"""Words that complete a verb of moving ("brought forward", "pushed back", "handed over")."""
_TOWARDS = frozenset({"to", "for", "until", "till", "into", "onto"})
"""Prepositions that lead from a verb of change to the new value."""
_IRREGULAR_PARTICIPLES = frozenset({
    "brought", "cut", "put", "taken", "held", "given", "made", "kept", "shut", "split", "sent", "thrown",
    "went", "gone", "rose", "risen", "fell", "fallen", "grown", "drawn", "shrunk", "swapped"})
"""Past forms a change is told with that the -ed rule would not read ("cut to 45 minutes",
"put off until", "taken over by", "held in ... now")."""
_NOT_CHANGE_VERBS = frozenset({"need", "feed", "seed", "indeed", "speed", "bed", "red", "shed", "weed", "hundred",
                               "based", "located", "supposed", "used", "called", "named", "booked", "scheduled",
                               "planned", "set", "capped", "expected", "priced"})
"""Words in -ed (and forms of "set") that state a value rather than change it: "is booked for
Saturday", "is set for June 12", "is capped at 12" restate; they do not move."""
_OBJECT_PRONOUNS = frozenset({"me", "us", "you", "him", "her", "them", "it"})
"""An object that names nothing: what was changed is then what the subject names."""
_AUXILIARIES = frozenset({"has", "have", "had", "been", "was", "were", "is", "are", "be", "being", "got", "gets",
                          "get", "getting", "will", "'s", "just", "now", "finally", "officially", "also"})
_ONSETS = ("starting", "beginning", "from", "as of", "effective", "going forward", "from now on",
           "from here on")
_ONSET = re.compile(r"^\s*(?:" + "|".join(re.escape(o) for o in _ONSETS) + r")\b", re.IGNORECASE)
_ONSET_TAIL = re.compile(r"[,\s]+(?:" + "|".join(re.escape(o) for o in _ONSETS) + r")\b[^,;]{0,30}[.!]?\s*$",
                         re.IGNORECASE)
_GIVEN_UP = re.compile(r"\b(?:rather than|instead of|in place of)\s+(?P<old>[^,;—–]+?)(?=\s*(?:[,;—–.!]|$))"
                       r"|^\s*(?:no more|no longer)\s+(?P<lead>[^,;—–]+?)\s*(?:[,;—–]|$)"
                       r"|\b(?:is|are)\s+no longer\s+(?P<mid>[^,;—–]+?)\s*[,;—–]\s*(?:it'?s|they'?re|now)?",
                       re.IGNORECASE)
_DETERMINERS = frozenset({"the", "our", "my", "your", "their", "his", "her", "its", "this", "that", "a", "an"})
_UNITS = {"hour": "time", "hours": "time", "minute": "time", "minutes": "time", "min": "time", "mins": "time",
          "day": "date", "days": "date", "week": "date", "weeks": "date", "month": "date", "months": "date",
          "euro": "money", "euros": "money", "dollar": "money", "dollars": "money", "pound": "money",
          "pounds": "money", "percent": "percent"}


@dataclass(frozen=True)
class MoveReading:
    """What a sentence that tells of a change says is now the case."""

    tokens: tuple[Token, ...]
    """The thing and its new value, as a plain statement would hold them (positions renumbered)."""
    given_up: tuple[Token, ...] = ()
    """Values the sentence names as left behind ("rather than Thursdays")."""
    relative: str = ""
    """A change by an amount ("an hour later") rather than to a value: the amount and unit."""
    moved: bool = False
    """A verb of change was read (not only an onset or a given-up value)."""
    value_start: int = -1
    """Where in `tokens` the new value begins when the change is told as a state reached, with
    an auxiliary before its verb ("... *has* decamped to *the scout hut*", "... *were* shunted
    into ..."); -1 otherwise: after a bare past verb ("we walked the group over to the café")
    the words may tell where something went once, not where it is now."""


_ONLY_WITH_A_PARTICLE = frozenset({"went", "gone", "put"})
"""Verbs of going that change a value only with a particle ("went up by 50", "put off until"),
not alone ("we went to the park")."""


def _is_change_verb(word: str, following: str = "") -> bool:
    if word in _NOT_CHANGE_VERBS:
        return False
    if word in _ONLY_WITH_A_PARTICLE:
        return following in _PARTICLES
    return word in _IRREGULAR_PARTICIPLES or (word.endswith("ed") and len(word) > 4)


def _renumbered(tokens: list[Token]) -> tuple[Token, ...]:
    return tuple(Token(t.key, t.kind, i, t.word, t.possessor) for i, t in enumerate(tokens))


def _strip_onset(text: str) -> tuple[str, bool]:
    """The sentence without a leading or trailing "starting Monday", "from next month", ..."""
    found = False
    m = _ONSET.match(text)
    if m:
        rest = text[m.end():]
        comma = rest.find(",")
        words = rest.split()
        if 0 <= comma < 40:
            text, found = rest[comma + 1:], True
        else:  # "Starting Monday the plan ...": up to the determiner that opens the subject
            for i, w in enumerate(words[:5]):
                if w.lower() in _DETERMINERS and i > 0:
                    text, found = " ".join(words[i:]), True
                    break
    tail = _ONSET_TAIL.search(text)
    if tail:
        text, found = text[:tail.start()] + ".", True
    return text, found


def _strip_given_up(text: str) -> tuple[str, tuple[Token, ...]]:
    given: list[Token] = []
    while m := _GIVEN_UP.search(text):
        old = m.group("old") or m.group("lead") or m.group("mid") or ""
        given += [t for t in sentence_tokens("It is " + old) if t.is_value]
        if m.group("mid") is not None:
            text = text[:m.start()] + " is " + text[m.end():]
        else:
            text = text[:m.start()] + " " + text[m.end():]
    return text, tuple(given)


_PART_OF_AN_HOUR = re.compile(
    r"^(?:(?P<whole>\S+) and a half hours?|(?:one )?hour and a half|half an? hour"
    r"|(?:(?P<quarters>\S+) )?quarters? of an? hour)(?= |$)")
"""A duration told as a part of an hour: "half an hour", "a quarter of an hour", "three quarters
of an hour", "an hour and a half", "two and a half hours" (the leading "a"/"an" already read)."""


def _part_of_an_hour(tokens: tuple[Token, ...], at: int) -> tuple[str, int] | None:
    """The minutes of a duration told as a part of an hour from `at`, and where what follows it
    begins; None when none is told there."""
    window = tokens[at:at + 7]
    words = " ".join(t.key if t.kind == "number" else t.word for t in window)
    found = _PART_OF_AN_HOUR.match(words)
    if found is None:
        return None
    if found["whole"] is not None:
        if not found["whole"].isdigit():
            return None
        minutes = int(found["whole"]) * 60 + 30
    elif "quarter" in found.group():
        count = found["quarters"] or "1"
        if not count.isdigit() and count not in ("a", "one"):
            return None
        minutes = 15 * (int(count) if count.isdigit() else 1)
    else:
        minutes = 90 if "hour and" in found.group() else 30
    return f"{minutes} minutes", at + len(found.group().split())


def _relative(tokens: tuple[Token, ...], start: int) -> tuple[str, int]:
    """"an hour", "by two days", "50 euros", "half an hour" from `start`: the amount and unit, and
    where what follows them begins ("... by 50 euros *a week*"); ("", start) when there is none."""
    at = start
    while at < len(tokens) and tokens[at].word in ("by", "a", "an", "another", "the"):
        at += 1
    part = _part_of_an_hour(tokens, at)
    if part is not None:
        return part
    first = tokens[at] if at < len(tokens) else None
    second = tokens[at + 1] if at + 1 < len(tokens) else None
    if first is not None and first.kind == "money":
        return f"{first.key} money", at + 1
    if first is not None and first.word in _UNITS:
        return f"1 {first.word}", at + 1
    if first is not None and second is not None and first.kind == "number" and second.word in _UNITS:
        return f"{first.key} {second.word}", at + 2
    if first is not None and second is not None and first.word == "one" and second.word in _UNITS:
        return f"1 {second.word}", at + 2  # "one" is read as a word, not a number
    if first is not None and second is not None and first.kind == "number" and _counted(second):
        return f"{first.key} {second.word}", at + 2  # "by 4 people", "by 500 IU": a count of a unit of its own
    return "", start


def _counted(token: Token) -> bool:
    """A word that can say what a number counts ("4 *people*", "500 *IU*")."""
    return token.kind in ("word", "name") and token.word not in _COMPARATIVES and token.word not in _UNITS


_MORE_OR_FEWER = frozenset({"more", "fewer", "less", "extra"})
_PRESENT_MARKERS = frozenset({"is", "are", "now", "will", "'s", "'re", "these"})
_COMPARATIVES = frozenset({"later", "earlier", "longer", "shorter", "more", "less", "higher", "lower", "cheaper",
                           "dearer", "sooner"})


def _compared(tokens: tuple[Token, ...]) -> MoveReading | None:
    """"The pickup is now 30 minutes later", "the dose is 500 IU higher than it was": a change
    by an amount, told with a comparative and no verb of change, of what holds now (not "we met
    two days later", a story's sequence)."""
    if not any(t.word in _PRESENT_MARKERS for t in tokens):
        return None
    for i, t in enumerate(tokens[:-2]):  # "one more session a week", "two fewer volunteers"
        amount = t.key if t.kind == "number" else "1" if t.word in ("one", "a", "an") else ""
        if amount and tokens[i + 1].word in _MORE_OR_FEWER and _counted(tokens[i + 2]):
            before = [x for x in tokens[:i] if x.word not in _AUXILIARIES]
            thing = _renumbered([*before, *_words(tokens[i + 3:])])
            return MoveReading(thing, relative=f"{amount} {tokens[i + 2].word}", moved=True)
    for i, t in enumerate(tokens):
        starts = t.kind in ("number", "money") or t.word in ("a", "an", "half", "quarter", "one")
        relative, end = _relative(tokens, i) if starts else ("", i)
        if relative and end < len(tokens) and tokens[end].word in _COMPARATIVES:
            before = [x for x in tokens[:i] if x.word not in _AUXILIARIES]
            return MoveReading(_renumbered(before), relative=relative, moved=True)
    return None


def _moved(tokens: tuple[Token, ...]) -> MoveReading | None:
    """The thing and the value of "<thing> <aux> <verb> <particles> <to> <value>" or
    "<agent> <verb> <thing> <particles> <to> <value>"."""
    for v, verb in enumerate(tokens):
        following = tokens[v + 1].word if v + 1 < len(tokens) else ""
        if verb.kind != "word" or not _is_change_verb(verb.word, following):
            continue
        j = v + 1
        while j < len(tokens) and tokens[j].word in _PARTICLES:
            j += 1
        obj_start = j
        while j < len(tokens) and tokens[j].word not in _TOWARDS and tokens[j].word != "by" \
                and tokens[j].kind != "punct" and j - obj_start < 6:
            j += 1
        obj = [t for t in tokens[obj_start:j] if t.word not in _PARTICLES]
        before = [t for t in tokens[:v] if t.word not in _AUXILIARIES]
        if j < len(tokens) and tokens[j].word == "by":
            after = tokens[j + 1:]
            if after and after[0].kind == "name":  # "taken over by Coach Amara"
                return MoveReading(_renumbered([*before, *after]), moved=True)
            relative, end = _relative(tokens, j)
            if relative and not obj:
                return MoveReading(_renumbered([*before, *_words(tokens[end:])]), relative=relative, moved=True)
            continue
        if j >= len(tokens) or tokens[j].word not in _TOWARDS:
            relative, end = _relative(tokens, v + 1 + sum(1 for t in tokens[v + 1:v + 3] if t.word in _PARTICLES))
            if relative:
                return MoveReading(_renumbered([*before, *_words(tokens[end:])]), relative=relative, moved=True)
            continue
        value = [t for t in tokens[j + 1:] if t.kind != "punct" or t.key == ","]
        if not any(t.is_value or t.kind == "word" for t in value[:4]):
            continue  # "moved to it", "changed to that": no value to read
        names = obj and any(t.kind in ("word", "name") and t.word not in _OBJECT_PRONOUNS for t in obj)
        thing = obj if names else before  # "the Seaview Inn upgraded us to room 310": the inn's room
        reached = v > 0 and tokens[v - 1].word in _AUXILIARIES
        return MoveReading(_renumbered([*thing, *value]), moved=True, value_start=len(thing) if reached else -1)
    return None


def _words(tokens: tuple[Token, ...]) -> list[Token]:
    """What follows a relative amount and still names the thing ("... by 50 euros *a week*")."""
    return [t for t in tokens if t.kind not in ("number", "money", "percent", "time", "punct")
            and t.word not in _COMPARATIVES]


@lru_cache(maxsize=8_192)
def move_reading(sentence: str) -> MoveReading | None:
    """The plain statement a sentence telling of a change makes, or None when it tells of none."""
    text = sentence.replace("\u2019", "'")
    text, onset = _strip_onset(text)
    text, given_up = _strip_given_up(text)
    tokens = sentence_tokens(text.replace("—", ",").replace("–", ","))
    moved = _moved(tokens) or _compared(tokens)
    if moved is not None:
        return MoveReading(moved.tokens, given_up, moved.relative, True, moved.value_start)
    if onset or given_up:
        return MoveReading(tokens, given_up)
    return None


# ---------------------------------------------------------------- the verdict

MOVED_CONFIDENCE = 0.75
"""A change told of the very thing the older sentence states a value for."""
MOVED_LOOSE_CONFIDENCE = 0.6
"""... where the older sentence says one word more (its verb: "Tomás *leads* the group")."""
LOOSE_SIMILARITY = 0.7
"""Embedding similarity from which the thing may be named with one word more or less on each side."""


def _changed_by(relative: str, old: tuple[Token, ...]) -> tuple[Token, ...]:
    """The older sentence's tokens that a change by `relative` changes: a count of the same unit
    with its unit ("12 people" for "by 4 people", "60 minutes" for "15 minutes longer"), else the
    values of a kind the unit can move (a time or a date for hours or days, a price for euros),
    with the numbers written beside them; none when it holds no such value."""
    unit = relative.split()[-1]
    counted = _counted_at(old, unit)
    if counted is not None:
        return old[counted:counted + 2]
    wanted = {"time": {"time", "day", "date"}, "date": {"date", "day"}, "money": {"money", "number"},
              "percent": {"percent"}}.get(_UNITS.get(unit, unit), set())
    moved = {t.position for t in old if t.is_value and t.kind in wanted}
    moved |= {t.position for t in old if t.kind == "number" and {t.position - 1, t.position + 1} & moved}
    return tuple(t for t in old if t.position in moved)  # "June 20", not the "Dublin" beside it


def _counted_at(tokens: tuple[Token, ...], unit: str) -> int | None:
    """Where the number that counts `unit` stands in a sentence ("two *sessions*" for "session")."""
    key = stem(unit.lower())
    for t, after in zip(tokens, tokens[1:], strict=False):
        if t.kind == "number" and after.key == key:
            return t.position
    return None


def moved_to_new_value(new_text: str, old_text: str, similarity: float | None = None) -> Restatement:
    """The strongest sentence pair in which `new_text` tells of a change of the value an
    older sentence of `old_text` states (see the module's reading); `NO_RESTATEMENT` when none
    does. The thing must be the same: every content word the reading keeps is in the older
    sentence, which says at most one word more (its verb) besides its value."""
    if speaker_of(new_text) != speaker_of(old_text):
        return NO_RESTATEMENT
    old_sentences = _stating_sentences(old_text)
    if not old_sentences:
        return NO_RESTATEMENT
    best = NO_RESTATEMENT
    for new_sentence in sentences(new_text):
        if new_sentence.rstrip().endswith("?"):
            continue
        reading = move_reading(new_sentence)
        if reading is None:
            continue
        for old_sentence in old_sentences:
            found = _judge(reading, sentence_tokens(old_sentence), similarity)
            if found.confidence > best.confidence:
                best = found
    return best


@lru_cache(maxsize=8_192)
def _stating_sentences(text: str) -> tuple[str, ...]:
    """The sentences of a text that state something that can change: those that state a value
    (`restatable_sentences`), and states with no value token ("the concert is in the town
    hall"): not questions, past events or denials."""
    valued = set(restatable_sentences(text))
    out = []
    for sentence in sentences(text):
        if sentence in valued:
            out.append(sentence)
            continue
        tokens = sentence_tokens(sentence)
        if not sentence.rstrip().endswith("?") and states(tokens) and len(anchor_words(tokens)) >= 2:
            out.append(sentence)
    return tuple(out)


def _judge(reading: MoveReading, old: tuple[Token, ...], similarity: float | None) -> Restatement:
    old = _renumbered([t for t in old if t.word not in _NOT_CHANGE_VERBS])  # "is booked for Saturday"
    if reading.relative:
        values = _changed_by(reading.relative, old)
        if not values:
            return NO_RESTATEMENT
        confidence = _same_thing(anchor_words(reading.tokens), anchor_words(old, values), similarity)
        if confidence:
            return Restatement(confidence, " ".join(t.word for t in values), reading.relative)
        return NO_RESTATEMENT
    new = _renumbered([t for t in reading.tokens if t.word not in _NOT_CHANGE_VERBS])
    change = changed_slot(old, new) or _place_changed(old, new)
    if change is None or possessors(old, change.old) != possessors(new, change.new):
        return NO_RESTATEMENT
    confidence = _same_thing(anchor_words(new, change.new), anchor_words(old, change.old), similarity)
    if not confidence:
        return NO_RESTATEMENT
    return Restatement(confidence, " ".join(t.word for t in change.old), " ".join(t.word for t in change.new))


_PLACE_PREPOSITIONS = frozenset({"in", "at"})


def _place_changed(old: tuple[Token, ...], new: tuple[Token, ...]) -> SlotChange | None:
    """A place written in lower case ("is in the town hall" -> "moved to St Mary's Church"): no
    value token marks it, so the older sentence's last "in"/"at" phrase is taken as its value
    when the newer one's value is a name or a phrase of words at the end."""
    cut = max((t.position for t in old if t.word in _PLACE_PREPOSITIONS), default=-1)
    if cut < 0:
        return None
    place = tuple(t for t in old[cut + 1:] if t.kind in ("word", "name"))
    if not place or any(t.is_value for t in old):
        return None
    gained = tuple(t for t in new if t.kind == "name" and t.key not in {o.key for o in old})
    return SlotChange(place, gained) if gained else None


def _same_thing(thing: frozenset[str], own: frozenset[str], similarity: float | None) -> float:
    """How sure the reading's thing is the one the older sentence gives a value for: its words
    are the older sentence's (which may say one word more: its verb); or, when the texts are
    close (`LOOSE_SIMILARITY`), they share at least two words and each says at most one the
    other does not ("the shuttle *fare* was hiked" / "the shuttle *costs*")."""
    if not thing:
        return 0.0
    thing, own = act_keys(thing), act_keys(own)  # "the Dublin flight" is what "we fly to Dublin" states
    if thing <= own and len(own - thing) <= 1 and (len(thing) >= 2 or own == thing):
        return MOVED_CONFIDENCE if own == thing else MOVED_LOOSE_CONFIDENCE
    shared = thing & own
    if similarity is not None and similarity >= LOOSE_SIMILARITY and len(shared) >= 2 \
            and len(thing - own) <= 1 and len(own - thing) <= 1:
        return MOVED_LOOSE_CONFIDENCE
    return 0.0


# ---------------------------------------------------------------- what a relative change comes to

_EARLIER = frozenset({"forward", "earlier", "up", "ahead", "advanced", "sooner"})
"""For a time or a date: "brought forward", "moved up by two days"."""
_LATER = frozenset({"back", "later", "delayed", "postponed", "pushed", "behind"})
_LESS = frozenset({"down", "cut", "less", "lower", "lowered", "fewer", "cheaper", "shorter", "reduced", "dropped",
                   "fell", "fallen", "decreased", "trimmed", "shortened", "shrank", "shrunk"})
_MORE = frozenset({"up", "more", "higher", "raised", "longer", "increased", "rose", "risen", "dearer", "extra",
                   "grew", "grown", "added", "expanded", "extended", "lengthened"})
_MONEY_UNIT = re.compile(r"(?P<sign>[$€£])?\s?(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?P<word>euros?|dollars?|pounds?|francs?|"
                         r"bucks|usd|eur|gbp)?", re.IGNORECASE)
_TWELVE_HOUR = re.compile(r"\d\s*(?:[ap]\.?m\.?)\b", re.IGNORECASE)
_DAY_OF_MONTH = re.compile(r"\b(?P<month>" + "|".join(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december")) + r")\s+(?P<day>\d{1,2})\b|\b(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>"
    + "|".join(("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")) + r")\b", re.IGNORECASE)


def _direction(words: set[str], unit_kind: str) -> int:
    """+1 later or more, -1 earlier or less, 0 unknown."""
    if unit_kind in ("time", "date"):
        if words & _LATER:
            return 1
        if words & _EARLIER:
            return -1
    if words & _LESS:
        return -1
    if words & _MORE or words & _LATER:
        return 1
    return 0


def _clock_text(minutes: int, twelve_hour: bool) -> str:
    minutes %= 24 * 60
    hour, minute = divmod(minutes, 60)
    if not twelve_hour:
        return f"{hour}:{minute:02d}"
    shown = hour % 12 or 12
    return f"{shown}{f':{minute:02d}' if minute else ''} {'am' if hour < 12 else 'pm'}"


def resolved_value(new_text: str, old_text: str) -> str | None:
    """What a relative change comes to, read against the older statement it changes: "pushed
    back an hour" after "the call is at 3 pm" -> "4 pm"; "went up by 50 euros a week" after
    "costs 600 euros a week" -> "650 euros"; "moved up by two days" after "on June 20" ->
    "June 18". None when the change is not relative, or the older value cannot take it."""
    found = moved_to_new_value(new_text, old_text)
    if not found.confidence or " " not in found.new_value:
        return None
    amount_text, unit = found.new_value.split(" ", 1)
    try:
        amount = float(amount_text)
    except ValueError:
        return None
    kind = _UNITS.get(unit, unit)
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", new_text)}
    sign = _direction(words, kind)
    if not sign:
        return None
    delta = sign * amount
    for sentence in _stating_sentences(old_text):  # a count: "by 4 people" after "12 people" -> "16 people"
        tokens = sentence_tokens(sentence)
        at = _counted_at(tokens, unit)
        if at is not None:
            value = float(tokens[at].key) + delta
            return f"{value:g} {tokens[at + 1].word}" if value >= 0 else None
    old_values = [t for s in _stating_sentences(old_text) for t in sentence_tokens(s) if t.is_value]
    if kind == "time" and unit.startswith(("hour", "minute", "min")):
        clock = next((t for t in old_values if t.kind == "time"), None)
        if clock is None:
            return None
        hours, minutes = (int(x) for x in clock.key.split(":"))
        step = delta * (60 if unit.startswith("hour") else 1)
        return _clock_text(hours * 60 + minutes + int(step), bool(_TWELVE_HOUR.search(old_text)))
    if kind == "date" and unit.startswith("day"):
        m = _DAY_OF_MONTH.search(old_text)
        if m is None:
            return None
        day = int(m["day"] or m["day2"]) + int(delta)
        month = (m["month"] or m["month2"]).capitalize()
        return f"{month} {day}" if 1 <= day <= 28 else None
    if kind == "money":
        m = next((m for m in _MONEY_UNIT.finditer(old_text) if m["sign"] or m["word"]), None)
        if m is None:
            return None
        value = float(m["n"].replace(",", "")) + delta
        number = f"{value:,.2f}".rstrip("0").rstrip(".")
        return f"{m['sign']}{number}" if m["sign"] else f"{number} {m['word']}"
    return None
