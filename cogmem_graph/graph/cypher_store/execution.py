"""Running a named statement: bounded retries, a server started again, pipelined reads and
writes. Every aggregate's statements (the other modules here) go through `StatementRunner`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from cogmem_graph import aio_bridge, telemetry
from cogmem_graph.clock import Clock, SystemClock
from cogmem_graph.config.graph import GraphConfig
from cogmem_graph.errors import GraphQueryError, GraphStoreUnavailable, InvalidArgument
from cogmem_graph.graph.cypher import CypherLibrary

BATCH_SIZE = 2_000
RowT = TypeVar("RowT")
REPEATABLE_WRITES = frozenset({
    "ping", "upsert_traces", "set_indexed", "merge_mentions", "temporal_sequence_link", "shared_entity_link",
    "caused_by_link", "merge_edges", "set_strengths", "write_mechanism_state", "set_pinned",
})
"""Writes whose second application changes nothing and answers as the first did: they set values
the caller gives, MERGE with ON CREATE, or keep a maximum (checked by
tests/reliability/test_graph_server_restart.py). When the store's own server died under one and
was started again, it is sent again, as a read is. Any other write is not: the dead server may
have applied and logged it just before it died, and a second application could count twice
(hebbian_update, record_access) or answer differently (soft_delete_traces)."""


def require_scope_keys(scope_keys: Sequence[str] | None) -> list[str]:
    """Tenancy is never optional: a read without scope keys is a programming error."""
    if scope_keys is None or isinstance(scope_keys, str) or len(scope_keys) == 0:
        raise InvalidArgument("scope_keys must be a non-empty list of scope keys", argument="scope_keys")
    keys = list(scope_keys)
    for key in keys:
        if not isinstance(key, str) or not key:
            raise InvalidArgument("scope_keys must contain non-empty strings", argument="scope_keys")
    return keys


def chunks(items: Sequence[Any], size: int = BATCH_SIZE):
    for start in range(0, len(items), size):
        yield items[start : start + size]


class StatementRunner(ABC):
    """A Cypher engine's statements by name: what every aggregate's methods run them with."""

    dialect: str = ""
    native_async: bool = False
    """True when the engine's statements go through its own asyncio client inside a bridged
    call (`aio_bridge`); otherwise the async store runs every call on its threads."""

    def __init__(self, config: GraphConfig | None = None, clock: Clock | None = None) -> None:
        self.config = config or GraphConfig()
        self.clock = clock or SystemClock()
        self.cypher = CypherLibrary(self.dialect)

    # ------------------------------------------------------------ engine hooks

    url: str = ""

    @abstractmethod
    def _run(self, text: str, params: dict[str, Any], *, write: bool) -> list[dict[str, Any]]:
        """Execute one statement, returning rows as dicts keyed by column name."""

    @abstractmethod
    def _is_transient(self, exc: BaseException) -> bool:
        """True for faults worth retrying (dropped connection, timeout, leader switch)."""

    @abstractmethod
    def _fulltext_query(self, text: str, every_word_of: Sequence[str] = ()) -> str | None:
        """The engine's escaped full-text query for free text, or for every word of one of
        `every_word_of` (None: nothing to search)."""

    @abstractmethod
    def setup_schema(self) -> None: ...

    @abstractmethod
    def clear(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    # ------------------------------------------------------------ execution

    def run(self, name: str, params: dict[str, Any] | None = None, *, write: bool = False) -> list[dict[str, Any]]:
        """Run a named statement with bounded retries on transient faults."""
        return self._run_text(self.cypher.get(name), params or {}, write=write, name=name)

    def run_rows(self, row: type[RowT], name: str, params: dict[str, Any] | None = None, *,
                 write: bool = False) -> list[RowT]:
        """`run`, its rows typed as `row` (a TypedDict of graph/rows.py naming the statement's
        RETURN columns). The rows are the engine's dicts as they come: nothing is checked or copied."""
        return cast("list[RowT]", self.run(name, params, write=write))

    def run_count(self, name: str, column: str, params: dict[str, Any] | None = None, *, write: bool = False) -> int:
        """Run a named statement that answers one row of counts: `column` of it (0 for no row
        or a null count)."""
        rows = self.run(name, params, write=write)
        return int(rows[0][column] or 0) if rows else 0

    def _run_text(self, text: str, params: dict[str, Any], *, write: bool, name: str) -> list[dict[str, Any]]:
        """`_run_statement`, its round trip (retries included) reported to `telemetry`."""
        started = telemetry.now()
        try:
            return self._run_statement(text, params, write=write, name=name)
        finally:
            telemetry.graph_statement("write" if write else "read", started)

    def _run_statement(self, text: str, params: dict[str, Any], *, write: bool, name: str) -> list[dict[str, Any]]:
        """Run a statement with bounded retries on transient faults.

        A store that runs its own server (the embedded FalkorDB) starts it again when it died:
        before the statement when it was already dead (the statement was sent to nothing), or
        after the faults when it died under the statement. Then a read runs once more on the new
        server, and so does a write of REPEATABLE_WRITES; any other write does not, since the dead
        server may have applied and logged it before it died (its log is replayed at the
        restart) and sending it again could apply it twice: the error says so and the caller
        calls again. Stores of servers they do not run (external FalkorDB, Neo4j) only retry,
        except a write outside REPEATABLE_WRITES whose connection broke after the server may
        have applied it (`_outcome_unknown`): for the same reason it is not sent again."""
        self._before_statement()
        server = self._server_token()
        try:
            return self._run_retrying(text, params, write=write, server=server, name=name)
        except Exception as exc:
            if not self._is_transient(exc):
                raise
            if self._unsafe_to_send_again(exc, write=write, name=name):
                raise GraphStoreUnavailable(
                    f"{self.dialect} graph at {self.url}: the connection broke while the server committed the write "
                    f"{name!r} ({type(exc).__name__}); whether that write was applied is unknown, so it was not "
                    f"sent again. Call again once the server answers. {self._start_hint()}",
                    url=self.url,
                ) from exc
            if not self._recover(exc, server):
                raise self._unavailable(exc) from exc
            if write and name not in REPEATABLE_WRITES:
                raise GraphStoreUnavailable(
                    f"{self.dialect} graph at {self.url}: the server stopped while it ran the write {name!r} and "
                    "was started again on the same data; whether that write was applied before it stopped is "
                    "unknown, so it was not sent again. Call again.",
                    url=self.url,
                ) from exc
        try:  # once more, on the server started again
            return self._run_retrying(text, params, write=write, server=self._server_token(), name=name)
        except Exception as exc:
            if self._is_transient(exc):
                raise self._unavailable(exc) from exc
            raise

    def _run_retrying(self, text: str, params: dict[str, Any], *, write: bool, server: Any,
                      name: str) -> list[dict[str, Any]]:
        retrying = Retrying(
            stop=stop_after_attempt(self.config.retry_attempts),
            wait=wait_exponential(multiplier=0.05, max=self.config.retry_max_wait_s),
            # A server that died or was replaced since the statement began will not answer a
            # retry, and a write may have reached it: stop, and let `_recover` decide. A write
            # that may have been applied already is not sent again either.
            retry=retry_if_exception(lambda exc: self._is_transient(exc) and self._server_token() == server
                                     and not self._unsafe_to_send_again(exc, write=write, name=name)),
            reraise=True,
            sleep=aio_bridge.sleep,  # on the event loop inside a bridged call
        )
        for attempt in retrying:
            with attempt:
                return self._run(text, params, write=write)
        raise AssertionError("unreachable")  # pragma: no cover

    def _unsafe_to_send_again(self, exc: BaseException, *, write: bool, name: str) -> bool:
        """A write outside REPEATABLE_WRITES that the server may have applied before the fault."""
        return write and name not in REPEATABLE_WRITES and self._outcome_unknown(exc)

    def _unavailable(self, exc: BaseException) -> GraphStoreUnavailable:
        return GraphStoreUnavailable(
            f"{self.dialect} graph at {self.url} is unreachable after "
            f"{self.config.retry_attempts} attempts ({type(exc).__name__}: {exc}). "
            f"{self._start_hint()}",
            url=self.url,
        )

    # Hooks of a store that runs its own server (the embedded FalkorDB); the defaults are for
    # servers the store does not run, which are never restarted.

    def _before_statement(self) -> None:
        """Before a statement is sent: start the store's server again if it is known dead."""
        return None

    def _server_token(self) -> Any:
        """Which server process the store talks to (None: the same one always); a different
        value means it died or was replaced."""
        return None

    def _outcome_unknown(self, exc: BaseException) -> bool:
        """True when the transient fault `exc` is known to have struck after the server may have
        applied the statement (the connection broke while it committed): sending a write again could
        apply it twice. Engines whose client tells (Neo4j's IncompleteCommit) say so here."""
        return False

    def _recover(self, exc: BaseException, server: Any) -> bool:
        """After transient faults on a statement begun on `server` (`_server_token`): start the
        store's server again if it died, and reconnect. True when the store now talks to
        another server process than `server`."""
        return False

    def _run_unconfirmed(self, text: str, params: dict[str, Any], *, name: str) -> None:
        """A write whose reply the caller does not wait for. Engines that can leave it in
        flight (FalkorDB) confirm it before their next statement and raise its failure
        there; by default it simply runs to completion."""
        self._run_text(text, params, write=True, name=name)

    def read_later(self, name: str, params: dict[str, Any] | None = None) -> Callable[[], list[dict[str, Any]]]:
        """Start a named read and return what gives its rows. Engines that can leave it
        running while the caller goes on (FalkorDB) do; by default it runs now. Call the
        result once the rows are needed (it raises what the read raised)."""
        return self._read_later(self.cypher.get(name), params or {}, name=name)

    def _read_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        return self._ran_now(lambda: self._run_text(text, params, write=False, name=name))

    def _write_later(self, text: str, params: dict[str, Any], *, name: str) -> Callable[[], list[dict[str, Any]]]:
        """Send an idempotent write and return what confirms it and gives its rows. Engines
        that can (FalkorDB) apply it while the caller computes; every later statement of
        this process runs after it. By default it runs now. The caller must call the result
        before it reports the write as done: that call raises what the write raised."""
        return self._ran_now(lambda: self._run_text(text, params, write=True, name=name))

    @staticmethod
    def _ran_now(run: Callable[[], list[dict[str, Any]]]) -> Callable[[], list[dict[str, Any]]]:
        """Run a statement now and hand back what gives its rows: the engine's refusal of the
        statement is raised where the rows are asked for, as an engine that answers later
        raises it (a store that is closed or down still raises here, at the send)."""
        try:
            rows = run()
        except GraphQueryError as exc:
            failure = exc

            def raise_failure() -> list[dict[str, Any]]:
                raise failure
            return raise_failure
        return lambda: rows

    def confirm_writes(self) -> None:
        """Return once every write this store sent has been applied, raising if one failed
        (`after_retrieval(wait=False)`); nothing to do where writes always complete before returning."""
        return None

    def _start_hint(self) -> str:
        return "Start the graph server, or open the store without a graph URL to use the embedded default."

    def _now(self) -> int:
        return self.clock.now_ms()

    # ------------------------------------------------------------ context manager

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
