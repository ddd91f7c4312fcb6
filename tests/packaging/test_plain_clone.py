"""The suite on a user's clone: no development data folder beside it.

A checkout here has the LoCoMo development data at `../shared/data/locomo`; a user's clone
does not. `make test` runs the whole suite's main pass from a plain copy made by
tools/plain_clone.py, where each test that reads the data must skip with its reason instead
of failing, and then those tests beside the data. These tests check that tool, that recipe,
and that the data is found through one definition only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "plain_clone.py"
DATA_MARK = "LoCoMo development data"
"""What a test that reads the data says when it skips."""

def _plain_clone(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, str(TOOL), "run", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


PROBE = """
import json, os, sys
from pathlib import Path
import cogmem_graph
from tests.benchmark_scripts import LOCOMO_DATA
here = Path.cwd()
print(json.dumps({"cwd": str(here), "beside": sorted(p.name for p in here.parent.iterdir()),
                  "package": cogmem_graph.__file__, "data": str(LOCOMO_DATA), "data_there": LOCOMO_DATA.is_dir(),
                  "venv": (here / ".venv").is_dir(), "readme": (here / "README.md").is_file(),
                  "git": (here / ".git").exists(),
                  "compiled": any((here / "cogmem_graph" / "__pycache__").iterdir())}))
sys.exit(7)
"""


def test_the_plain_clone_holds_the_checkout_with_nothing_beside_it_and_is_removed_after() -> None:
    """Run here or from a plain clone itself (the main pass of `make test` runs there)."""
    run = _plain_clone("--", sys.executable, "-c", PROBE)
    assert run.returncode == 7, run.stderr[-3000:]  # the command's own exit code
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    clone = Path(seen["cwd"])
    assert clone.name == "cogmem-graph" and seen["beside"] == ["cogmem-graph"]
    assert not clone.is_relative_to(ROOT) and not seen["data_there"]
    assert seen["data"] == str(clone.parent / "shared" / "data" / "locomo")
    assert Path(seen["package"]).is_relative_to(clone), "the copy's package, not the checkout's"
    assert seen["venv"] and seen["readme"] and seen["compiled"] and seen["git"]
    assert not clone.parent.exists(), "the copy is removed afterwards"


def test_make_test_runs_the_main_pass_from_a_plain_clone_and_the_data_tests_beside_the_data() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert 'tools/plain_clone.py run -- $(abspath $(PY)) -m pytest -n auto --dist loadfile -m "not serial"' in recipe
    assert '-m "locomo_data and not serial"' in recipe


def test_every_test_that_reads_the_data_is_marked_for_its_own_pass() -> None:
    """The pass beside the data selects the marker: a test decorated with `needs_locomo_data`
    carries it, so it runs there and skips (with the reason) in the plain clone."""
    from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

    @needs_locomo_data
    def reads_the_data() -> None: ...

    marks = {m.name: m for m in reads_the_data.pytestmark}
    assert set(marks) == {"locomo_data", "skipif"}
    assert marks["skipif"].kwargs["reason"] == f"no {DATA_MARK} at {LOCOMO_DATA}"


FINDS_THE_DATA = re.compile(r"""["']shared["']\s*/\s*["']data["']|shared/data""")


def test_every_test_finds_the_data_through_one_definition() -> None:
    """A test that built the data folder's path itself could read it without the skip that
    `needs_locomo_data` gives on a clone without it: only tests/benchmark_scripts.py says where
    the data is."""
    own = Path(__file__).resolve()
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                   if p.resolve() != own and FINDS_THE_DATA.search(p.read_text()))
    assert found == ["tests/benchmark_scripts.py"], found
