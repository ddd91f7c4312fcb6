"""The dashboard in a real browser: headless Chromium (driven over the DevTools protocol,
`cdp.py`) logs in with a key, searches, opens a memory, sees its graph drawn by NVL (pixels
painted, captions in its data), pins, edits and forgets it, and the memory is gone from
search; the consolidation, reminders, statistics and timeline pages are reachable; another
key's memories never appear on any page. With
COGMEM_DASHBOARD_SHOTS set to a folder, the pages' screenshots are written there (the
ones in docs/images come from this test)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import time
import zlib
from pathlib import Path

import pytest

from .cdp import Browser

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def shot(browser: Browser, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"dashboard-{name}.png"
    browser.screenshot(path)
    assert path.stat().st_size > 5000, f"{name}: the screenshot is blank"
    folder = os.environ.get("COGMEM_DASHBOARD_SHOTS")
    if folder:
        shutil.copyfile(path, Path(folder) / path.name)


def text(browser: Browser) -> str:
    return browser.evaluate("document.body.innerText")


def listed(browser: Browser) -> str:
    """The memories the page lists (a search's hits or a page of the list), not its title or form."""
    return browser.evaluate("[...document.querySelectorAll('.memories')].map(l => l.innerText).join('\\n')")


CANVAS_INK = """(() => [...document.querySelectorAll('.graph canvas')].map(c => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const colours = new Set(); let ink = 0;
    for (let i = 0; i < data.length; i += 4) { colours.add(data[i] << 16 | data[i + 1] << 8 | data[i + 2]);
                                               if (data[i + 3] > 0) ink++; }
    return [colours.size, ink]; }))()"""


def png_colours(path: Path, box: tuple[int, int, int, int]) -> int:
    """How many colours the box (left, top, right, bottom) of an 8-bit RGB(A) PNG (a
    Chromium screenshot) holds, sampling every fourth pixel of a row."""
    raw = path.read_bytes()
    width, height, depth, kind = struct.unpack(">IIBB", raw[16:26])
    assert depth == 8 and kind in (2, 6), (depth, kind)
    chunks, at = b"", 8
    while at < len(raw):
        size, name = struct.unpack(">I4s", raw[at:at + 8])
        if name == b"IDAT":
            chunks += raw[at + 8:at + 8 + size]
        at += 12 + size
    data, step = zlib.decompress(chunks), 3 if kind == 2 else 4
    stride, previous, colours = width * step, bytearray(width * step), set()
    for row in range(height):
        start = row * (stride + 1)
        kind_of_filter, line = data[start], bytearray(data[start + 1:start + stride + 1])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind_of_filter == 1:
                line[i] = (line[i] + left) & 255
            elif kind_of_filter == 2:
                line[i] = (line[i] + up) & 255
            elif kind_of_filter == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind_of_filter == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[i] = (line[i] + near[2]) & 255
        if box[1] <= row < box[3]:
            colours.update(bytes(line[i:i + 3]) for i in range(box[0] * step, min(box[2], width) * step, step * 4))
        previous = line
    return len(colours)


def drawn(browser: Browser) -> list[list[int]]:
    """The graph's canvases once NVL has drawn on one (colours, painted pixels each)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        canvases = browser.evaluate(CANVAS_INK)
        if any(ink > 1000 for _, ink in canvases):
            return canvases
        time.sleep(0.25)
    raise AssertionError(f"the graph was not drawn: {browser.evaluate(CANVAS_INK)}")


def test_the_report_pages_are_reachable_from_the_menu(seeded, browser, tmp_path) -> None:
    url = seeded.server.url
    browser.goto(f"{url}/ui/login")
    browser.evaluate(f"document.querySelector('input[name=key]').value = {json.dumps(seeded.keys['maya'])}")
    browser.loads("document.querySelector('form.login button').click()")
    for link, expected, name in (("Consolidation", "won over", "consolidation"),
                                 ("Reminders", "Ask Maya how the Paris move went", "reminders"),
                                 ("Statistics", "dormant share", "stats")):
        browser.loads(f"[...document.querySelectorAll('nav a')].find(a => a.textContent === '{link}').click()")
        assert expected in text(browser) and "Nightjar" not in text(browser), link
        if link == "Consolidation":  # (before the other test forgets one of its members)
            assert "Maya hiked the Alps trail" in text(browser)
        shot(browser, tmp_path, name)
    browser.goto(f"{url}/ui/memories?view=timeline")
    assert browser.evaluate("document.querySelectorAll('h3.day').length") >= 2
    shot(browser, tmp_path, "timeline")


def test_log_in_search_open_pin_edit_and_forget(seeded, browser, tmp_path) -> None:
    url = seeded.server.url
    browser.goto(f"{url}/ui/")
    assert browser.evaluate("location.pathname") == "/ui/login"
    assert browser.evaluate("document.cookie") == ""
    browser.evaluate(f"document.querySelector('input[name=key]').value = {json.dumps(seeded.keys['maya'])}")
    browser.loads("document.querySelector('form.login button').click()")
    assert browser.evaluate("location.pathname") == "/ui/memories"
    assert browser.evaluate("document.cookie") == "", "the session cookie must be HttpOnly"
    page = text(browser)
    assert "Docker Compose" in page and "Biscuit" in page and "Nightjar" not in page
    assert "<script>alert('owned')</script>" in page  # shown as text, never run
    shot(browser, tmp_path, "memories")

    browser.evaluate("document.querySelector('input[name=q]').value = 'Docker Compose server'")
    browser.loads("document.querySelector('form.filters button').click()")
    assert "Nightjar" not in listed(browser)
    signals = browser.evaluate("[...document.querySelectorAll('ol.hits li:first-child table.signals tbody th')]"
                               ".map(th => th.textContent)")
    assert {"similarity", "recency", "strength"} <= set(signals)
    assert browser.evaluate("document.querySelectorAll('ol.hits li:first-child meter.value').length") == len(signals)
    assert browser.evaluate("document.querySelectorAll('ol.hits li:first-child meter.adds').length") == len(signals)
    assert "Docker Compose" in browser.evaluate("document.querySelector('ol.hits li a').textContent")
    shot(browser, tmp_path, "search")

    browser.loads("document.querySelector('ol.hits li a').click()")
    assert browser.evaluate("location.pathname") == f"/ui/memories/{seeded.ids['docker']}"
    assert "SHARED_ENTITY" in text(browser) or "TEMPORAL_SEQUENCE" in text(browser)  # its edges are listed
    assert "Strength over time" in text(browser) and browser.evaluate("document.querySelectorAll("
                                                                      "'svg.retention polyline').length") == 1

    browser.loads("document.querySelector('a.graph-link').click()")
    assert browser.evaluate("location.pathname") == f"/ui/memories/{seeded.ids['docker']}/graph"
    colours, ink = max(drawn(browser), key=lambda c: c[1])
    assert colours > 20 and ink > 1000, "nodes, edges and their captions are painted"
    data = json.loads(browser.evaluate("document.getElementById('neo4j-viz-data').textContent"))
    captions = [n["caption"] for n in data["nodes"]]
    assert captions[0].startswith("Maya deploys everything") and any("Biscuit" in c for c in captions)
    assert not any("Nightjar" in c for c in captions)
    described = browser.evaluate("document.querySelector('[id$=-description]').textContent")
    assert f"{len(captions)} nodes" in described
    shot(browser, tmp_path, "graph")
    box = browser.evaluate("(r => [r.left, r.top, r.right, Math.min(r.bottom, innerHeight)].map(Math.floor))"
                           "(document.querySelector('.graph').getBoundingClientRect())")
    assert png_colours(tmp_path / "dashboard-graph.png", tuple(box)) > 300, "the screenshot shows the drawing"
    browser.loads("document.querySelector('main a').click()")
    browser.loads("document.querySelector('button[value=pin]').click()")
    assert "pinned\nyes" in text(browser) or "pinned\tyes" in text(browser)
    shot(browser, tmp_path, "memory")
    browser.loads("document.querySelector('button[value=unpin]').click()")
    assert "pinned\nno" in text(browser) or "pinned\tno" in text(browser)

    browser.evaluate("document.querySelector('textarea[name=content]').value = "
                     "'Maya moved every service from Docker Compose to Kubernetes.'")
    browser.loads("document.querySelector('form.edit button').click()")
    edited = browser.evaluate("location.pathname")
    assert edited != f"/ui/memories/{seeded.ids['docker']}", "an edit is a new version with an id of its own"
    versions = browser.evaluate("[...document.querySelectorAll('ol.versions li')].map(li => li.textContent)")
    assert len(versions) == 2 and "Kubernetes" in versions[-1]

    browser.loads("document.querySelector('a.danger').click()")
    confirm = text(browser)
    assert "Kubernetes" in confirm and "version(s)" in confirm and "cannot be undone" in confirm
    shot(browser, tmp_path, "forget")
    browser.loads("document.querySelector('button.danger').click()")
    assert browser.evaluate("location.pathname") == "/ui/memories"
    browser.goto(f"{url}/ui/memories?q=Kubernetes+services")
    hits = listed(browser)
    assert "Kubernetes" not in hits and "Docker Compose" not in hits
    browser.goto(f"{url}{edited}")
    assert "no memory" in text(browser).lower()


def test_another_keys_memories_never_appear(seeded, browser) -> None:
    url = seeded.server.url
    browser.goto(f"{url}/ui/login")
    browser.evaluate(f"document.querySelector('input[name=key]').value = {json.dumps(seeded.keys['tom'])}")
    browser.loads("document.querySelector('form.login button').click()")
    assert "Nightjar" in text(browser) and "Biscuit" not in text(browser)
    browser.goto(f"{url}/ui/memories?q=Biscuit+dog+hiking")
    assert "Biscuit" not in listed(browser)
    browser.goto(f"{url}/ui/memories/{seeded.ids['dog']}")
    assert "Biscuit" not in text(browser) and "no memory" in text(browser).lower()
    browser.goto(f"{url}/ui/memories/{seeded.ids['dog']}/graph")
    assert "no memory" in text(browser).lower() and browser.evaluate("document.querySelectorAll('canvas').length") == 0
    for page in ("consolidation", "reminders", "stats", "memories?view=timeline", "memories?as_of=2024-06-01"):
        browser.goto(f"{url}/ui/{page}")
        seen = text(browser)
        assert "user_id=tom" in seen and "Refused" not in seen, page
        for secret in ("Biscuit", "Maya", "Paris", "Berlin", "Docker Compose"):
            assert secret not in seen, (page, secret)
