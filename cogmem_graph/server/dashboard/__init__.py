"""The web dashboard `cogmem serve` offers at `/ui`: server-rendered pages over the same
service, roles and identities as the REST API, logged in with an API key exchanged for a
server-side session. Its stylesheet ships in the package; nothing is fetched at run time."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette

from cogmem_graph.server.dashboard.routes import Dashboard
from cogmem_graph.server.guards import AddressLimiter
from cogmem_graph.server.keys import KeyRing
from cogmem_graph.server.service import MemoryService

PREFIX = "/ui"


def build_dashboard(service: MemoryService, keys: KeyRing, *, max_body_bytes: int, rate_per_second: float | None,
                    bad_keys: AddressLimiter | None) -> Any:
    dashboard = Dashboard(service, keys, max_body_bytes=max_body_bytes, rate_per_second=rate_per_second,
                          bad_keys=bad_keys)
    app = Starlette(routes=dashboard.routes())
    app.state.dashboard = dashboard
    return app


class WithDashboard:
    """ASGI: `/ui` and below go to the dashboard (its own session check), the rest to the
    guarded API."""

    def __init__(self, api: Any, dashboard: Any) -> None:
        self.api = api
        self.dashboard = dashboard

    def __getattr__(self, name: str) -> Any:
        if name in ("api", "dashboard"):
            raise AttributeError(name)
        return getattr(self.api, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == PREFIX or path.startswith(PREFIX + "/")):
            await self.dashboard(scope, receive, send)
        else:
            await self.api(scope, receive, send)
