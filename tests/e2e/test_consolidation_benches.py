"""`benchmarks/consolidation_steps.py` and `benchmarks/decay_sweep_bench.py` at a tiny size, as
subprocesses, so neither can rot: each runs end to end on the embedded default and prints a
row per run. Times are never asserted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _rows(script: str, *args: str) -> list[list[str]]:
    env = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return [[cell.strip() for cell in line.strip("│ ").split("│")] for line in done.stdout.splitlines()
            if line.startswith("│")]


def test_the_step_benchmark_prints_the_cold_run_and_one_per_day() -> None:
    rows = _rows("consolidation_steps.py", "--sizes", "60", "--users", "2", "--batch", "30", "--days", "2")
    assert [r[2] for r in rows] == ["cold", "day 1", "day 2"]
    assert all(r[0] == "60" for r in rows)


def test_the_sweep_benchmark_prints_the_cold_sweep_and_both_sweeps_each_day() -> None:
    rows = _rows("decay_sweep_bench.py", "--sizes", "200", "--users", "2", "--days", "2")
    assert [r[1] for r in rows] == ["cold (schedule built)", "day 1", "day 2"]
    assert all(r[3] != "-" for r in rows[1:]), "each day times the full sweep too"
