"""Fixtures several end-to-end test files share: the seeded dashboard server (module-scoped)
and a headless Chromium driven over its DevTools protocol."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .cdp import Browser, chromium
from .dashboard_harness import Seeded, start


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    seeded = start(tmp_path_factory.mktemp("dashboard") / "home")
    try:
        yield seeded
    finally:
        seeded.server.stop()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    driven = Browser(chromium(), tmp_path / "profile")
    try:
        yield driven
    finally:
        driven.close()
