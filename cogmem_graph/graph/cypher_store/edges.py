"""Entities and edges: mentions, associative edges, and the structural edges derived at encode."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Sequence
from typing import Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.graph.cypher_store.execution import (
    BATCH_SIZE,
    StatementRunner,
    chunks,
    require_scope_keys,
)
from cogmem_graph.graph.port import (
    CausalNeighbour,
    Edge,
    Later,
    Mention,
    SequenceStart,
)
from cogmem_graph.model import STRUCTURAL_EDGE_TYPES, EdgeType

LINK_ROWS_PER_STATEMENT = 200
"""SHARED_ENTITY rows (one trace and its picks, up to ~10 each) per statement: ~BATCH_SIZE links."""


class EdgeStatements(StatementRunner):
    """Mentions and edges, and the TEMPORAL_SEQUENCE / SHARED_ENTITY / CAUSED_BY edges derived from them."""

    # ------------------------------------------------------------ entities and edges

    def merge_mentions(self, mentions: Sequence[Mention]) -> int:
        rows = list(
            {
                (m.trace_id, m.key): {"traceId": m.trace_id, "key": m.key, "name": m.name, "kind": m.kind,
                                      "createdAt": m.created_at}
                for m in mentions
            }.values()
        )
        linked = 0
        for chunk in chunks(rows):
            linked += self.run("merge_mentions", {"rows": chunk, "now": self._now()}, write=True)[0]["linked"]
        return linked

    def merge_edges(self, edge_type: EdgeType, edges: Sequence[Edge]) -> int:
        edge_type = EdgeType(edge_type)
        structural = edge_type in STRUCTURAL_EDGE_TYPES
        ceiling = self.config.edges.structural_weight_ceiling if structural else 1.0
        by_pair: dict[tuple[str, str], float] = {}
        for e in edges:
            if not 0.0 <= e.weight <= 1.0:
                raise InvalidArgument(f"edge weight must be in [0, 1], got {e.weight} for {e.src}->{e.dst}",
                                      argument="edges")
            if e.weight > ceiling:
                raise InvalidArgument(
                    f"{edge_type.value} weight {e.weight} for {e.src}->{e.dst} is above "
                    f"edges.structural_weight_ceiling ({ceiling}); raise the ceiling in GraphConfig to store it",
                    argument="edges")
            if e.src == e.dst:
                continue
            by_pair[(e.src, e.dst)] = max(e.weight, by_pair.get((e.src, e.dst), 0.0))
        rows = [{"src": s, "dst": d, "weight": w} for (s, d), w in by_pair.items()]
        text = self.cypher.for_edge("merge_edges", edge_type)
        merged = 0
        for chunk in chunks(rows):
            result = self._run_text(text, {"rows": chunk, "now": self._now(), "structural": structural},
                                    write=True, name="merge_edges")
            merged += result[0]["merged"]
        return merged

    def get_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> list[Edge]:
        keys = require_scope_keys(scope_keys)
        if not ids:
            return []
        rows = self.run("get_edges", {"ids": list(dict.fromkeys(ids)), "scopeKeys": keys})
        return [Edge(r["src"], r["dst"], float(r["weight"]), EdgeType(r["type"])) for r in rows]

    def derive_shared_entity_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int:
        keys = require_scope_keys(scope_keys)
        return self._link_shared_entities(ids, self._shared_entity_candidates_later(ids, keys)) if ids else 0

    def derive_temporal_edges(self, ids: Sequence[str], scope_keys: Sequence[str]) -> int:
        keys = require_scope_keys(scope_keys)
        return self._link_temporal_sequence(self._temporal_candidates_later(ids, keys)) if ids else 0

    def derive_structural_edges(self, ids: Sequence[str], scope_keys: Sequence[str], *,
                                caused_by_predecessor: Collection[str] = ()) -> int:
        """TEMPORAL_SEQUENCE and SHARED_ENTITY edges of `ids`, as the two methods above
        derive them, with both candidate reads sent before either is read (the engine
        answers them at once). The traces in `caused_by_predecessor` are also linked
        CAUSED_BY their TEMPORAL_SEQUENCE predecessor."""
        keys = require_scope_keys(scope_keys)
        if not ids:
            return 0
        temporal = self._temporal_candidates_later(ids, keys)
        shared = self._shared_entity_candidates_later(ids, keys)
        return self._link_temporal_sequence(temporal, caused_by_predecessor) + self._link_shared_entities(ids, shared)

    def _shared_entity_candidates_later(self, ids: Sequence[str], keys: list[str]) -> Callable[[], list[dict]]:
        unique = list(dict.fromkeys(ids))
        most = self.config.edges.shared_entity_max_links
        return self.read_later("shared_entity_candidates", {
            "ids": unique, "scopeKeys": keys, "maxLinks": most, "newest": most + len(unique)})

    def _link_shared_entities(self, ids: Sequence[str], candidates: Callable[[], list[dict]]) -> int:
        edges = self.config.edges
        batch = set(ids)
        picks: dict[str, dict[str, None]] = {}
        for group in candidates():
            # Each trace links to the most recent others that mention the entity; inside the
            # batch only the lower id links to the higher, so no pair is linked both ways.
            for trace_id in group["traces"]:
                picked = 0
                mine = picks.setdefault(trace_id, {})
                for other in group["recent"]:
                    if picked == edges.shared_entity_max_links:
                        break
                    if other != trace_id and (other < trace_id or other not in batch):
                        mine[other] = None
                        picked += 1
        rows = [{"id": t, "others": list(others)} for t, others in picks.items() if others]
        return self._link("shared_entity_link", rows, edges.shared_entity_weight, LINK_ROWS_PER_STATEMENT)

    def _temporal_candidates_later(self, ids: Sequence[str], keys: list[str]) -> Callable[[], list[dict]]:
        return self.read_later("temporal_sequence_candidates", {
            "ids": list(dict.fromkeys(ids)), "scopeKeys": keys, "windowMs": self.config.edges.temporal_window_ms})

    def _link_temporal_sequence(self, candidates: Callable[[], list[dict]], caused: Collection[str] = ()) -> int:
        edges = self.config.edges
        window = edges.temporal_window_ms
        traces: dict[str, list[tuple[int, str]]] = {}
        found: dict[str, list[tuple[int, str]]] = {}
        for row in candidates():  # per sequence: one row of its given traces, one of its candidates
            (traces if row["own"] else found)[row["key"]] = list(zip(row["times"], row["ids"], strict=True))
        links = []
        for key, own in traces.items():
            # Each trace's predecessor: the latest candidate before it (event time, then id),
            # if it is still inside the window.
            ordered = sorted(found.get(key, ()))
            for at, trace_id in own:
                before = bisect.bisect_left(ordered, (at, trace_id))
                if before and ordered[before - 1][0] >= at - window:
                    links.append({"id": trace_id, "prev": ordered[before - 1][1]})
        linked = self._link("temporal_sequence_link", links, edges.temporal_sequence_weight)
        causal = [link for link in links if link["id"] in caused] if caused else []
        return linked + (self._link("caused_by_link", causal, edges.caused_by_weight) if causal else 0)

    def _link(self, name: str, rows: list[dict[str, Any]], weight: float, size: int = BATCH_SIZE) -> int:
        """Run a derived-edge link statement over `rows` in chunks; the edges it linked."""
        linked = 0
        for chunk in chunks(rows, size):
            result = self.run(name, {"rows": chunk, "weight": weight, "now": self._now()}, write=True)
            linked += result[0]["linked"] if result else 0
        return linked


    def causal_neighbours_later(self, ids: Sequence[str], scope_keys: Sequence[str],
                                hops: int) -> Later[list[CausalNeighbour]]:
        """Traces up to `hops` CAUSED_BY steps from `ids`, either way, inside the scope keys. Sent now."""
        rows = self.read_later("causal_neighbours", {"ids": list(ids), "scopeKeys": require_scope_keys(scope_keys),
                                                     "hops": hops})
        return lambda: [CausalNeighbour(r["seed"], r["id"], int(r["steps"])) for r in rows()]

    def sequence_predecessors_later(self, starts: Sequence[SequenceStart], scope_keys: Sequence[str],
                                    window_ms: int) -> Later[dict[str, tuple[str, str]]]:
        """For each start, the stored trace just before it in its sequence within `window_ms`:
        start id -> (that trace's id, its content). Sent now."""
        rows = self.read_later("sequence_predecessors", {
            "rows": [{"id": s.trace_id, "key": s.sequence_key, "scopeKey": s.scope_key, "at": s.at} for s in starts],
            "scopeKeys": list(scope_keys), "windowMs": window_ms})
        return lambda: {r["id"]: (r["previousId"], r["content"] or "") for r in rows() if r["previousId"]}
