"""The ASGI application: REST routes and the MCP endpoint (`/mcp`) behind one guard."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from cogmem_graph.server import rest
from cogmem_graph.server.guards import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_RATE_PER_SECOND,
    Guard,
    presented_key,
)
from cogmem_graph.server.keys import KeyRing
from cogmem_graph.server.mcp_tools import build_mcp
from cogmem_graph.server.scheduler import DEFAULT_INTERVAL_S, ConsolidationScheduler
from cogmem_graph.server.service import MemoryService, ServiceError

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    rate_per_second: float | None = DEFAULT_RATE_PER_SECOND
    consolidate_every_s: float = DEFAULT_INTERVAL_S


def create_app(store: MemoryStore, keys: KeyRing, settings: ServerSettings | None = None) -> Any:
    """The guarded ASGI app serving `store` to the holders of `keys`."""
    settings = settings or ServerSettings()
    scheduler = ConsolidationScheduler(store, settings.consolidate_every_s)
    service = MemoryService(store, scheduler)

    def http_caller(headers: Mapping[str, str] | None, op: str, args: dict[str, Any]) -> Any:
        principal = keys.authenticate(presented_key(headers or {}))
        if principal is None:  # the guard refused it already; never act as nobody
            raise ServiceError(401, "missing or unknown API key")
        return service.call(principal, op, args)

    mcp = build_mcp(http_caller)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", host=settings.host,
                                      max_request_body_size=settings.max_body_bytes)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        scheduler.start()
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            scheduler.stop()

    app = FastAPI(title="cogmem-graph", version="0.1.0", lifespan=lifespan,
                  description="Cognitive memory for LLM agents: REST API. MCP is served at /mcp. "
                              "Every /v1 route needs `Authorization: Bearer <key>`; the key decides the identity.")
    app.state.service = service
    rest.install(app, service, ready=lambda: not store.closed)
    app.mount("/", mcp_app)
    return Guard(app, keys, max_body_bytes=settings.max_body_bytes, rate_per_second=settings.rate_per_second)
