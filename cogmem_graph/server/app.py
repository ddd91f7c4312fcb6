"""The ASGI application: REST routes and the MCP endpoint (`/mcp`) behind one guard, and the
web dashboard (`/ui`, `server.dashboard`) beside it, which checks its own session cookies and
calls the same service.

`/health` and `/ready` are answered here, before the routes (the guard lets them through at
once): they never wait for the worker threads that run store calls, so a burst of slow
calls cannot make the process look dead. A 503 names the backend that failed; the embedded graph is named by
the memory home it lives under, not by the loopback port of its server.

The event loop that answers `/health` shares the interpreter lock with the worker threads:
`warm_up` runs the read path once before the server reports ready, so the first requests do
not pay its imports and first queries while holding the lock (uvicorn runs on uvloop where it
is installed, the server extra's default: its socket calls do not give the lock up each time).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from cogmem_graph import telemetry
from cogmem_graph._version import VERSION
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.operations import OPERATIONS
from cogmem_graph.server import rest
from cogmem_graph.server.guards import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_RATE_PER_SECOND,
    AddressLimiter,
    Guard,
    presented_key,
)
from cogmem_graph.server.keys import KeyRing, Principal
from cogmem_graph.server.mcp_tools import build_mcp
from cogmem_graph.server.scheduler import DEFAULT_INTERVAL_S, ConsolidationScheduler
from cogmem_graph.server.service import MemoryService, ServiceError
from cogmem_graph.server.tracing import operation_span

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.server.metrics import ServerMetrics


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    rate_per_second: float | None = DEFAULT_RATE_PER_SECOND
    consolidate_every_s: float = DEFAULT_INTERVAL_S
    # Connections (runner.py): what a client owes the server, and how many it may hold open.
    header_timeout_s: float = 10.0  # a request's line and headers, from the connection or the previous response
    body_timeout_s: float = 30.0  # a request's whole body, from its headers
    keep_alive_s: float = 5.0  # an idle connection after a response
    max_connections: int = 1000  # open at once; fewer when the file-descriptor limit leaves no room
    reserved_fds: int = 256  # file descriptors kept for the store, its server and the process beside connections
    backlog: int = 128  # connections the kernel queues, and the server accepts in one go
    graceful_shutdown_s: float = 10.0  # requests in progress may finish this long after SIGTERM
    # Per key and per client address (guards.py).
    max_in_flight_per_key: int | None = 8  # requests of one key in progress at once; None: no limit
    bad_key_rate: float | None = 1.0  # missing, unknown or expired keys a second per client address; None: no limit
    bad_key_burst: int = 20  # ... in a burst
    dashboard: bool = True  # the web dashboard at /ui (server/dashboard)
    metrics: bool = True  # GET /metrics (server/metrics.py)
    metrics_token: str | None = field(default=None, repr=False)  # reads /metrics, beside the owner's keys
    metrics_counts_cache_s: float = 15.0  # how long /metrics reuses the store's memory counts


class _Probes:
    """`GET /health`, answered on the event loop, and `GET /ready`: not ready once the store is
    closed; otherwise, when the store checks its backends (`health()`, bounded and cached by
    the store), that check runs on threads of its own limiter, never queued behind the
    store calls of the request workers."""

    PROBE_THREADS = 2

    def __init__(self, app: Callable[..., Any], store: MemoryStore) -> None:
        self.app = app
        self.store = store
        self._limiter: Any = None

    async def ready(self) -> dict[str, Any]:
        """{"ready": bool, "graph": "ok" | why not, "vectors": "ok" | why not}: what a 503 says."""
        if self.store.closed:
            return {"ready": False, "graph": "the store is closed", "vectors": "the store is closed"}
        import anyio
        import anyio.to_thread

        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.PROBE_THREADS)
        try:
            return await anyio.to_thread.run_sync(self.store.health, limiter=self._limiter)
        except Exception as exc:  # the store's health() never raises; a probe answers anyway
            return {"ready": False, "graph": f"health check failed: {type(exc).__name__}", "vectors": "unknown"}

    def __getattr__(self, name: str) -> Any:  # the app's own attributes (`openapi`, `state`, ...)
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path") if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") else None
        if path == "/health":
            await self._answer(send, 200, {"status": "ok"})
        elif path == "/ready":
            state = await self.ready()
            await self._answer(send, 200 if state.get("ready") else 503, state)
        else:
            await self.app(scope, receive, send)

    @staticmethod
    async def _answer(send: Any, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode()  # as FastAPI writes it
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class _ServedService(MemoryService):
    """The service as the server offers it: each call counted and timed (`metrics`) inside an
    OpenTelemetry span where that is installed (`server.tracing`); a 503 says which backend
    failed without the loopback address of the embedded graph server (its port is nobody's
    business outside the process: the embedded graph is named by its memory home)."""

    metrics: ServerMetrics | None = None

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        name = op if op in OPERATIONS else "unknown"  # a label never carries what a caller made up
        metrics = self.metrics
        with operation_span(name) as span:
            started = metrics.began(name) if metrics is not None else 0.0
            status: int = 500
            error: BaseException | None = None
            try:
                answer = self._served(principal, op, args)
                status = 200
                return answer
            except ServiceError as exc:
                status, error = exc.status, exc
                raise
            except BaseException as exc:
                error = exc
                raise
            finally:
                span.answered(status, error)
                if metrics is not None:
                    metrics.ended(name, status, started)

    def _served(self, principal: Principal, op: str, args: dict[str, Any] | None) -> Any:
        try:
            return super().call(principal, op, args)
        except ServiceError as exc:
            if exc.status != 503:
                raise
            raise ServiceError(503, self._unaddressed(exc.message), retry_after_s=exc.retry_after_s) from None

    def _unaddressed(self, message: str) -> str:
        if getattr(self.store.config.graph, "uri", None) is not None:
            return message  # an external graph: its (redacted) URL is the user's own
        url = getattr(self.store.graph, "url", None)
        if not url:
            return message
        name = f"the embedded graph server under {self.store.home}"
        address = url.split("://", 1)[-1]
        return message.replace(url, name).replace(address, name)


# FastAPI's own HTTP spans (where it has them) would carry each request's path and query, memory
# ids included: the operation spans (`server.tracing`) stand in for them.
_NO_PATH_SPANS: dict[str, Any] = (
    {"telemetry": {"tracing": False}} if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})


def create_app(store: MemoryStore, keys: KeyRing, settings: ServerSettings | None = None) -> Any:
    """The guarded ASGI app serving `store` to the holders of `keys`."""
    settings = settings or ServerSettings()
    scheduler = ConsolidationScheduler(store, settings.consolidate_every_s)
    service = _ServedService(store, scheduler)

    def http_caller(headers: Mapping[str, str] | None, op: str, args: dict[str, Any]) -> Any:
        principal = keys.authenticate(presented_key(headers or {}))
        if principal is None:  # the guard refused it already; never act as nobody
            raise ServiceError(401, "missing or unknown API key")
        return service.call(principal, op, args)

    mcp = build_mcp(http_caller)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", host=settings.host,
                                      max_request_body_size=settings.max_body_bytes)

    metrics: ServerMetrics | None = None

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if metrics is not None:  # the backends' round trips and restarts, consolidation runs
            telemetry.watch(metrics)
        scheduler.start()
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            scheduler.stop()
            if metrics is not None:
                telemetry.unwatch(metrics)

    app = FastAPI(title="cogmem-graph", version=VERSION, lifespan=lifespan, **_NO_PATH_SPANS,
                  description="Cognitive memory for LLM agents: REST API. MCP is served at /mcp. "
                              "Every /v1 route needs `Authorization: Bearer <key>`; the key decides the identity.")
    app.state.service = service
    ready = lambda: not store.closed  # noqa: E731 - one expression, shared by the probe and the route
    rest.install(app, service, ready=ready)
    app.mount("/", mcp_app)
    bad_keys = AddressLimiter(settings.bad_key_rate, settings.bad_key_burst) if settings.bad_key_rate else None
    # The guard lets /health and /ready through at once (no key): the probes answer them first.
    guarded = Guard(_Probes(app, store), keys, max_body_bytes=settings.max_body_bytes,
                    rate_per_second=settings.rate_per_second, max_in_flight_per_key=settings.max_in_flight_per_key,
                    bad_keys=bad_keys)
    served: Any = guarded
    if settings.dashboard:
        from cogmem_graph.server.dashboard import WithDashboard, build_dashboard, loopback_only

        # The dashboard checks its own sessions (a cookie, not a bearer key) and calls the same service.
        served = WithDashboard(guarded, build_dashboard(service, keys, max_body_bytes=settings.max_body_bytes,
                                                        limiter=guarded.limiter, bad_keys=bad_keys),
                               loopback=loopback_only(settings.host))
    if not settings.metrics:
        return served
    from cogmem_graph.server.metrics import Instrumented, ServerMetrics

    # Outermost: it counts what the guard and the dashboard refuse too, and checks /metrics' own access.
    metrics = service.metrics = ServerMetrics(store, guard=guarded, bad_keys=bad_keys,
                                              counts_cache_s=settings.metrics_counts_cache_s)
    return Instrumented(served, metrics, keys, token=settings.metrics_token, bad_keys=bad_keys)


WARM_UP_QUERY = "Who met whom, and about which project?"


def warm_up(store: MemoryStore) -> None:
    """Run the read path once (multi-hop and recall, as the service runs them) for an identity
    made up here, whose only scope is new and holds nothing: the read path's modules are
    imported, its statements loaded and its first graph and vector queries made, so the first
    requests do not pay for them. A read-only principal: nothing is written, nothing kept
    (the handle is dropped with the service made for it). Before that the vector index makes
    itself ready (Qdrant Edge opens or creates every partition), so a new user's first write
    does not stop the server while its partition is made."""
    store.vectors.make_ready()
    name = f"cogmem-warm-up-{uuid.uuid4().hex}"
    principal = Principal(key_id=name, role="read", identity=AgentIdentity(agent_id=name))
    service = MemoryService(store)
    for op in ("multi_hop", "recall"):
        service.call(principal, op, {"query": WARM_UP_QUERY})
