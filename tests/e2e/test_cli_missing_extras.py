"""A pip user without an optional extra who runs a command that needs it gets one line naming
the extra to install, exit code 1 and no traceback. The CLI runs in a real process in which the
extra's modules cannot be imported, as in an environment where they were never installed."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from cogmem_graph.extras import EXTRA_OF_MODULE

from .server_harness import REPO, child_env, free_port

pytestmark = pytest.mark.timeout(120)

WITHOUT = textwrap.dedent(
    """
    import sys
    blocked = set(sys.argv[1].split(","))

    class NotInstalled:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    sys.argv = ["cogmem", *sys.argv[2:]]
    from cogmem_graph.cli import main
    main()
    """
)


def cogmem_without(extra: str, *args: str) -> subprocess.CompletedProcess:
    """`cogmem ARGS` where no module of `extra` can be imported."""
    modules = ",".join(module for module, of in EXTRA_OF_MODULE.items() if of == extra)
    return subprocess.run([sys.executable, "-c", WITHOUT, modules, *args], env=child_env(), cwd=REPO,
                          capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)


def assert_one_line_naming(done: subprocess.CompletedProcess, extra: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert f"pip install 'cogmem-graph[{extra}]'" in lines[0], done.stderr


@pytest.mark.parametrize("stdio", [False, True], ids=["http", "stdio"])
def test_serve_without_the_server_extra_names_it(tmp_path: Path, stdio: bool) -> None:
    args = ("--stdio",) if stdio else ("--port", str(free_port()))
    done = cogmem_without("server", "--home", str(tmp_path / "home"), "serve", *args)
    assert_one_line_naming(done, "server")
    assert not (tmp_path / "home" / "graph" / "server.json").exists(), "no store was left open"


def test_the_local_embedder_without_its_extra_names_it(tmp_path: Path) -> None:
    done = cogmem_without("local", "--home", str(tmp_path / "home"), "--embedder", "local", "stats")
    assert_one_line_naming(done, "local")


def test_each_module_is_installed_by_the_extra_it_names() -> None:
    """The table agrees with pyproject.toml: each module's distribution is one of its extra's
    requirements (checked for the modules installed here)."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    distributions = packages_distributions()
    checked = 0
    for module, extra in EXTRA_OF_MODULE.items():
        names = {name.lower().replace("_", "-") for name in distributions.get(module, [])}
        if not names:
            continue
        required = {re.match(r"[A-Za-z0-9._-]+", req).group(0).lower() for req in extras[extra]}
        assert names & required, f"{module} ({names}) is not a requirement of the '{extra}' extra: {required}"
        checked += 1
    assert checked >= 4, "too few of the extras' modules are installed here to check the table"
