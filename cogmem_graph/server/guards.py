"""What every request passes before REST or MCP sees it: its API key (401 when missing or
unknown), the key's rate and its requests in progress (429 with Retry-After) and the size of
its body (413). Missing, unknown and expired keys are counted per client address: past a
burst they get 429 instead of 401 (a valid key from that address is still served: every
local client shares 127.0.0.1, and keys of 256 random bits leave nothing to guess).

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
        self.refused = 0  # requests refused so far (`/metrics`)
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
            self.refused += 1
            return (1.0 - tokens) / rate


class AddressLimiter:
    """A token bucket per client address for requests with a missing, unknown or expired key:
    `rate` a second on average, bursts of `burst`. When many addresses are tracked, those whose
    bucket is full again are forgotten (then the oldest), so a flood of addresses cannot grow it."""

    MAX_TRACKED = 4096

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.capacity = max(1.0, float(burst))
        self.refused = 0  # requests refused so far (`/metrics`)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, address: str) -> float:
        """0 when one more bad key from `address` is answered 401; else the seconds until it is."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(address, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
            self._buckets[address] = (tokens - 1.0 if wait == 0.0 else tokens, now)
            if wait > 0.0:
                self.refused += 1
            if len(self._buckets) > self.MAX_TRACKED:
                self._forget(now)
        return wait

    def _forget(self, now: float) -> None:
        buckets = self._buckets
        for address in [a for a, (t, last) in buckets.items() if t + (now - last) * self.rate >= self.capacity]:
            del buckets[address]
        if len(buckets) > self.MAX_TRACKED:
            for address in sorted(buckets, key=lambda a: buckets[a][1])[: len(buckets) - self.MAX_TRACKED // 2]:
                del buckets[address]


class _ClientGone(Exception):  # noqa: N818 - the client went away while sending its body
    """Internal: raised and caught in this module (nobody is left to answer), so it is not under
    `CogmemError`."""


def _holds_a_stream(scope: Scope) -> bool:
    """MCP's GET stream stays open for the session, waiting for server messages; no store work."""
    return scope["method"] == "GET" and scope["path"].rstrip("/") == "/mcp"


async def send_error(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message, "status": status}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: key, rate, requests in progress, body size; the principal lands in
    `scope["state"]`. `bad_keys` limits the missing, unknown or expired keys of an address;
    `max_in_flight_per_key` the requests of one key in progress at once (None: no limit)."""

    def __init__(self, app: Callable[..., Awaitable[None]], keys: KeyRing, *,
                 max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, rate_per_second: float | None = DEFAULT_RATE_PER_SECOND,
                 max_in_flight_per_key: int | None = None, bad_keys: AddressLimiter | None = None) -> None:
        self.app = app
        self.keys = keys
        self.max_body_bytes = max_body_bytes
        self.limiter = RateLimiter(rate_per_second)
        self.max_in_flight_per_key = max_in_flight_per_key
        self.bad_keys = bad_keys
        self._in_flight: dict[str, int] = {}  # touched on the event loop only
        self.refused_in_flight = 0  # requests refused for their key's requests in progress (`/metrics`)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        principal = self.keys.authenticate(presented_key(scope["headers"]))
        if (principal is None or getattr(principal, "expired", False)) and self.bad_keys is not None:
            client = scope.get("client")
            wait = self.bad_keys.check(client[0] if client else "unknown")
            if wait > 0:
                await send_error(send, 429, "too many requests with a missing, unknown or expired API key from this "
                                            f"address; retry in {wait:.2f} s",
                                 {"Retry-After": str(max(1, math.ceil(wait)))})
                return
        if principal is None:
            await send_error(send, 401, "missing or unknown API key (send Authorization: Bearer <key>)",
                             {"WWW-Authenticate": 'Bearer realm="cogmem"'})
            return
        wait = self.limiter.check(principal)
        if wait > 0:
            await send_error(send, 429, f"rate limit of this key exceeded; retry in {wait:.2f} s",
                             {"Retry-After": str(max(1, math.ceil(wait)))})
            return
        cap = None if _holds_a_stream(scope) else self.max_in_flight_per_key
        key_id = principal.key_id
        if cap is not None:
            busy = self._in_flight.get(key_id, 0)
            if busy >= cap:
                self.refused_in_flight += 1
                await send_error(send, 429, f"this key has {busy} requests in progress, its limit; retry when one "
                                            "has finished", {"Retry-After": "1"})
                return
            self._in_flight[key_id] = busy + 1
        try:
            await self._admit(scope, receive, send, principal)
        except _ClientGone:
            return
        finally:
            if cap is not None:
                left = self._in_flight.pop(key_id, 1) - 1
                if left > 0:
                    self._in_flight[key_id] = left

    async def _admit(self, scope: Scope, receive: Receive, send: Send, principal: Principal) -> None:
        """Body size, body and the identity check, then the app."""
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
            if message["type"] == "http.disconnect":  # never pass a cut-off body on as a whole one
                raise _ClientGone
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


MAX_JSON_DEPTH = 64
"""How deeply a request body's JSON may nest (arrays and objects); far more than any argument
needs (metadata nests at most 4 objects), far less than a parser's recursion limit."""


def _refuse_chosen_identity(scope: Scope, body: bytes) -> None:
    """403 when a REST request names an identity in its query or its JSON body (top level
    or batch items): whose memory a request reaches is the key's to say, not the request's.
    The identity fields the route's own operation declares (an owner operation's subject,
    the user an erase erases) are its arguments, not a chosen identity. Query names are
    compared decoded (until no escape is left) and as `operations.identity_name` reads
    them (`USER_ID`, `user%5Fid`, `user_id[]` are `user_id`). A body nested deeper than
    `MAX_JSON_DEPTH` is refused (400) before anything recurses into it."""
    if not scope["path"].startswith("/v1/"):
        return
    entry = route_operation(scope["method"], scope["path"])
    allowed = entry.identity_fields if entry is not None else frozenset()
    query = scope.get("query_string", b"").decode("latin-1")
    names = {_decoded(part.split("=", 1)[0]) for part in query.split("&") if part}
    refuse_identity_arguments(dict.fromkeys(names), allowed)
    if not body:
        return
    try:
        data = json.loads(body)
    except RecursionError:
        raise ServiceError(400, f"body: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        return  # the route answers 422 for a body that is not JSON
    if _nested_deeper_than(data, MAX_JSON_DEPTH):
        raise ServiceError(400, f"body: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(data, dict):
        refuse_identity_arguments(data, allowed)  # its top level and its batch items


def _decoded(name: str, rounds: int = 4) -> str:
    """A query name with its escapes decoded, again while a round still changes it (bounded)."""
    for _ in range(rounds):
        decoded = unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    return name


def _nested_deeper_than(data: Any, limit: int) -> bool:
    """True when `data` nests arrays and objects more than `limit` deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items if isinstance(item, dict | list))
    return False


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
