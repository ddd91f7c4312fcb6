"""The package as a user gets it: a wheel built from this checkout, installed in a fresh
virtual environment with no checkout on the path, opens a store and answers `--help`.

The new environment sees, of this one's third-party packages, exactly those the package's
own requirements (no extra) reach (tests/wheel_venv.py), so the test installs only the wheel
itself, stays offline and quick, and fails where the core needs a package only an extra brings.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
import zipfile
from pathlib import Path

import pytest
from wheel_venv import build_wheel, make_venv

ROOT = Path(__file__).resolve().parents[2]
FIRST_EXAMPLE = textwrap.dedent("""
    import cogmem_graph as cg

    with cg.open(embedder="hash") as store:
        agent = store.agent("helper", traits=cg.Hexaco(openness=0.7, conscientiousness=0.8),
                            user_id="u1", thread_id="t1", organization_id="acme")
        agent.encode("I prefer deploying with Docker Compose", type="semantic", scope="user")
        result = agent.retrieve("How should I deploy?", top_k=5)
        for hit in result.traces:
            print(f"{hit.score:.2f}  {hit.trace.content}")
""")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("build"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment holding the wheel and its requirements; returns its bin folder."""
    return make_venv(wheel, tmp_path_factory.mktemp("env"))


def _run(bin_dir: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COGMEM_", "PYTHON"))}
    env["COGMEM_HOME"] = str(cwd / "home")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_wheel_carries_every_statement_and_the_browser_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    in_checkout = {p.relative_to(ROOT / "cypher").as_posix() for p in (ROOT / "cypher").rglob("*")
                   if p.is_file() and p.suffix in {".cypher", ".html", ".grass"}}
    missing = sorted(n for n in in_checkout if f"cogmem_graph/_cypher/{n}" not in names)
    assert not missing, f"the wheel lacks {missing[:5]} (and {max(0, len(missing) - 5)} more)"
    static = ROOT / "cogmem_graph" / "server" / "dashboard" / "static"
    shipped = sorted(p.relative_to(ROOT).as_posix() for p in static.iterdir() if p.is_file())
    assert shipped and all(name in names for name in shipped), f"the wheel lacks the dashboard's {shipped}"


def test_the_installed_package_runs_the_first_example(installed: Path, tmp_path: Path) -> None:
    where = _run(installed, [str(installed / "python"), "-c",
                             "import cogmem_graph, cogmem_graph.graph.cypher as c; "
                             "print(cogmem_graph.__file__); print(c.cypher_root())"], tmp_path)
    assert where.returncode == 0, where.stderr
    package_file, cypher_dir = where.stdout.split()
    assert str(installed.parent) in package_file, f"imported the checkout, not the wheel: {package_file}"
    assert cypher_dir.startswith(str(installed.parent)) and Path(cypher_dir, "browser", "guide.html").is_file()

    run = _run(installed, [str(installed / "python"), "-c", FIRST_EXAMPLE], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Docker Compose" in run.stdout


def test_the_installed_command_answers_help(installed: Path, tmp_path: Path) -> None:
    run = _run(installed, [str(installed / "cogmem"), "--help"], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Usage" in run.stdout and "serve" in run.stdout
