"""Retention: what a memory is, and so how long forgetting must leave it alone.

* Information density (second reference): entities + facts + temporal signals +
  correction signals. "Sounds good!" has none; "I moved to Berlin on 3 May" has several.
  Each unit lengthens stability, so small talk fades first.
* Memory category (second reference's categories): preference, correction, identity,
  commitment (decisions, promises, plans), fact (dense enough to carry one), other.
  Each has a minimum retention; some are never forgotten by decay at all.
* Distinct facts: two sentences can be near-identical and state different facts ("the
  launch code is V0012" / "... V0013"). Their value tokens — numbers, names, dates —
  tell them apart, so interference and merging leave such a neighbour alone.

Pure functions: no clock, no I/O; every number comes from `RetentionConfig`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.model import MemoryCategory

_DEFAULT_CONFIG = RetentionConfig()

_NUMBER = re.compile(r"\b[\w-]*\d[\w.-]*\b")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|" \
            "thursdays|fridays|saturdays|sundays|weekend|weekends"
_TEMPORAL = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:week|month|year|night|time)|"
    r"next\s+(?:week|month|year|time)|this\s+(?:week|month|year|morning|evening)|since|until|"
    r"every\s+\w+|" + _WEEKDAYS + r"|" + _MONTHS.replace("|may|", "|") + r")\b",
    re.IGNORECASE)
_CORRECTION = re.compile(
    r"\b(?:actually|correction|i was wrong|that was wrong|no longer|not anymore|any ?more|changed my mind|"
    r"moved to|switched|instead of|replaced|upgraded|my new|now (?:live|work|use|prefer)|not true|turns out|"
    r"left (?:the company|my job)|quit)\b",
    re.IGNORECASE)
_PREFERENCE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|do\s+|much\s+|also\s+)?(?:prefer|like|love|enjoy|hate|dislike|adore|detest|"
    r"can't stand|cannot stand)\s+(?!it\b|that\b|this\b|you\b|them\b|those\b|these\b|how\b|what\b|when\b)\w|"
    r"\bfavou?rite\b|\bi'?d rather\b|\b(?:please\s+)?(?:always|never)\s+(?:suggest|schedule|use|book|send|"
    r"call|want|order|give)\b|\bi (?:don't|do not|never) (?:eat|drink|like|want|use)\b|\bonly\s+\w+\s+please\b|"
    r"\bi (?:always )?want\b",
    re.IGNORECASE)
_RELATIONS = ("wife|husband|partner|boyfriend|girlfriend|daughter|son|kids?|children|child|mother|mom|mum|"
              "father|dad|sister|brother|parents|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|"
              "boss|manager|dentist|doctor|therapist|cat|dog|pet")
_IDENTITY = re.compile(
    r"\bmy name is\b|\bcall me\b|\bi am called\b|"
    r"\bi(?:'m| am) (?:allergic|vegetarian|vegan|diabetic|married|divorced|pregnant|single|afraid|"
    r"a (?:nurse|doctor|teacher|student|developer|engineer|designer|manager|writer|lawyer|parent|mother|father))\b|"
    r"\bmy (?:" + _RELATIONS + r")(?:'s)?\s+(?:name\b|\w+\s+(?:is|works|lives|was born|turns|has)\b|"
    r"(?:is|are|works|lives|was born|turns|has)\b)|"
    r"\bi (?:work|live)\s+(?:at|in|as|for)\b|\bi (?:was born|grew up)\b|"
    r"\bi have (?:type \d|diabetes|asthma|an allergy|allergies|a (?:daughter|son|wife|husband|sister|brother))\b|"
    r"\bi take \d+\s*mg\b|\bmy (?:birthday|blood type|address|phone(?: number)?|email|password|username|"
    r"passport|bank|account|car|home|pronouns)\b|\b(?:wifi|wi-fi) password\b",
    re.IGNORECASE)
_COMMITMENT = re.compile(
    r"\b(?:i|we)(?:'ll| will| shall| promise| promised| committed| commit| decided| agreed| plan to|"
    r"'m going to| am going to|'re going to| are going to| have to| need to| must)\b|\bdeadline\b|"
    r"\bremind me\b|\bdue (?:on|by)\b",
    re.IGNORECASE)
_AHEAD = re.compile(
    r"\b(?:will|shall|going to|gonna|about to|plan(?:s|ning)? to|intend(?:s|ing)? to|looking forward to|"
    r"can't wait|upcoming|(?:is|are|'s|'re) coming up|coming up (?:on|in|next|this|soon)|soon|tomorrow|tonight|next (?:week|month|year|weekend|time|"
    + _WEEKDAYS + r"|" + _MONTHS + r"))\b|'ll\b",
    re.IGNORECASE)
_PROGRESSIVE_ON_A_DATE = re.compile(
    r"(?:\b(?:am|is|are)|'(?:m|s|re))\s+(?:\w+\s+)?\w+ing\b[^.!?]*?\b(?:on|by|this|in)\s+(?:the\s+)?(?:\d|"
    + _WEEKDAYS + r"|" + _MONTHS.replace("|may|", "|") + r")",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w'-]*")


_SPEAKER_NAME = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}):\s+")
"""A chat transcript's "Name: " before the turn: up to three capitalised words before the
colon ("Joanna:", "Dr. Okafor:"). The speaker is no content of the turn."""


def turn_body(text: str) -> str:
    """The text without a leading "Speaker: " (what was said, not who said it)."""
    return _SPEAKER_NAME.sub("", text, count=1)


def speaker_of(text: str) -> str | None:
    """The name before a chat transcript's "Speaker: ", or None for a memory said plainly
    (a lower-case lead-in such as "Seats when I fly: ..." is no speaker)."""
    match = _SPEAKER_NAME.match(text)
    return match.group(1) if match else None


def tells_of_what_is_ahead(text: str) -> bool:
    """Whether a memory speaks of something still to come when it was said: a plan, a
    promise or an announced event ("We'll deploy on Friday", "My sister is getting married
    on 4 October"), not a recollection ("The wedding was lovely")."""
    body = turn_body(text).replace("\u2019", "'")
    return bool(_AHEAD.search(body) or _PROGRESSIVE_ON_A_DATE.search(body))


def information_density(text: str, entity_count: int) -> int:
    """Entities + facts (numbers and quantities) + temporal signals + correction signals.

    `entity_count` is the number of entities the write path extracted (so they are
    extracted once); a speaker's name in a transcript counts as one of them."""
    body = turn_body(text)
    numbers = len(set(_NUMBER.findall(body)))
    temporal = len({m.lower() for m in _TEMPORAL.findall(body)})
    correction = 1 if _CORRECTION.search(body) else 0
    return max(0, int(entity_count)) + numbers + temporal + correction


def memory_category(text: str, density: int, config: RetentionConfig | None = None) -> MemoryCategory:
    """The kind of memory, the first that fits: correction, identity, preference, commitment,
    fact (dense enough to state one), other."""
    cfg = _DEFAULT_CONFIG if config is None else config
    body = turn_body(text)
    if _CORRECTION.search(body):
        return MemoryCategory.CORRECTION
    if _IDENTITY.search(body):
        return MemoryCategory.IDENTITY
    if _PREFERENCE.search(body):
        return MemoryCategory.PREFERENCE
    if _COMMITMENT.search(body):
        return MemoryCategory.COMMITMENT
    if density >= cfg.fact_density:
        return MemoryCategory.FACT
    return MemoryCategory.OTHER


def min_retention_ms(category: MemoryCategory | str, config: RetentionConfig | None = None) -> int | None:
    """How long after its last use a memory of this category is safe from decay; None: always."""
    cfg = _DEFAULT_CONFIG if config is None else config
    name = MemoryCategory(category).value
    if name in cfg.permanent_categories:
        return None
    if name == MemoryCategory.COMMITMENT.value:
        return cfg.min_retention_commitment_ms
    if name == MemoryCategory.FACT.value:
        return cfg.min_retention_fact_ms
    return cfg.min_retention_other_ms


def density_stability_factor(density: int, config: RetentionConfig | None = None) -> float:
    """Stability multiplier 1 + gain · min(density, cap): dense memories last longer."""
    cfg = _DEFAULT_CONFIG if config is None else config
    if density < 0:
        raise ValueError(f"density must be >= 0, got {density!r}")
    return 1.0 + cfg.density_stability_gain * min(density, cfg.density_cap)


@lru_cache(maxsize=16_384)
def value_tokens(text: str) -> frozenset[str]:
    """The parts of a sentence that make it one fact rather than another: numbers and codes,
    names (capitalised words past the first of a sentence), months and weekdays."""
    body = turn_body(text)
    values = {n.lower().strip(".-") for n in _NUMBER.findall(body)}
    values |= {m.lower() for m in re.findall(r"\b(?:" + _WEEKDAYS + r"|" + _MONTHS + r")\b", body, re.IGNORECASE)
               if m.lower() != "may" or m[0].isupper()}
    for sentence in re.split(r"(?<=[.!?;:])\s+|\n+", body):
        words = _WORD.findall(sentence)
        values |= {w.lower() for w in words[1:] if w[0].isupper() and w != "I" and not w.startswith("I'")}
    values.discard("")
    return frozenset(values)


def carries_different_facts(text_a: str, text_b: str) -> bool:
    """True when the two texts name different values (numbers, names, dates): however alike
    the sentences, they state different facts, and neither may stand for the other."""
    a, b = value_tokens(text_a), value_tokens(text_b)
    return (bool(a) or bool(b)) and a != b
