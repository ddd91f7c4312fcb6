"""The bookkeeping of GraphRAG multi-hop retrieval, without I/O.

The database does the walking (`cypher/multihop_*.cypher`); this module decides
where the walk starts (which names a query carries, whether it is a global
question, how the starting activation is split), keeps the activation each
trace collects hop after hop, and turns the walk into evidence paths: for every
trace, the chain of entities and traces that connects it to the query.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cogmem_graph.language.entities import NOT_ENTITIES, entity_key, extract_entities
from cogmem_graph.text import STOPWORDS, query_terms, stem

_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?(?:[.-][^\W_]+)*", re.UNICODE)
NGRAM_WORDS = 3
MAX_NGRAM_KEYS = 64

# ---------------------------------------------------------------- where the walk starts


def query_entity_keys(query: str, max_entities: int) -> list[tuple[str, str]]:
    """(key, surface name) of the entities a query names, as the offline extractor finds them
    in stored text. A possessive ("Caroline's") also tries the bare name."""
    out: dict[str, str] = {}
    for entity in extract_entities(query, max_entities=max_entities):
        for key in (entity.key, entity_key(_POSSESSIVE.sub("", entity.name))):
            if key and key not in NOT_ENTITIES:
                out.setdefault(key, _POSSESSIVE.sub("", entity.name) or entity.name)
    return list(out.items())[:max_entities]


def query_ngram_keys(query: str, max_words: int = NGRAM_WORDS, max_keys: int = MAX_NGRAM_KEYS) -> list[tuple[str, str]]:
    """Word n-grams of a query as candidate entity keys, for names written in lower case
    ("where does alice work"). Stopwords and pronouns never start or end one; a long
    query gives its first `max_keys`, longest first."""
    words = [_POSSESSIVE.sub("", w) for w in _WORDS.findall(query)][:max_keys]
    out: dict[str, str] = {}
    for size in range(max_words, 0, -1):
        for start in range(len(words) - size + 1):
            gram = words[start:start + size]
            edge = {gram[0].lower(), gram[-1].lower()}
            if edge & (STOPWORDS | NOT_ENTITIES) or any(len(w) < 2 for w in gram):
                continue
            key = entity_key(" ".join(gram))
            if key:
                out.setdefault(key, " ".join(gram))
    return list(out.items())[:max_keys]


def is_global_question(query: str, cues: Iterable[str]) -> bool:
    """A question about the memory as a whole ("what are the main themes?") rather than about
    one thing in it: it names a cue phrase as whole words."""
    text = " " + " ".join(_WORDS.findall(query.lower())) + " "
    return any(f" {cue.lower().strip()} " in text for cue in cues if cue.strip())


def start_shares(shares: Mapping[str, float]) -> dict[str, float]:
    """Split one unit of starting activation between the groups present (query entities,
    text matches, community summaries) in proportion to their configured shares."""
    present = {group: share for group, share in shares.items() if share > 0}
    total = sum(present.values())
    return {group: share / total for group, share in present.items()} if total > 0 else {}


def proportional(mass: float, weights: Mapping[str, float]) -> dict[str, float]:
    """`mass` divided among items in proportion to their (non-negative) weights."""
    positive = {item: w for item, w in weights.items() if w > 0}
    total = sum(positive.values())
    return {item: mass * w / total for item, w in positive.items()} if total > 0 else {}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm > 0 else 0.0


def term_overlap(query: str, text: str) -> float:
    """Share of the query's (stemmed) terms that the text contains."""
    wanted = {stem(t) for t in query_terms(query)}
    if not wanted:
        return 0.0
    have = {stem(t) for t in query_terms(text, max_terms=None)}
    return len(wanted & have) / len(wanted)


def schema_relevance(similarity: float | None, overlap: float) -> float:
    """How well a community summary answers a query: the mean of the embedding similarity of
    its centroid (when it lives in the query's embedding space) and the term overlap."""
    if similarity is None:
        return overlap
    return (max(0.0, similarity) + overlap) / 2


# ---------------------------------------------------------------- the walk


@dataclass(frozen=True)
class Origin:
    """One way a trace was reached: through an entity named by the query (`entity`, no
    `from_id`) or carried from another trace (`from_id`), as a text match, or as a member
    of a community (`schema`); `strength` is the activation it brought."""

    kind: str  # "entity" | "match" | "schema"
    hop: int
    entity: str | None = None
    from_id: str | None = None
    schema: str | None = None
    strength: float = 0.0


@dataclass
class Walk:
    """Activation collected by each trace, round by round, and what explains it.

    Round 0 is where the walk starts (text matches, community members); round r is what
    arrived over r entity crossings. A trace keeps, per round, the strongest contribution
    as that round's origin; an origin of round r points at a trace reached in round r - 1
    (or at a query entity in round 1), so every chain ends at the query in exactly r
    crossings. A trace's evidence path is the chain of its explaining round.
    """

    start: dict[str, float] = field(default_factory=dict)
    received: dict[str, float] = field(default_factory=dict)
    by_round: dict[tuple[str, int], float] = field(default_factory=dict)
    origins: dict[tuple[str, int], Origin] = field(default_factory=dict)
    entity_names: dict[str, str] = field(default_factory=dict)

    def seed(self, trace_id: str, mass: float, origin: Origin) -> None:
        self.start[trace_id] = self.start.get(trace_id, 0.0) + mass
        self._record(trace_id, 0, mass, origin)

    def reach(self, trace_id: str, hop: int, mass: float, origin: Origin) -> None:
        self.received[trace_id] = self.received.get(trace_id, 0.0) + mass
        self._record(trace_id, hop, mass, origin)

    def _record(self, trace_id: str, hop: int, mass: float, origin: Origin) -> None:
        self.by_round[(trace_id, hop)] = self.by_round.get((trace_id, hop), 0.0) + mass
        current = self.origins.get((trace_id, hop))
        if current is None or origin.strength > current.strength:
            self.origins[(trace_id, hop)] = origin

    def total(self, trace_id: str) -> float:
        return self.start.get(trace_id, 0.0) + self.received.get(trace_id, 0.0)

    def ranked(self) -> list[tuple[str, float]]:
        ids = set(self.start) | set(self.received)
        return sorted(((i, self.total(i)) for i in ids), key=lambda pair: (-pair[1], pair[0]))

    def explaining_round(self, trace_id: str, min_share: float = 0.5) -> int:
        """The round whose chain explains the trace: the shortest one through the graph that
        brought at least `min_share` of what its strongest round brought (a short chain is the
        clearer evidence, unless a longer one carried far more); a plain text match only when
        no chain through the graph comes close."""
        rounds = {hop: mass for (tid, hop), mass in self.by_round.items() if tid == trace_id}
        if not rounds:
            return 0
        strongest = max(rounds.values())
        close = [hop for hop, mass in rounds.items() if mass >= min_share * strongest]
        start = self.origins.get((trace_id, 0))
        graph = [hop for hop in close if hop > 0 or (start is not None and start.kind == "schema")]
        return min(graph or close)

    def chain(self, trace_id: str, min_share: float = 0.5) -> list[tuple[str, str]]:
        """The evidence chain of a trace, from the query: ("entity", key), ("trace", id) and
        ("schema", id) steps; a leading ("match", id) marks a trace the query text matched.
        Each earlier trace on the chain is explained by its own contribution one round before."""
        steps: list[tuple[str, str]] = []
        current: str | None = trace_id
        hop = self.explaining_round(trace_id, min_share)
        while current is not None:
            origin = self.origins.get((current, hop))
            steps.append(("trace", current))
            if origin is None or origin.kind == "match":
                steps.append(("match", current))
                break
            if origin.kind == "schema":
                steps.append(("schema", origin.schema or ""))
                break
            steps.append(("entity", origin.entity or ""))
            current, hop = origin.from_id, hop - 1
        steps.reverse()
        return steps


def merge_entity_activation(*groups: Iterable[Mapping]) -> list[dict]:
    """Entity rows from several sources summed by key; the first source that carried an
    entity names where it came from and how its fan divides it (query entities come first,
    `fromId` None)."""
    merged: dict[str, dict] = {}
    for rows in groups:
        for row in rows:
            key = row["key"]
            if key in merged:
                merged[key]["activation"] += float(row["activation"])
            else:
                merged[key] = {"key": key, "activation": float(row["activation"]), "fromId": row.get("fromId"),
                               "exponent": float(row["exponent"])}
    return list(merged.values())
