"""tools/neo4j/server.py, the Neo4j with GDS that `make test` starts from Maven Central's jars.

- The run's server (COGMEM_TEST_NEO4J_DIR, set by `server.py run`): its env file is private,
  and its password is in no argv, environment, configuration or log of the JVM.
- Without Java, `run` warns once and runs the command alone; under CI it fails instead.
- A SIGKILLed server starts again on the same ports, with its data and password (what the
  graph-restart tests rely on).
"""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import cogmem_graph as cg

ROOT = Path(__file__).resolve().parents[2]
SERVER_PY = ROOT / "tools" / "neo4j" / "server.py"


def _load_tool():
    spec = importlib.util.spec_from_file_location("neo4j_server_tool", SERVER_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


@pytest.fixture
def run_server_dir(request: pytest.FixtureRequest) -> Path:
    """The run's server, held through the `neo4j_uri` lock: a test of
    tests/reliability/test_neo4j_faults.py kills and restarts it while it holds that lock."""
    directory = os.environ.get("COGMEM_TEST_NEO4J_DIR")
    if not directory:
        pytest.skip("no Neo4j from tools/neo4j/server.py in this run (COGMEM_TEST_NEO4J_DIR unset): "
                    "`make test` starts one")
    request.getfixturevalue("neo4j_uri")
    return Path(directory)


def test_the_env_file_is_private_and_names_the_run_server(run_server_dir: Path) -> None:
    assert stat.S_IMODE(run_server_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((run_server_dir / "env").stat().st_mode) == 0o600
    env = tool.read_env(run_server_dir)
    assert env["COGMEM_TEST_NEO4J_URI"] == os.environ["COGMEM_TEST_NEO4J_URI"]
    assert env["COGMEM_TEST_NEO4J_URI"].startswith("bolt://127.0.0.1:")
    assert env["COGMEM_TEST_NEO4J_HTTP"].startswith("http://127.0.0.1:")
    assert env["NEO4J_PASSWORD"] == os.environ["NEO4J_PASSWORD"] and len(env["NEO4J_PASSWORD"]) >= 24
    assert tool.read_server(run_server_dir).uri == env["COGMEM_TEST_NEO4J_URI"]


def test_the_password_is_in_no_argv_environment_configuration_or_log(run_server_dir: Path) -> None:
    password = tool.read_env(run_server_dir)["NEO4J_PASSWORD"].encode()
    pid = tool.running_pid(run_server_dir)
    assert pid is not None, f"no Neo4j running from {run_server_dir}"
    proc = Path(f"/proc/{pid}")
    if not proc.exists():
        pytest.skip("no /proc here to read the JVM's argv and environment from")
    assert password not in (proc / "cmdline").read_bytes()
    assert password not in (proc / "environ").read_bytes()
    files = [p for sub in ("conf", "logs", "run") for p in (run_server_dir / sub).rglob("*") if p.is_file()]
    assert any(p.name == "neo4j.log" for p in files)
    assert [p for p in files if password in p.read_bytes()] == []
    conf = (run_server_dir / "conf" / "neo4j.conf").read_text()
    assert "listen_address=127.0.0.1:" in conf and "0.0.0.0" not in conf


def _without_java(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "bin").mkdir(exist_ok=True)
    return {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path), **extra}


def test_without_java_run_warns_once_and_runs_the_command_alone(tmp_path: Path) -> None:
    probe = "import os, sys; sys.exit(7 if 'COGMEM_TEST_NEO4J_URI' not in os.environ else 0)"
    result = subprocess.run([sys.executable, str(SERVER_PY), "run", "--dir", str(tmp_path / "n"), "--",
                             sys.executable, "-c", probe],
                            env=_without_java(tmp_path), capture_output=True, text=True, timeout=60)
    assert result.returncode == 7, result.stderr  # the command's own code, run without Neo4j
    assert result.stderr.count("warning") == 1 and "java" in result.stderr
    assert not (tmp_path / "n").exists()


def test_without_java_under_ci_run_fails_before_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    result = subprocess.run([sys.executable, str(SERVER_PY), "run", "--dir", str(tmp_path / "n"), "--",
                             sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                            env=_without_java(tmp_path, CI="true"), capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "CI is set" in result.stderr and "java" in result.stderr
    assert not marker.exists()


@pytest.mark.slow
@pytest.mark.serial
@pytest.mark.timeout(400)
def test_a_killed_server_starts_again_with_its_ports_data_and_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reason = tool.missing_tools()
    if reason:
        pytest.skip(f"no Neo4j on this machine: {reason}")
    directory, home = tmp_path / "neo4j", tmp_path / "home"
    content = "The restart probe outlives a SIGKILL of the graph server"
    try:
        server = tool.up(directory)
        monkeypatch.setenv("NEO4J_PASSWORD", tool.read_env(directory)["NEO4J_PASSWORD"])
        with cg.open(home=home, graph=server.uri, embedder="hash") as store:
            trace = store.agent("a", user_id="u").encode(content)
        assert tool.kill(directory) == server.pid
        assert tool.running_pid(directory) is None
        again = tool.start(directory)
        assert (again.bolt_port, again.http_port) == (server.bolt_port, server.http_port)
        assert again.pid not in (None, server.pid)
        with cg.open(home=home, graph=again.uri, embedder="hash") as store:
            assert store.agent("a", user_id="u").get(trace.id).trace.content == content
    finally:
        tool.stop(directory)
    assert tool.running_pid(directory) is None
    assert tool.stop(directory) is False  # stopping twice is fine
