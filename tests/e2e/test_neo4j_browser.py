"""Visual inspection in Neo4j Browser, in a real browser: a memory on Neo4j (traces sharing
entities, one corrected, one retrieved), then headless Chromium opens the Browser the server
serves (COGMEM_TEST_NEO4J_HTTP + /browser/), fills its connect form, `:play`s the project's
guide (served from loopback) to its neighbourhood slide, applies `cypher/browser/style.grass`
with `:style`, sets `$traceId` and `$scopeKeys` with `:param` and runs the saved
`trace_neighbourhood.cypher`. The graph view must draw the neighbourhood the database returns,
each node with the caption and colour the style promises (a trace's content, an entity's key),
the relationship types in their colours, and a screenshot of the view must show them.

Chromium resolves no name but localhost and 127.0.0.1, so the walk works offline: Browser 5.24
reaches for outside resources (its web fonts, Segment telemetry, Canny's feedback widget, Sentry
crash reports), none of which it needs, and none of which may arrive. The README's screenshot is made the same way by
tools/neo4j_browser_screenshot.py."""

from __future__ import annotations

import os
from collections import Counter
from urllib.parse import urlsplit

import httpx
import pytest

import cogmem_graph as cg

from .cdp import chromium
from .neo4j_browser import (
    BROWSER_FOLDER,
    Neo4jBrowser,
    grass_rules,
    rgb,
    saved_statement,
    seed,
    serve_browser_folder,
    set_up,
)
from .test_viz_browser import read_png

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def browser_http() -> str:
    url = os.environ.get("COGMEM_TEST_NEO4J_HTTP")
    if not url:
        pytest.skip("Neo4j Browser test skipped: COGMEM_TEST_NEO4J_HTTP (the HTTP URL of the run's Neo4j, "
                    "which serves Browser under /browser/) is not set; `make test` sets it")
    return url.rstrip("/")


def shows(caption: str, text: str) -> bool:
    """Whether a node caption Browser drew is `text` cut to fit: its words are words of `text` in
    order, starting with the first (Browser drops a word that does not fit a line), and a last
    word ending in an ellipsis is the start of one."""
    words, at = text.split(), 0
    for i, token in enumerate(caption.split()):
        partial = token.endswith("…")
        token = token.rstrip("…")
        while at < len(words) and not (words[at].startswith(token) if partial else words[at] == token):
            if i == 0:
                return False
            at += 1
        if at == len(words):
            return False
        at += 1
    return bool(caption.strip())


def neighbourhood_in_the_database(uri: str, user: str, password: str, trace_id: str,
                                  scope_keys: list[str]) -> tuple[int, set[str]]:
    """The saved query's answer as the database gives it: distinct nodes, relationship types."""
    from neo4j import GraphDatabase

    with GraphDatabase.driver(uri, auth=(user, password)) as driver:
        records, _, _ = driver.execute_query(saved_statement("trace_neighbourhood"),
                                             traceId=trace_id, scopeKeys=scope_keys)
    nodes = {r["t"].element_id for r in records} | {r["n"].element_id for r in records if r["n"] is not None}
    return len(nodes), {r["r"].type for r in records if r["r"] is not None}


def test_neo4j_browser_draws_a_retrieved_memorys_neighbourhood_with_the_projects_style(neo4j_uri, tmp_path) -> None:
    binary = chromium()
    http = browser_http()
    assert httpx.get(f"{http}/browser/", timeout=10).status_code == 200, f"{http}/browser/ serves no Neo4j Browser"
    user, password = os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", "")

    with cg.open(home=tmp_path / "home", graph=neo4j_uri, embedder="hash") as store:
        store.graph.clear()
        store.graph.setup_schema()
        seeded = seed(store)
    node_count, types = neighbourhood_in_the_database(neo4j_uri, user, password, seeded.trace_id,
                                                      seeded.scope_keys)
    assert {"MENTIONS", "SHARED_ENTITY", "SUPERSEDES", "CO_ACTIVATED"} <= types, types
    assert set(seeded.types.values()) == {"episodic", "semantic"}

    browser = Neo4jBrowser(binary, tmp_path / "profile")
    try:
        with serve_browser_folder() as guide_base:
            slide, graph = set_up(browser, guide_base, http, neo4j_uri, user, password, seeded)
        shot = tmp_path / "neo4j-browser-graph.png"
        browser.screenshot(shot, graph.view)
        browser.screenshot(tmp_path / "neo4j-browser.png")  # the whole page, for a person to look at
        asked_outside, loaded_outside = browser.outside_requests()
    finally:
        browser.close()

    # The guide came from loopback and shows the statement that was run.
    assert "Trace neighbourhood" in slide and " ".join(saved_statement("trace_neighbourhood").split()) in slide

    # The neighbourhood the database returns is what Browser displays.
    assert graph.status.startswith(f"Displaying {node_count} nodes"), graph.status
    assert len(graph.nodes) == node_count

    # Each node has the caption and the colour the style gives its label.
    style = grass_rules((BROWSER_FOLDER / "style.grass").read_text(encoding="utf-8"))
    assert style["node.Entity"]["caption"] == "{key}" and style["node.Trace"]["caption"] == "{content}"
    entities = [n for n in graph.nodes if n["caption"] in seeded.entity_keys]
    traces = [n for n in graph.nodes if n not in entities]
    assert entities and all(n["fill"] == style["node.Entity"]["color"] for n in entities), entities
    assert {"hetzner", "maya", "tom"} <= {n["caption"] for n in entities}
    for node in traces:
        shown = [i for i, text in seeded.contents.items() if shows(node["caption"], text)]
        assert shown, f"node caption {node['caption']!r} is no trace's content"
        label = {seeded.types[i].capitalize() for i in shown}
        assert node["fill"] in {style[f"node.{name}"]["color"] for name in label}, (node, label)
    retrieved = seeded.contents[seeded.trace_id]
    assert sum(shows(n["caption"], retrieved) for n in traces) >= 1, f"the retrieved memory is not drawn: {retrieved}"
    for label in ("Trace", "Episodic", "Semantic", "Entity"):
        assert graph.labels.get(label) == rgb(style[f"node.{label}"]["color"]), (label, graph.labels)

    # Every relationship type of the neighbourhood is listed in its style colour and drawn in it;
    # SUPERSEDES carries its type as caption, SHARED_ENTITY its weight, MENTIONS none.
    drawn_fills = Counter(r["fill"] for r in graph.relationships)
    for kind in types:
        colour = style[f"relationship.{kind}"]["color"]
        assert graph.types.get(kind) == rgb(colour), (kind, graph.types)
        assert drawn_fills[colour] > 0, f"no {kind} drawn in {colour}: {drawn_fills}"

    def captions(kind: str) -> list[str]:
        return [r["caption"] for r in graph.relationships if r["fill"] == style[f"relationship.{kind}"]["color"]]

    def shown_as(caption: str, text: str) -> bool:
        """The caption is the text, or Browser's cut of it where the drawn edge is too short."""
        return caption == text or (caption.endswith("…") and len(caption) > 1 and text.startswith(caption[:-1]))

    assert any(shown_as(c, "SUPERSEDES") for c in captions("SUPERSEDES")), captions("SUPERSEDES")
    assert captions("SHARED_ENTITY") and all(0 < float(w) <= 1 for w in captions("SHARED_ENTITY"))
    assert set(captions("MENTIONS")) == {""}, captions("MENTIONS")

    # The screenshot of the graph view holds every node, left of the overview panel, and the
    # drawing there (not the overview's chips) is painted in the style's colours.
    view, left_of_overview = graph.view, graph.overview["x"]
    for node in graph.nodes:
        box = node["box"]
        assert view["x"] <= box["x"] and box["x"] + box["width"] <= left_of_overview, node
        assert view["y"] <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"] + 1, node
    width, height, rows, bpp = read_png(shot)
    assert abs(width - view["width"]) <= 1 and abs(height - view["height"]) <= 1, (width, height, view)
    drawing = round(left_of_overview - view["x"]) * bpp
    assert 0 < drawing < width * bpp, graph.overview
    pixels: Counter[bytes] = Counter()
    for row in rows:
        pixels.update(row[x:x + 3] for x in range(0, drawing, bpp))
    # A node is a disc of some 50 px across; a relationship is a line two pixels wide that the
    # layout may draw only a few dozen pixels long (on a loaded machine it settles shorter).
    least = {"node.Episodic": 50, "node.Semantic": 50, "node.Entity": 50, "relationship.SUPERSEDES": 10}
    for selector, pixels_at_least in least.items():
        colour = style[selector]["color"]
        found = pixels[bytes.fromhex(colour.lstrip("#"))]
        assert found > pixels_at_least, f"the screenshot shows no {selector} in {colour} ({found} px)"

    # Offline: all of it came from loopback; what Browser asked the internet for never arrived.
    assert not loaded_outside, f"loaded from outside loopback: {loaded_outside} (asked for {asked_outside})"


def test_a_guide_from_loopback_is_what_the_browser_folder_holds() -> None:
    """The little server the walk uses answers Browser's CORS preflight and serves the files as they are."""
    with serve_browser_folder() as base:
        preflight = httpx.options(f"{base}/guide.html", headers={
            "Origin": "http://127.0.0.1:7474", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "pragma,cache-control"}, timeout=10)
        answer = httpx.get(f"{base}/guide.html", timeout=10)
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "*"
    assert answer.text == (BROWSER_FOLDER / "guide.html").read_text(encoding="utf-8")
    assert urlsplit(base).hostname == "localhost"  # on the server's default guide allow-list
