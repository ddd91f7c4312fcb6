"""Fixtures the suites share: a manual clock, the Neo4j server of the run, and a fresh
store on the clock (hash embedder, temporary home) on each graph engine: the embedded
FalkorDB, and Neo4j when the run has one. A module that needs other settings defines
its own."""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

START_MS = 1_700_000_000_000
NEO4J_IMAGE = "neo4j:5"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START_MS)


# ---------------------------------------------------------------- Neo4j: one server per run, one test at a time


def _docker_unavailable_reason() -> str | None:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:  # any failure means: no engine we can use
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    return None


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[str]:
    """The run's Neo4j: `COGMEM_TEST_NEO4J_URI` (set by `make test`, which starts one from
    tools/neo4j), else a testcontainers `neo4j:5` with GDS where a Docker engine answers."""
    uri = os.environ.get("COGMEM_TEST_NEO4J_URI")
    if uri:
        yield uri
        return
    reason = _docker_unavailable_reason()
    if reason is not None:
        pytest.skip(
            "Neo4j backend skipped: run the suite with `make test` (it starts Neo4j from tools/neo4j), "
            f"set COGMEM_TEST_NEO4J_URI to a Neo4j 5 server, or provide a Docker engine ({reason})"
        )
    from testcontainers.neo4j import Neo4jContainer

    container = (
        Neo4jContainer(NEO4J_IMAGE, password="cogmem-test-pw")
        .with_env("NEO4J_PLUGINS", '["graph-data-science","apoc"]')
    )
    with container:
        os.environ.setdefault("NEO4J_USER", "neo4j")
        os.environ["NEO4J_PASSWORD"] = "cogmem-test-pw"
        yield container.get_connection_url()


@pytest.fixture
def neo4j_uri(neo4j_server: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """The run's Neo4j, held by this test alone: Community Edition has one database, which
    each test clears, so the test processes of a parallel run take turns (a file lock)."""
    request.node.user_properties.append(("engine", "neo4j"))
    digest = hashlib.sha256(neo4j_server.encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"cogmem-test-neo4j-{digest}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield neo4j_server
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(params=["falkordb", "neo4j"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[cg.MemoryStore]:
    """A fresh store on each graph engine; on Neo4j the database is emptied first."""
    graph = None if request.param == "falkordb" else request.getfixturevalue("neo4j_uri")
    with cg.open(home=tmp_path / "home", graph=graph, embedder="hash", clock=clock) as s:
        if graph is not None:
            s.graph.clear()
            s.graph.setup_schema()
        yield s


@pytest.fixture
def embedded_store(tmp_path: Path, clock: ManualClock) -> Iterator[cg.MemoryStore]:
    """A fresh store on the embedded FalkorDB alone, for tests of that engine's own server
    or of its adapter's internals."""
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


# ---------------------------------------------------------------- which engine each test ran on


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Tag each report with the graph engine of its test (travels to the xdist controller)."""
    outcome = yield
    report = outcome.get_result()
    if (report.when == "call" or report.skipped) and "engine" not in dict(report.user_properties):
        report.user_properties.append(("engine", "neo4j" if "neo4j_server" in item.fixturenames else "other"))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """One line saying how many tests ran on Neo4j and how many on the embedded engine (or on
    no graph at all), so a run whose Neo4j tests all skipped cannot pass unnoticed."""
    counts: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            engine = dict(getattr(report, "user_properties", ())).get("engine")
            if engine is not None:
                by_outcome = counts.setdefault(engine, {})
                by_outcome[outcome] = by_outcome.get(outcome, 0) + 1
    if not counts:
        return
    neo4j, other = counts.get("neo4j", {}), counts.get("other", {})
    terminalreporter.write_line(
        f"graph engines: Neo4j {neo4j.get('passed', 0)} passed, {neo4j.get('failed', 0)} failed, "
        f"{neo4j.get('skipped', 0)} skipped; embedded FalkorDB or no graph {other.get('passed', 0)} passed, "
        f"{other.get('failed', 0)} failed, {other.get('skipped', 0)} skipped")
