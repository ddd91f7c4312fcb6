"""What a query asks for, read from its words (second reference's intent router and
multi-query decomposition; zero LLM calls).

* Intent: factual, temporal, causal, entity profile, preference or general. The read
  path routes each to its own settings (`RetrievalConfig.intents`).
* Declarative stem: the question turned into the statement that would answer it,
  without the answer ("When did Caroline go to the support group?" -> "Caroline go to
  the support group"); what hypothetical documents are built from (`language/hyde.py`).
* Decomposition: a compound question ("Where does Ana live and what does she do?")
  split into the questions it holds, each retrieved on its own.

Pure functions of the text; no I/O.
"""

from __future__ import annotations

import re
from enum import StrEnum

from cogmem_graph.errors import InvalidArgument


class QueryIntent(StrEnum):
    """The intents of the second reference's router."""

    FACTUAL = "factual"
    TEMPORAL = "temporal"
    CAUSAL = "causal"
    ENTITY_PROFILE = "entity_profile"
    PREFERENCE = "preference"
    GENERAL = "general"


_TEMPORAL = re.compile(
    r"^\s*(?:when|since when|until when)\b|\bhow long\b|\bwhat (?:time|date|day|month|year)\b|"
    r"\bwhich (?:day|date|month|year|week)\b|\bhow (?:many|much) (?:days|weeks|months|years|time)\b|"
    r"\b(?:before|after|ago|first time|last time|at the time|back then|used to|previously|originally)\b|"
    r"\b(?:in|on|during|by) (?:19|20)\d\d\b|\bon \d{1,2} \w+\b|\bwhat did (?:i|we|you) (?:say|think|believe)\b",
    re.IGNORECASE)
_CAUSAL = re.compile(
    r"^\s*why\b|\bhow come\b|\bwhat (?:caused|led to|made|motivated|inspired|prompted)\b|\breasons?\b|"
    r"\bbecause\b|\bwhat (?:is|was) the cause\b|\bwhat happened after\b|\bwhat resulted\b",
    re.IGNORECASE)
_PREFERENCE = re.compile(
    r"\b(?:like|likes|liked|love|loves|prefer|prefers|preferred|favou?rite|enjoy|enjoys|hate|hates|dislike|"
    r"dislikes|rather|fond of|into)\b|\bhow do (?:i|we) (?:like|want)\b|\bwhat do (?:i|we) (?:want|eat|drink)\b",
    re.IGNORECASE)
_PROFILE = re.compile(
    r"^\s*(?:who is|who's|who was|who are)\s+(?P<a>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)\s*\??\s*$|"
    r"\b(?:tell me about|what do (?:you|i|we) know about|describe|everything about|what is known about)\s+"
    r"(?P<b>[\w'-]+(?:\s+[\w'-]+){0,3})\s*\??\s*$",
    re.IGNORECASE)
_QUESTION = re.compile(
    r"^\s*(?:what|which|where|who|whom|whose|how|is|are|was|were|do|does|did|can|could|has|have|had|"
    r"will|would|should)\b",
    re.IGNORECASE)


def classify_intent(query: str) -> QueryIntent:
    """The intent of a query by keyword rules, most specific first: an entity profile,
    then causal, temporal and preference cues, then any question is factual."""
    text = query.strip()
    if _PROFILE.search(text):
        return QueryIntent.ENTITY_PROFILE
    if _CAUSAL.search(text):
        return QueryIntent.CAUSAL
    if _TEMPORAL.search(text):
        return QueryIntent.TEMPORAL
    if _PREFERENCE.search(text):
        return QueryIntent.PREFERENCE
    if text.endswith("?") or _QUESTION.match(text):
        return QueryIntent.FACTUAL
    return QueryIntent.GENERAL


_SELF = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|our|ours|us)\b", re.IGNORECASE)


def asks_about_self(query: str) -> bool:
    """Whether the asker asks about themselves or their own group ("What am I allergic
    to?", "When does our team deploy?"): what they stated about themselves — identities,
    preferences, corrections, commitments — is what such a question is after."""
    return bool(_SELF.search(query))


ASKER_ROLES = frozenset({"user", "human", "me", "i", "customer", "client"})
"""Transcript speaker names that stand for the person asking (a chat's user role)."""


def said_by_someone_else(speaker: str | None, wanted: frozenset[str]) -> bool:
    """Whether a memory spoken by `speaker` (None: said plainly, the asker's own) is the words
    of someone other than the asker and the `wanted` names (lower case): "Which of my children
    has an allergy?" asks about the asker, and a colleague's "I'm allergic to cats" in a
    meeting transcript does not answer it; "What activities does Melanie partake in?" is
    answered by what Melanie said, not by a friend's "Wow, Melanie!"."""
    if speaker is None:
        return False
    name = speaker.lower()
    return name not in ASKER_ROLES and name not in wanted


_PAST = re.compile(
    r"\b(?:did|was|were|had|used to|before|previously|originally|formerly|ago|back then|at the time|"
    r"last (?:week|month|year|time)|in the past|anymore|no longer|history|timeline|changed?)\b",
    re.IGNORECASE)


def asks_about_the_past(query: str) -> bool:
    """Whether a question asks about how things were ("When did we move the launch?", "Where
    did I live before?") rather than how they are ("When is the team meeting?"): only the
    former reads replaced and expired memories at their own rank."""
    return bool(_PAST.search(query))


_AHEAD = re.compile(
    r"\b(?:coming up|upcoming|ahead|soon|next (?:week|month|year|weekend|time|few)|plans?|planned|planning|"
    r"scheduled|will|shall|going to|gonna|tomorrow|later (?:this|today|on)|in the future|looking forward)\b",
    re.IGNORECASE)


def asks_about_what_is_ahead(query: str) -> bool:
    """Whether a question asks about what is still to come ("Whose wedding is coming up?",
    "What are my plans for next week?"), and not about how things were: a plan or an
    announced event answers it, a memory of the same thing long past does not."""
    return bool(_AHEAD.search(query)) and not asks_about_the_past(query)


_AHEAD_CUE = re.compile(r"\b(?:coming up|upcoming|ahead|soon)\b", re.IGNORECASE)


def without_time_cues(query: str) -> str:
    """The query without the words that only say when ("Whose wedding is coming up?" ->
    "Whose wedding is ?"): as search terms they match every memory where something else
    "came up"; what they ask for is the tense, which `asks_about_what_is_ahead` reads."""
    return _AHEAD_CUE.sub(" ", query)


_WH_WORDS = frozenset("what which where who whom whose when why how".split())
_QUANTIFIERS = frozenset("many much long often old far".split())
_AUXILIARIES = frozenset("do does did is are was were has have had can could will would should may might".split())
_PRONOUNS = frozenset("i you he she it we they".split())


def declarative_stem(query: str) -> str:
    """The statement a question asks to complete, without the question words: "What
    exercise do I do on weekends?" -> "exercise I do on weekends"; "When did Caroline
    go?" -> "Caroline go". A query that is no question comes back without its final
    punctuation."""
    words = query.strip().rstrip("?!. ").split()
    if not words or words[0].lower() not in _WH_WORDS | _AUXILIARIES:
        return " ".join(words)
    rest = words[1:] if words[0].lower() in _WH_WORDS else words
    if len(rest) > 2 and rest[0].lower() in ("kind", "type", "sort", "kinds", "types", "sorts") \
            and rest[1].lower() == "of":
        rest = rest[2:]
    while rest and (rest[0].lower() in _QUANTIFIERS or rest[0].lower() == "of"):
        rest = rest[1:]
    # The first auxiliary among the next three words goes, unless a pronoun or verb precedes it.
    for i, word in enumerate(rest[:3]):
        if word.lower() in _AUXILIARIES:
            if all(w.lower() not in _PRONOUNS for w in rest[:i]):
                rest = rest[:i] + rest[i + 1:]
            break
    return " ".join(rest) or " ".join(words)


_SPLIT = re.compile(
    r"\?\s+(?=\S)|\s*;\s*|,?\s+and also\s+|,?\s+as well as\s+|,?\s+and (?=(?:what|which|where|who|when|why|how|"
    r"is|are|was|were|do|does|did)\b)",
    re.IGNORECASE)


def decompose_query(query: str, max_parts: int = 4) -> list[str]:
    """The questions a compound query holds (several question marks, "and also", "; ",
    ", and what/when/..."), at most `max_parts`; a simple query is one part. Parts
    shorter than three words are no questions of their own and stay joined."""
    if max_parts < 1:
        raise InvalidArgument(f"max_parts must be at least 1, got {max_parts!r}", argument="max_parts")
    parts = [p.strip(" ,") for p in _SPLIT.split(query.strip()) if p and p.strip(" ,?")]
    if len(parts) < 2 or any(len(p.split()) < 3 for p in parts):
        return [query.strip()]
    return parts[:max_parts]



_NOT_PLURAL = frozenset(
    "is was does has this its his hers yours ours theirs as us always sometimes perhaps plus less "
    "process address business news series species status".split())
_PLURAL_HEADS = frozenset("kinds types sorts".split())
_WHAT_PHRASE = re.compile(r"^\s*(?:what|which)\s+(?P<phrase>(?:[^\s?]+\s+){0,3}?)(?:do|does|did|is|are|was|were|has|"
                          r"have|had|can|could|will|would)\b", re.IGNORECASE)
_SO_FAR = re.compile(
    r"\b(?:has|have)\s+(?:[\w'’]+\s+){0,3}?(?:\w+ed|done|made|read|seen|gone|taken|met|bought|"
    r"written|drawn|eaten|run|won|given|found|built|sung|tried)\b", re.IGNORECASE)
_SEVERAL = re.compile(r"\bhow many times\b|\bin what ways\b|\bwhat are some\b|\bboth\b", re.IGNORECASE)


def asks_for_several(query: str) -> bool:
    """A question whose answer gathers several memories, told at different times: "What
    activities does Melanie partake in?" (a plural noun after what / which), "Where has
    Melanie camped?" (what has been done so far), "How many times…", "In what ways…",
    "… both …". Such an answer is rarely in one conversation."""
    if _SEVERAL.search(query) or _SO_FAR.search(query):
        return True
    match = _WHAT_PHRASE.search(query)
    if match is None or not match.group("phrase").strip():
        return False
    words = [w.strip(",;:").lower() for w in match.group("phrase").split()]
    if words[0] in _PLURAL_HEADS:
        return True
    last = words[-1].split("/")[-1]
    return last.endswith("s") and not last.endswith("ss") and last not in _NOT_PLURAL


def without_names(query: str, names: list[str]) -> str:
    """The query without these names (and their possessive 's): what it asks about them.
    "What activities does Melanie partake in?" -> "What activities does partake in?"."""
    text = query
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}(?:'s|’s|'|’)?(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())
