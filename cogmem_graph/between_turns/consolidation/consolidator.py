"""The consolidator: the mutex, the periodic timer, and one run: which scope keys, then the
steps of `steps.STEPS` in order, each a function of the run's `StepContext`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cogmem_graph.between_turns.archive import MemoryArchive
from cogmem_graph.between_turns.consolidation.clusters import detect_clusters
from cogmem_graph.between_turns.consolidation.result import ConsolidationResult
from cogmem_graph.between_turns.consolidation.schemas import list_schemas
from cogmem_graph.between_turns.consolidation.step_context import StepContext
from cogmem_graph.between_turns.consolidation.steps import STEPS, Step, run_steps
from cogmem_graph.errors import InvalidArgument, StoreClosed
from cogmem_graph.graph.cypher_store.graph_store import require_scope_keys
from cogmem_graph.graph.rows import SchemaRow
from cogmem_graph.model import Hexaco

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

log = logging.getLogger(__name__)


class Consolidator:
    """Runs consolidation on one store, seen through the store owner's context. Use
    `consolidator_for(store)` (what `store.consolidate()` does) so every caller shares the
    same mutex."""

    def __init__(self, ctx: MemoryContext, *, traits: Hexaco | None = None,
                 steps: Sequence[Step] = STEPS) -> None:
        self.ctx = ctx
        self.steps = tuple(steps)
        """What each run does, in order (`steps.STEPS`)."""
        self.traits = traits or Hexaco()
        self.archive = MemoryArchive(ctx.graph, ctx.clock)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_result: ConsolidationResult | None = None
        self.last_error: BaseException | None = None
        self.full_pass = False
        """True: every run's steps read every trace, as if no bookkeeping were kept (the decay
        sweep's schedule, the merge step's due traces, the confidence clock): a check that the
        bookkeeping changes nothing."""

    def __repr__(self) -> str:
        return f"Consolidator(graph={self.ctx.graph!r}, running={self.running})"

    @property
    def running(self) -> bool:
        """Whether a run holds the mutex right now."""
        return self._lock.locked()

    # ------------------------------------------------------------ entry points

    def run(self, scope_keys: Sequence[str] | None = None, *, traits: Hexaco | None = None) -> ConsolidationResult:
        """One consolidation run over `scope_keys` (None: every scope key holding active
        traces). `traits` decide contradictions (None: each by the traits of the agent that
        stated its newer side, else the consolidator's)."""
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
            raise InvalidArgument(f"interval_s must be a positive number of seconds, got {interval_s!r}",
                                  argument="interval_s")
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
            scope_keys = self.ctx.graph.scope_keys_with_active_traces()
        result = ConsolidationResult(scope_keys=list(scope_keys))
        if not scope_keys:
            return result
        active: dict[str, int] = {}
        for key in scope_keys:
            active[key] = self.ctx.graph.count_active_traces(key)
        result.total_processed = sum(active.values())
        sc = self.step_context(result, scope_keys, traits=traits)
        run_steps(sc, [k for k in scope_keys if active[k] > 0], self.steps)
        return result

    def step_context(self, result: ConsolidationResult, scope_keys: Sequence[str] = (), *,
                     traits: Hexaco | None = None) -> StepContext:
        """A run's context for the steps: `result` to fill, a neighbour budget of its own."""
        return StepContext(ctx=self.ctx, archive=self.archive, result=result, scope_keys=tuple(scope_keys),
                           traits=traits, fallback_traits=self.traits, full_pass=self.full_pass)

    # ------------------------------------------------------------ what the steps find, on request

    def detect_clusters(self, keys: Sequence[str]) -> tuple[list[tuple[str, list[str]]], str]:
        """The communities schema integration would see now, and the algorithm that found them."""
        return detect_clusters(self.ctx, keys)

    def schemas(self, scope_keys: Sequence[str]) -> list[SchemaRow]:
        """The schemas of `scope_keys`: id, summary, scopeKey, size, algorithm, member ids and
        the SCHEMA_INSTANCE weight."""
        return list_schemas(self.ctx, scope_keys)
