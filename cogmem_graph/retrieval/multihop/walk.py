"""GraphRAG multi-hop retrieval: `agent.multi_hop(query, hops=2, top_k=10)`.

Plain retrieval finds what the query *says*; multi-hop retrieval finds what is
*connected* to it. The walk runs in the graph database, one named statement per
half hop (`cypher/multihop_*.cypher`):

    query entities → Entity nodes → traces that mention them
                   → entities those traces co-mention → their traces → … (`hops` entity crossings)

The walk starts from three places at once, sharing one unit of activation
(`MultiHopConfig.entity_share / text_share / schema_share`):

- the entities the query names (the offline entity extractor, as at encode time;
  lower-case word n-grams when it finds none the graph knows);
- the traces the query matches directly: the read path's best matches (hybrid dense + BM25
  candidates, graph activation, the six signals), each starting with activation in
  proportion to its score ^ `seed_sharpness` (`seed_source="hybrid"`: the fused dense +
  BM25 relevance alone);
- for global questions (a cue such as "overall" or "main themes", or no entity the
  graph knows), the community summaries: `Schema` nodes made by consolidation.

Each entity passes its activation times the per-hop decay, divided among the traces that
mention it (fan), so a name on every page says little and a rare name says a lot; traces
reached by several paths sum them. That is a truncated personalised PageRank computed by
spreading activation in Cypher (FalkorDB, and Neo4j without GDS). On Neo4j with GDS the
reached neighbourhood is projected and ranked by `gds.pageRank.stream` with the same
starting activations as source biases.

Every statement filters every trace on every path by the caller's visible scope keys:
entities are shared nodes, so an entity is only ever crossed through the caller's own
traces. The result carries each trace's **evidence path** — the chain of steps from the
query to it — and, for global questions, the community summaries used. Looking is not
remembering: multi-hop retrieval changes nothing in the memory.
"""

from __future__ import annotations

import logging
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from cogmem_graph.cognition.embedding_space import cosine
from cogmem_graph.errors import GraphQueryError, InvalidArgument
from cogmem_graph.language.query_names import (
    is_global_question,
    query_entity_keys,
    query_ngram_keys,
)
from cogmem_graph.lexical import bm25_query_vector
from cogmem_graph.model import MemoryTrace
from cogmem_graph.retrieval.fusion import fuse_hits
from cogmem_graph.retrieval.multihop.bookkeeping import (
    Origin,
    Walk,
    merge_entity_activation,
    proportional,
    schema_relevance,
    start_shares,
    term_overlap,
)
from cogmem_graph.retrieval.multihop.results import (
    CommunitySummary,
    EvidencePath,
    MultiHopResult,
    MultiHopTrace,
    PathStep,
    QueryEntity,
    Relation,
)

if TYPE_CHECKING:
    from cogmem_graph.config.retrieval import RetrievalConfig
    from cogmem_graph.context import MemoryContext
    from cogmem_graph.filters import PayloadCondition

log = logging.getLogger(__name__)

PAGERANK_PROCEDURE = "gds.pageRank.stream"


# ---------------------------------------------------------------- the walk


def check_arguments(query: Any, hops: Any, top_k: Any, config: RetrievalConfig) -> None:
    """Refuse a bad query, `hops` or `top_k` (past `config.max_top_k`) before any work."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query must be a non-empty string", argument="query")
    max_hops = config.multi_hop.max_hops
    if isinstance(hops, bool) or not isinstance(hops, int) or not 1 <= hops <= max_hops:
        raise InvalidArgument(f"hops must be an integer from 1 to {max_hops}, got {hops!r}", argument="hops")
    config.checked_top_k(top_k)


def walk(ctx: MemoryContext, query: str, *, hops: int, top_k: int, relevance: dict[str, float],
         entities: list[QueryEntity] | None = None,
         keep: Callable[[list[str]], list[str]] | None = None) -> MultiHopResult:
    """The walk from the traces that match the query (`relevance`: trace id -> score) and the
    query's entities (looked up when not given), its best `top_k` with their evidence paths.
    `keep`: which reached traces a caller's filter lets through, asked before the top-k cut."""
    walked = spread(ctx, query, hops=hops, relevance=relevance, entities=entities, keep=keep)
    return walked.result(ctx, walked.ranked()[:top_k], relevance)


@dataclass
class Walked:
    """A finished walk: each reached trace's score (`scores`, through the caller's filter) and
    what explains it, before any cut. `retrieval.graph_rag` fuses its ranking with the
    read path's; `walk` returns its own."""

    query: str
    hops: int
    walk: Walk
    scores: dict[str, float]
    entities: list[QueryEntity]
    communities: list[CommunitySummary]
    ranking: Literal["spreading_activation", "personalized_pagerank"]
    global_question: bool

    def ranked(self) -> list[tuple[str, float]]:
        return sorted(self.scores.items(), key=lambda pair: (-pair[1], pair[0]))

    def result(self, ctx: MemoryContext, ranked: list[tuple[str, float]], relevance: dict[str, float],
               chains: dict[str, list[tuple[str, str]]] | None = None) -> MultiHopResult:
        """These traces (id, score, best first) with their evidence paths: the walk's chain, or
        the one in `chains` for a trace the walk did not reach. `relevance` is the read path's
        score, a signal."""
        cfg = ctx.config.retrieval.multi_hop
        chains = dict(chains or {})
        for tid, _ in ranked:
            if tid not in chains:
                chains[tid] = self.walk.chain(tid, cfg.evidence_min_share)
        wanted = list(dict.fromkeys([tid for tid, _ in ranked]
                                    + [i for tid, _ in ranked for k, i in chains[tid] if k == "trace"]))
        loaded = {t.id: t for t in ctx.graph.get_traces(wanted, ctx.visible_scope_keys) if t.is_active}
        summaries = {c.id: c.summary for c in self.communities}
        best = ranked[0][1] if ranked else 1.0
        out: list[MultiHopTrace] = []
        for tid, score in ranked:
            if tid not in loaded:
                continue
            signals = {"start": self.walk.start.get(tid, 0.0), "spread": self.walk.received.get(tid, 0.0),
                       "relevance": relevance.get(tid, 0.0)}
            if self.ranking == "personalized_pagerank":
                signals["pagerank"] = self.scores.get(tid, 0.0)
            path = _evidence(self.query, chains[tid], loaded, self.walk.entity_names, summaries)
            out.append(MultiHopTrace(loaded[tid], score / best if best > 0 else 0.0, signals, path))
        return MultiHopResult(query=self.query, traces=out, entities=self.entities, communities=self.communities,
                              mode="global" if self.global_question else "local", ranking=self.ranking,
                              hops=self.hops)


def spread(ctx: MemoryContext, query: str, *, hops: int, relevance: dict[str, float],
           entities: list[QueryEntity] | None = None,
           keep: Callable[[list[str]], list[str]] | None = None) -> Walked:
    """Walk from the query's entities (looked up when not given), the traces it matches
    (`relevance`: trace id -> score) and, for a global question, its community summaries."""
    cfg = ctx.config.retrieval.multi_hop
    if entities is None:
        entities = query_entities(ctx, query)
    global_question = not entities or is_global_question(query, cfg.global_cues)
    communities = _communities(ctx, query) if global_question and cfg.max_schemas else []

    shares = start_shares({
        "entities": cfg.entity_share if entities else 0.0,
        "text": cfg.text_share if relevance else 0.0,
        "schemas": cfg.schema_share if communities else 0.0,
    })
    walk = _start(ctx, shares, relevance, communities)
    _spread(ctx, walk, entities, shares.get("entities", 0.0), hops)

    scores = dict(walk.ranked())
    ranking: Literal["spreading_activation", "personalized_pagerank"] = "spreading_activation"
    pagerank = _pagerank(ctx, walk, entities, shares.get("entities", 0.0)) if scores else None
    if pagerank:
        scores, ranking = pagerank, "personalized_pagerank"
    if keep is not None and scores:
        allowed = set(keep(list(scores)))
        scores = {tid: score for tid, score in scores.items() if tid in allowed}
    return Walked(query, hops, walk, scores, entities, communities, ranking, global_question)


def blend_candidates(ctx: MemoryContext, query: str, relevance: dict[str, float], top_k: int,
                     entities: list[QueryEntity] | None = None, *, min_entities: int | None = None) -> dict[str, float]:
    """Multi-hop candidates for `retrieve` (trace id -> multi-hop score in [0, 1]) when
    `RetrievalConfig.multi_hop_blend` is on and the query names at least
    `MultiHopConfig.blend_min_entities` entities the caller's memories mention; else nothing.
    The walk starts from retrieve's own fused candidates (`relevance`); `entities` are the
    query's, when the caller already looked them up (`query_entities`); `min_entities`
    overrides the blend minimum (an entity-profile question needs only one). Only the walk's
    scores are needed: no trace is loaded and no evidence path built (the read path reads the
    ranking fields of what it ranks, active traces only)."""
    cfg = ctx.config.retrieval
    if not cfg.multi_hop_blend:
        return {}
    if entities is None:
        entities = query_entities(ctx, query)
    if len(entities) < (cfg.multi_hop.blend_min_entities if min_entities is None else min_entities):
        return {}
    ranked = spread(ctx, query, hops=cfg.multi_hop.default_hops, relevance=relevance,
                    entities=entities).ranked()[:top_k]
    best = ranked[0][1] if ranked else 0.0
    return {tid: score / best if best > 0 else 0.0 for tid, score in ranked}


def query_entities(ctx: MemoryContext, query: str) -> list[QueryEntity]:
    """The query's entities that the caller's visible memories mention: the names the
    extractor finds, else word n-grams that happen to be entity keys."""
    return query_entities_later(ctx, query)()


def query_entities_later(ctx: MemoryContext, query: str) -> Callable[[], list[QueryEntity]]:
    """`query_entities`, its lookup started now (`GraphStore.read_later`) and read when the
    result is called. Both candidate lists are looked up in one statement, each key once (a
    name the extractor finds is usually one of the n-grams too, and counting a popular
    entity's mentions is the statement's cost); the first list that names a known entity
    wins."""
    cfg = ctx.config.retrieval.multi_hop
    lists = [c for c in (query_entity_keys(query, cfg.max_query_entities), query_ngram_keys(query)) if c]
    if not lists:
        return list
    keys = list(dict.fromkeys(key for candidates in lists for key, _ in candidates))
    fans = ctx.graph.entity_fans_later(keys, ctx.visible_scope_keys)

    def found_entities() -> list[QueryEntity]:
        known = {f.key: f for f in fans()}
        for candidates in lists:
            found = [QueryEntity(f.key, f.name or f.key, f.fan) for f in (known.get(key) for key, _ in candidates) if f]
            if found:
                return found[: cfg.max_query_entities]
        return []
    return found_entities


def text_relevance(ctx: MemoryContext, query: str, pool: int) -> dict[str, float]:
    """Relevance in [0, 1] of the traces the query matches as text: dense and BM25
    candidates fused the way `retrieve` fuses them."""
    cfg = ctx.config.retrieval
    keys = ctx.visible_scope_keys
    dense = ctx.vectors.search_dense(ctx.embedder.embed_query(query), keys, pool)
    lexical = ctx.vectors.search_sparse(bm25_query_vector(query), keys, pool)
    return dict(fuse_hits(dense, lexical, cfg)[:pool])


def text_matches(ctx: MemoryContext, query: str, limit: int, *, scope_keys: Sequence[str] | None = None,
                 where: Sequence[PayloadCondition] = ()) -> set[str]:
    """The traces the query matches by its words (a BM25 hit) or its meaning (a cosine of at
    least `MultiHopConfig.seed_min_similarity`): the only ones a walk may start from. The
    searches rank every memory; the rest are the nearest only because something must be.
    `scope_keys` and `where`: a caller's filter, as the read path pushes it into the searches."""
    keys = list(scope_keys) if scope_keys is not None else ctx.visible_scope_keys
    if not keys:  # a filter naming none of the caller's scopes
        return set()
    floor = ctx.config.retrieval.multi_hop.seed_min_similarity
    dense = ctx.vectors.search_dense(ctx.embedder.embed_query(query), keys, limit, score_threshold=floor,
                                     where=where)
    lexical = ctx.vectors.search_sparse(bm25_query_vector(query), keys, limit, where=where)
    return {h.trace_id for h in dense if h.score >= floor} | {h.trace_id for h in lexical if h.score > 0}


def _communities(ctx: MemoryContext, query: str) -> list[CommunitySummary]:
    """The visible community summaries that best match the query (centroid similarity in the
    query's embedding space, and shared terms)."""
    cfg = ctx.config.retrieval.multi_hop
    schemas = ctx.graph.community_schemas(ctx.visible_scope_keys, cfg.schema_candidates)
    if not schemas:
        return []
    vector = ctx.embedder.embed_query(query)
    scored = []
    for schema in schemas:
        centroid = schema.centroid
        similar = cosine(vector, centroid) if centroid and schema.centroid_model == ctx.embedder.name else None
        score = schema_relevance(similar, term_overlap(query, schema.summary or ""))
        if score > 0 and schema.members:
            scored.append(CommunitySummary(schema.id, schema.summary or "", schema.scope_key, score,
                                           schema.members))
    scored.sort(key=lambda c: (-c.score, c.id))
    return scored[: cfg.max_schemas]


def _start(ctx: MemoryContext, shares: dict[str, float], relevance: dict[str, float],
           communities: list[CommunitySummary]) -> Walk:
    """Starting activation: direct matches in proportion to their (sharpened) score; community
    members through their SCHEMA_INSTANCE edge, divided among the members."""
    cfg = ctx.config
    fan_exponent = cfg.retrieval.multi_hop.fan_exponent
    walk = Walk()
    sharpened = {tid: max(0.0, score) ** cfg.retrieval.multi_hop.seed_sharpness for tid, score in relevance.items()}
    for tid, mass in proportional(shares.get("text", 0.0), sharpened).items():
        walk.seed(tid, mass, Origin("match", 0, strength=mass))
    weights = {c.id: c.score for c in communities}
    for community in communities:
        mass = proportional(shares.get("schemas", 0.0), weights).get(community.id, 0.0)
        each = mass * cfg.graph.edges.schema_instance_weight * cfg.graph.activation.decay_per_hop
        each /= len(community.member_ids) ** fan_exponent
        for tid in community.member_ids:
            walk.seed(tid, each, Origin("schema", 0, schema=community.id, strength=each))
    return walk


def _spread(ctx: MemoryContext, walk: Walk, entities: list[QueryEntity], entity_mass: float, hops: int) -> None:
    """`hops` rounds of trace → entity → trace in the database, each filtered by scope. The
    query's entities start the first round; later rounds cross the entities of the traces the
    round before reached (a non-backtracking walk: an entity never hands activation straight
    back to the trace it came from)."""
    graph = ctx.graph
    cfg = ctx.config.retrieval.multi_hop
    keys = ctx.visible_scope_keys
    decay = ctx.config.graph.activation.decay_per_hop
    named: list[dict[str, Any]] = [{"key": e.key, "activation": entity_mass / len(entities), "fromId": None,
              "exponent": cfg.query_fan_exponent} for e in entities] if entities and entity_mass > 0 else []
    walk.entity_names.update({e.key: e.name for e in entities})
    frontier = dict(walk.start)
    for hop in range(1, hops + 1):
        carried: list[dict[str, Any]] = []
        if frontier:
            top = sorted(frontier.items(), key=lambda pair: -pair[1])[: cfg.max_traces_per_hop]
            steps = graph.walk_to_entities(
                [{"id": tid, "activation": mass} for tid, mass in top], keys,
                named=[row["key"] for row in named], fan_exponent=cfg.fan_exponent,
                limit=cfg.max_entities_per_hop)
            walk.entity_names.update({r["key"]: r["name"] or r["key"] for r in steps})
            carried = [{**row, "exponent": cfg.fan_exponent} for row in steps]
        crossing = merge_entity_activation(named if hop == 1 else [], carried)
        if not crossing:
            break
        reached = graph.walk_to_traces(crossing, keys, decay=decay, min_activation=cfg.min_activation,
                                       limit=cfg.max_traces_per_hop)
        frontier = {}
        for step in reached:
            mass = step.activation
            walk.reach(step.trace_id, hop, mass, Origin("entity", hop, entity=step.entity_key, from_id=step.from_id,
                                                        strength=mass))
            frontier[step.trace_id] = mass


_gds_available: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _has_pagerank(graph: Any) -> bool:
    if graph not in _gds_available:
        _gds_available[graph] = PAGERANK_PROCEDURE in graph.gds_procedures_available([PAGERANK_PROCEDURE])
    return _gds_available[graph]


def _pagerank(ctx: MemoryContext, walk: Walk, entities: list[QueryEntity],
              entity_mass: float) -> dict[str, float] | None:
    """Neo4j with GDS: personalised PageRank over the neighbourhood the walk reached, the
    walk's starting activations as source biases. None where GDS is absent (or refuses the
    call, which is logged): the spreading-activation ranking stands."""
    cfg = ctx.config.retrieval.multi_hop
    graph = ctx.graph
    if graph.dialect != "neo4j" or not cfg.use_gds or not _has_pagerank(graph):
        return None
    keys = ctx.visible_scope_keys
    name = f"cogmem_multihop_{uuid.uuid4().hex}"
    trace_ids = [tid for tid, _ in walk.ranked()]
    entity_keys = sorted(walk.entity_names)
    entity_sources = [{"key": e.key, "bias": entity_mass / len(entities)} for e in entities] if entity_mass else []
    trace_sources = [{"id": tid, "bias": mass} for tid, mass in walk.start.items() if mass > 0]
    if not entity_sources and not trace_sources:
        return None
    projected = graph.project_pagerank_graph(name, trace_ids, entity_keys, keys)
    try:
        scores = graph.personalised_pagerank(
            name, entity_sources=entity_sources, trace_sources=trace_sources, scope_keys=keys,
            damping=cfg.pagerank_damping, max_iterations=cfg.pagerank_iterations, limit=len(trace_ids))
    except GraphQueryError as exc:
        log.warning("personalised PageRank on GDS failed (%s); ranking by spreading activation instead", exc)
        return None
    finally:
        if projected:
            graph.drop_gds_graph(name)
    return scores or None


def _evidence(query: str, chain: list[tuple[str, str]], traces: dict[str, MemoryTrace],
              entity_names: dict[str, str], summaries: dict[str, str]) -> EvidencePath:
    steps = [PathStep("query", query, query)]
    for kind, ident in chain:
        previous = steps[-1].kind
        if kind == "match":
            continue
        if kind == "entity":
            relation: Relation = "NAMES" if previous == "query" else "MENTIONS"
            steps.append(PathStep("entity", ident, entity_names.get(ident, ident), relation))
        elif kind == "schema":
            steps.append(PathStep("schema", ident, summaries.get(ident, ""), "MATCHES"))
        else:
            relation = "MATCHES" if previous == "query" else "SCHEMA_INSTANCE" if previous == "schema" else "MENTIONS"
            trace = traces.get(ident)
            steps.append(PathStep("trace", ident, trace.content if trace else "", relation))
    return EvidencePath(tuple(steps))
