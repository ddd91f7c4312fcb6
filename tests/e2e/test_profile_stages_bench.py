"""`benchmarks/profile_stages.py` at a tiny size, as a subprocess, so it cannot rot: both
tables come out, naming the stages the two core procedures spend their time in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "profile_stages.py"


def test_the_profile_names_the_stages_of_encode_many_and_retrieve() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--size", "300", "--profiled", "200", "--batch", "50",
                           "--scopes", "2", "--queries", "5", "--top", "200"],  # every stage: under load the
                          cwd=ROOT, capture_output=True, text=True, timeout=600)  # top 14 by time can drop one
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "encode_many by stage" in out and "retrieve by stage" in out
    assert "4 calls of _encode_batch" in out and "5 calls of _retrieve" in out
    stages = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert any("build_trace" in s for s in stages), "a comprehension is named through what it calls"
    assert any("upsert_traces" in s for s in stages) and any("search_dense" in s for s in stages)


def test_bad_sizes_are_refused_with_the_option_named() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--size", "0"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "--size" in done.stderr
