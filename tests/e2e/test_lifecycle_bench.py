"""`benchmarks/lifecycle.py` (what `make bench-lifecycle` runs whole) in a small setting, as a
subprocess, so the benchmark cannot rot: one LoCoMo conversation, a few questions, a short
life, the hash embedder; both presets side by side. It asserts the table's shape and the
differences the retention model exists for, never a time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "lifecycle.py"

DATA = LOCOMO_DATA


def _rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        if line.startswith("│"):
            cells = [c.strip() for c in line.strip("│ ").split("│")]
            rows.setdefault(cells[0], cells[1:])
    return rows


@pytest.mark.slow
@needs_locomo_data
def test_the_lifecycle_benchmark_runs_every_part_and_the_default_keeps_what_it_was_told() -> None:
    env = {**os.environ, "COLUMNS": "250"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--embedder", "hash", "--limit-conversations", "1", "--limit-questions", "15",
         "--durable-days", "40", "--filler-per-day", "3"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(done.stdout)
    for name in ("static (default)", "use (default)", "life (default)", "lexical", "dense",
                 "static (reference)", "use (reference)", "life (reference)"):
        assert name in rows, f"row {name!r} missing:\n{done.stdout}"
    life = rows["life (default)"]
    r10 = float(life[2])
    active, dormant, gone = (int(x) for x in life[4:7])
    assert gone == 0 and dormant > 0, "forgetting makes memories dormant, never deletes them by default"
    assert r10 > float(rows["life (reference)"][2]), "the reference preset forgets what the questions need"
    halves = re.search(r"│ life \(default\)\s+│ tune\s+│.*│\s+([\d.]+) / ([\d.]+) / ([\d.]+)\s+│\n", done.stdout)
    assert halves, f"the category table gives R@5 / R@10 / all@10 per half:\n{done.stdout}"
    r5, overall_r10, whole = (float(x) for x in halves.groups())
    assert r5 <= overall_r10 and 0 <= whole <= overall_r10 and abs(overall_r10 - r10) < 1e-3
    durable = re.search(r"│ default\s+│\s+(\d+)/(\d+)\s+│\s+\d+/\d+\s+│\s+(\d+)/(\d+)\s+│\s+(\d+)/(\d+)", done.stdout)
    reference = re.search(r"│ reference\s+│\s+(\d+)/(\d+)", done.stdout)
    assert durable and reference, done.stdout
    hits = int(durable[1])
    assert hits > int(reference[1]), "the default keeps durable facts the reference prunes"
    assert int(durable[3]) > 0 and int(durable[5]) > 0, "corrections rank first for some updates"
    said = re.search(r"│ default\s+│\s+(\d+)/36\s+│\s+(\d+)/36\s+│\s+(\d+)/37\s+│\s+(\d+)/35\s+│\s+(\d+)/32\s+│"
                     r"\s+(\d+)/32\s+│\s+(\d+)/12\s+│\s+(\d+)/68\s+│", done.stdout)
    assert said, f"the facts in passing and changes rows, per half:\n{done.stdout}"
    assert int(said[1]) + int(said[2]) > 0 and int(said[3]) + int(said[4]) > 0, said.groups()
