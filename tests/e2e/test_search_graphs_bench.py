"""`benchmarks/search_graphs.py` at a tiny size, as a subprocess, so it cannot rot: every side
(scan, graphs, graphs of int8 vectors) is measured, the graphs are built, and a kept home is
filled once and reused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "search_graphs.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def _rows(out: str) -> dict[str, list[str]]:
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines() if line.startswith("│")]
    return {row[0]: row[1:] for row in rows}


def test_both_sides_are_measured_and_the_graphs_are_built(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = _run("--size", "1500", "--queries", "10", "--batches", "1", "--scopes", "2", "--graph-kb", "64",
                 "--home", str(home), "--int8")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "filling" in first.stdout
    rows = _rows(first.stdout)
    scan, graphs, int8, _ratio, _int8_ratio = rows["retrieve p50 ms"]
    assert float(scan) > 0 and float(graphs) > 0 and float(int8) > 0
    assert float(rows["first build s (every segment)"][1]) > 0
    found = rows["dense search: of the scan's 100 nearest, found"]
    assert 0.9 <= float(found[1]) <= 1.0 and 0.9 <= float(found[2]) <= 1.0, "graphs, and graphs of int8 vectors"
    assert all(float(mib) > 0 for mib in rows["vector folder on disk MiB"][:3])

    again = _run("--queries", "10", "--batches", "1", "--scopes", "2", "--graph-kb", "64", "--home", str(home))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "filling" not in again.stdout and "retrieve p50 ms" in again.stdout


def test_bad_counts_are_refused_with_the_option_named() -> None:
    done = _run("--graph-kb", "0")
    assert done.returncode != 0 and "--graph-kb" in done.stderr
