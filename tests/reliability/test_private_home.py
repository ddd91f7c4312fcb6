"""The memory home is its owner's only: every folder the library makes under it is 0700 and
every file 0600 whatever the umask (the embedded graph server's own files and the vector
engines' included), a home left open to others is tightened at `cg.open()` with a warning
naming it, and another local user can neither list nor read anything in it."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.home import EDGE_DIR, inherit_private
from cogmem_graph.server.keys import KeyRing, default_keys_path

GROUP_OTHER = 0o077


def open_to_others(home: Path) -> list[str]:
    """Every file or folder under the home (the home included) with a group or other bit."""
    found = []
    for path in [home, *home.rglob("*")]:
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
        except FileNotFoundError:
            continue
        if mode & GROUP_OTHER and not path.is_symlink():
            found.append(f"{oct(mode)} {path.relative_to(home.parent)}")
    return found


def use(store: cg.MemoryStore, home: Path) -> list[str]:
    """What a store does in a home's life (encode, export, consolidate, forget and compact, a
    key for `cogmem serve`), and what was open to others meanwhile (while it runs)."""
    agent = store.agent("a", user_id="u")
    secret = agent.encode("the vault code is 1234, tell no one", tags=["vault"])
    other = agent.encode("the harbour of Lisbon was calm")
    agent.encode("the harbour of Lisbon was calm and sunny today")
    agent.forget(other.id)  # leaves compaction.due until the next consolidation
    store.export(io.StringIO())  # an audit line
    KeyRing(default_keys_path(home)).add(role="owner", name="test")
    running = open_to_others(home)
    store.consolidate()
    agent.forget(secret.id, compact=True)
    return running + open_to_others(home)


@pytest.mark.parametrize("embedded", ["edge", "local"])
@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask022", "umask000"])
def test_everything_under_a_used_home_is_the_owners_only(tmp_path: Path, clock: ManualClock, umask: int,
                                                         embedded: str) -> None:
    home = tmp_path / "home"
    config = cg.CogmemConfig()
    config.vectors.embedded = embedded
    old = os.umask(umask)
    try:
        with cg.open(home=home, embedder="hash", config=config, clock=clock) as store:
            assert (home / "graph" / "server.json").exists()
            while_open = use(store, home)
        after_close = open_to_others(home)
        with cg.open(home=home, embedder="hash", config=config, clock=clock) as store:  # a reopen adds none
            store.agent("a", user_id="u").encode("after a reopen")
            reopened = open_to_others(home)
    finally:
        os.umask(old)
    assert (home / "server-keys.json").exists() and (home / "audit.jsonl").exists()
    assert stat.S_IMODE((home / "server-keys.json").stat().st_mode) == 0o600
    assert after_close == [], after_close
    if not inherit_private(tmp_path):
        # No POSIX ACLs on this file system: what Qdrant Edge (in process, under the process
        # umask) creates while it runs is made private when it closes; until then the 0700
        # folders above it keep others out.
        while_open = [p for p in while_open if f"/{EDGE_DIR}/" not in p]
        reopened = [p for p in reopened if f"/{EDGE_DIR}/" not in p]
    assert while_open == [] and reopened == [], (while_open, reopened)


def test_a_home_left_open_is_tightened_at_open_with_a_warning(tmp_path: Path, clock: ManualClock,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        store.agent("a", user_id="u").encode("written by an older version")
        store.agent("a", user_id="u").forget(store.agent("a", user_id="u").encode("forgotten").id)
    for path in [home, *home.rglob("*")]:  # as a home made by an older version, or copied with cp -r
        path.chmod(0o777 if path.is_dir() else 0o666)
    (home / "notes.txt").write_text("a file of the user's own")
    (home / "notes.txt").chmod(0o644)
    foreign = home / "their-folder"
    foreign.mkdir()
    (foreign / "inside.txt").write_text("not the library's")
    foreign.chmod(0o755)
    (foreign / "inside.txt").chmod(0o644)
    assert open_to_others(home)

    caplog.set_level(logging.WARNING)
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        assert store.agent("a", user_id="u").retrieve("older version").traces
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and str(home) in r.getMessage()]
    assert warnings, caplog.text
    assert "open to other local users" in warnings[0]
    # the library's folders are walked; a folder it does not know is made private, not walked
    # (the home's 0700 shields what is inside it)
    assert open_to_others(home) == [f"0o644 {(foreign / 'inside.txt').relative_to(tmp_path)}"]
    caplog.clear()
    with cg.open(home=home, embedder="hash", clock=clock):
        pass
    assert not [r for r in caplog.records if str(home) in r.getMessage()], "nothing left to tighten, nothing said"


# ---------------------------------------------------------------- as another local user


def other_user_command() -> list[str]:
    """The prefix that runs a command as `nobody`, or a skip saying why it cannot be run."""
    if os.geteuid() != 0:
        pytest.skip("running a process as another user (nobody) needs root")
    import grp
    import pwd

    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("there is no 'nobody' user on this machine")
    if shutil.which("setpriv"):
        try:
            group = grp.getgrnam("nogroup").gr_name
        except KeyError:
            group = "nobody"
        return ["setpriv", "--reuid=nobody", f"--regid={group}", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    pytest.skip("neither setpriv nor runuser is installed: cannot run a process as another user")


def python_for_other_user(prefix: list[str]) -> str:
    for candidate in (sys.executable, shutil.which("python3") or ""):
        if candidate and subprocess.run([*prefix, candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    pytest.skip("no Python interpreter the user nobody may run")


TRY_EVERYTHING = """
import json, os, sys
paths = json.loads(sys.argv[1])
listed, read = [], []
for path in paths:
    try:
        if os.path.isdir(path):
            os.listdir(path)
            listed.append(path)
        else:
            with open(path, "rb") as f:
                f.read(1)
            read.append(path)
    except OSError:
        pass
print(json.dumps({"listed": listed, "read": read}))
"""


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder every local user may traverse (pytest's own temp folders are 0700), so that
    only the modes the library sets stand between another user and the home."""
    folder = Path(tempfile.mkdtemp(prefix="cogmem-home-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_another_local_user_can_neither_list_nor_read_anything_in_the_home(public_dir: Path,
                                                                          clock: ManualClock) -> None:
    prefix = other_user_command()
    python = python_for_other_user(prefix)
    home = public_dir / "home"

    def as_other_user() -> dict:
        paths = [str(p) for p in [home, *home.rglob("*")]]
        run = subprocess.run([*prefix, python, "-c", TRY_EVERYTHING, json.dumps(paths)], capture_output=True,
                             text=True, timeout=60, cwd="/")
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    old = os.umask(0o022)
    try:
        with cg.open(home=home, embedder="hash", clock=clock) as store:
            assert use(store, home) == []
            while_open = as_other_user()
        after_close = as_other_user()
    finally:
        os.umask(old)
    assert while_open == {"listed": [], "read": []}, while_open
    assert after_close == {"listed": [], "read": []}, after_close


def test_a_key_made_before_any_store_opened_makes_a_private_home(tmp_path: Path) -> None:
    from cogmem_graph.server.keys import KeyRing

    home = tmp_path / "fresh-home"
    previous = os.umask(0o022)
    try:
        KeyRing(home / "server-keys.json").add(agent_id="helper", user_id="u1")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "server-keys.json").stat().st_mode) == 0o600
