"""Every `cogmem` command with `--server`: it goes through the server or refuses the flag.

Each command runs as a user runs it (one subprocess) with `--server` naming a closed
loopback port and an API key, with COGMEM_HOME an empty folder and an empty working
directory. A command that goes through the server fails for the server being unreachable
(exit 1, the URL in the message); one that cannot refuses (exit 2, naming --server and
what to do instead). Neither may create anything in the home or the working directory:
no command quietly falls back to a local store. The commands come from the CLI app itself,
so a new command without a case here fails the test.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
import typer

from cogmem_graph.cli import app as cli_app
from cogmem_graph.cli.invocation import LOCAL_ONLY

from .watched_run import run_python

REPO = Path(__file__).resolve().parents[2]
KEY = "cgm_00000000_not-a-real-key"

# command path -> the arguments after it, one list per way of running it, and whether that
# way goes through the server ("server") or refuses --server ("refuse").
CASES: dict[str, list[tuple[list[str], str]]] = {
    "demo": [([], "refuse")],
    "ingest": [(["{input}"], "server")],
    "recall": [(["deploy"], "server"), (["deploy", "--json"], "server")],
    "pin": [(["t1"], "server")],
    "unpin": [(["t1"], "server")],
    "context": [(["deploy", "--budget", "100"], "server")],
    "stats": [([], "server"), (["--json"], "server")],
    "repair": [([], "server")],
    "consolidate": [([], "server")],
    "export": [(["{out}/backup.jsonl"], "server"), (["-"], "server"), (["{out}/u.jsonl", "--user", "u1"], "server")],
    "list": [([], "server"), (["--tag", "billing", "--json"], "server")],
    "get": [(["t1"], "server")],
    "update": [(["t1", "--content", "new text"], "server")],
    "forget": [(["t1"], "server"), (["--where", '{{"tags_any": ["old"]}}'], "server")],
    "history": [(["t1"], "server")],
    "memory-stats": [([], "server")],
    "consolidation-report": [(["--runs", "5"], "server")],
    "erase": [(["--user", "u1"], "server")],
    "users": [([], "server"), (["--org", "acme", "--json"], "server")],
    "import": [(["{backup}"], "refuse")],
    "migrate": [([], "refuse")],
    "serve": [([], "refuse"), (["--stdio"], "server")],
    "keys add": [(["--agent", "a1"], "refuse")],
    "keys list": [([], "refuse")],
    "keys revoke": [(["abcd1234"], "refuse")],
    "viz": [(["--query", "deploy", "--out", "{out}/graph.html"], "refuse")],
}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the socket is: nothing listens there


def cli_commands() -> set[str]:
    root = typer.main.get_command(cli_app)
    names = set()
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", None)
        names |= {f"{name} {sub}" for sub in subcommands} if subcommands else {name}
    return names


def test_every_command_has_a_case() -> None:
    assert set(CASES) == cli_commands(), "a CLI command has no --server case here (or a case no command)"
    refusing = {command.split()[0] for command, ways in CASES.items() for _, expected in ways if expected == "refuse"}
    assert refusing == set(LOCAL_ONLY), "the commands refusing --server are the ones LOCAL_ONLY lists"


def _cases() -> list:
    return [pytest.param(command, args, expected, id=f"{command} {' '.join(args)}".strip())
            for command, ways in CASES.items() for args, expected in ways]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    chat = folder / "chat.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "We deploy with Docker Compose."}) + "\n")
    backup = folder / "backup.jsonl"
    backup.write_text(json.dumps({"record": "header", "format": "cogmem-graph"}) + "\n")
    return {"input": chat, "backup": backup}


@pytest.mark.parametrize(("command", "args", "expected"), _cases())
def test_a_command_with_server_goes_through_it_or_refuses_it(tmp_path: Path, inputs: dict[str, Path],
                                                             command: str, args: list[str], expected: str) -> None:
    home, cwd, out = tmp_path / "home", tmp_path / "cwd", tmp_path / "out"
    for folder in (home, cwd, out):
        folder.mkdir()
    url = f"http://127.0.0.1:{closed_port()}"
    values = {"input": str(inputs["input"]), "backup": str(inputs["backup"]), "out": str(out)}
    argv = ["-m", "cogmem_graph.cli", "--server", url, "--key", KEY, *command.split(),
            *(a.format(**values) for a in args)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    env.update({"COGMEM_HOME": str(home), "COLUMNS": "200",
                "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)})
    done = run_python(argv, timeout=120, env=env, cwd=cwd)
    where = f"`cogmem {command} {' '.join(args)}`: exit {done.returncode}\nstderr:\n{done.stderr}"
    assert "Traceback" not in done.stderr, where
    if expected == "server":
        assert done.returncode == 1, where
        assert url in done.stderr and "unreachable" in done.stderr, where
    else:
        assert done.returncode == 2, where
        assert "--server" in done.stderr and "does not go through" in done.stderr, where
        assert "--home" in done.stderr or command in ("demo", "serve"), "it says what to do instead"
    assert done.stdout.strip() == "", f"nothing printed as a result: {done.stdout!r}"
    for folder in (home, cwd, out):
        assert list(folder.iterdir()) == [], f"{where}\nit created {list(folder.iterdir())} in {folder}"


def test_a_server_without_a_key_says_which_option_gives_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    env.update({"COGMEM_HOME": str(tmp_path), "PYTHONPATH": str(REPO)})
    done = run_python(["-m", "cogmem_graph.cli", "--server", f"http://127.0.0.1:{closed_port()}", "recall", "x"],
                      timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 2 and "--key" in done.stderr and "COGMEM_API_KEY" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []
