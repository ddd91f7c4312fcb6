"""Starting the server: over HTTP (REST and MCP on one port, uvicorn) or MCP over stdio.

Over HTTP the port is bound before the store opens (`bind`), so a busy port fails at
once. Uvicorn serves the app with a bounded connection (`bounded_protocol`): a request's
line and headers must arrive within `header_timeout_s` of the connection opening or of the
previous response, its body within `body_timeout_s` of its headers, an idle kept-alive
connection closes after `keep_alive_s`, and no more than `max_connections` are open at
once (fewer when the file-descriptor limit leaves no room for them beside the store's
own files): a new connection past the cap closes the one that has waited longest for a
request, or is answered 503 when every open connection has a request in progress.

`serve_http` returns when a signal stopped the server; it raises `ServingFailed` when the
server stopped serving for another reason (the store was closed under it, the event loop
failed), so the command exits non-zero instead of staying alive without serving.

Stdio serves one key's identity for the host that started the process: either on a
store it opens itself (the process owns the memory home) or, with a server URL, as a
bridge to a running `cogmem serve` whose memory it then shares with every other client.
Nothing but MCP messages is written to stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from cogmem_graph.errors import InvalidArgument, ServerStartError, ServingFailed

# The app, MCP and the service are imported where they are used: `bind` runs before them, so a
# busy port is reported before seconds of imports (and before the store opens).
if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.server.app import ServerSettings
    from cogmem_graph.server.keys import KeyRing

log = logging.getLogger("cogmem.server")

SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while serving (Python's default: 5 ms)."""

MIN_CONNECTIONS = 16
"""Fewer connections than this left by the file-descriptor limit: the server refuses to start."""


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""One line a record, then a traceback as Python prints it: whole, whatever the log's width."""


def configure_log(level: int = logging.INFO) -> None:
    """The server's log on stderr, plain. Without it the MCP SDK sets up the root logger with
    its own pretty handler, which boxes a traceback into 80 columns and cuts off the lines
    that say what failed. A process that configured its own logging keeps it."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)


def bind(host: str, port: int, backlog: int = socket.SOMAXCONN) -> list[socket.socket]:
    """Listening sockets for `host`:`port` (each address `host` resolves to), or
    ServerStartError naming the port when one cannot be bound. (Serving sets the queue
    length to `ServerSettings.backlog`.)"""
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    try:
        addresses = dict.fromkeys(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE))
    except socket.gaierror as exc:
        raise ServerStartError(f"cannot listen on {where}: {exc.strerror} (--host)") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in addresses:
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not past a live listener: Linux refuses that
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServerStartError(f"port {port} is already in use on {host} (another `cogmem serve`, or another "
                                   f"program, listens on {where}): stop it or choose another --port") from None
        raise ServerStartError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    return sockets


def connection_cap(settings: ServerSettings) -> int:
    """How many connections may be open at once: `settings.max_connections`, fewer when the
    process's file-descriptor limit leaves no room for them beside `reserved_fds` (the soft
    limit is raised toward the hard one first)."""
    try:
        import resource
    except ImportError:  # not a Unix: no limit to read
        return settings.max_connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = settings.max_connections + settings.reserved_fds
    if soft != resource.RLIM_INFINITY and soft < wanted and (hard == resource.RLIM_INFINITY or hard > soft):
        raised = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY:
        return settings.max_connections
    cap = min(settings.max_connections, soft - settings.reserved_fds)
    if cap < MIN_CONNECTIONS:
        raise ServerStartError(f"the file-descriptor limit of this process ({soft}, `ulimit -n`) leaves room for "
                               f"{max(cap, 0)} connections beside the {settings.reserved_fds} kept for the store; "
                               f"raise it to at least {settings.reserved_fds + MIN_CONNECTIONS}")
    if cap < settings.max_connections:
        log.warning("at most %d connections at once (not %d): the file-descriptor limit is %d and %d are kept for "
                    "the store; raise it with `ulimit -n`", cap, settings.max_connections, soft,
                    settings.reserved_fds)
    return cap


def _refusal(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message, "status": status}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\nretry-after: 1\r\n\r\n")
    return head.encode() + body


def bounded_protocol(settings: ServerSettings, max_connections: int) -> type[asyncio.Protocol]:
    """Uvicorn's h11 protocol with the request-phase timeouts and the connection cap."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    full = _refusal(503, "Service Unavailable", f"the server has {max_connections} connections open, each with a "
                                                "request in progress; retry shortly")

    class BoundedH11Protocol(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _phase = ""  # "request": waiting for a request's line and headers; "body": for its body; "": neither
        _since = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as H11Protocol's
            super().connection_made(transport)
            self._follow()
            if len(self.connections) > max_connections:
                self._make_room()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self._set_phase("")
            super().connection_lost(exc)

        def _follow(self) -> None:
            """Start the timer of the phase the connection is in (what the client owes us)."""
            state = self.conn.their_state
            if self.transport.is_closing():
                self._set_phase("")
            elif state is h11.IDLE:
                self._set_phase("request")
            elif state is h11.SEND_BODY:
                self._set_phase("body")
            else:  # the request is in: the app works on it, however long that takes
                self._set_phase("")

        def _set_phase(self, phase: str) -> None:
            if phase == self._phase:
                return
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._phase, self._since = phase, self.loop.time()
            if phase:
                timeout = settings.header_timeout_s if phase == "request" else settings.body_timeout_s
                self._timer = self.loop.call_later(timeout, self._expired)

        def _expired(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                self.transport.abort()  # at once: its file descriptor is what a flood of them would use up

        def _make_room(self) -> None:
            """Past the cap: close the connections that have waited longest for a request
            (idle ones included), or refuse this one when every other has a request in progress."""
            open_now = [c for c in self.connections if not c.transport.is_closing()]
            excess = len(open_now) - max_connections
            if excess <= 0:
                return
            waiting = sorted((c for c in open_now
                              if c is not self and isinstance(c, BoundedH11Protocol) and c._phase == "request"),
                             key=lambda c: c._since)
            for victim in waiting[:excess]:
                victim._set_phase("")
                victim.transport.abort()
            if len(waiting) < excess:
                self._set_phase("")
                self.transport.write(full)
                self.transport.close()

    return BoundedH11Protocol


def _loop_exception(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's error handler, which never raises: logging the error can itself fail
    (out of file descriptors, a handler importing a module to format a traceback), and an
    exception from here would stop the loop, and the server with it."""
    try:
        loop.default_exception_handler(context)
    except Exception:
        with contextlib.suppress(Exception):
            os.write(2, f"cogmem serve: {context.get('message') or 'error in the event loop'}\n".encode())


def serve_http(store: MemoryStore, keys: KeyRing, settings: ServerSettings,
               sockets: list[socket.socket] | None = None) -> None:
    """Serve until SIGINT/SIGTERM (on `sockets`, else on a port bound here); the caller closes
    the store afterwards. ServerStartError when it could not start; ServingFailed when it
    stopped serving for another reason."""
    import uvicorn

    from cogmem_graph.server.app import create_app

    if sockets is None:
        sockets = bind(settings.host, settings.port, settings.backlog)
    cap = connection_cap(settings)
    # The event loop answers /health and refuses what is over a key's limit while the request
    # workers run store calls: a thread asking for the interpreter waits up to a switch interval
    # for each one ahead of it. This process is the server's own, so its interval is shortened.
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    class Server(uvicorn.Server):
        failure: str | None = None

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(_loop_exception)
            await super().startup(sockets=sockets)

        async def on_tick(self, counter: int) -> bool:
            if self.failure is None and store.closed:
                self.failure = "the memory store was closed while the server was running"
                log.error("%s; the server stops", self.failure)
                self.should_exit = True
            return await super().on_tick(counter)

        def handle_exit(self, sig: int, frame: Any) -> None:
            super().handle_exit(sig, frame)
            self._captured_signals.clear()  # the command closes the store and exits 0; no signal raised again

    app = create_app(store, keys, settings)
    _warm_up(store)
    # proxy_headers off: uvicorn would take X-Forwarded-For from any local client as its address,
    # and a client could then pick a new one for each bad key it sends.
    config = uvicorn.Config(
        app, log_level="info", access_log=False, lifespan="on", server_header=False, ws="none",
        proxy_headers=False, http=bounded_protocol(settings, cap), backlog=settings.backlog,
        timeout_keep_alive=settings.keep_alive_s,  # type: ignore[arg-type]  # a float works
        timeout_graceful_shutdown=settings.graceful_shutdown_s)  # type: ignore[arg-type]  # a float works
    server = Server(config)
    try:
        server.run(sockets=sockets)
    except (Exception, SystemExit) as exc:
        if not server.started:
            raise ServerStartError(f"the server did not start: {_reason(exc)}") from None
        raise ServingFailed(f"the server stopped serving: {_reason(exc)}") from None
    finally:
        for sock in sockets:
            sock.close()
    if server.failure is not None:
        raise ServingFailed(f"{server.failure}; the server stopped")


def _warm_up(store: MemoryStore) -> None:
    """The read path's first run, before the server answers anything (`/ready` included): a
    failure is logged, not fatal (`/ready` says whether the store can serve)."""
    import time

    from cogmem_graph.server.app import warm_up

    started = time.monotonic()
    try:
        warm_up(store)
    except Exception as exc:
        log.warning("warming the read path failed (%s); serving anyway", _reason(exc))
    else:
        log.debug("read path warmed in %.0f ms", (time.monotonic() - started) * 1000)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return "see the log above"
    return f"{type(exc).__name__}: {exc}"


def exit_within(code: int, seconds: float) -> None:
    """Make sure the process ends with `code` within `seconds`: a thread left behind by a
    failed server (a worker of a pool the event loop never stopped) would keep it alive,
    without serving, at interpreter exit. A daemon timer: a process that ends first ends it too."""

    def end() -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)

    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()


def serve_stdio_local(store: MemoryStore, keys: KeyRing, key: str | None, consolidate_every_s: float) -> None:
    """MCP over stdio on a store this process owns, as the identity of `key`."""
    from cogmem_graph.server.scheduler import ConsolidationScheduler
    from cogmem_graph.server.service import MemoryService

    principal = keys.authenticate(key)
    if principal is None:
        raise InvalidArgument(f"the API key (COGMEM_API_KEY or --key) is missing or not in {keys.path}", argument="key")
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

    from cogmem_graph.server.mcp_tools import build_mcp

    anyio.run(build_mcp(caller).run_stdio_async)


__all__ = ["ServerStartError", "ServingFailed", "bind", "exit_within", "serve_http", "serve_stdio_bridge",
           "serve_stdio_local"]
