"""Neo4j adapter: the production graph, through the official `neo4j` driver.

One driver per store, sessions per call, the database name from config. Reads
use read transactions (routable to followers in a cluster), writes use write
transactions, both retried by our bounded tenacity policy on transient faults.
Every session starts from the bookmarks of the store's newest transactions
(`graph/bookmarks.py`), so on a cluster a read sees the writes made before it.
Inside a call of the async store on the event loop (`aio_bridge`), statements go
through the driver's asyncio twin instead (one per loop), the same way.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal

from cogmem_graph import aio_bridge
from cogmem_graph.clock import Clock
from cogmem_graph.config.graph import GraphConfig
from cogmem_graph.errors import GraphQueryError, GraphStoreUnavailable, InvalidArgument
from cogmem_graph.graph.bookmarks import Bookmarks
from cogmem_graph.graph.cypher_store.graph_store import CypherGraphStore
from cogmem_graph.graph.fulltext import lucene_query
from cogmem_graph.redact import redact_url

PING_TIMEOUT_S = 2.0
"""The query timeout of `ping` (a readiness probe's check)."""

CLEAR_PAGE = 10_000
"""Relationships, then nodes, that `clear` deletes in one transaction."""

QUIET_NOTIFICATIONS: list[Literal["DEPRECATION", "UNRECOGNIZED"]] = ["DEPRECATION", "UNRECOGNIZED"]
"""Notification classes the server is asked not to send; without this the driver logs a
warning for each such statement, every time it runs. DEPRECATION: the shared statements are
written in the Cypher both engines run, and a `CALL { WITH row … }` subquery is Neo4j 5's
deprecated form of `CALL (row) { … }`, which FalkorDB does not parse. UNRECOGNIZED: a young
graph has no CONTRADICTS or SUPERSEDES relationship yet, and Neo4j says so for every statement
that names one (the labels and types a statement may name are checked offline, against the
enums, by the dialect gate)."""

DRIVER_OPTIONS: dict[str, Any] = {
    "connection_timeout": 5.0,
    # Our own bounded retries handle transient faults; the driver's 30 s of managed
    # transaction retries inside each of them would hide a dead server for minutes.
    "max_transaction_retry_time": 0,
    "notifications_disabled_classifications": QUIET_NOTIFICATIONS,
}
"""What the store's driver and each event loop's asyncio driver are made with."""


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Neo4jGraphStore(CypherGraphStore):
    dialect = "neo4j"
    native_async = True
    """Inside a bridged call (`aio_bridge`), statements go through the driver's asyncio twin."""

    def __init__(self, uri: str, *, config: GraphConfig | None = None, clock: Clock | None = None) -> None:
        super().__init__(config, clock)
        import neo4j

        self._neo4j = neo4j
        self.url = redact_url(uri)
        password = self.config.neo4j_password.get_secret_value() if self.config.neo4j_password else None
        auth = (self.config.neo4j_user, password) if password is not None else None
        driver = None
        with contextlib.suppress(ValueError, neo4j.exceptions.ConfigurationError):
            driver = neo4j.GraphDatabase.driver(uri, auth=auth, **DRIVER_OPTIONS)
        if driver is None:
            # Raised outside any except block: the driver's error quotes the whole URI, password
            # included, and would stay reachable as __context__ even when raised `from None`.
            raise InvalidArgument(
                f"graph uri {self.url!r} is not a valid Neo4j URI; put credentials in NEO4J_USER/NEO4J_PASSWORD",
                argument="uri"
            )
        self._driver = driver
        self._uri, self._auth = uri, auth
        self.bookmarks = Bookmarks()
        """Where each session starts from and what it reached: the store's causal chain."""
        self._natives: aio_bridge.PerLoop[Any] = aio_bridge.PerLoop(self._make_native_driver, lambda d: d.close())
        """The asyncio driver of each event loop that runs statements (`_run_async`)."""
        self._pending: list[Future] = []
        """Writes sent without waiting (`_run_unconfirmed`), not yet confirmed."""
        self._pending_lock = threading.Lock()
        self._writer: ThreadPoolExecutor | None = None
        self._on_writer = threading.local()
        self._closed = False
        try:
            self.run("ping")
        except GraphStoreUnavailable:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"Neo4jGraphStore(url={self.url!r}, database={self.config.neo4j_database!r})"

    def _start_hint(self) -> str:
        return (
            "Start Neo4j (`docker compose -f docker/compose.yml up -d neo4j`) and check NEO4J_USER / "
            "NEO4J_PASSWORD, or open the store without a graph URL to use the embedded default."
        )

    def _run(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        neo4j = self._neo4j
        timeout = self.config.query_timeout_ms / 1000
        if aio_bridge.active():
            return self._answer(
                lambda: aio_bridge.await_only(self._run_async(text, params, timeout=timeout, write=write)))

        # A managed transaction takes its timeout from the work function (`unit_of_work`), not
        # from a `Query` object, which only an auto-commit `session.run` accepts.
        @neo4j.unit_of_work(timeout=timeout)
        def work(tx):
            return [{k: _plain(v) for k, v in record.items()} for record in tx.run(text, params)]

        def run() -> list[dict[str, Any]]:
            start = self.bookmarks.current()
            with self._driver.session(database=self.config.neo4j_database,
                                      bookmarks=neo4j.Bookmarks.from_raw_values(start)) as session:
                rows = session.execute_write(work) if write else session.execute_read(work)
                self.bookmarks.advance(start, session.last_bookmarks().raw_values)
                return rows
        return self._answer(run)

    async def _run_async(self, text: str, params: dict[str, Any], *, timeout: float,
                         write: bool) -> list[dict[str, Any]]:
        """`_run` through this loop's asyncio driver."""
        @self._neo4j.unit_of_work(timeout=timeout)
        async def work(tx):
            result = await tx.run(text, params)
            return [{k: _plain(v) for k, v in record.items()} async for record in result]

        start = self.bookmarks.current()
        async with self._natives.get().session(database=self.config.neo4j_database,
                                               bookmarks=self._neo4j.Bookmarks.from_raw_values(start)) as session:
            rows = await (session.execute_write(work) if write else session.execute_read(work))
            self.bookmarks.advance(start, (await session.last_bookmarks()).raw_values)
            return rows

    def _make_native_driver(self) -> Any:
        """An asyncio driver (made without I/O: it connects on its first statement)."""
        return self._neo4j.AsyncGraphDatabase.driver(self._uri, auth=self._auth, **DRIVER_OPTIONS)

    async def aclose_native(self) -> None:
        """Close the running loop's asyncio driver (`AsyncMemoryStore.close` awaits this)."""
        await self._natives.aclose()

    def _answer(self, run: Any) -> list[dict[str, Any]]:
        """`run()`'s rows, the driver's refusals said in our words. Whatever the server answered
        about a statement (a `Neo.ClientError.*` or `Neo.DatabaseError.*` code, also from a server
        that predates GQL status codes) is a GraphQueryError naming that code, with the server's
        message; a `Neo.TransientError.*` and a lost connection go on to the retries."""
        neo4j = self._neo4j
        try:
            return run()
        except neo4j.exceptions.AuthError as exc:
            raise GraphStoreUnavailable(
                f"Neo4j at {self.url} refused the credentials of user {self.config.neo4j_user!r}; "
                "set NEO4J_USER and NEO4J_PASSWORD",
                url=self.url,
            ) from exc
        except neo4j.exceptions.Neo4jError as exc:
            if isinstance(exc, neo4j.exceptions.TransientError):
                raise
            raise GraphQueryError(f"Neo4j rejected a statement ({exc.code}): {exc.message or exc}") from exc

    def ping(self) -> None:
        """Run the ping statement once, without retries, with a PING_TIMEOUT_S query timeout (a
        server that does not answer at all is bounded by the driver's 5 s connection timeout)."""
        if self._closed:
            raise GraphStoreUnavailable(f"graph store {self.url} is closed", url=self.url)
        neo4j = self._neo4j
        try:
            with self._driver.session(database=self.config.neo4j_database) as session:
                session.run(neo4j.Query(self.cypher.get("ping"), timeout=PING_TIMEOUT_S)).consume()
        except neo4j.exceptions.AuthError as exc:
            raise GraphStoreUnavailable(
                f"Neo4j at {self.url} refused the credentials of user {self.config.neo4j_user!r}; "
                "set NEO4J_USER and NEO4J_PASSWORD", url=self.url) from exc
        except Exception as exc:
            raise GraphStoreUnavailable(
                f"neo4j graph at {self.url} did not answer a ping ({type(exc).__name__}: {exc}). "
                f"{self._start_hint()}", url=self.url) from exc

    # ------------------------------------------------------------ writes the caller does not wait for

    def _run_unconfirmed(self, text: str, params: dict[str, Any], *, name: str) -> None:
        """The write commits on this store's writer thread while the caller goes on (a
        retrieval's bookkeeping is a commit of ~30 ms at 10k traces); the store's next
        statement waits for it first and raises if it failed, as FalkorDB's lane does. Inside a
        bridged async call it simply runs."""
        if aio_bridge.active():
            super()._run_unconfirmed(text, params, name=name)
            return
        with self._pending_lock:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogmem-neo4j-writes")
            self._pending.append(self._writer.submit(self._run_on_writer, text, params, name))

    def _run_on_writer(self, text: str, params: dict[str, Any], name: str) -> list[dict[str, Any]]:
        self._on_writer.active = True  # its own statements do not wait for themselves
        return self._run_text(text, params, write=True, name=name)

    def _before_statement(self) -> None:
        if not getattr(self._on_writer, "active", False):
            self.confirm_writes()

    def confirm_writes(self) -> None:
        """Wait for the writes sent without waiting; raise the first one's failure."""
        with self._pending_lock:
            pending, self._pending = self._pending, []
        failures = [exc for exc in (future.exception() for future in pending) if exc is not None]
        if failures:
            raise failures[0]

    def _is_transient(self, exc: BaseException) -> bool:
        errors = self._neo4j.exceptions
        return isinstance(
            exc, (errors.ServiceUnavailable, errors.SessionExpired, errors.TransientError, ConnectionError, OSError)
        )

    def _outcome_unknown(self, exc: BaseException) -> bool:
        """The driver's IncompleteCommit: the connection broke after COMMIT was sent, before its
        answer came back. The server may have committed (checked with a connection cut right
        there: a Hebbian update sent again was applied twice), so only a repeatable write is
        sent again (`StatementRunner._run_text`)."""
        return isinstance(exc, self._neo4j.exceptions.IncompleteCommit)

    def _fulltext_query(self, text: str, every_word_of: Sequence[str] = ()) -> str | None:
        return lucene_query(text, every_word_of)

    def setup_schema(self) -> None:
        for name in self.cypher.names("schema_"):
            self.run(name, write=True)

    def clear(self) -> None:
        """Delete every relationship, then every node, of the database (tests and
        replace-imports), a page of CLEAR_PAGE per transaction."""
        for page in ("clear_page_relationships", "clear_page"):
            while self.run_count(page, "deleted", {"limit": CLEAR_PAGE}, write=True):
                pass

    def compact_storage(self) -> dict[str, Any]:
        """Neo4j manages its own files; nothing here can rewrite them."""
        return {"graph": "neo4j", "url": self.url,
                "note": "Neo4j manages its store files itself: a deleted record's space is marked free and "
                        "reused by later writes, and transaction logs are pruned by the server's retention "
                        "policy (db.tx_log.rotation.retention_policy); until then deleted values can remain "
                        "on the server's disk. An offline `neo4j-admin database copy` rewrites the store "
                        "without them."}

    def close(self) -> None:
        if self._closed:
            return
        with contextlib.suppress(Exception):
            self.confirm_writes()  # nothing sent is dropped by closing
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        self._closed = True
        self._natives.forget()  # their loops close them (`aclose_native`), or drop them
        with contextlib.suppress(Exception):
            self._driver.close()
