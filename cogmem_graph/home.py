"""The memory home is private: folders 0700, files 0600, whatever the umask.

Everything the library writes under a home (the embedded graph's data directory, its
append-only log and its server's log, lock and server files, the vector folders, the
audit and key files) may hold memories or the means to reach them, so no other local
user may list or read any of it. What the library creates itself it creates with these
modes (an explicit mode, or a tightened umask for the graph server it starts); a home
made by an older version, or by hand with looser modes, is tightened when it is opened,
with a warning naming it.

The vector engine (Qdrant Edge) runs in this process and creates its files under the
process umask, which a library must not change (it is process-wide). So each private
folder also gets a default POSIX ACL granting its owner everything and the group and
others nothing: Linux then gives what is created in it (files and folders, at any depth)
owner-only modes in place of the umask's. Where the file system keeps no ACLs this is
skipped: the 0700 folders still keep other users out, and the adapters tighten what the
engine made after it opens, compacts and closes.

Tightening only ever removes the group and other permission bits; it never follows a
symbolic link. Inside the home it descends only into the library's own folders: anything
else found there is made private itself (and is shielded by the home's 0700 anyway) but
not walked, so a home pointed at a big folder by mistake costs one listing, not a walk.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

from cogmem_graph.errors import HomeNotAccessible

GRAPH_DIR = "graph"
"""The embedded FalkorDB's data directory under the home."""
EDGE_DIR = "qdrant-edge"
"""Qdrant Edge's shard folders under the home."""
LOCAL_VECTORS_DIR = "qdrant"
"""qdrant-client local mode's folder under the home."""
LIBRARY_DIRS = (GRAPH_DIR, EDGE_DIR, LOCAL_VECTORS_DIR)

PRIVATE = 0o077
"""The group and other permission bits, which nothing under a home may carry."""

_DEFAULT_ACL = "system.posix_acl_default"
_ACL_UNDEFINED_ID = 0xFFFFFFFF
_OWNER_ONLY_ACL = struct.pack("<I", 2) + b"".join(  # the xattr form of "u::rwx,g::---,o::---"
    struct.pack("<HHI", tag, perm, _ACL_UNDEFINED_ID) for tag, perm in ((0x01, 0o7), (0x04, 0), (0x20, 0)))

log = logging.getLogger(__name__)


@contextlib.contextmanager
def home_access(home: Path) -> Iterator[None]:
    """A PermissionError inside becomes `HomeNotAccessible`, naming the home, the path refused
    and what to do, in place of a bare errno."""
    try:
        yield
    except HomeNotAccessible:
        raise
    except PermissionError as exc:
        raise HomeNotAccessible(home, exc.filename or home, exc.strerror or str(exc)) from None


def default_home() -> Path:
    """The memory home when none is given: `$COGMEM_HOME`, else `.cogmem` in the working
    folder (here, not in the facade, so that `cogmem keys` need not import the facade)."""
    return Path(os.environ.get("COGMEM_HOME") or ".cogmem")


def inherit_private(folder: Path) -> bool:
    """Whatever is created in `folder` from now on is its owner's only, whatever the umask of
    the process creating it: a default ACL (owner rwx, group and other nothing) that Linux
    applies instead of the umask, and that folders made inside inherit. False where the
    system or file system has no POSIX ACLs."""
    setxattr = getattr(os, "setxattr", None)
    if setxattr is None:
        return False
    with contextlib.suppress(OSError):
        if os.getxattr(folder, _DEFAULT_ACL) == _OWNER_ONLY_ACL:
            return True
    try:
        setxattr(folder, _DEFAULT_ACL, _OWNER_ONLY_ACL)
    except OSError:  # no ACLs here (ENOTSUP), or not our folder
        return False
    return True


def private_dir(path: Path) -> Path:
    """Make `path` (and missing parents) a folder only its owner can enter (0700), where what
    is created is its owner's only too (`inherit_private`)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    inherit_private(path)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Replace the file at `path` with `data`, readable by its owner only (0600) from the
    moment it exists: written to a new file beside it, then renamed over it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _tighten_one(path: Path) -> tuple[bool, bool]:
    """(was open to others, is a folder to walk); symbolic links are left alone."""
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        return False, False
    is_dir = stat.S_ISDIR(st.st_mode)
    mode = stat.S_IMODE(st.st_mode)
    if not mode & PRIVATE:
        return False, is_dir
    os.chmod(path, mode & ~PRIVATE)
    return True, is_dir


def tighten(paths: Iterable[Path], *, recursive: bool = True) -> tuple[list[Path], list[str]]:
    """Remove the group/other bits from each path (and, with `recursive`, everything under
    the folders among them, each folder also made to pass privacy on: `inherit_private`).
    Returns (the paths that had them, problems met)."""
    loosened: list[Path] = []
    problems: list[str] = []
    todo = [Path(p) for p in paths]
    while todo:
        path = todo.pop()
        try:
            was_open, is_dir = _tighten_one(path)
        except FileNotFoundError:  # a server may unlink a file meanwhile
            continue
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
            continue
        if was_open:
            loosened.append(path)
        if is_dir and recursive:
            inherit_private(path)
            try:
                todo.extend(path.iterdir())
            except FileNotFoundError:
                continue
            except OSError as exc:
                problems.append(f"{path}: {exc.strerror or exc}")
    return loosened, problems


def _report(where: Path, loosened: list[Path], problems: list[str]) -> None:
    if loosened:
        shown = ", ".join(str(p) for p in sorted(loosened)[:5]) + (" …" if len(loosened) > 5 else "")
        log.warning("memory home %s: %d files or folders were open to other local users (%s); their group and "
                    "other permissions were removed (folders 0700, files 0600)", where, len(loosened), shown)
    if problems:
        log.warning("memory home %s: could not make private: %s", where, "; ".join(problems[:5]))


def secure_tree(folder: Path) -> list[Path]:
    """A folder the library owns, created 0700 if missing, with everything under it made
    private (a warning names what was open to others). Returns the paths tightened."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder = folder.resolve()
    loosened, problems = tighten([folder])
    _report(folder, loosened, problems)
    return loosened


def secure_home(home: Path) -> list[Path]:
    """The home, created 0700 if missing; an existing one is tightened: the home, every
    entry directly in it, and everything under the library's own folders. A warning names
    what was open to other users. Returns the paths tightened."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    home = home.resolve()  # a home given as a symbolic link is the folder it points to
    loosened, problems = tighten([home], recursive=False)
    inherit_private(home)
    try:
        entries = list(home.iterdir())
    except OSError as exc:
        entries = []
        problems.append(f"{home}: {exc.strerror or exc}")
    ours = [e for e in entries if e.name in LIBRARY_DIRS]
    others = [e for e in entries if e.name not in LIBRARY_DIRS]
    for found, issues in (tighten(ours), tighten(others, recursive=False)):
        loosened += found
        problems += issues
    _report(home, loosened, problems)
    return loosened
