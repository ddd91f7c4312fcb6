"""The last consolidation runs, kept under the store's home (`consolidation_runs.jsonl`, 0600)
so that a dashboard or a later process can say what consolidation did: each run's time,
trigger, scope keys, total counts and the counts each scope key contributed. Bounded: the
newest `MAX_RUNS` runs are kept. Read by scope (`visible`): a caller who sees some scope keys
only is told only of runs that touched them, with only those keys' counts. Erasing a user
takes their scope keys out of every run (`forget_scopes`); the runs' totals stay."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.home import private_dir, write_private

FILE = "consolidation_runs.jsonl"
MAX_RUNS = 100


class ConsolidationLog:
    def __init__(self, home: Path) -> None:
        self.path = Path(home) / FILE
        self._lock = threading.Lock()

    def record(self, result: Any, *, trigger: str, at_ms: int) -> None:
        """Append one run (a `ConsolidationResult`), dropping the oldest past `MAX_RUNS`."""
        entry = {"at": at_ms, "trigger": trigger, "scope_keys": len(result.scope_keys),
                 "duration_ms": round(result.duration_ms, 1), "search_graph_ms": result.search_graph_ms,
                 "counts": result.counts(),
                 "by_scope": result.by_scope}
        with self._lock:
            lines = self._lines()[-(MAX_RUNS - 1):] + [json.dumps(entry, sort_keys=True)]
            private_dir(self.path.parent)
            write_private(self.path, ("\n".join(lines) + "\n").encode("utf-8"))

    def runs(self, limit: int = 20, visible: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The newest runs first. `visible` None: store-wide counts (an owner); else only the
        runs that counted something in those scope keys, with those keys' counts summed."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RUNS:
            raise InvalidArgument(f"limit must be an integer from 1 to {MAX_RUNS}, got {limit!r}", argument="limit")
        with self._lock:
            lines = self._lines()
        out: list[dict[str, Any]] = []
        keys = None if visible is None else set(visible)
        for line in reversed(lines):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            run = {"at": entry.get("at"), "trigger": entry.get("trigger")}
            if keys is None:  # the run's size and time say something of every scope: an owner's to see
                run.update(scope_keys=entry.get("scope_keys"), duration_ms=entry.get("duration_ms"),
                           search_graph_ms=entry.get("search_graph_ms", 0.0), counts=entry.get("counts", {}))
            else:
                mine = [c for k, c in (entry.get("by_scope") or {}).items() if k in keys]
                if not mine:
                    continue
                run["counts"] = {name: sum(c.get(name, 0) for c in mine) for name in entry.get("counts", {})}
            out.append(run)
            if len(out) == limit:
                break
        return out

    def forget_scopes(self, scope_keys: Sequence[str]) -> int:
        """Take these scope keys (an erased user's) out of every run kept; the totals, which
        name nobody, stay. Returns how many runs named one of them."""
        gone = set(scope_keys)
        with self._lock:
            lines = self._lines()
            kept, touched = [], 0
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                by_scope = entry.get("by_scope") or {}
                if gone & set(by_scope):
                    touched += 1
                    entry["by_scope"] = {k: c for k, c in by_scope.items() if k not in gone}
                kept.append(json.dumps(entry, sort_keys=True))
            if touched:
                write_private(self.path, ("\n".join(kept) + "\n").encode("utf-8"))
        return touched

    def _lines(self) -> list[str]:
        try:
            return [line for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        except FileNotFoundError:
            return []
