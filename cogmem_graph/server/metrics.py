"""`GET /metrics`: the server's metrics in Prometheus' text format (`prometheus_client`).

`Instrumented` is the outermost ASGI layer: it counts and times every HTTP request by route
(an operation's name, or a fixed name such as "mcp", "dashboard", "health"; never a path,
which may hold an id) and status, and answers `/metrics` itself, to the owner's key or the
metrics token only, on a thread of its own so a scrape never queues behind store calls.
`ServerMetrics` also counts and times the service's operations (REST, MCP and the dashboard
alike), watches what `cogmem_graph.telemetry` reports (graph statements, vector calls, graph
server restarts, consolidation runs), reads the rate limiters' refusals at scrape time, and
counts the memories by state at scrape time from the store's own counts (`store.stats()`),
cached for `counts_cache_s` so scrapes cannot hammer the graph.

Labels hold names the code chooses only: no key, user, memory id or content.
"""

from __future__ import annotations

import hmac
import logging
import math
import threading
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from cogmem_graph.operations import route_operation
from cogmem_graph.server.guards import AddressLimiter, Guard, presented_key, send_error
from cogmem_graph.server.keys import KeyRing

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore

log = logging.getLogger("cogmem.server")

PATH = "/metrics"
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
ROUND_TRIP_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
CONSOLIDATION_BUCKETS = (0.1, 0.5, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)
_FIXED_ROUTES = {"/health": "health", "/ready": "ready", PATH: "metrics", "/docs": "docs", "/openapi.json": "docs",
                 "/redoc": "docs", "/docs/oauth2-redirect": "docs"}


def route_label(method: str, path: str) -> str:
    """The route a request is counted under: its operation's name for a `/v1` route, else a
    fixed name; "unmatched" for a path no route serves."""
    fixed = _FIXED_ROUTES.get(path)
    if fixed is not None:
        return fixed
    if path.startswith("/v1/"):
        entry = route_operation(method, path)
        return entry.name if entry is not None else "unmatched"
    if path == "/mcp" or path.startswith("/mcp/"):
        return "mcp_stream" if method == "GET" else "mcp"  # GET holds a session's stream open
    if path == "/ui" or path.startswith("/ui/"):
        return "dashboard"
    return "unmatched"


class ServerMetrics:
    """The server's metrics, in a registry of its own; a `telemetry.Watcher`."""

    def __init__(self, store: MemoryStore, *, guard: Guard | None = None, bad_keys: AddressLimiter | None = None,
                 counts_cache_s: float = 15.0) -> None:
        self.registry = registry = CollectorRegistry()
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)
        self.http_requests = Counter("cogmem_http_requests", "HTTP requests answered, by route and status",
                                     ["route", "status"], registry=registry)
        self.http_duration = Histogram("cogmem_http_request_duration_seconds",
                                       "HTTP requests, from their first byte read to their last byte sent",
                                       ["route"], buckets=REQUEST_BUCKETS, registry=registry)
        self.http_in_flight = Gauge("cogmem_http_requests_in_flight", "HTTP requests in progress",
                                    ["route"], registry=registry)
        self.operations = Counter("cogmem_operations", "Operations the service answered (REST, MCP, dashboard), "
                                  "by operation and status", ["operation", "status"], registry=registry)
        self.operation_duration = Histogram("cogmem_operation_duration_seconds",
                                            "Operations, from their arguments checked to their answer",
                                            ["operation"], buckets=REQUEST_BUCKETS, registry=registry)
        self.operations_in_flight = Gauge("cogmem_operations_in_flight", "Operations in progress",
                                          ["operation"], registry=registry)
        self.graph_statements = Histogram("cogmem_graph_statement_duration_seconds",
                                          "Graph statement round trips (retries included), by kind",
                                          ["kind"], buckets=ROUND_TRIP_BUCKETS, registry=registry)
        self.vector_calls = Histogram("cogmem_vector_call_duration_seconds", "Vector index calls, by call",
                                      ["call"], buckets=ROUND_TRIP_BUCKETS, registry=registry)
        self.graph_restarts = Counter("cogmem_graph_server_restarts", "Restarts of the embedded graph server "
                                      "after it died, by outcome", ["outcome"], registry=registry)
        self.consolidation_duration = Histogram("cogmem_consolidation_duration_seconds",
                                                "Consolidation runs, by trigger", ["trigger"],
                                                buckets=CONSOLIDATION_BUCKETS, registry=registry)
        self.consolidation_runs = Counter("cogmem_consolidation_runs", "Consolidation runs, by trigger and outcome",
                                          ["trigger", "outcome"], registry=registry)
        self.consolidation_changes = Counter("cogmem_consolidation_changes",
                                             "What consolidation runs changed, by kind of change",
                                             ["change"], registry=registry)
        for outcome in ("started", "failed"):
            self.graph_restarts.labels(outcome)
        for trigger in ("request", "schedule"):
            for outcome in ("ran", "skipped", "failed"):
                self.consolidation_runs.labels(trigger, outcome)
        registry.register(_Refusals(guard, bad_keys))
        registry.register(_MemoryCounts(store, counts_cache_s))
        self._children: dict[tuple[Any, ...], Any] = {}

    def _child(self, metric: Any, *labels: str) -> Any:
        """`metric.labels(*labels)`, kept: the hot paths skip its lock and lookup."""
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def exposition(self, accept: str = "") -> tuple[bytes, str]:
        """The metrics and their content type: Prometheus' text format (0.0.4), or OpenMetrics
        or text 1.0.0 when the `accept` header asks for them."""
        encode, content_type = choose_encoder(accept)
        return encode(self.registry), content_type

    # ------------------------------------------------------------ operations (the service)

    def began(self, operation: str) -> float:
        self._child(self.operations_in_flight, operation).inc()
        return time.perf_counter()

    def ended(self, operation: str, status: int, started: float) -> None:
        self._child(self.operation_duration, operation).observe(time.perf_counter() - started)
        self._child(self.operations, operation, str(status)).inc()
        self._child(self.operations_in_flight, operation).dec()

    # ------------------------------------------------------------ telemetry.Watcher

    def graph_statement(self, kind: str, seconds: float) -> None:
        self._child(self.graph_statements, kind).observe(seconds)

    def vector_call(self, call: str, seconds: float) -> None:
        self._child(self.vector_calls, call).observe(seconds)

    def graph_restart(self, outcome: str) -> None:
        self._child(self.graph_restarts, outcome).inc()

    def consolidation(self, trigger: str, seconds: float, outcome: str, counts: Mapping[str, int]) -> None:
        self._child(self.consolidation_duration, trigger).observe(seconds)
        self._child(self.consolidation_runs, trigger, outcome).inc()
        for change, n in counts.items():
            if n:
                self._child(self.consolidation_changes, change).inc(n)


class _Refusals:
    """The rate limiters' refusals, read when scraped."""

    def __init__(self, guard: Guard | None, bad_keys: AddressLimiter | None) -> None:
        self.guard = guard
        self.bad_keys = bad_keys

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily("cogmem_rate_limited", "Requests refused with 429, by reason: a key over its "
                                     "rate, a key over its requests in progress, a client address over its "
                                     "missing, unknown or expired keys", labels=["reason"])
        family.add_metric(["key_rate"], self.guard.limiter.refused if self.guard else 0)
        family.add_metric(["key_in_flight"], self.guard.refused_in_flight if self.guard else 0)
        family.add_metric(["bad_key"], self.bad_keys.refused if self.bad_keys else 0)
        yield family


class _MemoryCounts:
    """Memories by state and type, and entities and edges, from `store.stats()`: asked at most
    once per `cache_s` (a failure too is kept that long, then asked again)."""

    def __init__(self, store: MemoryStore, cache_s: float) -> None:
        self.store = store
        self.cache_s = cache_s
        self._lock = threading.Lock()
        self._at = -math.inf
        self._stats: Any = None

    def describe(self) -> list[Metric]:
        return []  # nothing is asked of the store when the collector is registered

    def _current(self) -> Any:
        with self._lock:
            if time.monotonic() - self._at >= self.cache_s:
                try:
                    self._stats = None if self.store.closed else self.store.stats()
                except Exception as exc:
                    log.warning("memory counts for /metrics failed: %s", type(exc).__name__)
                    self._stats = None
                self._at = time.monotonic()
            return self._stats

    def collect(self) -> Iterator[Metric]:
        stats = self._current()
        if stats is None:
            return
        states = GaugeMetricFamily("cogmem_memories", "Memories by state: active (awake), dormant (active, out of "
                                   "the default candidates), inactive (forgotten, merged or superseded)",
                                   labels=["state"])
        states.add_metric(["active"], stats.active_traces - stats.dormant_traces)
        states.add_metric(["dormant"], stats.dormant_traces)
        states.add_metric(["inactive"], stats.inactive_traces)
        yield states
        types = GaugeMetricFamily("cogmem_memories_by_type", "Memories (every state) by memory type",
                                  labels=["type"])
        for kind, n in sorted(stats.traces_by_type.items()):
            types.add_metric([str(kind)], n)
        yield types
        yield GaugeMetricFamily("cogmem_memories_unindexed", "Memories the vector index does not hold yet",
                                value=stats.unindexed_traces)
        yield GaugeMetricFamily("cogmem_entities", "Entities", value=stats.entities)
        edges = GaugeMetricFamily("cogmem_edges", "Edges by type", labels=["type"])
        for kind, n in sorted(stats.edges_by_type.items()):
            edges.add_metric([str(kind)], n)
        yield edges


class Instrumented:
    """ASGI: every HTTP request counted and timed by route and status; `GET /metrics` answered
    here, to the owner's key or `token` (a missing, unknown or expired one counts against the
    client's address in `bad_keys`, as the guard counts it)."""

    SCRAPE_THREADS = 1

    def __init__(self, app: Any, metrics: ServerMetrics, keys: KeyRing, *, token: str | None = None,
                 bad_keys: AddressLimiter | None = None) -> None:
        self.inner = app
        self.metrics = metrics
        self.keys = keys
        self.token = token.encode() if token else None
        self.bad_keys = bad_keys
        self._limiter: Any = None

    def __getattr__(self, name: str) -> Any:  # the inner app's attributes (`app`, `state`, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        metrics = self.metrics
        route = route_label(scope["method"], scope["path"])
        started = time.perf_counter()
        in_flight = metrics._child(metrics.http_in_flight, route)
        in_flight.inc()
        status = 500  # an app that fails before it answers: uvicorn sends 500

        async def observed(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            if route == "metrics":
                await self._metrics(scope, observed)
            else:
                await self.inner(scope, receive, observed)
        finally:
            in_flight.dec()
            metrics._child(metrics.http_duration, route).observe(time.perf_counter() - started)
            metrics._child(metrics.http_requests, route, str(status)).inc()

    async def _metrics(self, scope: dict[str, Any], send: Any) -> None:
        if scope["method"] != "GET":
            await send_error(send, 405, "/metrics answers GET only", {"Allow": "GET"})
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await send_error(send, *refusal)
            return
        import anyio
        import anyio.to_thread

        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.SCRAPE_THREADS)
        accept = dict(scope["headers"]).get(b"accept", b"").decode("latin-1")
        body, content_type = await anyio.to_thread.run_sync(self.metrics.exposition, accept, limiter=self._limiter)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", content_type.encode()),
                                (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, scope: dict[str, Any]) -> tuple[int, str, dict[str, str]] | None:
        """None when the request may read the metrics; else (status, message, headers)."""
        presented = presented_key(scope["headers"])
        if self.token is not None and presented and hmac.compare_digest(presented.encode(), self.token):
            return None
        principal = self.keys.authenticate(presented)
        if principal is None or principal.expired:
            client = scope.get("client")
            wait = self.bad_keys.check(client[0] if client else "unknown") if self.bad_keys else 0.0
            if wait > 0:
                return (429, "too many requests with a missing, unknown or expired API key from this address; "
                             f"retry in {wait:.2f} s", {"Retry-After": str(max(1, math.ceil(wait)))})
            return (401, "/metrics needs the owner's API key or the metrics token "
                         "(send Authorization: Bearer <key or token>)", {"WWW-Authenticate": 'Bearer realm="cogmem"'})
        if principal.role != "owner":
            return 403, "/metrics needs the owner's API key or the metrics token; this key is not the owner's", {}
        return None
