"""The soak benchmark runs end to end with a small setting and prints its tables.

Only the shape of the output is checked (benchmarks print, tests never assert
wall-clock numbers); the point is that the benchmark keeps working."""

from __future__ import annotations

import re
import subprocess
import sys

import cogmem_graph as cg

from .conftest import REPO


def test_soak_benchmark_runs_and_prints_its_tables(tmp_path) -> None:
    child = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "soak.py"), "--ops", "50", "--seconds", "120",
         "--consolidate-every", "20", "--agents", "3", "--batch", "4", "--home", str(tmp_path / "home")],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    out = child.stdout
    assert re.search(r"cogmem soak: 50 operations in [\d.]+ s = [\d.]+ ops/s", out), out
    assert re.search(r"operation\s+count\s+p50 ms\s+p95 ms\s+max ms", out)
    for op in ("encode", "retrieve"):
        assert re.search(rf"^{op}\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.MULTILINE), op
    if hasattr(cg.MemoryStore, "consolidate"):
        assert re.search(r"^consolidate\s+\d+", out, re.MULTILINE), "consolidation is part of the mix"
    assert re.search(r"window\s+phase\s+ops\s+ops/s\s+p95 ms\s+python RSS MB\s+graph RSS MB\s+traces", out)
    assert re.search(r"^start\s+-\s+0\s+n/a\s+n/a\s+[\d.]+\s+[\d.]+\s+\d+$", out, re.MULTILINE), "RSS at the start"
    assert len(re.findall(r"^w\d+\s+(mixed|read)\s+\d+", out, re.MULTILINE)) >= 5
    assert re.search(r"memory: python RSS start [\d.]+ MB -> end [\d.]+ MB; graph server RSS start [\d.]+ MB", out)
    assert "read phase" in out
