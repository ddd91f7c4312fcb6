"""The bookkeeping of GraphRAG multi-hop retrieval, without I/O.

The database does the walking (`cypher/multihop_*.cypher`); this module splits the
starting activation (the names a query carries, and whether it is a global question,
are read by `language/query_names.py`), keeps the activation each trace collects hop
after hop, and turns the walk into evidence paths: for every trace, the chain of
entities and traces that connects it to the query.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cogmem_graph.text import query_terms, stem

# ---------------------------------------------------------------- where the walk starts


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
