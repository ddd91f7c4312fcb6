"""Owner commands of the CLI act on the whole store, every tenant included: `stats`,
`export`, `import` and `repair` refuse an identity (--user, --thread, --persona, --org, or
their COGMEM_* variables) with exit code 2 and a message saying they are owner commands,
before they open the store or touch a file; they work without one. `consolidate` with an
identity runs over that identity's visible scopes only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cogmem_graph as cg

from .conftest import REPO, owner_traces

OWNER_COMMANDS = {
    "stats": ["stats", "--json"],
    "export": ["export", "{tmp}/backup.jsonl"],
    "import": ["import", "{tmp}/backup.jsonl"],
    "repair": ["repair"],
}


def cogmem(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    base = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    return subprocess.run([sys.executable, "-m", "cogmem_graph.cli", "--home", str(home), "--embedder", "hash", *args],
                          capture_output=True, text=True, timeout=300, check=False, cwd=REPO,
                          env={**base, "PYTHONPATH": path, "COLUMNS": "200", **(env or {})})


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("owner") / "home"
    with cg.open(home=path, embedder="hash") as store:
        store.agent("bot", user_id="maya", organization_id="acme").encode("Maya deploys with Docker Compose")
        store.agent("bot", user_id="omar", organization_id="globex").encode("Omar deploys with Nomad")
    return path


@pytest.mark.parametrize("command", sorted(OWNER_COMMANDS))
@pytest.mark.parametrize("identity", [["--user", "maya"], ["--org", "acme"], ["--thread", "t1", "--persona", "p"]])
def test_owner_commands_refuse_an_identity(home: Path, tmp_path: Path, command: str, identity: list[str]) -> None:
    args = [a.format(tmp=tmp_path) for a in OWNER_COMMANDS[command]]
    if command == "import":
        Path(args[1]).write_text("")  # never read: the identity is refused first
    run = cogmem(home, *identity, *args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"`cogmem {command}` is an owner command" in run.stderr
    assert identity[0] in run.stderr and "Traceback" not in run.stderr
    if command == "export":
        assert not (tmp_path / "backup.jsonl").exists()


def test_an_identity_from_the_environment_is_refused_too(home: Path) -> None:
    run = cogmem(home, "stats", env={"COGMEM_USER": "maya"})
    assert run.returncode == 2 and "owner command" in run.stderr and "--user" in run.stderr


def test_owner_commands_work_without_an_identity(home: Path, tmp_path: Path) -> None:
    stats = cogmem(home, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["total_traces"] == 2
    backup = tmp_path / "backup.jsonl"
    assert cogmem(home, "export", str(backup)).returncode == 0
    assert sum(json.loads(line)["record"] == "trace" for line in backup.read_text().splitlines()) == 2
    assert cogmem(home, "repair").returncode == 0
    assert cogmem(tmp_path / "copy", "import", str(backup)).returncode == 0


def test_consolidate_with_an_identity_runs_over_its_scopes_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash") as store:
        for user in ("maya", "omar"):
            agent = store.agent("cogmem", user_id=user)
            agent.encode_many([{"content": f"{user} note {i} about the release plan"} for i in range(3)])
    run = cogmem(home, "--user", "maya", "consolidate", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["total_processed"] == 3
    with cg.open(home=home, embedder="hash") as store:
        done = {t.content.split()[0] for t in owner_traces(store).values() if t.consolidated_at}
    assert done <= {"maya"}
