"""The release as it would be uploaded: `python -m build` makes the sdist and the wheel from a
copy of this checkout's build inputs, `twine check` accepts both (metadata, the README as
the index renders it), and both carry this release's version, the same as `__version__`.
Offline: no build isolation, so the build uses this environment's setuptools (which needs
no `wheel` package since 70, hence no check of the declared build requirements)."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from wheel_venv import copy_build_inputs

import cogmem_graph

pytestmark = pytest.mark.slow


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(tmp_path: Path) -> None:
    source = copy_build_inputs(tmp_path / "source")
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check",
                            "--outdir", str(dist), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    version = cogmem_graph.__version__
    (sdist,) = dist.glob("cogmem_graph-*.tar.gz")
    (wheel,) = dist.glob("cogmem_graph-*.whl")
    assert sdist.name == f"cogmem_graph-{version}.tar.gz"
    assert wheel.name.startswith(f"cogmem_graph-{version}-")

    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout

    with zipfile.ZipFile(wheel) as whl:
        assert "cogmem_graph/api/upgrade.py" in whl.namelist()
        assert "cogmem_graph/_cypher/store_version_set.cypher" in whl.namelist()
    with tarfile.open(sdist) as tar:
        assert f"cogmem_graph-{version}/cypher/store_version_get.cypher" in tar.getnames()
