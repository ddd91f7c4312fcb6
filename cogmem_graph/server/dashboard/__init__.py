"""The web dashboard `cogmem serve` offers at `/ui`: server-rendered pages over the same
service, roles and identities as the REST API, logged in with an API key exchanged for a
server-side session. Its stylesheet, and the NVL bundle that draws a memory's graph (the one
page with a script, allowed by a per-response nonce), ship in the package; nothing is
fetched at run time."""

from __future__ import annotations

import ipaddress
from typing import Any

from starlette.applications import Starlette

from cogmem_graph.server.dashboard.routes import Dashboard
from cogmem_graph.server.guards import AddressLimiter, RateLimiter, send_error
from cogmem_graph.server.keys import KeyRing
from cogmem_graph.server.service import MemoryService

PREFIX = "/ui"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})


def loopback_only(host: str) -> bool:
    """True when the server listens on a loopback address: then the dashboard answers only
    requests naming a loopback host (a page of another site whose name was made to resolve
    to 127.0.0.1 gets nothing)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(headers: list[tuple[bytes, bytes]]) -> str:
    host = dict(headers).get(b"host", b"").decode("latin-1").lower()
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host


def build_dashboard(service: MemoryService, keys: KeyRing, *, max_body_bytes: int, limiter: RateLimiter,
                    bad_keys: AddressLimiter | None) -> Any:
    dashboard = Dashboard(service, keys, max_body_bytes=max_body_bytes, limiter=limiter, bad_keys=bad_keys)
    app = Starlette(routes=dashboard.routes())
    app.state.dashboard = dashboard
    return app


class WithDashboard:
    """ASGI: `/ui` and below go to the dashboard (its own session check), the rest to the
    guarded API."""

    def __init__(self, api: Any, dashboard: Any, *, loopback: bool) -> None:
        self.api = api
        self.dashboard = dashboard
        self.loopback = loopback

    def __getattr__(self, name: str) -> Any:
        if name in ("api", "dashboard"):
            raise AttributeError(name)
        return getattr(self.api, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == PREFIX or path.startswith(PREFIX + "/")):
            if self.loopback and host_name(scope["headers"]) not in LOOPBACK_NAMES:
                await send_error(send, 403, "the dashboard of a server on a loopback address answers loopback "
                                            "host names only")
                return
            await self.dashboard(scope, receive, send)
        else:
            await self.api(scope, receive, send)
