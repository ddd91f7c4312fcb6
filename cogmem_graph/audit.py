"""The audit file: one JSON line per governing operation (forget, erase, update, export, a
key added or revoked) and per summary of refusals, appended to `<home>/audit.jsonl`.

A line says when, who (the identity that asked), which scopes and how many of each kind,
never what a memory said: the audit of an erasure must not keep what was erased.

The files are bounded (`AuditConfig`). At `max_file_bytes` the file is rotated the way the
standard library's `RotatingFileHandler` names its files (`audit.jsonl.1` the newest,
`audit.jsonl.<rotated_files>` the oldest, deleted at the next rotation), but every write opens,
locks (`flock`) and closes the file, so the server and a `cogmem` command writing the same
home rotate it in turn. Before the oldest file is deleted its *kept* lines (`is_kept`: the
owner's operations, erasures among them, key changes and refusal summaries, none of which a
caller other than the owner can repeat at will) are appended to `audit-kept.jsonl`, which is
never rotated. Refusals (a key refused by the server, a forget that found nothing it could
delete) are summarised per key, operation and reason per `refusal_window_s`: the first at
once, the repeats as one line with their count. Files are 0600 and the home 0700, whatever
the umask.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogmem_graph.config.audit import AuditConfig
from cogmem_graph.home import private_dir

AUDIT_FILE = "audit.jsonl"
KEPT_FILE = "audit-kept.jsonl"
REFUSED = "refused"
KEY_OPERATIONS = ("key_add", "key_revoke")
MAX_PENDING_REFUSALS = 10_000
"""Refusal summaries held in memory at most; past it every pending one is written at once."""
_lock = threading.Lock()


def is_kept(line: Mapping[str, Any]) -> bool:
    """True for a line that outlives rotation: the owner's, a key change, a refusal summary."""
    actor = line.get("actor")
    return (isinstance(actor, dict) and actor.get("owner") is True) or line.get("operation") in (
        REFUSED, *KEY_OPERATIONS)


@dataclass
class _Tally:
    actor: dict[str, Any]
    scope_keys: list[str]
    first_at: int
    last_at: int
    repeats: int = 0


_pending: dict[tuple[str, str, str, str], _Tally] = {}
"""Refusals counted and not yet written: (audit path, actor, operation, reason) -> tally."""


class AuditLog:
    def __init__(self, home: Path, config: AuditConfig | None = None) -> None:
        self.path = Path(home) / AUDIT_FILE
        self.kept_path = Path(home) / KEPT_FILE
        self.config = config or AuditConfig()

    # ------------------------------------------------------------ writing

    def record(self, operation: str, *, at_ms: int, actor: Mapping[str, Any], scope_keys: Sequence[str],
               counts: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> None:
        """Append one line (one `write` on an O_APPEND descriptor, so lines of concurrent
        writers never interleave), rotating first when it would pass `max_file_bytes`."""
        line = json.dumps({**(extra or {}), "at": at_ms, "operation": operation, "actor": dict(actor),
                           "scopes": sorted(scope_keys), "counts": dict(counts)},
                          sort_keys=True, separators=(",", ":")) + "\n"
        with _lock:
            self._flush_due(at_ms)
            self._append(line.encode("utf-8"))

    def refused(self, operation: str, reason: str, *, at_ms: int, actor: Mapping[str, Any],
                scope_keys: Sequence[str] = ()) -> None:
        """Count one refusal of `actor` for `operation` (`reason`: why, a short fixed word):
        the first of a window is written now, the repeats when the window ends."""
        who = json.dumps(dict(actor), sort_keys=True)
        bucket = (str(self.path), who, operation, reason)
        with _lock:
            tally = _pending.get(bucket)
            if tally is not None and at_ms - tally.first_at < self.config.refusal_window_s * 1000:
                tally.repeats += 1
                tally.last_at = at_ms
                return
            self._flush_due(at_ms, force=bucket if tally is not None else None)
            if len(_pending) >= MAX_PENDING_REFUSALS:
                self._flush_due(at_ms, everything=True)
            _pending[bucket] = _Tally(dict(actor), sorted(scope_keys), at_ms, at_ms)
            self._append(_refusal_line(operation, reason, _pending[bucket], 1, at_ms))

    def flush(self, at_ms: int) -> None:
        """Write every pending refusal summary now (a store closing, so no count is lost)."""
        with _lock:
            self._flush_due(at_ms, everything=True)

    def _flush_due(self, at_ms: int, *, force: tuple[str, str, str, str] | None = None,
                   everything: bool = False) -> None:
        window_ms = self.config.refusal_window_s * 1000
        mine = [b for b in _pending if b[0] == str(self.path)]
        for bucket in mine:
            tally = _pending[bucket]
            if everything or bucket == force or at_ms - tally.first_at >= window_ms:
                del _pending[bucket]
                if tally.repeats:
                    self._append(_refusal_line(bucket[2], bucket[3], tally, tally.repeats, tally.last_at))

    def _append(self, data: bytes) -> None:
        """Write `data` at the end of the current file under its lock, rotating first if due."""
        private_dir(self.path.parent)
        while True:
            fd = _open_private(self.path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                if not _same_file(fd, self.path):
                    continue  # another writer rotated it while this one waited: open the new one
                size = os.fstat(fd).st_size
                if size and size + len(data) > self.config.max_file_bytes:
                    self._rotate()
                    continue  # the lock stays on the renamed file until close; write into the new one
                os.write(fd, data)
                os.fsync(fd)
                return
            finally:
                os.close(fd)

    def _rotate(self) -> None:
        """Shift audit.jsonl.i to .i+1 (the oldest's kept lines to audit-kept.jsonl first), then
        audit.jsonl to .1. The caller holds the current file's lock."""
        n = self.config.rotated_files
        oldest = self._rotated(n)
        if oldest.exists():
            kept = [line for line in _read_lines(oldest) if is_kept(json.loads(line))]
            if kept:
                fd = _open_private(self.kept_path)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    os.write(fd, "".join(kept).encode("utf-8"))
                    os.fsync(fd)
                finally:
                    os.close(fd)
            oldest.unlink()
        for i in range(n - 1, 0, -1):
            with contextlib.suppress(FileNotFoundError):
                os.replace(self._rotated(i), self._rotated(i + 1))
        os.replace(self.path, self._rotated(1))

    def _rotated(self, i: int) -> Path:
        return self.path.with_name(f"{AUDIT_FILE}.{i}")

    # ------------------------------------------------------------ reading

    def files(self) -> list[Path]:
        """The files holding lines, oldest first: the kept lines, the rotated files, the current."""
        rotated = sorted((p for p in self.path.parent.glob(f"{AUDIT_FILE}.*") if p.suffix[1:].isdigit()),
                         key=lambda p: -int(p.suffix[1:]))
        return [p for p in (self.kept_path, *rotated, self.path) if p.exists()]

    def lines(self) -> list[dict[str, Any]]:
        """Every recorded line still held, oldest first (empty when nothing was recorded)."""
        return [json.loads(line) for path in self.files() for line in _read_lines(path)]


def _refusal_line(operation: str, reason: str, tally: _Tally, count: int, at_ms: int) -> bytes:
    line = {"at": at_ms, "operation": REFUSED, "actor": tally.actor, "scopes": tally.scope_keys,
            "counts": {"refused": count},
            "refused": {"operation": operation, "reason": reason, "first_at": tally.first_at}}
    return (json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def _open_private(path: Path) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)
    return fd


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _read_lines(path: Path) -> Iterator[str]:
    with contextlib.suppress(FileNotFoundError), path.open(encoding="utf-8") as f:
        yield from (line if line.endswith("\n") else line + "\n" for line in f if line.strip())
