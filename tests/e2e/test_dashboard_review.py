"""The dashboard in a real browser (headless Chromium over `cdp.py`, a real `cogmem serve`):
outdated and superseded memories are marked with what replaced them, in search, list and
memory page; weak hits wait behind "show more"; each hit and its page say why it was recalled; the
graph groups repeated edges, paints readable captions and alone loads its script, and a
click on a group in the drawing expands it (one on its edges groups it again);
a key exports its memories, an owner exports
and erases a user (the erase typed twice, refused with the library's message without the
organization), every change says what it did; the filter shows every option and the list
its count; the owner's health page is tables, not raw keys."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .cdp import Browser
from .dashboard_harness import Seeded, start
from .server_harness import add_key, auth

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

FLOOR = 0.65  # pages.WEAK_HIT_FLOOR, read from the page's own count line too


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """The shared seed, plus Alice's old and new home (an unresolved correction) and a user
    under an organization."""
    home = tmp_path_factory.mktemp("dashboard-review") / "home"
    seeded = start(home)
    try:
        url, maya = seeded.server.url, seeded.keys["maya"]
        for name, body in (("lisbon", {"content": "Alice lives in Lisbon.", "created_at": 1_750_000_000_000}),
                           ("porto", {"content": "Alice lives in Porto now."})):
            answer = httpx.post(f"{url}/v1/memories", json=body, headers=auth(maya), timeout=60)
            assert answer.status_code == 200, answer.text
            seeded.ids[name] = answer.json()["id"]
        seeded.keys["ana"] = add_key(home, "--agent", "desk", "--user", "ana", "--org", "acme")
        answer = httpx.post(f"{url}/v1/memories", json={"content": "Ana runs the Kestrel pipeline at Acme."},
                            headers=auth(seeded.keys["ana"]), timeout=60)
        assert answer.status_code == 200, answer.text
        yield seeded
    finally:
        seeded.server.stop()


def text(browser: Browser) -> str:
    return browser.evaluate("document.body.innerText")


def login(browser: Browser, url: str, key: str) -> None:
    browser.goto(f"{url}/ui/login")
    browser.evaluate(f"document.querySelector('input[name=key]').value = {json.dumps(key)}")
    browser.loads("document.querySelector('form.login button').click()")


def downloaded(browser: Browser, folder: Path, click: str) -> str:
    """Click a download button and return the file Chromium saved."""
    folder.mkdir(exist_ok=True)
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)}, session=False)
    before = set(folder.iterdir())
    browser.evaluate(click)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done = [p for p in set(folder.iterdir()) - before if not p.name.endswith(".crdownload")]
        if done:
            return done[0].read_text()
        time.sleep(0.2)
    raise AssertionError(f"nothing downloaded: {text(browser)[:500]}")


MARKS = "[...document.querySelectorAll('li.memory')].filter(li => li.querySelector('a').textContent.includes({}))" \
        ".map(li => [li.className, [...li.querySelectorAll('.mark')].map(m => m.textContent).join('|'), " \
        "[...li.querySelectorAll('.mark a')].map(a => a.getAttribute('href'))])"


def test_outdated_memories_are_marked_with_what_replaced_them(seeded, browser) -> None:
    url, ids = seeded.server.url, seeded.ids
    login(browser, url, seeded.keys["maya"])
    porto_href = f"/ui/memories/{ids['porto']}"
    browser.goto(f"{url}/ui/memories?q=Where+does+Alice+live")
    lisbon = browser.evaluate(MARKS.format("'Lisbon'"))
    assert len(lisbon) == 1, lisbon
    cls, marks, links = lisbon[0]
    assert "outdated" in cls and "Outdated: replaced on" in marks and "Porto" in marks, lisbon
    assert porto_href in links
    porto = browser.evaluate(MARKS.format("'Porto'"))
    assert porto and "outdated" not in porto[0][0], porto

    browser.goto(f"{url}/ui/memories")  # the list marks it too
    cls, marks, links = browser.evaluate(MARKS.format("'Lisbon'"))[0]
    assert "outdated" in cls and porto_href in links

    browser.goto(f"{url}/ui/memories/{ids['lisbon']}")  # and its own page, linking to the replacement
    assert "Outdated: replaced on" in text(browser)
    browser.loads(f"document.querySelector('.mark.outdated a[href=\"{porto_href}\"]').click()")
    assert browser.evaluate("location.pathname") == porto_href and "Outdated" not in text(browser)

    # Berlin lost to Paris when consolidation settled the contradiction: superseded, pointing at Paris
    browser.goto(f"{url}/ui/memories/{ids['berlin']}")
    marks = browser.evaluate("[...document.querySelectorAll('.mark.outdated')].map(m => m.textContent)")
    assert marks and "Paris" in marks[0], marks
    browser.goto(f"{url}/ui/memories?view=timeline")
    cls, marks, _ = browser.evaluate(MARKS.format("'Berlin'"))[0]
    assert "outdated" in cls and "Paris" in marks


def test_weak_hits_wait_behind_show_more_and_each_hit_says_how_it_was_found(seeded, browser) -> None:
    url = seeded.server.url
    login(browser, url, seeded.keys["maya"])
    browser.goto(f"{url}/ui/memories?q=Docker+Compose+server")
    shown = browser.evaluate("[...document.querySelectorAll('ol.hits:not(.weak) li .score b')]"
                             ".map(b => +b.textContent)")
    weak = browser.evaluate("[...document.querySelectorAll('ol.hits.weak li .score b')].map(b => +b.textContent)")
    assert shown and weak, (shown, weak)
    assert all(s >= FLOOR * shown[0] - 1e-3 for s in shown) and all(w < FLOOR * shown[0] for w in weak)
    assert f"{len(shown)} hit(s) scoring at least 65% of the best, {len(weak)} weaker" in text(browser)
    visible = "[...document.querySelectorAll('ol.hits.weak li')].filter(li => li.checkVisibility()).length"
    assert browser.evaluate(visible) == 0, "the weak hits are folded away"
    browser.evaluate("document.querySelector('details.more summary').click()")
    assert browser.evaluate(visible) == len(weak), "show more reveals them"

    # how each hit was found: the sources recall itself reports for the same query
    answer = httpx.post(f"{url}/v1/recall", json={"query": "Docker Compose server", "top_k": 20,
                                                  "record_access": False},
                        headers=auth(seeded.keys["maya"]), timeout=60).json()
    found_by = browser.evaluate("document.querySelector('ol.hits li .sources').textContent")
    assert "words (BM25)" in found_by and "lexical" in answer["traces"][0]["sources"], found_by


WHY = """[...document.querySelectorAll('{root} .why')].map(w => ({{
  sources: (w.querySelector('.sources') || {{}}).textContent || '',
  words: (w.querySelector('.composition') || {{}}).textContent || '',
  rows: [...w.querySelectorAll('table.composition tbody tr')].map(r => [r.querySelector('th').textContent,
    +r.querySelector('meter.value').value, +r.querySelector('td.num.adds').textContent,
    +r.querySelector('meter.adds').value, r.querySelector('meter.adds').getBoundingClientRect().width])}}))"""


def test_each_hit_and_its_page_say_why_it_was_recalled_as_recall_does(seeded, browser) -> None:
    """Which matchers found each hit and what each signal added to its score, in words and
    bars, are those `recall` returns (`sources`, `composition`), on the hit and on its page."""
    url = seeded.server.url
    login(browser, url, seeded.keys["maya"])
    browser.goto(f"{url}/ui/memories?q=Docker+Compose+server")
    answer = httpx.post(f"{url}/v1/recall", json={"query": "Docker Compose server", "top_k": 20,
                                                  "record_access": False},
                        headers=auth(seeded.keys["maya"]), timeout=60).json()["traces"]
    shown = browser.evaluate(WHY.format(root="ol.hits li"))
    assert len(shown) == len(answer) > 1, (len(shown), len(answer))
    for hit, api in zip(shown, answer, strict=True):
        how = api["composition"]
        assert how and hit["sources"].startswith("found by:"), hit
        assert f"gave {how['base']:.3f}" in hit["words"], hit["words"]
        assert ("rank " in hit["words"]) == isinstance(how["fused_rank"], int), hit["words"]
        rows = {name: (value, added, bar) for name, value, added, bar, _ in hit["rows"]}
        assert set(rows) == set(api["signals"]) == set(how["contributions"]), rows
        for name, (value, added, bar) in rows.items():
            assert value == pytest.approx(min(1.0, max(0.0, api["signals"][name])), abs=1e-4)
            assert added == pytest.approx(how["contributions"][name], abs=1e-3)
            assert bar == pytest.approx(max(0.0, how["contributions"][name]), abs=1e-5)
        assert sum(a for _, a, _ in rows.values()) == pytest.approx(how["base"], abs=4e-3)
    best = shown[0]["rows"]
    assert best[0][0] == "similarity" and best[0][4] > 20, "the largest share is drawn as the widest bar"

    # the hit's page, opened from the search, says the same
    top = answer[0]["trace"]["id"]
    browser.loads(f"document.querySelector('ol.hits li a[href^=\"/ui/memories/{top}?\"]').click()")
    assert browser.evaluate("location.pathname") == f"/ui/memories/{top}"
    assert "Why it was recalled for “Docker Compose server”" in text(browser)
    page = browser.evaluate(WHY.format(root="section.why-recalled"))
    assert len(page) == 1 and _same_explanation(page[0], shown[0]), (page[0], shown[0])
    browser.goto(f"{url}/ui/memories/{top}")  # opened otherwise, it has no search to explain
    assert browser.evaluate("document.querySelectorAll('section.why-recalled').length") == 0


def _same_explanation(a: dict, b: dict) -> bool:
    """The same words and rows, numbers within what the clock moving on between two recalls
    changes (recency is read from the server's clock: a few microseconds' worth)."""
    numbers = re.compile(r"\d+\.\d+")
    close = all(x == pytest.approx(y, abs=2e-3) for x, y in
                zip(map(float, numbers.findall(a["words"])), map(float, numbers.findall(b["words"])), strict=True))
    rows = len(a["rows"]) == len(b["rows"]) and all(
        ra[0] == rb[0] and all(x == pytest.approx(y, abs=2e-3) for x, y in zip(ra[1:], rb[1:], strict=True))
        for ra, rb in zip(a["rows"], b["rows"], strict=True))
    return close and rows and numbers.sub("#", a["words"]) == numbers.sub("#", b["words"])


def test_filters_show_every_option_the_list_counts_and_cards_have_no_bullets(seeded, browser) -> None:
    login(browser, seeded.server.url, seeded.keys["maya"])
    hidden = browser.evaluate("[...document.querySelectorAll('form.filters select[multiple]')]"
                              ".filter(s => s.scrollHeight > s.clientHeight + 1).map(s => s.name)")
    assert hidden == [], f"options cut off in {hidden}"
    count = browser.evaluate("document.querySelector('p.count').textContent")
    cards = browser.evaluate("document.querySelectorAll('ul.memories li.memory').length")
    assert count.startswith(f"{cards} memories on this page"), count
    markers = browser.evaluate("[...document.querySelectorAll('li.memory')]"
                               ".map(li => getComputedStyle(li).listStyleType).filter(t => t !== 'none')")
    assert markers == [], markers


def test_a_key_exports_its_memories_and_every_change_says_what_it_did(seeded, browser, tmp_path) -> None:
    url, maya = seeded.server.url, seeded.keys["maya"]
    login(browser, url, maya)
    lines = downloaded(browser, tmp_path / "dl", "document.querySelector('form.export button').click()")
    records = [json.loads(line) for line in lines.splitlines() if line.strip()]
    dumped = json.dumps(records)
    assert records and "Docker Compose" in dumped and "Biscuit" in dumped
    assert "Nightjar" not in dumped and "Kestrel" not in dumped, "another user's memories in the export"

    items = [{"content": f"Quokka survey note {i}: the Quokka colony on Rottnest, count {i}."} for i in range(30)]
    answer = httpx.post(f"{url}/v1/memories/batch", json={"items": items}, headers=auth(maya), timeout=120)
    assert answer.status_code == 200, answer.text
    edges = 0
    for _ in range(20):  # recalled together, they gain co-activation edges on top of the shared entity ones
        answer_ = httpx.post(f"{url}/v1/recall", json={"query": "Quokka colony on Rottnest", "top_k": 40},
                             headers=auth(maya), timeout=60)
        assert answer_.status_code == 200, answer_.text
        time.sleep(0.5)  # (a recall's edges are written after it answers)
        counted = {item["id"]: len(httpx.get(f"{url}/v1/memories/{item['id']}/neighbourhood",
                                             params={"limit": 500}, headers=auth(maya), timeout=60).json()["edges"])
                   for item in answer.json()}
        target, edges = max(counted.items(), key=lambda kv: kv[1])
        if edges > 25:
            break
    assert edges > 25, f"the test needs a memory of more than 25 edges, it has {edges}"

    browser.goto(f"{url}/ui/memories/{target}")
    browser.loads("document.querySelector('button[value=pin]').click()")
    assert "Pinned: decay and consolidation leave it as it is." in text(browser)
    browser.goto(f"{url}/ui/memories/{target}")
    assert "Pinned:" not in text(browser), "the confirmation is shown once"
    browser.loads("document.querySelector('button[value=unpin]').click()")
    assert "Unpinned" in text(browser)

    browser.loads("document.querySelector('a.danger').click()")
    confirm = text(browser)
    assert f"its {edges} edge(s)" in confirm, confirm
    assert "Deleted" not in confirm and "Nothing is deleted until you confirm" in confirm
    browser.loads("document.querySelector('button.danger').click()")
    done = browser.evaluate("document.querySelector('.done').innerText")
    assert "Forgotten" in done and re.search(r"traces\s+1", done), done

    browser.goto(f"{url}/ui/memories/{seeded.ids['dog']}")
    browser.evaluate("document.querySelector('textarea[name=content]').value = 'Biscuit is Maya\\'s old dog.'")
    browser.loads("document.querySelector('form.edit button').click()")
    assert "Saved as version 2" in text(browser)


def test_an_owner_exports_and_erases_one_user(seeded, browser, tmp_path) -> None:
    url = seeded.server.url
    login(browser, url, seeded.keys["maya"])  # an agent key has no such page
    browser.goto(f"{url}/ui/users")
    assert "Refused" in text(browser) and "Erase" not in text(browser)
    browser.loads("document.querySelector('nav form button').click()")  # log out

    login(browser, url, seeded.keys["owner"])
    browser.goto(f"{url}/ui/health")
    health = text(browser)
    assert browser.evaluate("document.querySelectorAll('main table.counts').length") >= 3
    assert "active memories" in health and "graph database" in health
    assert "active_traces" not in health and "{" not in health, "raw keys or JSON on the health page"

    browser.loads("[...document.querySelectorAll('nav a')].find(a => a.textContent === 'Users').click()")
    browser.evaluate("document.querySelector('form.export-user input[name=user_id]').value = 'tom'")
    lines = downloaded(browser, tmp_path / "dl", "document.querySelector('form.export-user button').click()")
    assert "Nightjar" in lines and "Biscuit" not in lines

    def erase(user: str, org: str, confirm: str) -> str:
        browser.goto(f"{url}/ui/users")
        for name, value in (("user_id", user), ("organization_id", org), ("confirm", confirm)):
            browser.evaluate(f"document.querySelector('form.erase-user input[name={name}]').value = "
                             f"{json.dumps(value)}")
        browser.loads("document.querySelector('form.erase-user button').click()")
        return text(browser)

    assert "Not erased: type the user id again" in erase("ana", "acme", "anna")
    refused = erase("ana", "", "ana")
    assert "Not erased" in refused and "organization" in refused, refused
    ana = auth(seeded.keys["ana"])
    assert "Kestrel" in httpx.get(f"{url}/v1/memories", headers=ana, timeout=60).text, "nothing erased yet"
    done = erase("ana", "acme", "ana")
    assert "Erased user acme/ana" in done and re.search(r"traces\s+1", done), done
    assert "Kestrel" not in httpx.get(f"{url}/v1/memories", headers=ana, timeout=60).text


CAPTIONS = """(() => { window.__captions = {}; const P = CanvasRenderingContext2D.prototype; const fill = P.fillText;
  P.fillText = function (text, x, y, width) {
    const c = this.canvas, t = this.getTransform(), px = parseFloat((this.font.match(/([0-9.]+)px/) || [0, 0])[1]);
    window.__captions[text] = px * Math.hypot(t.a, t.b) * (c.width ? c.clientWidth / c.width : 1);
    return fill.call(this, text, x, y, width); }; })()"""
"""Records each text NVL paints on its canvas with its size on screen in CSS px: the font's
size times the canvas transform's scale (the zoom) times the canvas's CSS-to-pixel ratio."""
NVL = ("[...document.scripts].map(s => s.src).concat(performance.getEntriesByType('resource').map(e => e.name))"
       ".filter(u => u.includes('nvl.js')).length")


def drawn_captions(browser: Browser) -> dict[str, float]:
    """The captions once NVL's layout has settled (the same sizes twice, half a second apart)."""
    last = ""
    for _ in range(40):
        time.sleep(0.5)
        now = browser.evaluate("JSON.stringify(window.__captions || {})")
        if now not in ("{}", "") and now == last:
            return json.loads(now)
        last = now
    raise AssertionError(f"NVL's captions did not settle: {last}")


WHERE_DRAWN = """((colour, inner, outer) => {
  const want = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  let best = null;
  for (const c of document.querySelectorAll(".graph canvas")) {
    const w = c.width, h = c.height, px = c.getContext("2d").getImageData(0, 0, w, h).data;
    const mine = new Int32Array((w + 1) * (h + 1)), other = new Int32Array((w + 1) * (h + 1));
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const off = Math.abs(px[i] - want[0]) + Math.abs(px[i + 1] - want[1]) + Math.abs(px[i + 2] - want[2]);
      const at = (y + 1) * (w + 1) + x + 1, up = y * (w + 1) + x + 1, left = at - 1, corner = up - 1;
      mine[at] = (px[i + 3] > 250 && off < 12 ? 1 : 0) + mine[up] + mine[left] - mine[corner];
      other[at] = (px[i + 3] > 0 && off > 60 ? 1 : 0) + other[up] + other[left] - other[corner];
    }
    const box = (s, x, y, r) => {
      const x0 = Math.max(0, x - r), y0 = Math.max(0, y - r), x1 = Math.min(w, x + r + 1), y1 = Math.min(h, y + r + 1);
      return s[y1 * (w + 1) + x1] - s[y0 * (w + 1) + x1] - s[y1 * (w + 1) + x0] + s[y0 * (w + 1) + x0];
    };
    const rect = c.getBoundingClientRect(), scale = c.clientWidth / w;
    for (let y = inner; y < h - inner; y++) for (let x = inner; x < w - inner; x++) {
      if (box(mine, x, y, inner) < (2 * inner + 1) ** 2) continue;
      const ink = outer ? box(other, x, y, outer) : 0;
      if (!best || ink < best.ink) best = {ink, x: rect.left + (x + 0.5) * scale, y: rect.top + (y + 0.5) * scale};
    }
  }
  return best;
})"""
"""Where on the screen (viewport CSS px) the drawing paints `colour`: the point whose square of
side 2 inner + 1 is all that colour and whose square of side 2 outer + 1 holds the least ink of
any other colour (a node's disc with inner 5; the middle of an edge's line with inner 1, outer
10); null when no square is all that colour."""


def where_drawn(browser: Browser, colour: str, inner: int, outer: int) -> dict | None:
    """`WHERE_DRAWN` once NVL's layout has settled (the same answer twice, half a second apart)."""
    browser.evaluate("document.querySelector('.graph').scrollIntoView()")
    last: object = "none yet"
    for _ in range(40):
        time.sleep(0.5)
        now = browser.evaluate(f"({WHERE_DRAWN})({json.dumps(colour)}, {inner}, {outer})")
        if now == last and browser.evaluate(CANVAS_PAINTED):
            return now
        last = now
    raise AssertionError(f"NVL's drawing did not settle: {last}")


CANVAS_PAINTED = ("[...document.querySelectorAll('.graph canvas')].some(c => c.getContext('2d')"
                  ".getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0))")


def graph_data(browser: Browser) -> dict:
    return json.loads(browser.evaluate("document.getElementById('neo4j-viz-data').textContent"))


def test_a_click_on_a_group_in_the_drawing_expands_it_and_one_on_its_edges_groups_it_again(seeded, browser) -> None:
    """The mouse, not the links: a click where the drawing paints the group's node loads the
    page with the group expanded (each of its edges drawn, its node gone), a click on the line
    of one of those edges loads it grouped again."""
    url, dog = seeded.server.url, seeded.ids["dog"]
    login(browser, url, seeded.keys["maya"])
    browser.goto(f"{url}/ui/memories/{dog}/graph")
    grouped = graph_data(browser)
    group = next(n for n in grouped["nodes"] if n["id"] == "group:SHARED_ENTITY")
    colour, many = group["color"], group["properties"]["edges"]
    assert many >= 4 and not [n for n in grouped["nodes"] if n["color"] == colour and n is not group]
    disc = where_drawn(browser, colour, 5, 0)
    assert disc is not None, "the group's node is painted"

    browser.click(disc["x"], disc["y"], loads=True)
    assert browser.evaluate("location.search") == "?expand=SHARED_ENTITY"
    expanded = graph_data(browser)
    each = [r for r in expanded["relationships"] if r["properties"].get("type") == "SHARED_ENTITY"]
    assert len(each) == many and "group:SHARED_ENTITY" not in {n["id"] for n in expanded["nodes"]}
    assert len(expanded["relationships"]) == len(grouped["relationships"]) - 1 + many
    line = where_drawn(browser, colour, 1, 10)
    assert line is not None, "the group's edges are painted"
    assert where_drawn(browser, colour, 5, 0) is None, "the group's node is no longer painted"
    assert browser.evaluate("document.querySelector('a.collapse').dataset.group") == "SHARED_ENTITY"

    browser.click(line["x"], line["y"], loads=True)
    assert browser.evaluate("location.search") == ""
    again = graph_data(browser)
    assert [r["id"] for r in again["relationships"]] == [r["id"] for r in grouped["relationships"]]
    assert where_drawn(browser, colour, 5, 0) is not None, "the group's node is painted again"


def test_the_graph_groups_repeated_edges_draws_readable_captions_and_alone_loads_its_script(seeded, browser) -> None:
    url, dog = seeded.server.url, seeded.ids["dog"]
    login(browser, url, seeded.keys["maya"])
    for path in ("/ui/memories", "/ui/memories?q=Biscuit", f"/ui/memories/{dog}", "/ui/stats"):
        browser.goto(url + path)
        assert browser.evaluate(NVL) == 0, f"{path} loads the graph script"
    browser.call("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTIONS})
    browser.goto(f"{url}/ui/memories/{dog}/graph")
    assert browser.evaluate(NVL) >= 1
    groups = browser.evaluate("[...document.querySelectorAll('ul.groups a.group')].map(a => a.textContent)")
    assert any(g.endswith("× SHARED_ENTITY") for g in groups), groups
    captions = drawn_captions(browser)
    assert any(" × " in c for c in captions), f"the group is drawn on the canvas: {captions}"
    small = {c: round(px, 1) for c, px in captions.items() if px < 11}
    assert not small, f"captions under 11 px at the default zoom: {small}"

    many = [g for g in groups if g.endswith("× SHARED_ENTITY")][0]
    browser.loads("[...document.querySelectorAll('ul.groups a.group')]"
                  ".find(a => a.textContent.endsWith('× SHARED_ENTITY')).click()")
    assert "expand=SHARED_ENTITY" in browser.evaluate("location.search")
    assert many not in browser.evaluate("document.querySelector('main').innerText")
    assert browser.evaluate("document.querySelectorAll('a.collapse').length") == 1
    expanded = drawn_captions(browser)
    data = json.loads(browser.evaluate("document.getElementById('neo4j-viz-data').textContent"))
    each = [r for r in data["relationships"] if r.get("properties", {}).get("type") == "SHARED_ENTITY"]
    assert len(each) == int(many.split()[0]), "each edge of the group is drawn"
    assert any(c.startswith("SHARE") for c in expanded), expanded
    small = {c: round(px, 1) for c, px in expanded.items() if px < 11}
    assert not small, f"captions under 11 px once expanded: {small}"
