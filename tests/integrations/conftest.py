"""One embedded memory store per test module (hash embedder, manual clock): each test gets
its own agent and users, so tests share the store's start-up and nothing else. A test that
moves the clock uses the function-scoped `store` and `clock` of tests/conftest.py."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

START_MS = 1_700_000_000_000


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cg.MemoryStore]:
    home: Path = tmp_path_factory.mktemp("integrations") / "home"
    with cg.open(home=home, embedder="hash", clock=ManualClock(START_MS)) as store:
        yield store


@pytest.fixture
def uid() -> str:
    """A suffix that keeps one test's agents and users apart from the others'."""
    return uuid.uuid4().hex[:8]


@pytest.fixture(scope="module")
def async_memory(memory: cg.MemoryStore) -> Iterator[cg.AsyncMemoryStore]:
    """The module's store with awaitable methods (it owns the store: closing it closes both)."""
    store = cg.AsyncMemoryStore(memory)
    yield store
    asyncio.run(store.close())
