"""What every request passes before REST or MCP sees it: its API key (401 when missing or
unknown), the key's rate (429 with Retry-After) and the size of its body (413).

An ASGI middleware, so the MCP endpoint is guarded exactly like the REST routes. The key
is read from `Authorization: Bearer <key>` or `X-API-Key`; it is never logged.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote_plus

from cogmem_graph.operations import route_operation
from cogmem_graph.server.keys import KeyRing, Principal
from cogmem_graph.server.service import ServiceError, refuse_identity_arguments

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

OPEN_PATHS = frozenset({"/health", "/ready", "/docs", "/openapi.json", "/docs/oauth2-redirect", "/redoc"})
DEFAULT_MAX_BODY_BYTES = 1_048_576
DEFAULT_RATE_PER_SECOND = 50.0


def presented_key(headers: Any) -> str | None:
    """The key of a request's headers (a mapping with case-insensitive get, or ASGI pairs)."""
    if isinstance(headers, list):
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers}
    auth = headers.get("authorization") or headers.get("Authorization")
    if auth:
        scheme, _, token = auth.partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return headers.get("x-api-key") or headers.get("X-API-Key")


class RateLimiter:
    """A token bucket per key: `rate` requests a second on average, bursts of twice that."""

    def __init__(self, default_rate: float | None) -> None:
        self.default_rate = default_rate
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, principal: Principal) -> float:
        """0 when the request may go; else the seconds until it may."""
        rate = principal.rate_per_second or self.default_rate
        if not rate:
            return 0.0
        capacity = max(1.0, 2.0 * rate)
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(principal.key_id, (capacity, now))
            tokens = min(capacity, tokens + (now - last) * rate)
            if tokens >= 1.0:
                self._buckets[principal.key_id] = (tokens - 1.0, now)
                return 0.0
            self._buckets[principal.key_id] = (tokens, now)
            return (1.0 - tokens) / rate


async def send_error(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message, "status": status}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: key, rate, body size; the principal lands in `scope["state"]`."""

    def __init__(self, app: Callable[..., Awaitable[None]], keys: KeyRing, *,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, rate_per_second: float | None = DEFAULT_RATE_PER_SECOND) -> None:
        self.app = app
        self.keys = keys
        self.max_body_bytes = max_body_bytes
        self.limiter = RateLimiter(rate_per_second)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        principal = self.keys.authenticate(presented_key(scope["headers"]))
        if principal is None:
            await send_error(send, 401, "missing or unknown API key (send Authorization: Bearer <key>)",
                             {"WWW-Authenticate": 'Bearer realm="cogmem"'})
            return
        wait = self.limiter.check(principal)
        if wait > 0:
            await send_error(send, 429, f"rate limit of this key exceeded; retry in {wait:.2f} s",
                             {"Retry-After": str(max(1, math.ceil(wait)))})
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await send_error(send, 413, f"request body of {int(declared)} bytes is over the limit of "
                                        f"{self.max_body_bytes} bytes")
            return
        if scope["method"] in ("POST", "PUT", "PATCH"):
            body = await self._read_body(receive)
            if body is None:
                await send_error(send, 413, f"request body is over the limit of {self.max_body_bytes} bytes")
                return
            receive = _replay(body, receive)
        else:
            body = b""
        try:
            _refuse_chosen_identity(scope, body)
        except ServiceError as exc:
            await send_error(send, exc.status, exc.message)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _read_body(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _refuse_chosen_identity(scope: Scope, body: bytes) -> None:
    """403 when a REST request names an identity in its query or its JSON body (top level
    or batch items): whose memory a request reaches is the key's to say, not the request's.
    The identity fields the route's own operation declares (an owner operation's subject,
    the user an erase erases) are its arguments, not a chosen identity."""
    if not scope["path"].startswith("/v1/"):
        return
    entry = route_operation(scope["method"], scope["path"])
    allowed = entry.identity_fields if entry is not None else frozenset()
    query = scope.get("query_string", b"").decode("latin-1")
    names = {unquote_plus(part.split("=", 1)[0]) for part in query.split("&") if part}
    refuse_identity_arguments(dict.fromkeys(names), allowed)
    if not body:
        return
    try:
        data = json.loads(body)
    except ValueError:
        return  # the route answers 422 for a body that is not JSON
    if isinstance(data, dict):
        refuse_identity_arguments(data, allowed)  # its top level and its batch items


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
