"""Starting the server: over HTTP (REST and MCP on one port, uvicorn) or MCP over stdio.

Stdio serves one key's identity for the host that started the process: either on a
store it opens itself (the process owns the memory home) or, with a server URL, as a
bridge to a running `cogmem serve` whose memory it then shares with every other client.
Nothing but MCP messages is written to stdout.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from cogmem_graph.server.app import ServerSettings, create_app
from cogmem_graph.server.keys import KeyRing
from cogmem_graph.server.mcp_tools import build_mcp
from cogmem_graph.server.scheduler import ConsolidationScheduler
from cogmem_graph.server.service import MemoryService, ServiceError

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore

log = logging.getLogger("cogmem.server")


def serve_http(store: MemoryStore, keys: KeyRing, settings: ServerSettings) -> None:
    """Serve until SIGINT/SIGTERM; the caller closes the store afterwards."""
    import uvicorn

    app = create_app(store, keys, settings)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="info", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=10, server_header=False)
    uvicorn.Server(config).run()


def serve_stdio_local(store: MemoryStore, keys: KeyRing, key: str | None, consolidate_every_s: float) -> None:
    """MCP over stdio on a store this process owns, as the identity of `key`."""
    principal = keys.authenticate(key)
    if principal is None:
        raise ValueError(f"the API key (COGMEM_API_KEY or --key) is missing or not in {keys.path}")
    scheduler = ConsolidationScheduler(store, consolidate_every_s)
    service = MemoryService(store, scheduler)

    def caller(_headers: Mapping[str, str] | None, op: str, args: dict[str, Any]) -> Any:
        return service.call(principal, op, args)

    scheduler.start()
    try:
        _run_stdio(caller)
    finally:
        scheduler.stop()


def serve_stdio_bridge(url: str, key: str | None) -> None:
    """MCP over stdio, every call forwarded to the server at `url` with `key`."""
    from cogmem_graph.client import connect

    remote = connect(url, key)
    remote.whoami()  # a wrong key or URL fails now, not at the model's first call

    def caller(_headers: Mapping[str, str] | None, op: str, args: dict[str, Any]) -> Any:
        return remote.call(op, args)

    try:
        _run_stdio(caller)
    finally:
        remote.close()


def _run_stdio(caller: Callable[[Mapping[str, str] | None, str, dict[str, Any]], Any]) -> None:
    import anyio

    anyio.run(build_mcp(caller).run_stdio_async)


__all__ = ["ServerSettings", "ServiceError", "serve_http", "serve_stdio_bridge", "serve_stdio_local"]
