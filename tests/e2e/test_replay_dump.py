"""`benchmarks/replay_dump.py`, the check that a restructuring changed no behaviour, in a small
setting, as subprocesses: the same code gives the same dump byte for byte, and a change in
what the memory holds (here its ids, from another seed) shows in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "replay_dump.py"

DATA = LOCOMO_DATA
"""The development conversations the replay reads (`benchmarks/locomo.py`'s default)."""


def dump(out: Path, *args: str, hashseed: str = "0") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--questions", "3", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONHASHSEED": hashseed})


@pytest.mark.slow
@needs_locomo_data
def test_the_same_code_dumps_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    for name, seed in (("a", "1234"), ("b", "1234"), ("c", "99")):
        done = dump(tmp_path / f"{name}.json", "--seed", seed)
        assert done.returncode == 0, done.stderr[-3000:]
    first = (tmp_path / "a.json").read_bytes()
    assert first == (tmp_path / "b.json").read_bytes()
    assert first != (tmp_path / "c.json").read_bytes()
    content = json.loads(first)
    assert len(content["questions"]) == 3 and content["store"] and content["encode"] and content["prompt"]


def test_a_run_without_a_fixed_hash_seed_is_refused(tmp_path: Path) -> None:
    done = dump(tmp_path / "x.json", hashseed="random")
    assert done.returncode == 2 and "PYTHONHASHSEED=0" in done.stderr
    assert not (tmp_path / "x.json").exists()
