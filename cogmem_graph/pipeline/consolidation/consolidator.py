"""The consolidator: the mutex, the periodic timer, and one run's order of steps. Each step
lives in the module named for it, as a function of the consolidator (`strength`, `merge`,
`replay`, `schemas`, `contradictions`, `mechanisms`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cogmem_graph.errors import StoreClosed
from cogmem_graph.graph.base import require_scope_keys
from cogmem_graph.model import Hexaco, MemoryTrace
from cogmem_graph.pipeline.archive import MemoryArchive
from cogmem_graph.pipeline.consolidation import (
    clusters,
    contradictions,
    mechanisms,
    merge,
    replay,
    strength,
)
from cogmem_graph.pipeline.consolidation import schemas as schema_steps
from cogmem_graph.pipeline.consolidation.result import ConsolidationResult

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)


class Consolidator:
    """Runs consolidation on one store, seen through the store owner's context. Use
    `consolidator_for(store)` (what `store.consolidate()` does) so every caller shares the
    same mutex."""

    # The steps, in the order `_run` takes them; attributes so a run (or a test) sees one place.
    _prune = strength.prune
    _merge = merge.merge
    _replay = replay.replay
    _schemas = schema_steps.integrate_schemas
    _resolve_contradictions = contradictions.resolve_contradictions
    _reinforce = strength.reinforce
    _compact = strength.compact
    _temporal_gist = mechanisms.temporal_gist
    _source_confidence = mechanisms.source_confidence
    _emotion_regulation = mechanisms.emotion_regulation

    detect_clusters = clusters.detect_clusters
    schemas = schema_steps.list_schemas

    def __init__(self, ctx: MemoryContext, *, traits: Hexaco | None = None) -> None:
        self.ctx = ctx
        self.traits = traits or Hexaco()
        self.archive = MemoryArchive(ctx.graph, ctx.clock)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_result: ConsolidationResult | None = None
        self.last_error: BaseException | None = None
        self.merge_budget: int | None = None
        """Qdrant neighbour queries the merge step may still make in this run (None: no limit)."""
        self.full_sweep = False
        """True: every run's decay sweep reads every trace, as if no schedule were kept (a check
        that the schedule changes nothing)."""

    def __repr__(self) -> str:
        return f"Consolidator(graph={self.ctx.graph!r}, running={self.running})"

    @property
    def running(self) -> bool:
        """Whether a run holds the mutex right now."""
        return self._lock.locked()

    # ------------------------------------------------------------ entry points

    def run(self, scope_keys: Sequence[str] | None = None, *, traits: Hexaco | None = None) -> ConsolidationResult:
        """One consolidation run over `scope_keys` (None: every scope key holding active
        traces). `traits` decides contradictions (default: the consolidator's traits)."""
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        self.ctx.check_open()
        cfg = self.ctx.config.consolidation
        started = time.perf_counter()
        if cfg.lock_timeout_ms > 0:
            acquired = self._lock.acquire(timeout=cfg.lock_timeout_ms / 1000)
        else:
            acquired = self._lock.acquire(blocking=False)
        if not acquired:
            log.info("consolidation skipped: another run is in progress")
            return ConsolidationResult(skipped=True, scope_keys=list(keys or []))
        try:
            result = self._run(keys, traits)
        finally:
            self._lock.release()
        result.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self.last_result = result
        return result

    def start_periodic(self, interval_s: float | None = None, *, scope_keys: Sequence[str] | None = None) -> None:
        """Run every `interval_s` seconds (default: `consolidation.interval_ms`) on a daemon
        thread until `stop()`. Failures are logged and kept in `last_error`."""
        interval = self.ctx.config.consolidation.interval_ms / 1000 if interval_s is None else interval_s
        if isinstance(interval, bool) or not isinstance(interval, int | float) or not interval > 0:
            raise ValueError(f"interval_s must be a positive number of seconds, got {interval_s!r}")
        keys = None if scope_keys is None else require_scope_keys(scope_keys)
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("periodic consolidation is already running; call stop() first")
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, args=(float(interval), keys), name="cogmem-consolidation", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        """Stop the periodic timer (a run in progress finishes first)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _loop(self, interval: float, keys: list[str] | None) -> None:
        while not self._stop.wait(interval):
            try:
                self.run(keys)
            except StoreClosed:
                return
            except Exception as exc:  # the timer must survive one bad run; the error is kept and logged
                self.last_error = exc
                log.exception("periodic consolidation failed")

    # ------------------------------------------------------------ the run

    def _run(self, scope_keys: list[str] | None, traits: Hexaco | None) -> ConsolidationResult:
        if scope_keys is None:
            scope_keys = [r["scopeKey"] for r in self.q("consolidation_scope_keys", {}) if r["scopeKey"]]
        result = ConsolidationResult(scope_keys=list(scope_keys))
        if not scope_keys:
            return result
        active: dict[str, int] = {}
        for key in scope_keys:
            rows = self.q("consolidation_count_active", {"scopeKey": key})
            active[key] = int(rows[0]["n"]) if rows else 0
        result.total_processed = sum(active.values())
        keys = [k for k in scope_keys if active[k] > 0]
        cfg = self.ctx.config.consolidation
        for key in keys:
            self._credited(key, result, self._prune, key, result)
        self.merge_budget = merge.neighbour_query_budget(self)
        for index, key in enumerate(keys):
            self._credited(key, result, self._merge, key, result, share=len(keys) - index)
        for key in keys:
            self._credited(key, result, self._replay, key, result)
        self._schemas(keys, result)  # credits each scope key itself
        for key in keys:
            self._credited(key, result, self._resolve_contradictions, key, traits, result)
        for key in keys:
            self._credited(key, result, self._reinforce, key, result)
        for key in keys:
            self._credited(key, result, self._compact, key, result)
        if cfg.run_mechanisms:
            for key in keys:
                self._credited(key, result, self._temporal_gist, key, result)
                self._credited(key, result, self._source_confidence, key, result)
                self._credited(key, result, self._emotion_regulation, key, result)
        result.archive_pruned = self.archive.prune(cfg.archive_retention_ms, scope_keys)
        return result

    @staticmethod
    def _credited(key: str, result: ConsolidationResult, step: Any, *args: Any, **kwargs: Any) -> None:
        """Run one step of one scope key and credit what it counted to that key."""
        before = result.counts()
        step(*args, **kwargs)
        result.credit(key, before)

    # ------------------------------------------------------------ what every step uses

    def q(self, name: str, params: dict[str, Any], *, write: bool = False) -> list[dict[str, Any]]:
        """Run one named statement on the graph."""
        return self.ctx.graph.run(name, params, write=write)

    def now(self) -> int:
        return self.ctx.clock.now_ms()

    def load(self, rows: Iterable[dict[str, Any]]) -> list[MemoryTrace]:
        """Traces from rows holding a `trace` map; an invalid one is skipped with a warning."""
        traces = []
        for row in rows:
            try:
                traces.append(MemoryTrace.from_graph_props(row["trace"]))
            except ValidationError as exc:
                log.warning("consolidation skips trace %r: its stored properties are invalid (%s)",
                            row["trace"].get("id"), exc.errors()[:1])
        return traces

    def state(self, key: str) -> dict[str, Any]:
        """What consolidation remembered about `key` at its last run (empty: nothing)."""
        rows = self.q("consolidation_state_get", {"scopeKey": key})
        return dict(rows[0]["state"]) if rows else {}

    def set_state(self, key: str, props: dict[str, Any]) -> None:
        self.q("consolidation_state_set", {"scopeKey": key, "props": props, "now": self.now()}, write=True)

    def deactivate_vectors(self, ids: Sequence[str]) -> None:
        """The graph is the truth; if Qdrant fails here, `store.repair()` finishes the job."""
        if ids:
            self.ctx.vectors.set_active(list(ids), False)

    def count_edges(self, ids: Sequence[str]) -> int:
        rows = self.q("consolidation_count_edges", {"ids": list(ids)})
        return int(rows[0]["n"]) if rows else 0
