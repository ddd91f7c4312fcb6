"""The dashboard in a real browser: headless Chromium (driven over the DevTools protocol,
`cdp.py`) logs in with a key, searches, opens a memory, pins, edits and forgets it, and
the memory is gone from search; another key's memories never appear. With
COGMEM_DASHBOARD_SHOTS set to a folder, the pages' screenshots are written there (the
ones in docs/images come from this test)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cdp import Browser, chromium

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    driven = Browser(chromium(), tmp_path / "profile")
    try:
        yield driven
    finally:
        driven.close()


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
    signals = browser.evaluate("[...document.querySelectorAll('ol.hits li:first-child table.signals th')]"
                               ".map(th => th.textContent)")
    assert {"similarity", "recency", "strength"} <= set(signals)
    assert browser.evaluate("document.querySelectorAll('ol.hits li:first-child meter').length") == len(signals)
    assert "Docker Compose" in browser.evaluate("document.querySelector('ol.hits li a').textContent")
    shot(browser, tmp_path, "search")

    browser.loads("document.querySelector('ol.hits li a').click()")
    assert browser.evaluate("location.pathname") == f"/ui/memories/{seeded.ids['docker']}"
    assert "SHARED_ENTITY" in text(browser) or "TEMPORAL_SEQUENCE" in text(browser)  # its edges are listed
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
