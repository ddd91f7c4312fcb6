"""Neo4j Browser (the one the Neo4j server serves under /browser/) driven in headless Chromium
over the DevTools protocol (`cdp.py`), the way a person uses it to see why an agent remembered
something: connect with the form, `:play` the project's guide, `:style` the project's style,
set the parameters with `:param`, run a saved query of `cypher/browser/`, and read what the
graph view drew (captions and fill colours of its SVG nodes and relationships, the overview's
labels and relationship types).

Shared by `test_neo4j_browser.py` and `tools/neo4j_browser_screenshot.py` (the README's
screenshot). Offline by construction: Chromium runs behind a host resolver that knows only
localhost and 127.0.0.1, the guide and the style come from a small HTTP server on loopback
(Browser fetches a guide only from an allow-listed host, and `localhost` is on the server's
default `browser.remote_content_hostname_whitelist`), and every request Chromium makes
elsewhere is recorded so a caller can assert that none was answered."""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import re
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .cdp import Browser

ROOT = Path(__file__).resolve().parents[2]
BROWSER_FOLDER = ROOT / "cypher" / "browser"
LOCAL_HOSTS = ("127.0.0.1", "localhost")
# What the machine's Chromium runs with besides cdp.py's flags: no QUIC, no background, component
# or sync traffic, and no name but loopback resolves, so a Browser that needed the internet fails.
EXTRA_FLAGS = ("--disable-quic", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1")
WAIT_S = 30.0
VIEWPORT = (1280, 960)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def offline_chromium(binary: str, folder: Path) -> str:
    """A launcher script for `binary` that adds EXTRA_FLAGS (cdp.Browser takes a binary, not flags);
    `exec` keeps the process cdp.py started and the protocol pipe on its fds 3 and 4."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "chromium-offline"
    flags = " ".join(f"'{flag}'" for flag in EXTRA_FLAGS)
    script.write_text(f"#!/bin/sh\nexec '{binary}' {flags} \"$@\"\n")
    script.chmod(0o755)
    return str(script)


# ---------------------------------------------------------------- the guide and the style over loopback


class _CorsFiles(SimpleHTTPRequestHandler):
    """Browser fetches a guide with `pragma`/`cache-control` headers from another origin than its
    own: the answer needs CORS headers and a preflight answer."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_OPTIONS(self) -> None:  # noqa: N802 - the handler's naming
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def serve_browser_folder(folder: Path = BROWSER_FOLDER) -> Iterator[str]:
    """`cypher/browser/` over HTTP on 127.0.0.1; yields its base URL under the name `localhost`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_CorsFiles, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---------------------------------------------------------------- a memory worth looking at

MEMORIES = (
    {"content": "Maya deploys the shop with Docker Compose on one Hetzner server."},
    {"content": "The Hetzner server ran out of disk on Friday and the shop went down."},
    {"content": "Tom wants a postmortem about the Hetzner outage by Thursday."},
    {"content": "Maya watches the Hetzner server on Grafana dashboards.", "type": "semantic"},
    {"content": "Biscuit is Maya's dog and loves hiking.", "type": "semantic"},
)
CORRECTION = "The Hetzner server ran out of disk on Saturday, not Friday, and Maya paged Tom at midnight."
QUESTION = "Who was paged when the Hetzner server went down?"


@dataclass
class Seeded:
    trace_id: str                # the retrieved memory: the correction, a new version of memory 2
    scope_keys: list[str]
    contents: dict[str, str]     # every trace's content by id
    types: dict[str, str]        # every trace's type ("episodic", "semantic") by id
    entity_keys: list[str]


def seed(store: Any) -> Seeded:
    """Five memories of one thread sharing entities (Maya, Hetzner, Tom...), one of them
    corrected (a new version SUPERSEDES the old), then retrieved: the graph holds traces of two
    types, entities, and MENTIONS, SHARED_ENTITY, TEMPORAL_SEQUENCE, SUPERSEDES and CO_ACTIVATED edges."""
    agent = store.agent("helper", user_id="maya", thread_id="t1")
    traces = agent.encode_many([dict(m) for m in MEMORIES])
    corrected = agent.update(traces[1].id, content=CORRECTION).trace
    result = agent.retrieve(QUESTION, top_k=4)
    assert corrected.id in result.ids, f"the correction was not retrieved: {result.ids}"
    contents = {t.id: t.content for t in traces} | {corrected.id: corrected.content}
    entity_keys = sorted({e.lower() for t in [*traces, corrected] for e in t.entities})
    types = {t.id: t.type.value for t in [*traces, corrected]}
    return Seeded(corrected.id, list(agent.visible_scope_keys), contents, types, entity_keys)


def set_up(browser: Neo4jBrowser, guide_base: str, http_url: str, bolt_uri: str, user: str, password: str,
           seeded: Seeded) -> tuple[str, DrawnGraph]:
    """The whole walk: open, connect, play the guide to its neighbourhood slide, apply the style,
    set the parameters, run the saved neighbourhood query; returns the slide's text and the graph."""
    browser.open(http_url)
    browser.connect(bolt_uri, user, password)
    slide = browser.play(f"{guide_base}/guide.html", "Trace neighbourhood")
    browser.style((BROWSER_FOLDER / "style.grass").read_text(encoding="utf-8"))
    browser.param("traceId", cypher_string(seeded.trace_id))
    browser.param("scopeKeys", "[" + ", ".join(cypher_string(k) for k in seeded.scope_keys) + "]")
    browser.run(saved_statement("trace_neighbourhood"))
    browser.graph(nodes=4)
    browser.dismiss_notices()  # the stream moves up: read the boxes again
    return slide, browser.graph(nodes=4)


# ---------------------------------------------------------------- the style file and the saved query


def grass_rules(text: str) -> dict[str, dict[str, str]]:
    """The style's rules by selector (`node.Entity`, `relationship.SUPERSEDES`, `node`, ...)."""
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"""([\w.]+)\s*\{((?:'[^']*'|"[^"]*"|[^}'"])*)\}""", text):
        props = {}
        for declaration in body.split(";"):
            if ":" in declaration:
                name, value = declaration.split(":", 1)
                props[name.strip()] = value.strip().strip("'\"")
        rules[selector] = props
    return rules


def style_command(text: str) -> str:
    """`:style` followed by the grass file's text as it is (Browser takes the lines after the
    command as its argument)."""
    return ":style " + text.strip()


def saved_statement(name: str) -> str:
    """A saved query of cypher/browser/ without its leading comment lines."""
    lines = (BROWSER_FOLDER / f"{name}.cypher").read_text(encoding="utf-8").splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("//")):
        lines.pop(0)
    return "\n".join(lines).strip()


def cypher_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# ---------------------------------------------------------------- what the graph view drew


@dataclass
class DrawnGraph:
    nodes: list[dict[str, Any]]          # caption (the SVG text lines joined), fill, box
    relationships: list[dict[str, Any]]  # caption, fill
    labels: dict[str, str]               # overview: node label -> its chip's colour
    types: dict[str, str]                # overview: relationship type -> its chip's colour
    status: str                          # "Displaying N nodes, M relationships."
    view: dict[str, float]               # the SVG's box in the page
    overview: dict[str, float]           # the overview panel's box (it lies over the SVG's right side)
    frame: dict[str, float]              # the result frame's box in the page


GRAPH_JS = """(() => {
  const frame = document.querySelector('[data-testid=frame]');
  const svg = frame && frame.querySelector('svg.neod3viz');
  if (!svg) return null;
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const chips = kind => Object.fromEntries([...frame.querySelectorAll(
      `[data-testid^=property-details-overview-${kind}-]`)].map(c => [
      c.getAttribute('data-testid').slice(`property-details-overview-${kind}-`.length),
      getComputedStyle(c).backgroundColor]));
  const status = [...frame.querySelectorAll('*')].map(e => e.childElementCount ? '' : e.textContent)
      .find(t => /^Displaying \\d+ nodes?, \\d+ relationships?/.test(t.trim())) || '';
  return {
    nodes: [...svg.querySelectorAll('g.node')].map(n => ({
      caption: [...n.querySelectorAll('text')].map(t => t.textContent.trim()).join(' '),
      fill: (n.querySelector('circle.b-outline') || n.querySelector('circle')).getAttribute('fill'),
      box: box(n)})),
    relationships: [...svg.querySelectorAll('g.relationship')].map(r => ({
      caption: [...r.querySelectorAll('text')].map(t => t.textContent.trim()).join(' '),
      fill: (r.querySelector('path.b-outline') || {getAttribute: () => null}).getAttribute('fill')})),
    labels: chips('node-label'), types: chips('relationship-type'),
    status: status.trim(), view: box(svg), frame: box(frame),
    overview: box(frame.querySelector('[data-testid=vizInspector]') || svg)};
})()"""


def rgb(hex_colour: str) -> str:
    """`#FF9F40` as getComputedStyle writes it: `rgb(255, 159, 64)`."""
    value = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(value[i:i + 2], 16) for i in (0, 2, 4)))


# ---------------------------------------------------------------- the Browser


def _normalised(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


class Neo4jBrowser:
    """One Chromium page on Neo4j Browser. Every step waits for what it should show and raises
    AssertionError naming what did not appear."""

    def __init__(self, binary: str, profile: Path) -> None:
        self.chrome = Browser(offline_chromium(binary, profile.parent / f"{profile.name}-bin"), profile,
                              size=VIEWPORT)
        self.chrome.call("Emulation.setDeviceMetricsOverride",
                         {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})
        self.chrome.call("Network.enable")
        self.requests: dict[str, str] = {}  # Network request id -> URL
        self.answered: set[str] = set()

    def close(self) -> None:
        self.chrome.close()

    # -- plumbing

    def evaluate(self, expression: str) -> Any:
        return self.chrome.evaluate(expression)

    def wait(self, expression: str, what: str, timeout: float = WAIT_S) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"Neo4j Browser did not show {what} in {timeout:.0f} s; the page says: "
                                     + _normalised(self.evaluate("document.body.innerText"))[:1500])
            time.sleep(0.2)

    def _collect(self) -> None:
        while not self.chrome.events.empty():
            event = self.chrome.events.get_nowait()
            params = event.get("params", {})
            if event.get("method") == "Network.requestWillBeSent":
                self.requests[params["requestId"]] = params["request"]["url"]
            elif event.get("method") == "Network.responseReceived":
                self.answered.add(params["requestId"])

    def outside_requests(self) -> tuple[list[str], list[str]]:
        """The URLs (so far) on a host that is not loopback: all asked for, and those answered."""
        self._collect()

        def outside(url: str) -> bool:
            parts = urlsplit(url)
            return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS

        asked = {rid: url for rid, url in self.requests.items() if outside(url)}
        return sorted(set(asked.values())), sorted({url for rid, url in asked.items() if rid in self.answered})

    def _type_into(self, selector: str, text: str) -> None:
        found = self.evaluate(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return false; e.focus(); if (e.select) e.select(); return true; }})()""")
        assert found, f"no {selector} on the page"
        self.chrome.call("Input.insertText", {"text": text})

    # -- the steps

    def open(self, http_url: str) -> None:
        """Load Browser (not cdp's goto: it drops the events this page's requests send)."""
        self.chrome.call("Page.navigate", {"url": http_url.rstrip("/") + "/browser/"})
        self.wait("!!document.querySelector('[data-testid=connect]')", "its connect form")

    def connect(self, bolt_uri: str, user: str, password: str) -> None:
        """Fill the connect form: the scheme, host:port of `bolt_uri` (typed: the server's own
        discovery may advertise another port), the credentials; then wait for the welcome."""
        parts = urlsplit(bolt_uri)
        scheme = f"{parts.scheme}://"
        chosen = self.evaluate(f"""(() => {{ const s = document.querySelector('[data-testid=bolt-scheme-select]');
            if (![...s.options].some(o => o.value === {json.dumps(scheme)})) return false;
            Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, {json.dumps(scheme)});
            s.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()""")
        assert chosen, f"the connect form offers no {scheme} scheme"
        self._type_into("[data-testid=boltaddress]", parts.netloc)
        self._type_into("[data-testid=username]", user)
        self._type_into("[data-testid=password]", password)
        self.evaluate("document.querySelector('[data-testid=connect]').click()")
        self.wait("document.body.innerText.includes('You are connected as user')", "that it connected")

    def run(self, command: str) -> None:
        """Paste `command` into the editor and press its Run button; wait until its frame tops the
        stream. (Pasted, not typed: the editor takes ~5 ms a typed character, 8 s for the style.)"""
        pasted = self.evaluate(f"""(() => {{ const area = document.querySelector('[data-testid=activeEditor] textarea');
            if (!area) return false; area.focus(); const data = new DataTransfer();
            data.setData('text/plain', {json.dumps(command)});
            area.dispatchEvent(new ClipboardEvent('paste', {{clipboardData: data, bubbles: true, cancelable: true}}));
            return true; }})()""")
        assert pasted, "no editor on the page"
        # Mark the frame on top now: the command's own frame is a new one, even for a command run before.
        self.evaluate("(document.querySelector('[data-testid=frame]') || document.body).dataset.cogmemSeen = '1'")
        self.wait("!!document.querySelector('[data-testid=editor-Run]')", "the editor's Run button")
        self.evaluate("document.querySelector('[data-testid=editor-Run]').click()")
        wanted = _normalised(command)
        self.wait(f"(() => {{ const top = document.querySelector('[data-testid=frame]');"
                  f" const f = top && !top.dataset.cogmemSeen && top.querySelector('[data-testid=frameCommand]');"
                  f" return !!f && f.innerText.replace(/\\u00a0/g, ' ').replace(/\\s+/g, ' ').trim()"
                  f" === {json.dumps(wanted)}; }})()", f"a frame for {wanted[:80]!r}")

    def play(self, guide_url: str, slide_title: str) -> str:
        """`:play` the guide; page through its slides to `slide_title`; return that slide's text."""
        self.run(f":play {guide_url}")
        self.wait("!!document.querySelector('[data-testid=frame] [data-testid=carousel]')", "the guide's slides")
        carousel = "document.querySelector('[data-testid=frame] [data-testid=carousel]')"
        for _ in range(50):
            slide = self.evaluate(f"(() => {{ const c = {carousel}; return c ? c.innerText : ''; }})()")
            if slide_title in slide:
                return _normalised(slide)
            self.evaluate("document.querySelector('[data-testid=frame] [data-testid=nextSlide]').click()")
            time.sleep(0.1)
        raise AssertionError(f"the guide has no slide {slide_title!r}")

    def style(self, grass: str) -> None:
        self.run(style_command(grass))
        self.wait("!!document.querySelector('[data-testid=frame] [data-testid=exportGraSSButton]')",
                  "the style it took (an error instead?)")

    def param(self, name: str, value: str) -> None:
        self.run(f":param {name} => {value}")
        self.wait("document.querySelector('[data-testid=frame]').innerText.includes('Successfully set your parameter')",
                  f"that ${name} was set")

    def graph(self, nodes: int, settle_s: float = 1.0) -> DrawnGraph:
        """The top frame's graph once at least `nodes` nodes are drawn and the layout is still."""
        self.wait(f"(() => {{ const s = document.querySelector('[data-testid=frame] svg.neod3viz');"
                  f" return !!s && s.querySelectorAll('g.node').length >= {nodes}; }})()", f"{nodes} graph nodes")
        layout = "JSON.stringify([...document.querySelectorAll('[data-testid=frame] svg.neod3viz g.node')]" \
                 ".map(n => n.getAttribute('transform')))"
        deadline, last = time.monotonic() + WAIT_S, None
        while time.monotonic() < deadline:
            now = self.evaluate(layout)
            if now == last:
                break
            last = now
            time.sleep(settle_s)
        drawn = self.evaluate(GRAPH_JS)
        assert drawn, "the result frame shows no graph view"
        return DrawnGraph(**drawn)

    def dismiss_notices(self) -> None:
        """Close the banner about product usage statistics (shown when the server allows
        telemetry), which otherwise covers the top of the stream."""
        self.evaluate("""(() => { const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let n; (n = walk.nextNode());) {
              if (!/collect information on product usage/.test(n.textContent)) continue;
              const banner = n.parentElement.parentElement, close = banner.lastElementChild;
              if (close && close !== n.parentElement) close.click();
              return; } })()""")
        self.wait("!/collect information on product usage/.test(document.body.innerText)", "the banner closed")

    def screenshot(self, path: Path, clip: dict[str, float] | None = None) -> None:
        params: dict[str, Any] = {"format": "png"}
        if clip:
            params["clip"] = {**{k: clip[k] for k in ("x", "y", "width", "height")}, "scale": 1}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.chrome.call("Page.captureScreenshot", params)["data"]))
