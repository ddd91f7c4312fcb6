"""`benchmarks/million.py` in a tiny setting, as subprocesses, so the script cannot rot: a build
stopped and resumed holds every trace once, and `measure` prints the row on that home. It
asserts the table's figures are there, never a time."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "million.py"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
def test_a_build_resumes_where_it_stopped_and_measure_prints_the_row(tmp_path: Path) -> None:
    home = tmp_path / "home"
    small = ("--scopes", "2", "--batch", "40")
    first = run("build", "--home", str(home), "--traces", "120", "--report-every", "60", *small)
    assert first.count("traces/s over the last 60") == 2
    assert first.count("search graphs") == 2, "each stretch builds what it wrote, as a night would"
    state = home.with_name("home.bench.json")
    assert json.loads(state.read_text())["written"] == 120
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    resumed = run("build", "--home", str(home), "--traces", "180", "--report-every", "60", *small)
    assert "180 traces" in resumed and "120 traces" not in resumed, "a second build goes on from 120"

    out = run("measure", "--home", str(home), "--queries", "3", "--day-writes", "40", *small)
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in out.splitlines() if line.startswith("│")}
    assert rows["traces"] == "180.0", "the store holds each built trace once"
    for figure in ("retrieve p50 ms", "retrieve p95 ms", "floor p50 ms", "retrieve after the night p50 ms",
                   "first consolidate s",
                   "day writes/s", "night consolidate s", "process MiB (anonymous)", "graph server MiB"):
        assert rows.get(figure, "-") != "-", f"{figure} missing:\n{out}"
    assert "the night's steps" in out, "the night's steps are listed"
    assert {"prune", "merge", "integrate_schemas"} <= set(rows)


def test_measure_refuses_a_home_never_built(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "measure", "--home", str(tmp_path / "none")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "nothing built there yet" in done.stderr


@pytest.mark.slow
def test_the_row_is_built_and_measured_with_its_graph_on_neo4j(tmp_path: Path, neo4j_uri: str) -> None:
    """`--graph`: the same row with the graph on Neo4j (its database emptied by the first
    stretch), the vectors in the home, and the night's statements with their plans."""
    home = tmp_path / "home"
    small = ("--scopes", "2", "--batch", "40", "--graph", neo4j_uri)
    built = run("build", "--home", str(home), "--traces", "80", "--report-every", "40", *small)
    assert built.count("traces/s over the last 40") == 2
    out = run("measure", "--home", str(home), "--queries", "3", "--day-writes", "40", "--plans", "2", *small)
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in out.splitlines() if line.startswith("│")}
    assert rows["traces"] == "80.0", "the database held nothing before the build, each trace once after"
    assert out.count("PROFILE:") == 2, f"`--plans 2`: the two costliest statements of the night, planned:\n{out}"
    assert "│ consolidation_" in out, "the night's statements are listed by name"
    assert "graph on" in out, "the table says where the graph was"
    for figure in ("retrieve p50 ms", "night consolidate s", "retrieve after the night p50 ms"):
        assert rows.get(figure, "-") != "-", f"{figure} missing:\n{out}"
