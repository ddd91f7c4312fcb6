"""The suite on a user's clone: no development data folder beside it.

A checkout here has the LoCoMo development data at `../shared/data/locomo`; a user's clone
does not. Every test must collect there, and each test that reads the data must skip with a
reason instead of failing. The tracked files are copied to a temporary folder (nothing
beside it) and pytest runs there: the whole suite collected, and every test file that names
the data set, its folder or the helper that loads it run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA_MARK = "LoCoMo development data"
"""What a test that reads the data says when it skips."""
NAMES_THE_DATA = re.compile(r"locomo|shared/data|benchmark_scripts|" + DATA_MARK, re.IGNORECASE)
"""How a test file that may read the data is found: it names the data set, its folder, or the
helper that loads the benchmarks' data sets."""

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    out = tmp_path_factory.mktemp("plain") / "cogmem-graph"
    for name in filter(None, tracked.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, out / name)
    assert not (out.parent / "shared").exists()
    return out


def _pytest(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COGMEM_"))}
    env["PYTHONPATH"] = str(clone)  # the clone's package, not the checkout's
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=900)


def test_the_whole_suite_collects_on_a_plain_clone(clone: Path) -> None:
    run = _pytest(clone, "--collect-only", "-q", "tests")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


def test_the_tests_that_read_the_development_data_skip_with_a_reason(clone: Path) -> None:
    files = sorted(str(p.relative_to(clone)) for p in (clone / "tests").rglob("test_*.py")
                   if NAMES_THE_DATA.search(p.read_text()) and p.name != Path(__file__).name)
    assert files, f"no test names the {DATA_MARK}: this check has nothing to run"
    run = _pytest(clone, "-q", "-rs", "-m", "not neo4j", *files)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-3000:]
    assert f"no {DATA_MARK} at" in run.stdout


FINDS_THE_DATA = re.compile(r"""["']shared["']\s*/\s*["']data["']|shared/data""")


def test_every_test_finds_the_data_through_one_definition() -> None:
    """A test that built the data folder's path itself could read it without the skip that
    `needs_locomo_data` gives on a clone without it: only tests/benchmark_scripts.py says where
    the data is."""
    own = Path(__file__).resolve()
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                   if p.resolve() != own and FINDS_THE_DATA.search(p.read_text()))
    assert found == ["tests/benchmark_scripts.py"], found
