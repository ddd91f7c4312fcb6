"""`benchmarks/statement_costs.py` at a tiny size, as a subprocess, so it cannot rot: the
engine's time per statement comes out, and a kept home is filled once and reused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "statement_costs.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def _figures(out: str) -> dict[str, float]:
    rows = [line.split("│")[1:3] for line in out.splitlines() if line.startswith("│")]
    return {name.strip(): float(ms) for name, ms in rows}


def test_each_write_statement_gets_its_engine_time_and_a_kept_home_is_reused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = _run("--size", "300", "--batches", "1", "--scopes", "2", "--home", str(home))
    assert first.returncode == 0, first.stderr[-3000:]
    assert "filling" in first.stdout
    figures = _figures(first.stdout)
    for statement in ("upsert_traces", "merge_mentions", "shared_entity_candidates", "(wall)"):
        assert figures.get(statement, 0.0) > 0.0, (statement, figures)
    assert figures["(wall)"] > figures["upsert_traces"]

    again = _run("--batches", "1", "--scopes", "2", "--home", str(home))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "filling" not in again.stdout and "upsert_traces" in again.stdout


def test_bad_counts_are_refused_with_the_option_named() -> None:
    done = _run("--batches", "0")
    assert done.returncode != 0 and "--batches" in done.stderr
