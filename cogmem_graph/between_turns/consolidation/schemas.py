"""Step 4: schema integration. Each cluster becomes a `Schema` node with SCHEMA_INSTANCE
edges to its members and SAME_TOPIC edges among them; summarised by the LLM when the
store has one, extractively otherwise."""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.between_turns.consolidation.clusters import detect_clusters
from cogmem_graph.cognition.mechanisms import extractive_gist, schema_centroid
from cogmem_graph.graph.cypher_store.graph_store import require_scope_keys
from cogmem_graph.graph.port import Edge, NewSchema
from cogmem_graph.graph.rows import SchemaRow
from cogmem_graph.model import EdgeType, MemoryTrace
from cogmem_graph.text import word_tokens

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)

_SCHEMA_SYSTEM = (
    "You summarise a cluster of related memories of an AI agent into one general statement of "
    "knowledge (a schema). Answer with one or two plain sentences, no preamble."
)


def extractive_summary(contents: Sequence[str], max_words: int = 30, keywords: int = 4) -> str:
    """Offline schema summary: the words the members share most, and the member that
    best represents them (its first sentence)."""
    docs = [set(word_tokens(c)) for c in contents]
    counts: Counter[str] = Counter(w for d in docs for w in d)
    shared = [w for w, n in counts.most_common() if n > 1][:keywords] or [w for w, _ in counts.most_common(keywords)]

    def representativeness(i: int) -> tuple[float, int]:
        words = docs[i]
        return (sum(counts[w] for w in words) / (len(words) or 1), -len(contents[i]))

    best = contents[max(range(len(contents)), key=representativeness)] if contents else ""
    about = ", ".join(shared) if shared else "various things"
    return f"{len(contents)} related memories about {about}: {extractive_gist(best, max_words, 0)}"


def _same_topic_edges(members: Sequence[str], links: int, weight: float) -> list[Edge]:
    """A ring with `links` neighbours per member: a clique for small clusters,
    connected and sparse for big ones. Lower id first, each pair once."""
    ordered = sorted(members)
    n = len(ordered)
    pairs: set[tuple[str, str]] = set()
    for i in range(n):
        for step in range(1, min(links, n - 1) + 1):
            a, b = ordered[i], ordered[(i + step) % n]
            pairs.add((min(a, b), max(a, b)))
    return [Edge(a, b, weight, EdgeType.SAME_TOPIC) for a, b in sorted(pairs)]


def integrate_schemas(sc: StepContext, keys: Sequence[str]) -> None:
    cfg = sc.ctx.config.consolidation
    edge_cfg = sc.ctx.config.graph.edges
    if not keys or cfg.max_schemas_per_cycle == 0:
        return
    clusters, algorithm = detect_clusters(sc.ctx, keys)
    sc.result.cluster_algorithm = algorithm
    budget = cfg.max_schemas_per_cycle
    by_key: dict[str, list[list[str]]] = {}
    for scope_key, members in clusters:
        if budget == 0:
            break
        if scope_key in keys and len(members) >= cfg.min_cluster_size:
            by_key.setdefault(scope_key, []).append(members)
            budget -= 1
    for scope_key, member_lists in by_key.items():
        loaded = {t.id: t for t in sc.ctx.graph.get_traces([i for m in member_lists for i in m], [scope_key])
                  if t.is_active and t.scope_key == scope_key}
        rows: list[NewSchema] = []
        edges: list[Edge] = []
        all_members: list[str] = []
        for members in member_lists:
            alive = [loaded[i] for i in members if i in loaded]
            if len(alive) < cfg.min_cluster_size:
                continue
            alive.sort(key=lambda t: (t.created_at, t.id))
            rows.append(NewSchema("schema_" + uuid.uuid4().hex, summarise(sc, alive), len(alive), algorithm,
                                  [t.id for t in alive], centroid(sc, alive), sc.ctx.embedder.name))
            edges += _same_topic_edges([t.id for t in alive], edge_cfg.same_topic_links, edge_cfg.same_topic_weight)
            all_members += [t.id for t in alive]
        if not rows:
            continue
        counted = sc.result.counts()
        before = sc.count_edges(all_members)
        created = sc.ctx.graph.create_schemas(rows, scope_key, now=sc.now(),
                                              weight=sc.ctx.config.graph.edges.schema_instance_weight)
        sc.ctx.graph.merge_edges(EdgeType.SAME_TOPIC, edges)
        sc.result.schemas_created += created
        sc.result.edges_created += max(0, sc.count_edges(all_members) - before)
        sc.result.credit(scope_key, counted)


def list_schemas(ctx: MemoryContext, scope_keys: Sequence[str]) -> list[SchemaRow]:
    """The schemas of `scope_keys`: id, summary, scopeKey, size, algorithm, member ids and
    the SCHEMA_INSTANCE weight."""
    return ctx.graph.list_schemas(require_scope_keys(scope_keys))


def centroid(sc: StepContext, members: Sequence[MemoryTrace]) -> list[float]:
    """Where the schema sits in embedding space, for schema encoding at write time."""
    shown = members[:sc.ctx.config.consolidation.schema_summary_members]
    return schema_centroid(sc.ctx.embedder.embed([t.content for t in shown]))


def summarise(sc: StepContext, members: Sequence[MemoryTrace]) -> str:
    contents = [t.content for t in members[:sc.ctx.config.consolidation.schema_summary_members]]
    llm = sc.ctx.llm
    if llm is not None:
        try:
            text = llm.complete(_SCHEMA_SYSTEM, "\n".join(f"- {text}" for text in contents), max_tokens=160).strip()
            if text:
                return text
            log.warning("the LLM returned an empty schema summary; using the extractive one")
        except Exception as exc:  # every LLM step degrades to its heuristic
            log.warning("schema summary by the LLM failed (%s: %s); using the extractive one",
                        type(exc).__name__, exc)
    return extractive_summary(contents)
