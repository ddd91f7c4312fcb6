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


# ---------------------------------------------------------------- order of the files under xdist


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist's --dist loadfile would otherwise hand out the files by number of tests,
    # which leaves the long one-test files (benchmark smoke tests, soak) for the end of the run.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the files holding `slow` tests first (most of them first), then the
    others by number of tests: the workers start on the long files and end on short ones, so
    neither waits long for the other at the end. A run without xdist keeps the file order."""
    if not hasattr(config, "workerinput"):
        return
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)

    def longest_first(tests: list[pytest.Item]) -> tuple[int, int]:
        slow = sum(1 for test in tests if test.get_closest_marker("slow"))
        return (-slow, 0) if slow else (1, -len(tests))

    items[:] = [item for tests in sorted(files.values(), key=longest_first) for item in tests]
