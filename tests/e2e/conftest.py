"""Fixtures several end-to-end test files share: the seeded dashboard server (module-scoped)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .dashboard_harness import Seeded, start


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    seeded = start(tmp_path_factory.mktemp("dashboard") / "home")
    try:
        yield seeded
    finally:
        seeded.server.stop()
