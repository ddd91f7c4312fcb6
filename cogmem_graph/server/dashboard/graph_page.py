"""One memory's graph, drawn by NVL (the `neo4j-viz` package `cogmem viz` uses): the only
dashboard page that runs a script.

neo4j-viz writes a self-contained page whose script and styles are inline. The dashboard
takes them out once (`NvlAssets`, from an empty graph rendered through the public API) and
serves them from the package under `/ui/static/`; the graph page itself carries only its
data, as an inert JSON block, and a `<script src>` naming the bundle with a nonce made for
that one response. Its content security policy allows scripts with that nonce only (no
`'unsafe-inline'`, no other origin): a memory whose text says `<script>` is escaped in the
JSON block, and even a script that got into the page would lack the nonce.

A click on the drawing: neo4j-viz's script keeps NVL's clicks in its widget model
(`last_event`, `{"type": "node_click", "id": ...}`, from NVL's `onNodeClick` and
`onRelationshipClick`) and gives them to no page script; the served bundle ends with one line
more that passes each to the drawing's element as a `neo4j-viz-event` DOM event. The
dashboard's own `graph.js` (nonce'd too) follows, for a group's node or edge, the link that
expands the group, and for an edge of an expanded group, the link that groups it again.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, Literal

from cogmem_graph.viz import neighbourhood_graph

DATA_OPEN = '<script type="application/json" id="neo4j-viz-data">'
CONTAINER = re.compile(r'<div id="(neo4j-viz-[0-9a-f]+)"')
MODULE = re.compile(r'<script type="module"[^>]*>(.*?)</script>', re.S)
STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
RENDER = re.compile(r"\.render\(\{model:([\w$]+),el:([\w$]+)\}\)")
"""The bundle's last statement, drawing the widget: its model and its element, whatever the minifier named them."""
EVENT = "neo4j-viz-event"
"""The DOM event the drawing's element dispatches for each click NVL reports (`detail`: its `last_event`)."""
HEIGHT = "32rem"
THEME: Literal["light"] = "light"


def graph_csp(nonce: str) -> str:
    """The graph page's policy: its own nonce'd script, styles and images from the dashboard."""
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'self'; img-src 'self' data: blob:; "
            "font-src 'self' data:; connect-src 'none'; form-action 'self'; frame-ancestors 'none'; "
            "base-uri 'none'")


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


@dataclass(frozen=True)
class NvlAssets:
    """NVL's bundle and stylesheet as neo4j-viz ships them, the id of the element the bundle
    draws into, and the data block's settings (size, theme, options) for the dashboard's
    drawings, all taken from one empty graph rendered through neo4j-viz's public API."""

    script: bytes
    style: bytes
    container_id: str
    settings: dict[str, Any]


@cache
def nvl_assets() -> NvlAssets:
    from neo4j_viz import VisualizationGraph

    page = COMMENT.sub("", VisualizationGraph(nodes=[], relationships=[]).render(height=HEIGHT, theme=THEME).data)
    module = MODULE.search(page)
    container = CONTAINER.search(page)
    if module is None or container is None:
        raise RuntimeError("neo4j-viz's page has no module script or no graph container: "
                           "this neo4j-viz version is not one the dashboard knows")
    styles = STYLE.findall(page[: module.start()] + page[module.end():])
    settings = {k: v for k, v in json.loads(_data_block(page)).items() if k not in ("nodes", "relationships", "legend")}
    script = with_click_events(module.group(1))
    return NvlAssets(script.encode("utf-8"), "\n".join(styles).encode("utf-8"), container.group(1), settings)


def with_click_events(script: str) -> str:
    """neo4j-viz's bundle with one statement more: each change of its model's `last_event` (a
    click NVL reported on a node, a relationship or the canvas) dispatched on the drawing's
    element as an `EVENT` whose `detail` is that event. RuntimeError when the bundle does not
    end by rendering its widget with a model and an element (a neo4j-viz the dashboard does
    not know)."""
    found = list(RENDER.finditer(script))
    if not found:
        raise RuntimeError("neo4j-viz's script does not render its widget with a model and an element: "
                           "this neo4j-viz version is not one the dashboard knows")
    model, element = found[-1].group(1), found[-1].group(2)
    return (f'{script.rstrip()}\n;{model}.on("change:last_event",()=>{element}.dispatchEvent('
            f'new CustomEvent("{EVENT}",{{detail:{model}.get("last_event")}})));\n')


def _data_block(page: str) -> str:
    start = page.rfind(DATA_OPEN)  # the last one: neo4j-viz adds it after its scripts, before </head>
    end = page.find("</script>", start)
    if start < 0 or end < 0:
        raise RuntimeError("neo4j-viz's page has no data block: this neo4j-viz version is not one the dashboard knows")
    return page[start + len(DATA_OPEN):end]


GROUP_AT = 4
"""The centre's edges of one type are drawn as one "N × TYPE" group from this many on."""


def graph_data(centre: dict[str, Any], hood: dict[str, Any],
               expand: Iterable[str] = ()) -> tuple[str, dict[str, Any]]:
    """The JSON block neo4j-viz writes for one memory's neighbourhood, `<` escaped as neo4j-viz
    escapes it: the graph's nodes, relationships and legend as neo4j-viz serialises them, with
    the settings of `nvl_assets` (neo4j-viz's own render would read its 4 MB page again).
    Repeated edge types are grouped (`GROUP_AT`) but for those in `expand`."""
    graph, counts = neighbourhood_graph(centre, hood.get("edges", []), hood.get("neighbours", []),
                                        group_at=GROUP_AT, expand=expand)
    data = {"nodes": [n.to_dict() for n in graph.nodes], "relationships": [r.to_dict() for r in graph.relationships],
            **nvl_assets().settings, "legend": graph.legend.to_json()}
    return json.dumps(data).replace("<", "\\u003c"), counts


def graph_body(data_json: str, nonce: str, container_id: str, centre_id: str) -> str:
    """What goes inside the page's <main>: the drawing (its element naming the centre's id),
    NVL's two assets and the dashboard's click handler."""
    return (f'<div id="{escape(container_id)}" class="graph" data-centre="{escape(centre_id)}"></div>'
            f'{DATA_OPEN}{data_json}</script>'
            f'<link rel="stylesheet" href="/ui/static/nvl.css">'
            f'<script type="module" nonce="{escape(nonce)}" src="/ui/static/nvl.js"></script>'
            f'<script type="module" nonce="{escape(nonce)}" src="/ui/static/graph.js"></script>')
