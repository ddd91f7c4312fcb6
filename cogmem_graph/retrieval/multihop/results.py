"""What GraphRAG multi-hop retrieval returns: traces with their evidence paths from the query."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from cogmem_graph.model import MemoryTrace
from cogmem_graph.results import RetrievalResult, ScoredTrace

LABEL_CHARS = 80

Relation = Literal["", "NAMES", "MATCHES", "MENTIONS", "SCHEMA_INSTANCE"]


@dataclass(frozen=True)
class PathStep:
    """One step of an evidence path.

    `kind` is "query", "entity", "trace" or "schema"; `id` the query text, entity key,
    trace id or schema id; `label` what a person reads (entity name, trace content,
    schema summary); `relation` how the step was reached from the one before: NAMES
    (the query names the entity), MATCHES (the query text matches the trace or the
    summary), MENTIONS (a trace mentions the entity, either direction), SCHEMA_INSTANCE
    (the trace is a member of the community)."""

    kind: str
    id: str
    label: str
    relation: Relation = ""

    def __str__(self) -> str:
        text = " ".join(self.label.split())
        text = text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"
        return {"entity": f"[{text}]", "trace": f"“{text}”", "schema": f"{{{text}}}"}.get(self.kind, f"query “{text}”")


@dataclass(frozen=True)
class EvidencePath:
    """The chain that connects a trace to the query, query first, the trace last:
    e.g. query -NAMES-> [Alice] -MENTIONS-> “Alice joined Initech” -MENTIONS-> [Initech]
    -MENTIONS-> “Initech moved to Lisbon”."""

    steps: tuple[PathStep, ...]

    @property
    def hops(self) -> int:
        """Entities crossed between the query and the trace."""
        return sum(1 for s in self.steps if s.kind == "entity")

    @property
    def trace_ids(self) -> list[str]:
        return [s.id for s in self.steps if s.kind == "trace"]

    @property
    def entities(self) -> list[str]:
        return [s.label for s in self.steps if s.kind == "entity"]

    def __str__(self) -> str:
        out = str(self.steps[0]) if self.steps else ""
        for step in self.steps[1:]:
            out += f" -{step.relation}-> {step}"
        return out


@dataclass(frozen=True)
class MultiHopTrace:
    """A trace found by multi-hop retrieval: its score (1 = the best of this result), the
    signals behind it (`start`: activation it started with as a direct match or community
    member; `spread`: activation it received over entities; `relevance`: its score as a
    direct match of the query — the read path's score — 0 when it was not one; `pagerank`
    on Neo4j with GDS) and its evidence path."""

    trace: MemoryTrace
    score: float
    signals: dict[str, float]
    path: EvidencePath

    @property
    def hops(self) -> int:
        return self.path.hops


@dataclass(frozen=True)
class QueryEntity:
    """An entity the query names that the caller's memories mention (`fan` of them)."""

    key: str
    name: str
    fan: int


@dataclass(frozen=True)
class CommunitySummary:
    """A Schema node (a community of traces found by consolidation) used for a global question."""

    id: str
    summary: str
    scope_key: str
    score: float
    member_ids: tuple[str, ...]


@dataclass
class MultiHopResult:
    query: str
    traces: list[MultiHopTrace] = field(default_factory=list)
    entities: list[QueryEntity] = field(default_factory=list)
    """The query's entities found in the caller's memory (where the walk started)."""
    communities: list[CommunitySummary] = field(default_factory=list)
    """Community summaries that answered a global question (empty for local questions)."""
    mode: Literal["local", "global"] = "local"
    ranking: Literal["spreading_activation", "personalized_pagerank"] = "spreading_activation"
    hops: int = 2

    @property
    def ids(self) -> list[str]:
        return [t.trace.id for t in self.traces]

    @property
    def paths(self) -> dict[str, EvidencePath]:
        return {t.trace.id: t.path for t in self.traces}

    def to_retrieval_result(self) -> RetrievalResult:
        """The same traces as a `RetrievalResult` (found by "multi_hop"), for what takes one,
        such as `cogmem_graph.viz.build_graph`."""
        return RetrievalResult(query=self.query, strategy="multi_hop", traces=[
            ScoredTrace(t.trace, t.score, dict(t.signals), ("multi_hop",)) for t in self.traces])

    def __len__(self) -> int:
        return len(self.traces)
