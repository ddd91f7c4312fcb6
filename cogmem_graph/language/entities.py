"""Offline entity extraction: the names a memory is about, without an LLM.

Three cheap signals: runs of capitalised words (people, places, products),
known technology and organisation terms (matched case-insensitively, so
"docker" and "Docker" meet), and quoted strings. The result feeds MENTIONS
edges, and through them SHARED_ENTITY association and multi-hop retrieval,
so precision matters more than recall: a word capitalised only because it
starts a sentence ("Got it", "Honestly, ...") is not a name, while one English
never writes in lower case is ("Alice went home").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from cogmem_graph.language.common_words import COMMON_WORDS
from cogmem_graph.model import entity_key  # noqa: F401 - the key is part of this module's vocabulary

KNOWN_TERMS: dict[str, str] = {
    term: "tech"
    for term in (
        "docker", "docker compose", "kubernetes", "k8s", "helm", "terraform", "ansible", "python",
        "typescript", "javascript", "rust", "golang", "java", "kotlin", "swift", "react", "vue",
        "angular", "node.js", "nodejs", "django", "flask", "fastapi", "postgres", "postgresql",
        "mysql", "sqlite", "redis", "mongodb", "neo4j", "falkordb", "qdrant", "elasticsearch",
        "kafka", "rabbitmq", "graphql", "grpc", "linux", "windows", "macos", "ios", "android",
        "aws", "azure", "gcp", "openai", "github", "gitlab", "jira", "slack", "notion", "figma",
        "pytorch", "tensorflow", "numpy", "pandas", "spark", "airflow", "nginx", "git",
    )
}

NOT_ENTITIES = frozenset(
    """i i'm i've i'd i'll me my mine we we're our us you you're your he she it they them their
    the a an this that these those there here what when where why how who which yes no ok okay
    hi hello hey thanks thank please sure well so but and or if then also just oh wow
    monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday tonight
    mr mrs ms dr
    it's that's there's here's what's let's let don't didn't can't won't isn't wasn't
    is are was were be been am do does did have has had will would can could should might must may
    not never always sometimes often usually maybe perhaps actually really definitely absolutely
    totally probably anyway btw omg lol haha yeah yep yup nope sorry congrats congratulations
    great good nice cool awesome amazing wonderful glad sounds sound love like lovely fantastic
    back next last first new old now then soon later still again even only very too
    after before since because although though while during until as at by for from in into on
    over with without about all any each every some many much more most other such both either
    one two three another same
    his her hers him its theirs ours yours myself yourself himself herself ourselves themselves
    morning evening night week weekend month year day
    hmm hm ugh aw aww yay ah uh um hah gotcha alright hope""".split()
)
"""Words never taken for an entity, wherever they stand: pronouns, determiners, auxiliaries,
interjections, days and the like, and the few common names English also uses as chat
openers ("Hope you're well", "Will you...?"). Open-class words (verbs, adverbs, nouns) that
merely start a sentence are `COMMON_WORDS`' business, not this list's."""

_CAPITALISED_RUN = re.compile(r"\b([A-Z][\w'’.-]*[\w](?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’.-]*[\w])*)")
_LOWER_WORD = re.compile(r"(?<![\w'’.-])[a-z][\w'’-]*")
_OPENERS = " \t\"'“‘([{*•>_-"
"""What may stand between a sentence end and the sentence's first word: space, an opening
quote or bracket, a list bullet."""
_SENTENCE_ENDS = ".!?…:;\n\r"
"""After these a new sentence (or a speaker's line, "maya: Got it") begins."""
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,60})[\"“”]")
_WORD_BOUNDARY_CACHE: dict[str, re.Pattern[str]] = {}


@dataclass(frozen=True)
class ExtractedEntity:
    key: str
    name: str
    kind: str


def _term_pattern(term: str) -> re.Pattern[str]:
    pattern = _WORD_BOUNDARY_CACHE.get(term)
    if pattern is None:
        pattern = re.compile(r"(?<![\w.])" + re.escape(term) + r"(?![\w])", re.IGNORECASE)
        _WORD_BOUNDARY_CACHE[term] = pattern
    return pattern


_FOLDED_TERMS = tuple((term, term.casefold(), kind) for term, kind in KNOWN_TERMS.items())


def extract_known_terms(text: str) -> list[ExtractedEntity]:
    found = []
    folded = text.casefold()
    for term, folded_term, kind in _FOLDED_TERMS:
        if folded_term not in folded:  # a cheap necessary condition before the regex
            continue
        match = _term_pattern(term).search(text)
        if match:
            found.append(ExtractedEntity(entity_key(term), match.group(0), kind))
    # "docker compose" makes "docker" redundant
    keys = {e.key for e in found}
    return [e for e in found if not any(e.key != k and e.key in k.split() for k in keys)]


def starts_sentence(text: str, index: int) -> bool:
    """Whether the word at `index` is the first of its sentence (or of the text, or of a
    speaker's line), opening quotes, brackets and bullets aside."""
    start = index
    while start > 0 and text[start - 1] in _OPENERS:
        start -= 1
    return start == 0 or text[start - 1] in _SENTENCE_ENDS


def capitalised_only_to_start_a_sentence(word: str, text: str, index: int, lower_words: set[str]) -> bool:
    """A word at a sentence start that English writes in lower case: one of `COMMON_WORDS`,
    or one this very text also writes in lower case ("Well, it went well")."""
    if not starts_sentence(text, index):
        return False
    folded = word.lower()
    return folded in COMMON_WORDS or folded in lower_words


def extract_capitalised_names(text: str, known: Collection[str] = ()) -> list[ExtractedEntity]:
    """Runs of capitalised words as names. A lone word capitalised only to start a sentence is
    left out unless its key is in `known`: names the memory already has (`doubtful_names`)."""
    return _names(_keyed_runs(text), known)


def doubtful_names(text: str) -> set[str]:
    """Keys of the lone words at sentence starts that read as ordinary words ("Got it",
    "Biscuit has an allergy"): names only if the memory knows them as names already."""
    return _doubtful(_keyed_runs(text))


def _keyed_runs(text: str) -> list[tuple[str, str, bool]]:
    """(name, key, doubtful) per capitalised run whose key can name an entity."""
    return [(name, key, doubtful) for name, doubtful in _capitalised_runs(text)
            if len(key := entity_key(name)) >= 2 and key not in NOT_ENTITIES and key not in KNOWN_TERMS]


def _names(runs: list[tuple[str, str, bool]], known: Collection[str]) -> list[ExtractedEntity]:
    return [ExtractedEntity(key, name, "name") for name, key, doubtful in runs if not doubtful or key in known]


def _doubtful(runs: list[tuple[str, str, bool]]) -> set[str]:
    return {key for _name, key, doubtful in runs if doubtful}


def _capitalised_runs(text: str) -> Iterator[tuple[str, bool]]:
    """(name, doubtful) per run of capitalised words, leading function words dropped; doubtful:
    a lone word capitalised only because it starts a sentence. (A longer run keeps its first
    word: "New York", "Central Park".)"""
    lower_words: set[str] | None = None  # the text's lower-case words, read when first needed
    for match in _CAPITALISED_RUN.finditer(text):
        name = match.group(1).strip(" .'’-")
        if name.endswith(("'s", "’s")):
            name = name[:-2]  # "Maya's" is Maya
        words = name.split()
        doubtful = False
        if len(words) == 1 and starts_sentence(text, match.start(1)):
            if lower_words is None:
                lower_words = {w.lower() for w in _LOWER_WORD.findall(text)}
            doubtful = capitalised_only_to_start_a_sentence(words[0], text, match.start(1), lower_words)
        while words and words[0].lower().strip("'’") in NOT_ENTITIES:
            words = words[1:]
        if words:
            yield " ".join(words), doubtful


def extract_quoted(text: str) -> list[ExtractedEntity]:
    return [
        ExtractedEntity(entity_key(m.group(1)), m.group(1).strip(), "quoted")
        for m in _QUOTED.finditer(text)
        if entity_key(m.group(1)) and len(m.group(1).split()) <= 6
    ]


def extract_entities(text: str, extra: list[str] | None = None, max_entities: int = 12,
                     known: Collection[str] = ()) -> list[ExtractedEntity]:
    """Entities of a text, deduplicated by key, known terms first; `extra` are names the
    caller already knows (given on encode) and always kept; `known`, entity keys the memory
    already holds as names, keeps one that merely starts a sentence (see `doubtful_names`)."""
    return _entities(text, extra, max_entities, _names(_keyed_runs(text), known))


def entities_and_doubtful_names(text: str, extra: list[str] | None = None,
                                max_entities: int = 12) -> tuple[list[ExtractedEntity], set[str]]:
    """`extract_entities(text, extra, max_entities)` and `doubtful_names(text)`, the text's
    capitalised runs read once for both (the write path needs both of every memory)."""
    runs = _keyed_runs(text)
    return _entities(text, extra, max_entities, _names(runs, ())), _doubtful(runs)


def _entities(text: str, extra: list[str] | None, max_entities: int,
              names: list[ExtractedEntity]) -> list[ExtractedEntity]:
    seen: dict[str, ExtractedEntity] = {}
    candidates = [ExtractedEntity(entity_key(n), n, "given") for n in (extra or []) if entity_key(n)]
    candidates += extract_known_terms(text) + extract_quoted(text) + names
    for entity in candidates:
        if entity.key not in seen:
            seen[entity.key] = entity
    return list(seen.values())[: max(max_entities, len(extra or []))]
