"""`benchmarks/async_calls.py` at a tiny size, as a subprocess, so it cannot rot: both ways are
measured, on the embedded graph and across the relay that stands for a network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "async_calls.py"


def _rows(out: str) -> dict[str, list[str]]:
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines() if line.startswith("│")]
    return {row[0]: row[1:] for row in rows}


@pytest.mark.parametrize("rtt", ["0", "1"])
def test_both_ways_are_measured(rtt: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--traces", "150", "--calls", "20", "--tasks", "8",
                           "--rounds", "1", "--rtt-ms", rtt], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(done.stdout)
    assert set(rows) == {"on the loop", "threads only"}, done.stdout
    for values in rows.values():
        calls_per_s, p50, _p95, _lag99, _lagmax, threads = values
        assert float(calls_per_s.replace(",", "")) > 0 and float(p50.replace(",", "")) > 0 and int(threads) >= 1
    assert ("1 ms away" in done.stdout) == (rtt == "1")
