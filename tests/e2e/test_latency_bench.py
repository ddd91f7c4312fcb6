"""`benchmarks/latency.py` (what `make bench` runs) at a tiny size, as a subprocess, so
the benchmark cannot rot: it runs end to end on the embedded default and prints its
one table with every measurement. Times are never asserted."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "latency.py"
HEADERS = ("traces", "encode_many traces/s", "… without embedding", "encode_many CPU µs/trace", "encode p50 ms",
           "retrieve p50 ms", "retrieve p95 ms", "back-to-back p50 ms", "traces loaded", "floor p50 ms",
           "retrieve / floor", "slim floor p50 ms", "retrieve / slim floor", "vector top-k p50 ms", "consolidate s",
           "process RSS MiB", "graph server RSS MiB")


def _run(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _rows(out: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("│ ").split("│")] for line in out.splitlines()
            if line.startswith("│")]


@pytest.mark.parametrize("engine", ["edge", "local"])
def test_the_benchmark_prints_one_row_per_size_with_every_measurement(engine: str) -> None:
    out = _run("--sizes", "40", "80", "--scopes", "3", "--batch", "20", "--queries", "4", "--singles", "2",
               "--embedded-vectors", engine)
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in header.strip("┃ ").split("┃")] == list(HEADERS)
    rows = _rows(out)
    assert [r[0] for r in rows] == ["40", "80"]
    for row in rows:
        assert "-" not in row, f"every measurement is filled in on the embedded default: {row}"
        assert row[HEADERS.index("retrieve / floor")].endswith("×")
        assert row[HEADERS.index("retrieve / slim floor")].endswith("×")
        assert float(row[HEADERS.index("graph server RSS MiB")].replace(",", "")) > 0
    assert ("EdgeVectorIndex" if engine == "edge" else "QdrantVectorIndex") in out


def test_bad_sizes_are_refused_with_the_option_named() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "0"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "--sizes" in done.stderr


def _in_a_git_checkout() -> bool:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, check=False)
    return done.returncode == 0


needs_git = pytest.mark.skipif(not _in_a_git_checkout(),
                               reason="--compare reads revisions from git: not a git checkout")


@needs_git
def test_compare_sets_a_revision_beside_this_tree_from_interleaved_runs() -> None:
    """`--compare HEAD`: HEAD's files run their own copy of the benchmark beside this tree's."""
    out = _run("--sizes", "40", "--scopes", "2", "--batch", "20", "--queries", "3", "--singles", "1",
               "--skip-consolidate", "--compare", "HEAD", "--pairs", "1")
    assert "pair 1/1: HEAD" in out and "pair 1/1: this tree" in out
    figures = {row[1]: row for row in _rows(out)}
    for figure in ("encode_many traces/s", "retrieve p50 ms", "retrieve p95 ms", "retrieve / floor"):
        traces, _figure, before, after, ratio, _each = figures[figure]
        assert traces == "40" and float(before.replace(",", "")) > 0 and float(after.replace(",", "")) > 0
        assert ratio.endswith("×")


@needs_git
def test_compare_names_a_revision_git_does_not_know() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "40", "--compare", "no-such-revision-x"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no-such-revision-x" in done.stderr


def test_beside_times_several_settings_together_and_names_a_wrong_one() -> None:
    both = "retrieval.candidate_multiplier=1+retrieval.ranked_multiplier=1"
    out = _run("--sizes", "40", "--scopes", "2", "--batch", "20", "--queries", "3", "--singles", "0",
               "--skip-consolidate", "--beside", both)
    assert both in out.replace("\n", ""), "the table names the settings timed beside the default"
    done = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "40", "--beside", "retrieval.no_such=1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "retrieval.no_such" in done.stdout + done.stderr


def test_each_compared_side_runs_its_benchmark_with_the_write_and_read_paths_loaded(tmp_path: Path) -> None:
    """Neither side of `--compare` times its imports: a stand-in benchmark under a revision's
    folder reports which of the two paths were loaded when it started, and its arguments;
    the machine probe timed around it joins its row."""
    spec = importlib.util.spec_from_file_location("latency_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    latency = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(latency)
    stand_in = tmp_path / "benchmarks" / "latency.py"
    stand_in.parent.mkdir()
    stand_in.write_text(
        "import sys\n"
        f"loaded = [m for m in {latency.WRITE_AND_READ_PATHS!r} if m in sys.modules]\n"
        "print('┃ loaded ┃ argv ┃')\n"
        "print(f'│ {len(loaded)} │ {\" \".join(sys.argv[1:])} │')\n")
    rows = latency.run_tree(tmp_path, ["--sizes", "40"])
    assert len(rows) == 1
    probe = rows[0].pop(latency.PROBE)
    assert rows == [{"loaded": str(len(latency.WRITE_AND_READ_PATHS)), "argv": "--sizes 40"}]
    assert float(probe) > 0, "each side's run carries the machine probe timed around it"
