"""One process at a time opens a memory home.

The embedded parts of a memory (the FalkorDB server the library starts, the Qdrant Edge
or local-mode vector index) live in files under the home that one process may use at a
time. The first process to open the home holds an exclusive lock on a file in it (the
kernel drops the lock when that process ends, however it ends) and writes its pid there;
any other process that opens the home is refused with `HomeLocked`, naming the holder and
the ways to share one memory between processes: `cogmem serve` first, then servers for
both the graph and the vectors. Stores opened in the holding process share the lock.

`cg.open()` holds `<home>/home.lock` whenever the graph or the vectors are embedded in the
home; the embedded graph server also locks its own data directory (`graph/server.lock`),
for those who start it without `cg.open()`. Both refuse with the same message.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

from cogmem_graph.errors import HomeLocked

HOME_LOCK_FILE = "home.lock"
"""The lock `cg.open()` holds in the home while it uses the embedded graph or vectors."""


def in_use_message(home: Path, holder: int | None) -> str:
    """Why the home cannot be opened, and what to do, sharing through `cogmem serve` first."""
    who = f"process {holder}{_command_of(holder)}" if holder else "another process"
    that = f"process {holder}" if holder else "that process"
    return (
        f"the memory home {home} is in use by {who}: one process at a time opens a memory home. "
        f"To use one memory from many processes, share it through `cogmem serve`: if {that} is "
        "`cogmem serve`, connect to it (`cogmem --server URL --key KEY ...` on the command line, "
        "`cg.connect(URL, KEY)` in Python, URL being where it listens); if not, close it, run "
        f"`cogmem --home {shlex.quote(str(home))} serve` and connect every process to that server. "
        "Or open the memory on servers from every process: the graph on FalkorDB or Neo4j (graph=URL, --graph) and the "
        f"vectors on one Qdrant server (vectors=URL, --vectors). Or wait until {that} has closed it."
    )


def _command_of(pid: int) -> str:
    """' (name)' of a running process (Linux: its command name, which carries no arguments,
    so no secret of its command line), or '' when it cannot be read."""
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
    return f" ({name})" if name else ""


def holder_of(path: Path) -> int | None:
    """The pid the holder of a lock file wrote in it; None when unknown (not yet written)."""
    try:
        text = Path(path).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def lock_exclusive(path: Path, home: Path) -> int:
    """Lock `path` for this process (created 0600) and write this process's pid in it; the
    descriptor to pass to `unlock`. Held elsewhere: `HomeLocked` naming the holder."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise HomeLocked(in_use_message(home, holder_of(path))) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    with contextlib.suppress(OSError):
        os.close(fd)


@dataclass
class _Held:
    fd: int
    stores: int


_held: dict[Path, _Held] = {}
_held_lock = threading.Lock()


class HomeHold:
    """One store's share of this process's lock on a home; `release()` once it closes
    (the last share releases the lock)."""

    def __init__(self, key: Path) -> None:
        self._key: Path | None = key

    def release(self) -> None:
        with _held_lock:
            key, self._key = self._key, None
            held = _held.get(key) if key is not None else None
            if key is None or held is None:
                return
            held.stores -= 1
            if held.stores <= 0:
                del _held[key]
                unlock(held.fd)


def hold_home(home: Path) -> HomeHold:
    """This process's lock on the home (taken on the first store, shared by the others);
    `HomeLocked` when another process holds it. The home must exist."""
    key = Path(home).resolve()
    with _held_lock:
        held = _held.get(key)
        if held is None:
            held = _held[key] = _Held(lock_exclusive(key / HOME_LOCK_FILE, key), 0)
        held.stores += 1
    return HomeHold(key)
