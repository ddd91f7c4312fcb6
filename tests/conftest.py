"""Fixtures the end-to-end and reliability suites share: a manual clock and a fresh
embedded store on it (hash embedder, temporary home). A module that needs other
settings defines its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

START_MS = 1_700_000_000_000


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START_MS)


@pytest.fixture
def store(tmp_path: Path, clock: ManualClock) -> Iterator[cg.MemoryStore]:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as s:
        yield s
