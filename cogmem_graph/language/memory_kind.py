"""What kind of memory a text is, read from its words: its category (correction, identity,
preference, commitment, fact, other), its information density, whether it speaks of what is
still ahead, and the values that make it one fact rather than another.

* Information density (second reference): entities + facts + temporal signals +
  correction signals. "Sounds good!" has none; "I moved to Berlin on 3 May" has several.
* Memory category (second reference's categories): the first that fits, by keyword rules;
  a fact is a memory dense enough to carry one. How long each category is kept is
  `cognition/retention.py`'s.
* Distinct facts: two sentences can be near-identical and state different facts ("the
  launch code is V0012" / "... V0013"). Their value tokens — numbers, names, dates —
  tell them apart, so interference and merging leave such a neighbour alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.language.caseless import Caseless
from cogmem_graph.language.sentences import sentence_spans
from cogmem_graph.language.speakers import turn_body
from cogmem_graph.language.value_slots import sentence_tokens, sentences
from cogmem_graph.model import MemoryCategory

_DEFAULT_CONFIG = RetentionConfig()

_NUMBER = re.compile(r"\b[\w-]*\d[\w.-]*\b")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|" \
            "thursdays|fridays|saturdays|sundays|weekend|weekends"
_TEMPORAL = Caseless(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:week|month|year|night|time)|"
    r"next\s+(?:week|month|year|time)|this\s+(?:week|month|year|morning|evening)|since|until|"
    r"every\s+\w+|" + _WEEKDAYS + r"|" + _MONTHS.replace("|may|", "|") + r")\b")
_CORRECTION = Caseless(
    r"\b(?:actually|correction|i was wrong|that was wrong|no longer|not anymore|any ?more|changed my mind|"
    r"moved to|switched|instead of|replaced|upgraded|my new|now (?:live|work|use|prefer)|not true|turns out|"
    r"left (?:the company|my job)|quit)\b")
_PREFERENCE = Caseless(
    r"\b(?:i|we)\s+(?:really\s+|do\s+|much\s+|also\s+)?(?:prefer|like|love|enjoy|hate|dislike|adore|detest|"
    r"can't stand|cannot stand)\s+(?!it\b|that\b|this\b|you\b|them\b|those\b|these\b|how\b|what\b|when\b)\w|"
    r"\bfavou?rite\b|\bi'?d rather\b|\b(?:please\s+)?(?:always|never)\s+(?:suggest|schedule|use|book|send|"
    r"call|want|order|give)\b|\bi (?:don't|do not|never) (?:eat|drink|like|want|use)\b|\bonly\s+\w+\s+please\b|"
    r"\bi (?:always )?want\b")
_RELATIONS = ("wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|daughter|son|stepson|stepdaughter|"
              "kids?|children|child|twins|baby|mother|mom|mum|father|dad|stepmother|stepfather|stepmom|stepdad|"
              "sister|brother|siblings?|parents|grandma|grandmother|grandpa|grandfather|grandparents|"
              "grand(?:son|daughter|kids|children)|aunt|uncle|cousin|niece|nephew|in-laws|"
              "(?:father|mother|brother|sister|son|daughter)-in-law|best friend|flatmate|roommate|neighbou?r|"
              "landlord|landlady|boss|manager|dentist|doctor|gp|vet|therapist|cat|dog|pet|pets")
_IDENTITY = Caseless(
    r"\bmy name is\b|\bcall me\b|\bi am called\b|"
    r"\bi(?:'m| am) (?:allergic|vegetarian|vegan|diabetic|married|divorced|pregnant|single|afraid|"
    r"a (?:nurse|doctor|teacher|student|developer|engineer|designer|manager|writer|lawyer|parent|mother|father))\b|"
    r"\bmy (?:" + _RELATIONS + r")(?:'s)?\s+(?:name\b|\w+\s+(?:is|works|lives|was born|turns|has)\b|"
    r"(?:is|are|works|lives|was born|turns|has|called|named)\b)|"
    r"\b(?:is|are) my (?:" + _RELATIONS + r")\b|"
    r"\b(?:i|we) (?:work|live)\s+(?:at|in|as|for)\b|\bi (?:was born|grew up)\b|"
    r"\bi have (?:type \d|diabetes|asthma|an allergy|allergies|a (?:daughter|son|wife|husband|sister|brother))\b|"
    r"\bi take \d+\s*mg\b|\bmy (?:birthday|blood type|address|phone(?: number)?|email|password|username|"
    r"passport|bank|account|car|home|pronouns)\b|\b(?:wifi|wi-fi) password\b")
_NAMED_RELATION = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:[a-z-]+\s+)?(?:" + _RELATIONS + r"|eldest|youngest|oldest),?\s+[A-Z][a-z]+|"
    r"\b(?:Grandma|Granny|Grandpa|Grandad|Auntie|Aunt|Uncle|Cousin)\s+[A-Z][a-z]+")
"""A relation and a name: "my older brother Kenji", "our cat, Pickle", "Grandma Rosa"."""
_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety")
_LIFE_FACTS = Caseless(
    # animals the user keeps
    r"\b(?:named|called)\s+(?:him|her|it|them)\b|\badopted\s+(?:a|an|two|three|our|my)\b|"
    r"\b(?:i|we)\s+(?:keep|have|own|got)\s+(?:a|an|two|three|four|\d+)\s+(?:[\w-]+\s+){0,2}?(?:cats?|kittens?|dogs?|"
    r"pupp(?:y|ies)|budgies?|parrots?|birds?|tortoises?|turtles?|rabbits?|hamsters?|guinea pigs?|horses?|ponies|"
    r"fish|chickens|hens)\b|\b(?:our|my) (?:animals|pets)\b|"
    # health
    r"\bdiagnosed with\b|\ballerg(?:ic|y|ies)\b|\bepipen\b|\binhaler\b|\binsulin\b|\bmy (?:gp|medication|meds|"
    r"prescription|condition|diagnosis|surgeon|physio|therapist)\b|"
    r"\bi(?:'ve| have)? (?:get|have|suffer from|had)\s+(?:\w+\s+)?"
    r"(?:migraines?|migranes?|asthma|diabetes|epilepsy|eczema|arthritis|celiac|coeliac|crohn's|adhd|depression|"
    r"anxiety)\b|\b(?:i'm|i am|being) (?:quite |very |a bit |slightly )?"
    r"(?:short-sighted|long-sighted|colou?r-?blind|deaf|"
    r"hard of hearing|celiac|coeliac|lactose intolerant|epileptic|asthmatic)\b|"
    r"\b(?:put|started|switched|moved) me on(?:to)? [a-z]{4,}|"
    # a treatment someone in the user's care is on: "our kitten is on a renal diet", "my dad's on statins"
    r"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:" + _RELATIONS + r"|kittens?|pupp(?:y|ies)|hamsters?|rabbits?|horses?|"
    r"ponies|parrots?|tortoises?)(?:\s+[A-Z][a-z]+)?(?:'s|\s+is|\s+are|\s+has been|\s+have been)\s+on\s+"
    r"(?:(?!(?:the|my|our|his|her|their|its|it|that|this|holiday|leave|call|time|site|board|track|way|foot|top|"
    r"duty|shift|strike|tour|break|course|fire|form|edge|hold|trial|air|and|end|cue|sale)\b)[a-z]{3,}|"
    r"(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:diet|medication|tablets?|pills?|drip|course|dose|injections?|inhaler))\b|"
    # ages: "the dog turned nine", "she's 14 years old"
    r"\bturn(?:ed|s) (?:\d+|" + _NUMBER_WORDS + r")\b|\b(?:\d+|" + _NUMBER_WORDS + r") years old\b|"
    # home and places, and where things are kept: "the spare key's under the plant pot"
    r"\b(?:we|i) (?:live|grew up|were raised|was raised)\b|\bmy (?:hometown|home town|house|flat|apartment)\b|"
    r"\bi(?:'m| am) (?:originally )?from\b|\bi come from\b|"
    r"\b(?:the|my|our|both|all) (?:[\w-]+ ){0,3}?[\w-]+(?: is| are|'s|'re) (?:always |usually )?"
    r"(?:kept |stored |hidden |filed )?(?:in|under|behind|inside|beneath|above|on top of|next to) the\b|"
    r"\b(?:my|our) (?:parents|in-laws|family) (?:live|are|retired|moved)\b|"
    # belongings
    r"\b(?:i|we) (?:own|bought|finally bought)\s+(?:a|an|the|our|my)\b|\bmy (?:prized|most prized)\b|"
    # accounts and numbers the user keeps
    r"\b(?:my|our)\s+(?:[\w-]+\s+){0,2}(?:number|card|account|membership|handle|username|login|plate|"
    r"registration|policy|reference|pin)\b|\bi(?:'m| am) (?:a )?member\b|"
    # dates that matter
    r"\b(?:we|i) got (?:married|engaged)\b|\b(?:our|my) (?:wedding|anniversary)\b|\bbirthday\b|"
    r"\b(?:died|passed away) (?:on|in)\b|"
    # work
    r"\bi(?:'m| am) an? (?:[\w-]+\s+){0,2}?(?:at|for) [A-Z]|\bmy (?:job|employer|company|team|manager|"
    r"boss|colleagues?|office|shift|contract)\b")
"""What matters about the user's own life, by domain: animals they keep, health, home, belongings,
accounts, dates, work. Such statements are identity facts however they are phrased."""
_OWN_VALUE = re.compile(
    # "my locker there is number 57", "our car's a grey Skoda", "my username is grit_and_gravel"
    r"\b(?i:my|our)\s+(?:[\w-]+\s+){0,3}?[\w-]+(?:\s+(?i:is|are)\s+|'s\s+|'re\s+)(?:[\w'-]+\s+){0,5}?"
    r"(?:[A-Z][\w'-]*[a-z]|[\w-]*\d[\w-]*|[a-z]+_[\w]+)\b"
    # "Brenda, my mother-in-law, ...", "Biscuit, our greyhound, ...", "Nugget, her hamster, ..."
    r"|\b[A-Z][a-z]+,\s+(?i:my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}?[\w-]+,"
    # "Harriet Osei, who I report to, ...": someone named, and how they stand to the user
    r"|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?,\s+who\s+(?i:i|we)\s+(?:[\w']+\s+){1,3}?(?i:to|from|with|for|under|after)\b"
    # "a woman called Sunita walks the dog", "the vet is a guy called Mr Fraser": someone named
    r"|\b(?i:called|named)\s+(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?[A-Z][a-z]+"
    # "I've been on levothyroxine", "I'm on ferrous fumarate": a treatment the user takes
    r"|\b(?i:i've been|i have been|i'm|i am)\s+on\s+(?!(?i:the|a|an|my|our|it|that|this|my|holiday|leave|call|"
    r"time|site|board|track|way|foot|top)\b)[a-z]{4,}")
"""What the user states about their own things by giving its value: a possession or account
("my X is <a name, a number, a code>"), a relation named beside its name ("Brenda, my
mother-in-law,"), a treatment they are on. Such a statement is an identity fact however
casually it is made."""
_HABIT = Caseless(
    r"\b(?:i|we)\s+(?:always|never|usually|normally|only|tend to)\s+(?!know|remember|forget|thought|think)\w+|"
    r"\bthe only\s+(?:[\w-]+\s+){0,2}?(?:i|we)\b|\bis (?:my|our) (?:usual|go-to|regular|default|staple)\b|"
    r"\b(?:a hard no|not for me|off limits|a no-go|can'?t bear|can'?t abide)\b")
"""A habit or a standing choice of the user's ("when I fly I always go for an aisle seat", "Rioja's
the only red I buy", "a cortado is my usual", "horror is a hard no for me"): a preference."""
_INSTRUCTION = Caseless(
    r"(?:^|[.!?]\s+|,\s*)(?:please\s+|pls\s+)?(?:always|never|don'?t|do not|stop|avoid)\s+"
    r"(?!worry|mind|forget\b|give up|hesitate|be\b|let\b|feel\b|have\b|had\b)\w+[^.!?]*?\b(?:me|my)\b|"
    r"\bfrom now on\b|\bcall me\b|\bplease (?:don'?t|do not|never|always|stop)\b|"
    r"\b(?:answer|reply|respond|write|talk|speak)(?:\s+to)?\s+me\s+in\b|"
    r"\b(?:give|show|quote|send)\s+me\s+(?:\w+\s+){0,2}in\b|"
    r"\b(?:when(?:ever)?|if)\s+i\s+(?:ask|request)\s+(?:you\b|for\b)|"
    r"\b(?:when(?:ever)?|if)\s+i\s+[^.!?]{0,60}?,\s*(?:please\s+)?(?:tell|remind|stop|ask|warn|nudge)\s+me\b|"
    # a condition, then what to do with the user: "if something costs more than £50, check with me first"
    r"\b(?:whenever|if)\s+[^.!?]{0,60}?,\s*(?:please\s+)?(?!(?:i|he|she|they|we|it|you|there|that|this|"
    r"someone|everyone|nobody|mum|mom|dad|just|let)\b)[a-z]+(?<!ed)\s+(?!let\b)(?:\w+\s+)?(?:with\s+|to\s+)?me\b|"
    # how to answer: "whenever you give me times, ...", "... unless I ask for more"
    r"\bwhenever you\s+(?:\w+\s+){1,2}?me\b|\bunless i\s+(?:\w+\s+)?(?:ask|say|tell)\b")
"""A standing instruction to the assistant ("always answer in Spanish", "please don't use emojis",
"from now on …", "when I ask for a summary, …"): a durable preference, however phrased."""
_COMMITMENT = Caseless(
    r"\b(?:i|we)(?:'ll| will| shall| promise| promised| committed| commit| decided| agreed| plan to|"
    r"'m going to| am going to|'re going to| are going to| have to| need to| must)\b|\bdeadline\b|"
    r"\bremind me\b|\bdue (?:on|by)\b")
_AHEAD = re.compile(
    r"\b(?:will|shall|going to|gonna|about to|plan(?:s|ning)? to|intend(?:s|ing)? to|looking forward to|"
    r"can't wait|upcoming|(?:is|are|'s|'re) coming up|coming up (?:on|in|next|this|soon)|soon|tomorrow|tonight|"
    r"next (?:week|month|year|weekend|time|"
    + _WEEKDAYS + r"|" + _MONTHS + r"))\b|'ll\b",
    re.IGNORECASE)
_PROGRESSIVE_ON_A_DATE = re.compile(
    r"(?:\b(?:am|is|are)|'(?:m|s|re))\s+(?:\w+\s+)?\w+ing\b[^.!?]*?\b(?:on|by|this|in)\s+(?:the\s+)?(?:\d|"
    + _WEEKDAYS + r"|" + _MONTHS.replace("|may|", "|") + r")",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_DAY_OR_MONTH = Caseless(r"\b(?:" + _WEEKDAYS + r"|" + _MONTHS + r")\b")
_VALUE_SENTENCE_BREAK = re.compile(r"(?<=[.!?;:])\s+|\n+")


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
    temporal = len(set(_TEMPORAL.found(body)))
    correction = 1 if _CORRECTION.search(body) else 0
    return max(0, int(entity_count)) + numbers + temporal + correction


def memory_category(text: str, density: int, config: RetentionConfig | None = None) -> MemoryCategory:
    """The kind of memory, the first that fits: correction, identity, preference, commitment,
    fact (dense enough to state one), other."""
    cfg = _DEFAULT_CONFIG if config is None else config
    body = turn_body(text)
    if _CORRECTION.search(body):
        return MemoryCategory.CORRECTION
    if _IDENTITY.search(body) or _NAMED_RELATION.search(body) or _LIFE_FACTS.search(body):
        return MemoryCategory.IDENTITY
    if _PREFERENCE.search(body) or _INSTRUCTION.search(body) or _HABIT.search(body):
        return MemoryCategory.PREFERENCE
    if _OWN_VALUE.search(body):
        return MemoryCategory.IDENTITY
    if _COMMITMENT.search(body):
        return MemoryCategory.COMMITMENT
    if density >= cfg.fact_density:
        return MemoryCategory.FACT
    return MemoryCategory.OTHER


@lru_cache(maxsize=16_384)
def value_tokens(text: str) -> frozenset[str]:
    """The parts of a sentence that make it one fact rather than another: numbers and codes,
    names (capitalised words past the first of a sentence), months and weekdays."""
    body = turn_body(text)
    values = {n.lower().strip(".-") for n in _NUMBER.findall(body)}
    for m in _DAY_OR_MONTH.finditer(body):
        word = body[m.start():m.end()]  # (as written: "may" is a month only when capitalised)
        if word.lower() != "may" or word[0].isupper():
            values.add(word.lower())
    for sentence in _VALUE_SENTENCE_BREAK.split(body):
        words = _WORD.findall(sentence)
        values |= {w.lower() for w in words[1:] if w[0].isupper() and w != "I" and not w.startswith("I'")}
    values.discard("")
    return frozenset(values)


_STATED_KINDS = frozenset({"number", "money", "percent", "frequency", "time", "date", "day"})
"""The value kinds the slot reader normalises (`value_slots.Token.kind`) that make one fact another."""


@lru_cache(maxsize=16_384)
def stated_values(text: str) -> frozenset[str]:
    """The values a text states as the slot reader normalises them: counts and rates said in
    words too ("fourteen players", "twice a week", "every other day"). Cached: the write path
    compares each new memory with its neighbours, which the next write meets again."""
    return frozenset(t.key for sentence in sentences(turn_body(text)) for t in sentence_tokens(sentence)
                     if t.kind in _STATED_KINDS)


def carries_different_facts(text_a: str, text_b: str) -> bool:
    """True when the two texts name different values (numbers, names, dates, or counts and
    rates said in words): however alike the sentences, they state different facts, and neither
    may stand for the other ("the string section has fourteen players" / "seventeen players
    make up the string section")."""
    a, b = value_tokens(text_a), value_tokens(text_b)
    if (a or b) and a != b:
        return True
    return stated_values(text_a) != stated_values(text_b)


_NAME = re.compile(r"(?<=[\w,;:)]\s)[A-Z][\w'-]+")
"""A capitalised word past the first of a sentence: a name, as the write path's entities count one."""


DURABLE_CATEGORIES = frozenset({MemoryCategory.IDENTITY, MemoryCategory.PREFERENCE, MemoryCategory.CORRECTION,
                                MemoryCategory.COMMITMENT})
"""What a user tells about themselves, their wishes, corrections and plans: kept however it is said."""


def fact_sentences(text: str, config: RetentionConfig | None = None) -> list[str]:
    """The sentences of a text that each, read alone, carry something: durable (see
    `durable_sentences`) or dense enough to state a fact (names, numbers, dates)."""
    out = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        names = len(set(_NAME.findall(sentence)))
        if memory_category(sentence, information_density(sentence, names), config) != MemoryCategory.OTHER:
            out.append(sentence)
    return out


def durable_sentences(text: str, config: RetentionConfig | None = None) -> list[str]:
    """The sentences of a text that each, read alone, state something durable: an identity
    fact, a preference or instruction, a correction, a plan ("Long day. By the way, my gym
    locker is number 38." holds one, the second). A sentence that is merely dense (names and
    dates of an anecdote) is not one."""
    out = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        names = len(set(_NAME.findall(sentence)))
        if memory_category(sentence, information_density(sentence, names), config) in DURABLE_CATEGORIES:
            out.append(sentence)
    return out
