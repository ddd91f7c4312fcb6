"""The audit file: one JSON line per governing operation (forget, erase, update, export),
appended to `<home>/audit.jsonl` (mode 0600).

A line says when, who (the identity that asked), which scopes and how many of each kind,
never what a memory said: the audit of an erasure must not keep what was erased.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cogmem_graph.home import private_dir

AUDIT_FILE = "audit.jsonl"
_lock = threading.Lock()


class AuditLog:
    def __init__(self, home: Path) -> None:
        self.path = Path(home) / AUDIT_FILE

    def record(self, operation: str, *, at_ms: int, actor: Mapping[str, Any], scope_keys: Sequence[str],
               counts: Mapping[str, Any]) -> None:
        """Append one line; the file is created 0600 whatever the umask, and each line is
        written with one `write` on an O_APPEND descriptor, so lines of concurrent writers
        never interleave."""
        line = json.dumps({"at": at_ms, "operation": operation, "actor": dict(actor),
                           "scopes": sorted(scope_keys), "counts": dict(counts)},
                          sort_keys=True, separators=(",", ":")) + "\n"
        with _lock:
            private_dir(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.fchmod(fd, 0o600)
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)

    def lines(self) -> list[dict[str, Any]]:
        """Every recorded line, oldest first (empty when nothing was recorded)."""
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
