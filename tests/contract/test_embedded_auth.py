"""The embedded FalkorDB is not open to other local users: it requires a password made at
each start, which is on no command line, in no log and in no file another user can read;
the owner's other processes attach with what the 0600 `server.json` says."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.graph.falkordb.launcher import LOG_FILE, SERVER_FILE, running_server
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.model import MemoryTrace

KEYS = ["user:u1"]


def trace(content: str) -> MemoryTrace:
    return MemoryTrace(content=content, scope_id="u1", agent_id="a", created_at=1)


def resp(*words: str) -> bytes:
    """A command in the Redis protocol, as any plain client sends it."""
    out = [f"*{len(words)}\r\n".encode()]
    for word in words:
        data = word.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def raw_replies(port: int, *commands: tuple[str, ...]) -> list[bytes]:
    """The first reply line of each command, sent on one plain TCP connection without AUTH."""
    replies = []
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        reader = sock.makefile("rb")
        for command in commands:
            sock.sendall(resp(*command))
            replies.append(reader.readline().rstrip(b"\r\n"))
    return replies


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder every local user may traverse (pytest's own temp folders are 0700), so
    that only the modes the library sets stand between another user and the home."""
    folder = Path(tempfile.mkdtemp(prefix="cogmem-auth-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _probe(name: str) -> str:
    """A statement of tests/cypher/ as an intruder would send it."""
    return CypherLibrary("falkordb", root=Path(__file__).resolve().parents[1] / "cypher").get(name)


def test_a_plain_client_without_the_password_gets_noauth(tmp_path):
    store = FalkorGraphStore(data_dir=tmp_path / "graph")
    try:
        store.setup_schema()
        kept = trace("only for the owner")
        store.upsert_traces([kept])
        port = store.embedded_server.port
        replies = raw_replies(port, ("PING",), ("GRAPH.LIST",), ("KEYS", "*"),
                              ("GRAPH.RO_QUERY", store.config.graph_name, _probe("probe_read_every_content")),
                              ("GRAPH.QUERY", store.config.graph_name, _probe("probe_delete_everything")))
        assert all(r.startswith(b"-NOAUTH") for r in replies), replies
        assert raw_replies(port, ("AUTH", "not-the-password"))[0].startswith(b"-WRONGPASS"), "a wrong one"
        plain = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=2)
        with pytest.raises(redis.AuthenticationError):
            plain.execute_command("GRAPH.LIST")
        plain.close()
        assert store.get_traces([kept.id], KEYS) == [kept]  # the refused delete deleted nothing
    finally:
        store.close()


def test_the_password_is_on_no_command_line_in_no_log_and_new_at_each_start(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    home = tmp_path / "graph"
    passwords = []
    for _ in range(2):
        store = FalkorGraphStore(data_dir=home)
        try:
            server = store.embedded_server
            password = server.password
            passwords.append(password)
            assert len(password) >= 32
            pid = server.process.pid
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            assert password.encode() not in cmdline
            assert password.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
            listing = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout \
                if shutil.which("ps") else ""
            assert password not in listing
            store.setup_schema()
            store.upsert_traces([trace("written")])
            assert server.compact()  # a log rewrite writes to the server's log too
            assert password in json.loads((home / SERVER_FILE).read_text())["password"]
            # no file of the data directory but the private server file holds it
            holding = [p.name for p in home.rglob("*") if p.is_file() and p.name != SERVER_FILE
                       and password.encode() in p.read_bytes()]
            assert holding == []
        finally:
            store.close()
        assert password.encode() not in (home / LOG_FILE).read_bytes()
        assert password not in caplog.text
        assert password not in repr(server)
    assert passwords[0] != passwords[1]


def test_the_server_file_and_data_directory_are_the_owners_only(tmp_path):
    old = os.umask(0o000)
    try:
        store = FalkorGraphStore(data_dir=tmp_path / "graph")
    finally:
        os.umask(old)
    try:
        data_dir = store.embedded_server.data_dir
        assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
        assert stat.S_IMODE((data_dir / SERVER_FILE).stat().st_mode) == 0o600
        store.upsert_traces([trace("on disk")])
        loose = [(str(p), oct(stat.S_IMODE(p.stat().st_mode))) for p in data_dir.rglob("*")
                 if stat.S_IMODE(p.stat().st_mode) & 0o077]
        assert loose == []  # the server's own files (log, append-only files) too, under umask 000
    finally:
        store.close()


def test_another_process_of_the_owner_attaches_with_the_server_file(tmp_path):
    home = tmp_path / "graph"
    store = FalkorGraphStore(data_dir=home)
    try:
        store.setup_schema()
        t = trace("read by a second process")
        store.upsert_traces([t])
        child = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
            from cogmem_graph.config.graph import GraphConfig
            from cogmem_graph.graph.falkordb.store import FalkorGraphStore
            from cogmem_graph.graph.launcher import running_server  # the path docs/reliability.md gives
            info = running_server({str(home)!r})
            other = FalkorGraphStore(url=info.url, config=GraphConfig(falkor_password=info.password))
            print(other.get_traces([{t.id!r}], {KEYS!r})[0].content)
            other.close()
        """)], capture_output=True, text=True, timeout=120)
        assert child.stdout.strip() == t.content, child.stderr
        info = running_server(home)
        assert info is not None and info.pid == store.embedded_server.process.pid
        assert info.password not in repr(info)
    finally:
        store.close()
    assert running_server(home) is None  # nothing to attach to once it stopped


# ---------------------------------------------------------------- as another local user


def other_user_command() -> list[str]:
    """The prefix that runs a command as `nobody`, or a skip saying why it cannot be run."""
    if os.geteuid() != 0:
        pytest.skip("running a process as another user (nobody) needs root")
    try:
        import pwd

        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("there is no 'nobody' user on this machine")
    if shutil.which("setpriv"):
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] \
            if _has_group("nogroup") else ["setpriv", "--reuid=nobody", "--regid=nobody", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    pytest.skip("neither setpriv nor runuser is installed: cannot run a process as another user")


def _has_group(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def python_for_other_user(prefix: list[str]) -> str:
    for candidate in (sys.executable, shutil.which("python3") or ""):
        if candidate and subprocess.run([*prefix, candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    pytest.skip("no Python interpreter the user nobody may run")


AS_OTHER_USER = """
import json, socket, sys
port, home = int(sys.argv[1]), sys.argv[2]
files = json.loads(sys.argv[3])
out = {}
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    r = s.makefile("rb")
    for name, cmd in (("ping", b"*1\\r\\n$4\\r\\nPING\\r\\n"), ("graph_list", b"*1\\r\\n$10\\r\\nGRAPH.LIST\\r\\n")):
        s.sendall(cmd)
        out[name] = r.readline().decode(errors="replace").strip()
readable = []
for path in files:
    try:
        with open(path, "rb") as f:
            f.read(1)
        readable.append(path)
    except OSError:
        pass
out["readable"] = readable
import os
listable = []
for folder in (home + "/graph", home + "/graph/appendonlydir"):
    try:
        os.listdir(folder)
        listable.append(folder)
    except OSError:
        pass
out["listable"] = listable
print(json.dumps(out))
"""


def test_another_local_user_can_neither_use_the_server_nor_read_its_files(public_dir):
    prefix = other_user_command()
    python = python_for_other_user(prefix)
    home = public_dir / "home"
    old = os.umask(0o022)  # the usual umask: before, the data files came out 0644
    try:
        store = FalkorGraphStore(data_dir=home / "graph")
    finally:
        os.umask(old)
    try:
        store.setup_schema()
        store.upsert_traces([trace("the vault code is 1234")])
        files = [str(p) for p in home.rglob("*") if p.is_file()]
        assert any(f.endswith(SERVER_FILE) for f in files) and any(".aof" in f for f in files)
        child = subprocess.run([*prefix, python, "-c", AS_OTHER_USER, str(store.embedded_server.port), str(home),
                                json.dumps(files)], capture_output=True, text=True, timeout=60, cwd="/")
        assert child.returncode == 0, child.stderr
        seen = json.loads(child.stdout)
        assert seen["ping"].startswith("-NOAUTH") and seen["graph_list"].startswith("-NOAUTH"), seen
        assert seen["readable"] == [], seen
        assert seen["listable"] == [], seen
    finally:
        store.close()
