"""`benchmarks/edge_sentence_storage.py` at a tiny size, as a subprocess, so it cannot rot: both
shards are filled and measured, and the one without the sentence storage takes less disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_both_shards_are_measured_and_the_one_without_sentences_is_smaller_on_disk() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "edge_sentence_storage.py"), "--points", "600",
                           "--pairs", "1"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:5]]
            for line in done.stdout.splitlines() if line.startswith("│")}
    assert set(rows) == {"upsert s", "optimize s", "disk MiB", "process MiB (own)", "process MiB (mapped files)"}
    with_, without, _ratio = rows["disk MiB"]
    assert float(without.replace(",", "")) < float(with_.replace(",", ""))
