"""FalkorDB adapter: the embedded default (a server the library starts) or an external URL.

Uses the native `falkordb` client (FalkorDB's Bolt endpoint is experimental).
Facts of the engine this adapter respects:
- index creation is not idempotent ("already indexed" is success here);
- a unique constraint needs its exact-match index first and is created through
  the GRAPH.CONSTRAINT command, whose arguments come only from our enums;
- one query must not MERGE the same relationship twice (the server crashes),
  so batches are deduplicated by the shared layer before they are sent.

The embedded server is started again when it dies (graph/falkordb/launcher.py `revive`: same data,
new port and password); the store then reconnects its client and its write lane. A statement
meeting a server already dead starts it first; one that the server died under is handled by
the shared retry logic (graph/cypher_store/execution.py `_run_text`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import redis
import redis.asyncio
import redis.asyncio.retry
from falkordb import FalkorDB
from falkordb.asyncio import FalkorDB as AsyncFalkorDB
from falkordb.query_result import QueryResult
from redis.backoff import NoBackoff
from redis.retry import Retry

from cogmem_graph import aio_bridge, telemetry
from cogmem_graph.clock import Clock
from cogmem_graph.config.graph import FALKOR_SCHEMES, FALKOR_TLS_SCHEMES, GraphConfig
from cogmem_graph.errors import (
    EmbeddedServerError,
    GraphQueryError,
    GraphStoreUnavailable,
    InvalidArgument,
    UnconfirmedWriteFailed,
)
from cogmem_graph.graph.cypher_store.graph_store import CypherGraphStore
from cogmem_graph.graph.falkordb.launcher import (
    EmbeddedFalkorDB,
    acquire_embedded,
    release_embedded,
)
from cogmem_graph.graph.falkordb.wire import params_header, read_compact
from cogmem_graph.graph.falkordb.write_lane import close_lane, open_lane
from cogmem_graph.graph.fulltext import redisearch_query
from cogmem_graph.model import NodeLabel
from cogmem_graph.redact import redact_url

log = logging.getLogger(__name__)

PING_TIMEOUT_S = 2.0
"""How long `ping` waits to connect and for the answer (a readiness probe's check)."""
EMBEDDED_RECONNECTS = 1
"""The embedded server's client reconnects once, at once (an idle connection dropped); the
shared retries do the rest. A refused connection on 127.0.0.1 means the server died: redis-py's
own default (ten retries backing off to 10 s) would only hide that for seconds."""

ASYNCIO_CLIENT_NAME = "cogmem-asyncio"
"""The name FalkorDB's asyncio client gives its connections (`CLIENT LIST` on the server shows which
connections the async store's calls run on)."""

_UNIQUE_KEYS: tuple[tuple[NodeLabel, str], ...] = (
    (NodeLabel.TRACE, "id"),
    (NodeLabel.ENTITY, "key"),
    (NodeLabel.SCHEMA, "id"),
)


def _plain(value: Any) -> Any:
    """OrderedDicts and nested lists from the client into plain Python values. Scalars are
    checked first with exact types: this runs for every value of every loaded trace."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _reply_arrived(connection: Any) -> bool:
    """Whether a reply (or the connection's end) waits on `connection`, so reading it will not
    wait for the server."""
    try:
        return bool(connection.can_read(timeout=0))
    except Exception:  # a connection in trouble: reading it on a thread says how
        return False


def _consume_exception(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()


def _discard_unread(pool: Any, connection: Any, state: dict[str, Any]) -> None:
    if not state["read"]:
        connection.disconnect()
        pool.release(connection)


class FalkorGraphStore(CypherGraphStore):
    dialect = "falkordb"
    native_async = True
    """Inside a bridged call (`aio_bridge`), statements go through FalkorDB's asyncio client."""

    def __init__(
        self,
        *,
        url: str | None = None,
        data_dir: Path | None = None,
        config: GraphConfig | None = None,
        clock: Clock | None = None,
    ) -> None:
        """Either `url` (external server: falkor://host:port, redis://host:port, or over TLS
        rediss://host:port, falkors://host:port) or `data_dir` (embedded server started and
        owned by this process)."""
        super().__init__(config, clock)
        if (url is None) == (data_dir is None):
            raise InvalidArgument("FalkorGraphStore needs exactly one of url= or data_dir=", argument="url")
        self._server: EmbeddedFalkorDB | None = None
        self._external: tuple[str, int, str | None, bool] | None = None
        if data_dir is not None:
            self._server = acquire_embedded(
                Path(data_dir),
                appendfsync=self.config.appendfsync,
                startup_timeout_s=self.config.startup_timeout_s,
                load_timeout_s=self.config.load_timeout_s,
                aof_rewrite_min_mb=self.config.aof_rewrite_min_mb,
            )
            self.url = self._server.url
        elif url is not None:  # always, by the check above
            parsed = urlparse(url)
            scheme = parsed.scheme.lower()
            if scheme not in FALKOR_SCHEMES:
                raise InvalidArgument(f"graph url scheme must be falkor://, redis://, or rediss:// / falkors:// "
                                      f"for TLS; got {redact_url(url)!r}", argument="url")
            host, port = parsed.hostname or "127.0.0.1", parsed.port or 6379
            password = parsed.password or (
                self.config.falkor_password.get_secret_value() if self.config.falkor_password else None
            )
            self._external = (host, port, password, scheme in FALKOR_TLS_SCHEMES)
            self.url = f"{scheme}://{host}:{port}"
        self._closed = False
        self._lane_open = False
        self._generation = -1
        self._reconnect_lock = threading.Lock()
        self._pinger: tuple[int, redis.Redis] | None = None
        self._natives: dict[asyncio.AbstractEventLoop, tuple[int, AsyncFalkorDB | None, asyncio.Future]] = {}
        """FalkorDB's asyncio client per event loop (its connections belong to one): the server
        generation it was built for, the client (None while it is built) and its building."""
        try:
            self._connect()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            self._release_lane()
            self._release_server()
            raise GraphStoreUnavailable(
                f"falkordb graph at {self.url} is unreachable ({exc}). {self._start_hint()}", url=self.url
            ) from exc
        self._check_reachable()

    def _endpoint(self) -> tuple[str, int, str | None, bool]:
        """(host, port, password, tls) of the server as it runs now."""
        if self._server is not None:
            # The embedded server requires the password it was started with (graph/falkordb/launcher.py).
            return "127.0.0.1", self._server.port, self._server.password, False
        assert self._external is not None
        return self._external

    def _connect(self) -> None:
        """Build the client of the server where it runs now, and take its write lane: at
        opening, and again after the embedded server was started again on a new port."""
        generation = self._server.generation if self._server is not None else 0
        host, port, password, tls = self._endpoint()
        # The client probes the server (cluster/sentinel detection) as it is built. TLS
        # verifies the server against the system's CAs (or SSL_CERT_FILE).
        db = FalkorDB(
            host=host,
            port=port,
            password=password,
            ssl=tls,
            socket_connect_timeout=2.0,
            socket_timeout=self.config.query_timeout_ms / 1000 + 5,
            retry=Retry(NoBackoff(), EMBEDDED_RECONNECTS) if self._server is not None else None,
        )
        url = f"falkor://{host}:{port}" if self._server is not None else self.url  # the launcher's form
        self.url = url
        self._lane = open_lane(url, self.config.graph_name)
        self._lane_open = True
        self._db = db
        self._graph = db.select_graph(self.config.graph_name)
        self._generation = generation

    def __repr__(self) -> str:
        return f"FalkorGraphStore(url={self.url!r}, graph={self.config.graph_name!r})"

    @property
    def embedded_server(self) -> EmbeddedFalkorDB | None:
        return self._server

    def _check_reachable(self) -> None:
        """Fail fast with the URL if the server is not there; the write form of the
        ping also creates the graph key, so read-only queries on a new graph work."""
        try:
            self.run("ping", write=True)
        except GraphStoreUnavailable:
            self.close()
            raise

    def _start_hint(self) -> str:
        if self._server is not None:
            return (f"The embedded graph server under {self._server.data_dir} does not answer; see its log "
                    f"{self._server.data_dir / 'server.log'}, or reopen the store.")
        return (
            "Start FalkorDB (e.g. `docker run -p 6379:6379 falkordb/falkordb`) or open the store "
            "without a graph URL to use the embedded default."
        )

    # ------------------------------------------------------------ engine hooks

    def _check_open(self) -> None:
        """Refuse a closed store, and follow the embedded server to where it runs now. A dead
        server is started again only before a statement (`_before_statement`) or after its
        faults (`_recover`), never between a statement's retries."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        # A server gone again before the store reconnected: the statement meets it and says so.
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
            self._follow_server(restart=False)

    # ------------------------------------------------------------ the embedded server dies

    def _follow_server(self, *, restart: bool) -> None:
        """Talk to the embedded server where it runs now: with `restart`, start it again first
        if it died (bounded, graph/falkordb/launcher.py `revive`; EmbeddedServerError when it cannot), and
        reconnect if it was started again (by this store or another one on the same home)."""
        server = self._server
        if server is None:
            return
        if restart and server.exited():
            try:
                server.revive(self._generation)
            except EmbeddedServerError as exc:
                raise EmbeddedServerError(str(exc), url=self.url, retry_after_s=exc.retry_after_s) from exc
        if server.generation != self._generation:
            self._reconnect()

    def _reconnect(self) -> None:
        server = self._server
        assert server is not None
        with self._reconnect_lock:
            if self._closed or server.generation == self._generation:
                return
            old_url, old_db, old_lane = self.url, self._db, self._lane
            self._connect()  # raises a connection error (transient) if the new server is gone too
            close_lane(old_url, self.config.graph_name)
            with contextlib.suppress(Exception):
                old_db.connection.close()
            log.info("reconnected to the embedded graph under %s (generation %d)", server.data_dir, self._generation)
        # A write left unconfirmed on the dead server: its reply is lost, which is logged (it may or
        # may not be in the log the new server replayed); a rejection is raised as for any statement.
        old_lane.confirm()

    def _before_statement(self) -> None:
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        server = self._server
        if aio_bridge.active() and (server is None or (not server.exited() and server.generation == self._generation)):
            return  # nothing to follow; starting a server again takes seconds, so it is done on a thread
        aio_bridge.wait_on_thread(self._follow_quietly)

    def _follow_quietly(self) -> None:
        with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):  # as in `_check_open`
            self._follow_server(restart=True)

    def _server_token(self) -> Any:
        server = self._server
        if server is None:
            return None
        return None if server.exited() else server.generation

    def _recover(self, exc: BaseException, server: Any) -> bool:
        if self._server is None or self._closed:
            return False
        if aio_bridge.active():  # may start the server again: seconds, on a thread
            return aio_bridge.wait_on_thread(self._recover, exc, server)
        try:
            self._follow_server(restart=True)
        except (redis.ConnectionError, redis.TimeoutError):
            return False  # started again but gone before the store reconnected: unreachable, as is
        return self._server_token() != server

    def ping(self) -> None:
        """Whether the server answers a graph query now, within PING_TIMEOUT_S (no retries, and
        not behind the write lane). Raises GraphStoreUnavailable naming the URL. An embedded
        server found dead is started again on a thread of its own (`revive_soon`): the ping
        says so and does not wait for it."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        server = self._server
        if server is not None and server.exited():
            status = server.exit_status()
            blocked = server.revive_soon()
            failed = f" (the last try failed: {server.last_revive_error})" if server.last_revive_error else ""
            raise GraphStoreUnavailable(
                blocked or f"the embedded graph server under {server.data_dir} stopped ({status}); it is being "
                           f"started again{failed}", url=self.url)
        if server is not None and server.restarting():
            raise GraphStoreUnavailable(f"the embedded graph server under {server.data_dir} is being started again",
                                        url=self.url)
        # The embedded server is named by its folder: its port changes at each start.
        what = f"the embedded graph server under {server.data_dir}" if server else f"falkordb graph at {self.url}"
        pinger = self._ping_client()
        try:
            pinger.execute_command("GRAPH.RO_QUERY", self.config.graph_name, self.cypher.get("ping"),
                                   "timeout", int(PING_TIMEOUT_S * 1000))
        except redis.ResponseError as exc:
            if "empty key" in str(exc):  # the graph holds nothing yet: the server answered
                return
            raise GraphStoreUnavailable(f"{what} refused a ping: {exc}", url=self.url) from exc
        except (redis.RedisError, OSError) as exc:
            if server is not None and server.exited():
                server.revive_soon()
            raise GraphStoreUnavailable(
                f"{what} did not answer a ping within {PING_TIMEOUT_S:.0f} s ({type(exc).__name__}: {exc}). "
                f"{self._start_hint()}", url=self.url) from exc

    def _ping_client(self) -> redis.Redis:
        """A client of its own for `ping`: short timeouts, no retries, built again when the
        embedded server was started again elsewhere."""
        generation = self._server.generation if self._server is not None else 0
        current = self._pinger
        if current is not None and current[0] == generation:
            return current[1]
        host, port, password, tls = self._endpoint()
        client = redis.Redis(host=host, port=port, password=password, ssl=tls, socket_connect_timeout=PING_TIMEOUT_S,
                             socket_timeout=PING_TIMEOUT_S, retry=Retry(NoBackoff(), 0))
        self._pinger = (generation, client)
        if current is not None:
            with contextlib.suppress(Exception):
                current[1].close()
        return client

    def _rows(self, response: list) -> list[dict[str, Any]]:
        """A reply as rows: `read_compact` (plain values in one pass), or the client's parser
        for graph objects. Raises redis.ResponseError for an error reply or element."""
        rows = read_compact(response)
        if rows is not None:
            return rows
        result = QueryResult(self._graph, response)
        header = [column[1] for column in (result.header or [])]
        return [dict(zip(header, (_plain(v) for v in row), strict=True)) for row in result.result_set]

    def _run(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        if aio_bridge.active():
            return self._run_native(text, params, write=write)
        self._check_open()
        command = self._command(text, params, write=write)
        lane = self._lane
        try:
            if write:
                # FalkorDB runs writes to a graph one at a time anyway; serialising them here
                # also stops concurrent MERGEs of a brand-new relationship type from
                # creating parallel duplicate edges.
                with lane.lock:
                    lane.confirm()
                    response = self._graph.execute_command(*command)
            else:
                lane.confirm()
                response = self._graph.execute_command(*command)
            return self._rows(response)
        except redis.ResponseError as exc:
            raise GraphQueryError(f"FalkorDB rejected a statement: {exc}") from exc

    # ------------------------------------------------------------ inside a bridged call

    def _run_native(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """`_run` through FalkorDB's asyncio client: the event loop waits for the reply, not a
        thread. Writes keep to the process's write lane, as the sync path's do."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        command = self._command(text, params, write=write)
        lane = self._lane
        client = self._native_client()
        try:
            if not write:
                self._confirm_off_loop(lane)
                return self._native_rows(aio_bridge.await_only(client.execute_command(*command)))
            aio_bridge.acquire(lane.lock)
            try:
                self._confirm_off_loop(lane)
                response = aio_bridge.await_only(client.execute_command(*command))
            finally:
                lane.lock.release()
            return self._native_rows(response)
        except redis.ResponseError as exc:
            raise GraphQueryError(f"FalkorDB rejected a statement: {exc}") from exc

    def _confirm_off_loop(self, lane: Any) -> None:
        """Confirm a write left unconfirmed, reading its reply once it has arrived (the loop goes
        on meanwhile). A reply that has not come within the query timeout is waited for on a
        thread, where the connection's own timeout ends the wait."""
        if lane.has_unconfirmed() and not aio_bridge.poll_until(lane.confirm_if_arrived,
                                                                self.config.query_timeout_ms / 1000):
            aio_bridge.wait_on_thread(lane.confirm)

    def _native_rows(self, response: list) -> list[dict[str, Any]]:
        rows = read_compact(response)
        if rows is not None:
            return rows
        return aio_bridge.blocking(self._rows, response)  # graph objects: the client's parser asks the server

    def _native_client(self) -> AsyncFalkorDB:
        """This loop's asyncio client of the server as it runs now. It is built on a thread (the
        client probes the server as it is built), once: the calls that ask meanwhile wait for it."""
        loop = asyncio.get_running_loop()
        known = self._natives.get(loop)
        if known is not None and known[0] == self._generation:
            return known[1] if known[1] is not None else aio_bridge.await_only(known[2])
        host, port, password, tls = self._endpoint()
        generation = self._generation
        building = loop.run_in_executor(None, functools.partial(
            self._build_native, host, port, password, tls))
        self._natives[loop] = (generation, None, building)
        if known is not None and known[1] is not None:  # the server was started again: its connections are dead
            loop.create_task(known[1].connection.aclose())
        try:
            client = aio_bridge.await_only(building)
        except BaseException:
            if self._natives.get(loop, (None, None, None))[2] is building:
                del self._natives[loop]
            raise
        if self._natives.get(loop, (None, None, None))[2] is building:
            self._natives[loop] = (generation, client, building)
        return client

    def _build_native(self, host: str, port: int, password: str | None, tls: bool) -> AsyncFalkorDB:
        client = AsyncFalkorDB(host=host, port=port, password=password, ssl=tls, socket_connect_timeout=2.0,
                               socket_timeout=self.config.query_timeout_ms / 1000 + 5,
                               client_name=ASYNCIO_CLIENT_NAME)
        if self._server is not None:  # set after the client's sync probe, which would take it for its own
            client.connection.connection_pool.connection_kwargs["retry"] = redis.asyncio.retry.Retry(
                NoBackoff(), EMBEDDED_RECONNECTS)
        return client

    async def aclose_native(self) -> None:
        """Close the running loop's asyncio client (`AsyncMemoryStore.close` awaits this)."""
        known = self._natives.pop(asyncio.get_running_loop(), None)
        if known is not None and known[1] is not None:
            with contextlib.suppress(Exception):
                await known[1].connection.aclose()

    def _send_native_unconfirmed(self, text: str, params: dict[str, Any], name: str) -> None:
        """`_run_unconfirmed` inside a bridged call: sent on a connection of the sync client, as the
        sync path sends it (a send does not wait for the server), so that whichever statement
        comes next, on the loop or on any thread, can read its reply without the loop's help."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        command = self._command(text, params, write=True)
        lane = self._lane
        pool = self._db.connection.connection_pool
        aio_bridge.acquire(lane.lock)
        try:
            self._confirm_off_loop(lane)
            connection = self._send(pool, command)
            if connection is not None:
                lane.leave_unconfirmed(lambda: self._confirm(pool, connection, name),
                                       arrived=lambda: _reply_arrived(connection))
        finally:
            lane.lock.release()
        if connection is None:  # a transient fault on sending: the ordinary way, with retries
            self._run_text(text, params, write=True, name=name)

    def _read_later_native(self, text: str, params: dict[str, Any], *,
                           name: str) -> Callable[[], list[dict[str, Any]]]:
        """`_read_later` inside a bridged call: the read runs as a task on the loop while the
        caller sends others or computes."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        self._confirm_off_loop(self._lane)
        command = self._command(text, params, write=False)
        started = telemetry.now()
        task = asyncio.get_running_loop().create_task(self._native_client().execute_command(*command))
        task.add_done_callback(_consume_exception)  # a reply nobody reads must not warn

        def read() -> list[dict[str, Any]]:
            try:
                response = aio_bridge.await_only(task)
                telemetry.graph_statement("pipelined_read", started)
                return self._native_rows(response)
            except redis.ResponseError as exc:
                raise GraphQueryError(f"FalkorDB rejected {name}: {exc}") from exc
            except Exception as exc:
                if not self._is_transient(exc):
                    raise
                return self._run_text(text, params, write=False, name=name)  # a read can simply run again
        return read

    def _command(self, text: str, params: dict[str, Any], *, write: bool) -> list[Any]:
        """The command the client's query()/ro_query() would send; the reply is read by
        `read_compact` (plain values in one pass), or by the client for graph objects."""
        return ["GRAPH.QUERY" if write else "GRAPH.RO_QUERY", self._graph.name,
                params_header(params) + text, "--compact", "timeout", self.config.query_timeout_ms]

    def _run_unconfirmed(self, text: str, params: dict[str, Any], *, name: str) -> None:
        """Send a write and return before the server has applied it (graph/falkordb/write_lane.py):
        the next statement through the lane reads its reply first and raises if it failed.
        Inside a bridged call too (`_send_native_unconfirmed`)."""
        if aio_bridge.active():
            self._send_native_unconfirmed(text, params, name)
        elif not self._send_unconfirmed(text, params, lambda pool, conn: self._confirm(pool, conn, name)):
            self._run_text(text, params, write=True, name=name)

    def _send_unconfirmed(self, text: str, params: dict[str, Any],
                          confirm: Callable[[Any, Any], None]) -> bool:
        """Send a write through the lane and leave `confirm(pool, connection)` to read its
        reply, which the lane's next statement calls first. False after a transient fault
        on sending: the caller then runs the write the ordinary way."""
        self._check_open()
        command = self._command(text, params, write=True)
        lane = self._lane
        pool = self._db.connection.connection_pool
        with lane.lock:
            lane.confirm()
            connection = self._send(pool, command)
            if connection is not None:
                lane.leave_unconfirmed(lambda: confirm(pool, connection), arrived=lambda: _reply_arrived(connection))
        return connection is not None

    def _send(self, pool: Any, command: list[Any]) -> Any:
        """A pooled connection the command was sent on, or None after a transient fault (the
        caller then runs the statement the ordinary way: retries, then an error naming the URL)."""
        connection = None
        try:
            connection = pool.get_connection()
            connection.send_command(*command)
            return connection
        except Exception as exc:
            if connection is not None:
                connection.disconnect()
                pool.release(connection)
            if not self._is_transient(exc):
                raise
            return None

    def confirm_writes(self) -> None:
        self._lane.confirm()

    def _read_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        """Send a read on a connection of its own and return what reads its reply: the
        server answers it while the caller sends others or computes (no thread, so no
        wait for the interpreter lock when the reply arrives)."""
        if aio_bridge.active():
            return self._read_later_native(text, params, name=name)
        self._check_open()
        self._lane.confirm()
        command = self._command(text, params, write=False)
        pool = self._db.connection.connection_pool
        started = telemetry.now()
        connection = self._send(pool, command)
        if connection is None:
            rows = self._run_text(text, params, write=False, name=name)  # the ordinary way, with retries
            return lambda: rows
        state: dict[str, Any] = {"read": False}

        def read() -> list[dict[str, Any]]:
            if not state["read"]:
                state["read"] = True
                try:
                    state["rows"] = self._read_reply(pool, connection, text, params, name)
                finally:  # from the send to the rows taken: the caller's work in between included
                    telemetry.graph_statement("pipelined_read", started)
            return state["rows"]
        # A reply nobody reads (the caller failed in between) must not hold its connection.
        weakref.finalize(read, _discard_unread, pool, connection, state)
        return read

    def _write_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        """Send an idempotent write through the lane and leave it unconfirmed: the engine
        applies it while the caller computes, and every later statement through the lane
        reads its reply first. Its outcome is kept for the caller, whose call of the result
        raises what the write raised; a write whose connection dropped is run again then
        (retried, as any statement is: it is idempotent). Inside a bridged call it runs now,
        awaited by the loop."""
        if aio_bridge.active():
            rows = self._run_text(text, params, write=True, name=name)
            return lambda: rows
        outcome: dict[str, Any] = {}

        def settle(pool: Any, connection: Any) -> None:  # whichever statement confirms it; never raises there
            try:
                outcome["rows"] = self._take_reply(pool, connection, name)
            except Exception as exc:
                outcome["dropped" if self._is_transient(exc) else "error"] = exc

        if not self._send_unconfirmed(text, params, settle):
            rows = self._run_text(text, params, write=True, name=name)  # the ordinary way, with retries
            return lambda: rows
        lane = self._lane

        def result() -> list[dict[str, Any]]:
            if not outcome:
                lane.confirm()  # reads this write's reply unless a later statement already did
            if "dropped" in outcome:
                outcome.clear()
                outcome["rows"] = self._run_text(text, params, write=True, name=name)
            if "error" in outcome:
                raise outcome["error"]
            return outcome["rows"]
        return result

    def _take_reply(self, pool: Any, connection: Any, name: str) -> list[dict[str, Any]]:
        """The rows of the reply waiting on `connection`, which goes back to the pool. The
        engine rejecting the statement (an error reply, or an error element inside it)
        raises GraphQueryError; a connection fault disconnects it and is raised as it came."""
        try:
            response = connection.read_response()
        except redis.ResponseError as exc:
            pool.release(connection)
            raise GraphQueryError(f"FalkorDB rejected {name}: {exc}") from exc
        except Exception:
            connection.disconnect()
            pool.release(connection)
            raise
        pool.release(connection)
        try:
            return self._rows(response)
        except redis.ResponseError as exc:
            raise GraphQueryError(f"FalkorDB rejected {name}: {exc}") from exc

    def _read_reply(self, pool: Any, connection: Any, text: str, params: dict[str, Any],
                    name: str) -> list[dict[str, Any]]:
        try:
            return self._take_reply(pool, connection, name)
        except GraphQueryError:
            raise
        except Exception as exc:
            if not self._is_transient(exc):
                raise
            return self._run_text(text, params, write=False, name=name)  # a read can simply run again

    def _confirm(self, pool: Any, connection: Any, name: str) -> None:
        try:
            self._take_reply(pool, connection, name)
        except GraphQueryError as exc:
            raise UnconfirmedWriteFailed(f"FalkorDB rejected the earlier {name} write: {exc.__cause__}") from exc
        except Exception as exc:
            if not self._is_transient(exc):
                raise UnconfirmedWriteFailed(
                    f"reading the reply of the earlier {name} write from {self.url} failed: {exc}") from exc
            # The server dropped the connection after taking the write, which it has most
            # likely applied; sending it again could count it twice. Said, not raised: the
            # statement that found this is not the one that failed, and runs with retries.
            log.warning("the connection to %s dropped before the earlier %s write was confirmed; it may not "
                        "have been applied (%s: %s)", self.url, name, type(exc).__name__, exc)

    def _is_transient(self, exc: BaseException) -> bool:
        return isinstance(exc, (redis.ConnectionError, redis.TimeoutError, ConnectionError, TimeoutError))

    def _fulltext_query(self, text: str, every_word_of: Sequence[str] = ()) -> str | None:
        return redisearch_query(text, every_word_of)

    # ------------------------------------------------------------ schema

    def setup_schema(self) -> None:
        for name in self.cypher.names("schema_"):
            try:
                self.run(name, write=True)
            except GraphQueryError as exc:
                if "already indexed" not in str(exc) and "already exists" not in str(exc):
                    raise
        existing = {
            (r["label"], tuple(r["properties"]))
            for r in self.run("list_constraints")
        }
        for label, prop in _UNIQUE_KEYS:
            if (label.value, (prop,)) in existing:
                continue
            try:
                self._db.connection.execute_command(
                    "GRAPH.CONSTRAINT", "CREATE", self.config.graph_name, "UNIQUE", "NODE",
                    label.value, "PROPERTIES", 1, prop,
                )
            except redis.ResponseError as exc:
                if "already exists" not in str(exc):
                    raise GraphQueryError(f"FalkorDB refused the unique constraint on {label}.{prop}: {exc}") from exc

    def clear(self) -> None:
        """Delete the whole graph (tests and `cogmem import --replace`)."""
        self.confirm_writes()
        with contextlib.suppress(redis.ResponseError):
            self._graph.delete()
        self._graph = self._db.select_graph(self.config.graph_name)

    def compact_storage(self) -> dict[str, Any]:
        """Leave what was deleted in no file of the embedded server's data directory.

        FalkorDB keeps a graph in memory and on disk only in the append-only log: a base
        snapshot (FalkorDB's own encoding of the live nodes and edges, in RDB format) and the
        writes since, deletes and what they deleted included. Rewriting the log writes a new
        base of what is live and drops the old files (see `EmbeddedFalkorDB.purge_deleted`).
        An external server's disk is its own: the answer says what to run there."""
        self._check_open()
        self.confirm_writes()  # a delete still on its way must be in memory before the rewrite forks
        if self._server is None:
            return {"graph": "external", "url": self.url,
                    "note": "this FalkorDB's files are on its server: run BGREWRITEAOF there (and remove "
                            "old RDB dumps and AOF history files) for deleted data to leave its disk; with "
                            "CMD_INFO on (FalkorDB's default) its telemetry{<graph>} stream also keeps recent "
                            "queries with their parameters"}
        return {"graph": "embedded falkordb", "data_dir": str(self._server.data_dir),
                **self._server.purge_deleted()}

    def close(self) -> None:
        if self._closed:
            return
        try:
            self.confirm_writes()
        except UnconfirmedWriteFailed as exc:
            log.error("closing %s: %s", self.url, exc)
        self._closed = True
        self._natives.clear()  # their loops close their connections (`aclose_native`), or drop them
        with contextlib.suppress(Exception):
            self._db.connection.close()
        if self._pinger is not None:
            with contextlib.suppress(Exception):
                self._pinger[1].close()
        self._release_lane()
        self._release_server()

    def _release_lane(self) -> None:
        if self._lane_open:
            self._lane_open = False
            close_lane(self.url, self.config.graph_name)

    def _release_server(self) -> None:
        if self._server is not None:
            release_embedded(self._server)
            self._server = None
