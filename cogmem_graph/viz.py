"""`cogmem viz`: an interactive page of what a query retrieves and the graph around it.

No Neo4j needed: the page is drawn by `neo4j-viz` (Neo4j's maintained Python
package around NVL, the renderer behind Neo4j Browser and Bloom), written as one
self-contained HTML file that opens offline in any browser. Nodes are coloured
by their type and edges by their edge type with the palette of the Neo4j
Browser style (`cypher/browser/style.grass`), so the page and Browser look
alike. Selecting an element shows its content, weights and the signals that
ranked it in the page's Details panel. The retrieved traces are drawn larger,
captioned with their rank.

The page also carries a small JSON block (`<script id="cogmem-viz-meta">`) with
the query and the node and relationship counts, for tools and tests.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogmem_graph.graph.cypher import cypher_root
from cogmem_graph.model import TYPE_LABELS, EdgeType, LinkType, MemoryType, NodeLabel

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pydantic_extra_types.color import ColorType

    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.results import RetrievalResult

META_ID = "cogmem-viz-meta"
CAPTION_CHARS = 40

_FALLBACK_NODE = "#A5ABB6"
_FALLBACK_COLOURS: dict[str, str] = {
    "Episodic": "#68BDF6", "Semantic": "#6DCE9E", "Procedural": "#FFD86E", "Prospective": "#DE9BF9",
    "Relational": "#FB95AF", "Entity": "#FF756E", "Schema": "#C990C0",
    "MENTIONS": "#FF756E", "SHARED_ENTITY": "#FF9F40", "TEMPORAL_SEQUENCE": "#68BDF6", "SAME_TOPIC": "#6DCE9E",
    "CONTRADICTS": "#E3170A", "SUPERSEDES": "#8B0000", "CAUSED_BY": "#9D4EDD", "CO_ACTIVATED": "#00A6A6",
    "SCHEMA_INSTANCE": "#C990C0",
}
_GRASS_RULE = re.compile(r"(node|relationship)\.(\w+)\s*\{([^}]*)\}")
_GRASS_COLOUR = re.compile(r"(?<![-\w])color:\s*(#[0-9A-Fa-f]{6})")


def _legend(colours: dict[str, str], names: Iterable[str]) -> dict[Any, ColorType]:
    """Each name's colour, in name order."""
    return {name: colours.get(name, _FALLBACK_NODE) for name in sorted(names)}


@cache
def palette() -> dict[str, str]:
    """Colour per node label and relationship type, read from the Neo4j Browser style so
    both views agree (the built-in copy is used when the style file is not there)."""
    colours = dict(_FALLBACK_COLOURS)
    try:
        text = (cypher_root() / "browser" / "style.grass").read_text(encoding="utf-8")
    except OSError:
        return colours
    for _kind, name, body in _GRASS_RULE.findall(text):
        match = _GRASS_COLOUR.search(body)
        if match:
            colours[name] = match.group(1).upper()
    return colours


@dataclass(frozen=True)
class VizResult:
    path: Path
    nodes: int
    relationships: int
    retrieved: int


def _iso(ms: Any) -> str | None:
    if not isinstance(ms, (int, float)) or ms <= 0:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="seconds")


def _caption(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1] + "…"


def _round(value: Any) -> Any:
    return round(value, 3) if isinstance(value, float) else value


def build_graph(result: RetrievalResult, subgraph: Any) -> tuple[Any, dict[str, int]]:
    """A `neo4j_viz.VisualizationGraph` of the retrieved traces and their neighbourhood."""
    from neo4j_viz import Node, Relationship, VisualizationGraph

    colours = palette()
    ranked = {item.trace.id: (rank, item) for rank, item in enumerate(result.traces, start=1)}
    nodes: list[Node] = []
    seen: set[str] = set()
    type_counts: dict[str, int] = {}

    for props in subgraph.traces:
        trace_id = props.get("id")
        if not trace_id or trace_id in seen:
            continue
        seen.add(trace_id)
        try:
            label = TYPE_LABELS[MemoryType(props.get("type", "episodic"))]
        except ValueError:
            label = NodeLabel.TRACE.value
        type_counts[label] = type_counts.get(label, 0) + 1
        info: dict[str, Any] = {
            "label": label, "content": props.get("content", ""), "scope": props.get("scopeKey"),
            "strength": _round(props.get("encodingStrength")), "stability_h": _round(
                (props.get("stability") or 0) / 3_600_000),
            "retrievals": props.get("retrievalCount"), "created": _iso(props.get("createdAt")),
            "active": props.get("isActive"), "entities": ", ".join(props.get("entities") or []),
        }
        caption = _caption(props.get("content", trace_id))
        size = 18
        if trace_id in ranked:
            rank, item = ranked[trace_id]
            caption = f"#{rank} {caption}"
            size = 30
            info.update({"rank": rank, "score": round(item.score, 3), "found by": "+".join(item.sources)})
            info.update({f"signal {k}": round(v, 3) for k, v in item.signals.items()})
        nodes.append(Node(id=trace_id, caption=caption, size=size, color=colours.get(label, _FALLBACK_NODE),
                          properties={k: v for k, v in info.items() if v not in (None, "")}))

    for props in subgraph.entities:
        key = props.get("key")
        if not key or f"entity:{key}" in seen:
            continue
        seen.add(f"entity:{key}")
        type_counts[NodeLabel.ENTITY.value] = type_counts.get(NodeLabel.ENTITY.value, 0) + 1
        nodes.append(Node(id=f"entity:{key}", caption=_caption(props.get("name") or key), size=16,
                          color=colours.get(NodeLabel.ENTITY.value, _FALLBACK_NODE),
                          properties={"label": NodeLabel.ENTITY.value, "name": props.get("name") or key,
                                      "kind": props.get("kind") or "thing"}))

    relationships: list[Relationship] = []
    edge_counts: dict[str, int] = {}
    for number, edge in enumerate(subgraph.edges):
        edge_type = str(edge.get("type"))
        src, dst = edge.get("src"), edge.get("dst")
        if edge_type == LinkType.MENTIONS.value:
            dst = f"entity:{dst}"
        if src not in seen or dst not in seen:
            continue
        weight = edge.get("weight")
        edge_counts[edge_type] = edge_counts.get(edge_type, 0) + 1
        props = {"type": edge_type}
        if isinstance(weight, (int, float)):
            props["weight"] = round(float(weight), 3)
        caption = edge_type if "weight" not in props else f"{edge_type} {props['weight']:.2f}"
        width = 1 + 4 * float(weight) if isinstance(weight, (int, float)) else 1
        relationships.append(Relationship(id=f"r{number}", source=src, target=dst, caption=caption,
                                          color=colours.get(edge_type, _FALLBACK_NODE), width=width,
                                          properties=props))

    graph = VisualizationGraph(nodes=nodes, relationships=relationships)
    graph.set_legend(nodes=_legend(colours, type_counts), relationships=_legend(colours, edge_counts))
    return graph, {"nodes": len(nodes), "relationships": len(relationships),
                   **{f"nodes:{k}": v for k, v in type_counts.items()},
                   **{f"relationships:{k}": v for k, v in edge_counts.items()}}


def render_html(graph: Any, *, title: str, meta: dict[str, Any], height: str = "100vh") -> str:
    """The whole page: neo4j-viz's self-contained HTML with our title and metadata block."""
    page = graph.render(height=height, initial_zoom=None, theme="light", show_search_button=True).data
    page = page.replace("<title>neo4j-viz</title>", f"<title>{html.escape(title)}</title>", 1)
    block = json.dumps(meta, ensure_ascii=False).replace("<", "\\u003c")
    return page.replace("</head>", f'<script type="application/json" id="{META_ID}">{block}</script>\n</head>', 1)


def write_viz(agent: AgentMemory, query: str, out: Path | str, *, top_k: int = 10) -> VizResult:
    """Retrieve `query` for `agent` (without reinforcing anything: looking is not
    remembering), take the neighbourhood of the hits and write the page to `out`."""
    result = agent.retrieve(query, top_k=top_k, record_access=False)
    ids = result.ids
    subgraph = agent.store.graph.subgraph(ids, agent.visible_scope_keys)
    graph, counts = build_graph(result, subgraph)
    meta = {"query": query, "agent": agent.identity.agent_id, "retrieved": ids, "counts": counts,
            "edgeTypes": [e.value for e in EdgeType]}
    page = render_html(graph, title=f"cogmem viz: {query}", meta=meta)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return VizResult(path=path, nodes=counts["nodes"], relationships=counts["relationships"], retrieved=len(ids))


CAPTION_SIZE = 3
"""NVL's font-to-radius ratio for node captions, at its largest: with nodes of radius 32 the
captions are 11 px or more at the zoom that fits a memory's neighbourhood (measured in Chromium)."""
EDGE_CAPTION_SIZE = 2.5
"""Two and a half times NVL's edge caption size: about 15 px at that zoom instead of 6, and
still 11 px or more when a group of 25 edges is drawn one by one (twice gave 10.3 px there)."""


def neighbourhood_graph(centre: dict[str, Any], edges: list[dict[str, Any]], neighbours: list[dict[str, Any]],
                        *, group_at: int | None = None,
                        expand: Iterable[str] = ()) -> tuple[Any, dict[str, Any]]:
    """A `neo4j_viz.VisualizationGraph` of one memory, its edges and the neighbours at their
    other ends, from the JSON the `memory` operation answers (already scope-filtered). The
    centre is drawn larger; each node's caption is its content, shortened, sized to stay
    readable at the zoom that fits the drawing.

    With `group_at`, the centre's edges of one type numbering at least that many (25 memories
    sharing one person make a hairball) are drawn as one node and one edge captioned
    "N × TYPE", unless the type is in `expand`; a neighbour reached only through grouped
    edges is not drawn. The counts say which groups were made (`groups`: type → edges) and
    which would have been but were expanded (`expanded`: type → edges)."""
    from neo4j_viz import Node, Relationship, VisualizationGraph

    colours = palette()
    tid = centre["id"]
    per_type: dict[str, int] = {}
    for edge in edges:
        if tid in (edge["src"], edge["dst"]):
            per_type[str(edge.get("type"))] = per_type.get(str(edge.get("type")), 0) + 1
    opened = set(expand)
    many = {t: n for t, n in per_type.items() if group_at is not None and n >= group_at}
    groups = {t: n for t, n in many.items() if t not in opened}
    shown = [e for e in edges if str(e.get("type")) not in groups or tid not in (e["src"], e["dst"])]
    reached = {tid} | {end for e in shown for end in (e["src"], e["dst"])}
    nodes: list[Node] = []
    type_counts: dict[str, int] = {}
    for trace in [centre, *neighbours]:
        if trace["id"] not in reached or any(n.id == trace["id"] for n in nodes):
            continue
        try:
            label = TYPE_LABELS[MemoryType(trace.get("type", "episodic"))]
        except ValueError:
            label = NodeLabel.TRACE.value
        type_counts[label] = type_counts.get(label, 0) + 1
        info = {"label": label, "content": trace.get("content", ""), "scope": trace.get("scope"),
                "strength": _round(trace.get("encoding_strength")), "created": _iso(trace.get("created_at"))}
        nodes.append(Node(id=trace["id"], caption=_caption(trace.get("content") or trace["id"]),
                          caption_size=CAPTION_SIZE, size=40 if trace is centre else 32,
                          color=colours.get(label, _FALLBACK_NODE),
                          properties={k: v for k, v in info.items() if v not in (None, "")}))
    drawn = {n.id for n in nodes}
    relationships: list[Relationship] = []
    edge_counts: dict[str, int] = {}
    for number, edge in enumerate(shown):
        if edge["src"] not in drawn or edge["dst"] not in drawn:
            continue
        edge_type = str(edge.get("type"))
        weight = edge.get("weight")
        edge_counts[edge_type] = edge_counts.get(edge_type, 0) + 1
        caption = edge_type if not isinstance(weight, int | float) else f"{edge_type} {float(weight):.2f}"
        width = 1 + 4 * float(weight) if isinstance(weight, int | float) else 1
        relationships.append(Relationship(id=f"r{number}", source=edge["src"], target=edge["dst"], caption=caption,
                                          caption_size=EDGE_CAPTION_SIZE,
                                          color=colours.get(edge_type, _FALLBACK_NODE), width=width,
                                          properties={"type": edge_type, "weight": _round(weight)}))
    for edge_type, count in sorted(groups.items()):
        label = f"{count} × {edge_type}"
        colour = colours.get(edge_type, _FALLBACK_NODE)
        nodes.append(Node(id=f"group:{edge_type}", caption=label, caption_size=CAPTION_SIZE, size=32, color=colour,
                          properties={"group": edge_type, "edges": count}))
        relationships.append(Relationship(id=f"group:{edge_type}", source=tid, target=f"group:{edge_type}",
                                          caption=label, caption_size=EDGE_CAPTION_SIZE, color=colour, width=3,
                                          properties={"type": edge_type, "edges": count}))
        edge_counts[edge_type] = edge_counts.get(edge_type, 0) + 1
    graph = VisualizationGraph(nodes=nodes, relationships=relationships)
    graph.set_legend(nodes=_legend(colours, type_counts), relationships=_legend(colours, edge_counts))
    return graph, {"nodes": len(nodes), "relationships": len(relationships), "groups": groups,
                   "expanded": {t: n for t, n in many.items() if t in opened}}
