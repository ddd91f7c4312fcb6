"""Faults on Neo4j, on real servers (tools/neo4j/server.py), nothing mocked.

- The run's Neo4j is SIGKILLed under a bounded write load from several threads and started
  again: every write the library acknowledged is in the graph (0 lost), the errors callers saw
  while it was down are `GraphStoreUnavailable` naming the URL and what to start, without the
  password, and the same store (not reopened) writes and finds memories afterwards.
- A Neo4j without the GDS plugin (one more server, started once for this module): cluster
  detection "auto" falls back to label propagation in Cypher and says so once in the log,
  multi-hop ranks by the Cypher walk instead of PageRank, and asking for Louvain there is one
  clear ValueError naming the missing procedure.
- A wrong password through the async store, a statement the server refuses (its
  `Neo.ClientError.*` code and message), and a server gone mid-use, through the sync and the
  async store: each is one clear error of the library's own.
- A connection cut after COMMIT reached Neo4j and before its answer came back (a proxy between
  the driver and the server cuts it there, the one fault injected): the server committed, so a
  counting write is not sent again (applied once, the error says so); a repeatable one is.

The SIGKILL test holds the run's Neo4j through the `neo4j_uri` lock while it kills and restarts
it, so the other test processes wait meanwhile; it always leaves the server running.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import GraphQueryError, GraphStoreUnavailable

from ._load import Writer
from ._workers import content_for
from .conftest import REPO, assert_consistent, owner_traces, run_test_cypher

pytestmark = pytest.mark.timeout(400)


def _load_tool():
    spec = importlib.util.spec_from_file_location("neo4j_server_tool", REPO / "tools" / "neo4j" / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load_tool()

WRITERS = 4
ATTEMPTS_PER_WRITER = 400
"""The load's count bound: each writer stops after this many calls, acknowledged or not."""
LOAD_S = 240.0
"""The load's time bound: each writer stops this long after it started, whatever happened."""
ACKS_BEFORE_KILL = 40
ACKS_AFTER_RESTART = 5
"""Each writer's acknowledged calls after the restart before the load is stopped."""
BACKOFF_S = 0.5
"""A writer's pause after a failed call (it does not send that call again)."""
CLUSTERS_LOGGER = "cogmem_graph.between_turns.consolidation.clusters"
ALICE = ["Alice went hiking in the Alps", "Alice loves climbing rocks", "Alice bought new boots for climbing",
         "Alice trains at the gym on Mondays", "Alice wants to climb Mont Blanc next year"]
DANA = ["Dana restores old sailing boats", "Dana sailed to the island with Dana's brother",
        "Dana repainted the hull in red", "Dana joined the regatta club", "Dana fixed the mast herself"]
EMPLOYER = ["Alice Moreau joined Initech as a data engineer", "Initech moved its headquarters to Lisbon last year",
            "My employer is based in a big city with a lot of traffic"]


def wait_until(predicate, timeout: float, what: str, poll: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(poll)


def exception_text(exc: BaseException) -> str:
    """Everything a caller can read from an error: its message, repr and `.url`, and those of
    every exception it was raised from or during."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts += [str(current), repr(current), str(getattr(current, "url", ""))]
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


# ---------------------------------------------------------------- SIGKILL under load


@dataclass
class Outcome:
    acked: dict[str, int]
    acked_before_kill: int
    acked_after_restart: int
    lost: list[str]
    errors: list[BaseException]
    down_s: float
    restart_s: float

    @property
    def acked_while_starting(self) -> int:
        """Acknowledged once Neo4j answered again, before `start` saw it ready and returned."""
        return len(self.acked) - self.acked_before_kill - self.acked_after_restart

    def table(self) -> str:
        by_type = Counter(type(e).__name__ for e in self.errors)
        kinds = ", ".join(f"{name} {n}" for name, n in by_type.most_common()) or "none"
        return "\n".join([
            f"Neo4j SIGKILLed under {WRITERS} writers; down {self.down_s:.1f} s "
            f"(its start took {self.restart_s:.1f} s)",
            f"  acknowledged  {len(self.acked):5d}  ({self.acked_before_kill} before the kill, "
            f"{self.acked_while_starting} while it started, {self.acked_after_restart} after)",
            f"  lost          {len(self.lost):5d}",
            f"  errors seen   {len(self.errors):5d}  ({kinds})",
        ])


@pytest.fixture
def run_server_dir(neo4j_uri: str) -> Path:
    """The directory of the run's Neo4j (`server.py run` exports it), which this test may kill
    and start again while it holds the `neo4j_uri` lock."""
    directory = os.environ.get("COGMEM_TEST_NEO4J_DIR")
    if not directory:
        pytest.skip("the run's Neo4j is not one of tools/neo4j/server.py (COGMEM_TEST_NEO4J_DIR unset), so "
                    "this test cannot kill and restart it: `make test` starts one")
    d = Path(directory)
    if tool.read_env(d).get("COGMEM_TEST_NEO4J_URI") != neo4j_uri:
        pytest.skip(f"COGMEM_TEST_NEO4J_DIR={d} does not hold the run's Neo4j ({neo4j_uri})")
    return d


@pytest.mark.slow
def test_sigkill_of_neo4j_under_write_load_loses_no_acknowledged_write(run_server_dir: Path, neo4j_uri: str,
                                                                         tmp_path: Path) -> None:
    password = os.environ["NEO4J_PASSWORD"]
    with cg.open(home=tmp_path / "home", graph=neo4j_uri, embedder="hash") as store:
        store.graph.clear()
        store.graph.setup_schema()
        writers = [Writer(store.agent(f"writer-{n}", user_id="u1", thread_id=f"t{n}"), first_index=n * 100_000,
                          attempts=ATTEMPTS_PER_WRITER, load_s=LOAD_S, backoff_s=BACKOFF_S, name=f"writer-{n}")
                   for n in range(WRITERS)]
        for writer in writers:
            writer.thread.start()
        try:
            wait_until(lambda: sum(len(w.acked) for w in writers) >= ACKS_BEFORE_KILL, 120,
                       f"the writers acknowledged {ACKS_BEFORE_KILL} memories")
            killed_at = time.monotonic()
            assert tool.kill(run_server_dir) is not None, "the run's Neo4j was running"
            acked_before_kill = sum(len(w.acked) for w in writers)
            wait_until(lambda: sum(1 for w in writers for began, _, _ in w.failures if began > killed_at) >= WRITERS,
                       60, "writes failed while Neo4j was down")
            starting_at = time.monotonic()
            tool.start(run_server_dir)
            restarted_at = time.monotonic()
            wait_until(lambda: all(w.acks_after(restarted_at) >= ACKS_AFTER_RESTART for w in writers), 120,
                       f"every writer had {ACKS_AFTER_RESTART} writes acknowledged after the restart")
        finally:
            for writer in writers:
                writer.stop.set()
            for writer in writers:
                writer.thread.join(60)
            if tool.running_pid(run_server_dir) is None:
                tool.start(run_server_dir)  # never leave the run without its Neo4j

        acked = {trace_id: index for w in writers for trace_id, index in w.acked.items()}
        traces = owner_traces(store)
        outcome = Outcome(
            acked=acked, acked_before_kill=acked_before_kill,
            acked_after_restart=sum(w.acks_after(restarted_at) for w in writers),
            lost=[trace_id for trace_id in acked if trace_id not in traces],
            errors=[exc for w in writers for _, _, exc in sorted(w.failures, key=lambda f: f[0])],
            down_s=restarted_at - killed_at, restart_s=restarted_at - starting_at)
        table = outcome.table()
        print(table)

        # Nothing acknowledged is lost: every memory is there verbatim, active, indexed, with its vector.
        assert not outcome.lost, f"{len(outcome.lost)} acknowledged memories were lost: {outcome.lost[:5]}\n{table}"
        for trace_id, index in acked.items():
            trace = traces[trace_id]
            assert trace.content == content_for(index) and trace.metadata == {"index": index}, table
            assert trace.is_active and trace.indexed, f"memory {index} is active and indexed\n{table}"
        assert store.vectors.existing_ids(list(acked)) == set(acked), f"each has its vector\n{table}"
        assert_consistent(store)

        # What callers saw while it was down: one error of the library's, naming the URL and
        # what to start, never the password; and only while it was down.
        assert outcome.errors, f"writes failed while Neo4j was down\n{table}"
        unclear = [e for e in outcome.errors
                   if not isinstance(e, GraphStoreUnavailable) or neo4j_uri not in str(e) or e.url != neo4j_uri
                   or "Start Neo4j" not in str(e)]
        assert not unclear, (f"{len(unclear)} errors were not GraphStoreUnavailable naming {neo4j_uri} and what "
                             f"to start, e.g. {unclear[0]!r}\n{table}")
        leaking = [e for e in outcome.errors if password in exception_text(e)]
        assert not leaking, f"{len(leaking)} errors carry the password\n{table}"
        late = [(began - restarted_at, exc) for w in writers for began, _, exc in w.failures if began > restarted_at]
        assert not late, f"calls begun after Neo4j was back still failed: {late[:3]}\n{table}"

        # The same store, not reopened, works again: it finds memories written before the kill
        # and after the restart, and says it is ready.
        for writer in writers:
            indexes = sorted(writer.acked.values())
            for index in (indexes[0], indexes[-1]):
                found = writer.agent.retrieve(content_for(index), top_k=5, record_access=False).ids
                assert any(acked.get(i) == index for i in found), f"memory {index} is found again\n{table}"
        assert store.health()["ready"], store.health()


# ---------------------------------------------------------------- a Neo4j without GDS


@dataclass
class Neo4jServer:
    dir: Path
    uri: str
    password: str

    def running(self) -> Neo4jServer:
        """The server, started again if a test of this module stopped it."""
        tool.start(self.dir)
        return self

    def config(self, password: str | None = None) -> CogmemConfig:
        config = CogmemConfig()
        config.graph.neo4j_user = "neo4j"
        config.graph.neo4j_password = SecretStr(password or self.password)
        return config

    def open(self, home: Path, config: CogmemConfig | None = None, **kwargs) -> cg.MemoryStore:
        """A store on this server, the database emptied first."""
        store = cg.open(home=home, graph=self.uri, embedder="hash", config=config or self.config(), **kwargs)
        store.graph.clear()
        store.graph.setup_schema()
        return store


@pytest.fixture(scope="module")
def server_without_gds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    """A Neo4j 5 on which GDS was never installed (`server.py up --without-gds`), this module's
    own: started once, stopped after the module's last test."""
    reason = tool.missing_tools()
    if reason:
        pytest.skip(f"no Neo4j without GDS on this machine: {reason}")
    directory = tmp_path_factory.mktemp("neo4j-without-gds")
    try:
        server = tool.up(directory, gds=False)
        yield Neo4jServer(directory, server.uri, tool.read_env(directory)["NEO4J_PASSWORD"])
    finally:
        tool.stop(directory)


@pytest.fixture
def without_gds(server_without_gds: Neo4jServer, request: pytest.FixtureRequest) -> Neo4jServer:
    """That server, running (a test that killed it leaves it to be started again here); the
    test counts as one on Neo4j in the run's summary."""
    request.node.user_properties.append(("engine", "neo4j"))
    return server_without_gds.running()


@pytest.mark.slow
def test_without_gds_consolidation_clusters_in_cypher_and_says_so_once(without_gds, tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=CLUSTERS_LOGGER)
    with without_gds.open(tmp_path / "home", clock=ManualClock(1_700_000_000_000)) as store:
        agent = store.agent("helper", user_id="u1")
        agent.encode_many([{"content": text} for text in ALICE] + [{"content": "The printer is on floor two"}])
        first = store.consolidate()
        agent.encode_many([{"content": text} for text in DANA])
        second = store.consolidate()
    assert (first.cluster_algorithm, second.cluster_algorithm) == ("cypher_label_propagation",) * 2
    assert (first.schemas_created, second.schemas_created) == (1, 1), "Alice's five memories, then Dana's"
    said = [r for r in caplog.records if r.name == CLUSTERS_LOGGER and r.levelno == logging.WARNING]
    assert len(said) == 1, f"the fallback is said once per store, not at every run: {[r.getMessage() for r in said]}"
    message = said[0].getMessage()
    assert "GDS" in message or "Graph Data Science" in message, message
    assert without_gds.password not in message


@pytest.mark.slow
def test_without_gds_multi_hop_ranks_by_the_cypher_walk(without_gds, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    with without_gds.open(tmp_path / "home", clock=ManualClock(1_700_000_000_000)) as store:
        agent = store.agent("helper", user_id="u1")
        ids = {t.content: t.id for t in agent.encode_many([{"content": c} for c in EMPLOYER])}
        result = agent.multi_hop("Which city is Alice Moreau's employer based in?", hops=2, top_k=10)
    assert result.ranking == "spreading_activation"
    assert ids[EMPLOYER[1]] in result.ids, "the chain Alice -> Initech -> Lisbon is found without PageRank"
    failed = [r.getMessage() for r in caplog.records
              if r.name.startswith("cogmem_graph") and "PageRank" in r.getMessage()]
    assert not failed, f"a missing GDS is a fallback, not a failure: {failed}"


@pytest.mark.slow
def test_without_gds_louvain_is_one_clear_error_naming_the_procedure(without_gds, tmp_path: Path) -> None:
    config = without_gds.config()
    config.consolidation.cluster_algorithm = "louvain"
    with without_gds.open(tmp_path / "home", config=config, clock=ManualClock(1_700_000_000_000)) as store:
        store.agent("helper", user_id="u1").encode_many([{"content": text} for text in ALICE])
        with pytest.raises(ValueError) as info:
            store.consolidate()
        assert store.stats().active_traces == len(ALICE)
    message = str(info.value)
    assert "gds.louvain.stream" in message and "cluster_algorithm" in message, message
    assert "'auto'" in message and "'cypher'" in message, f"the message says what to use instead: {message}"


@pytest.mark.slow
def test_a_procedure_this_neo4j_lacks_is_a_graph_query_error_with_the_servers_message(
        without_gds, tmp_path: Path) -> None:
    with without_gds.open(tmp_path / "home") as store, pytest.raises(GraphQueryError) as info:
        run_test_cypher(store, "fault_missing_gds_procedure")
    message = str(info.value)
    assert "Neo.ClientError.Procedure.ProcedureNotFound" in message, message
    assert "There is no procedure with the name `gds.graph.list`" in message, message


# ---------------------------------------------------------------- clear errors


@pytest.mark.slow
def test_a_wrong_password_through_the_async_store_is_one_clear_error(without_gds, tmp_path: Path) -> None:
    """The sync store's case is in tests/e2e/test_neo4j_engine.py (on the run's Neo4j); this one is
    on the module's own server, so its failed login locks nobody else out."""
    wrong = "not-the-password-4Zk"

    async def opening() -> None:
        async with cg.open_async(tmp_path / "home", graph=without_gds.uri, embedder="hash",
                                 config=without_gds.config(wrong)):
            pass

    with pytest.raises(GraphStoreUnavailable) as info:
        asyncio.run(opening())
    message = str(info.value)
    assert without_gds.uri in message and info.value.url == without_gds.uri, message
    assert "refused the credentials" in message and "NEO4J_PASSWORD" in message, message
    assert wrong not in exception_text(info.value) and without_gds.password not in exception_text(info.value)


def test_a_statement_neo4j_refuses_is_a_graph_query_error_sent_once(neo4j_uri: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver raises the server's refusal as a ClientError carrying a legacy
    `Neo.ClientError.*` code; the library raises it as GraphQueryError with that code and the
    server's message, and never sends it again (it is no transient fault)."""
    with cg.open(home=tmp_path / "home", graph=neo4j_uri, embedder="hash") as store:
        store.graph.clear()
        store.graph.setup_schema()
        sent: list[str] = []
        run = store.graph._run
        monkeypatch.setattr(store.graph, "_run", lambda text, params, *, write: sent.append(text) or run(
            text, params, write=write))
        with pytest.raises(GraphQueryError) as info:
            run_test_cypher(store, "fault_refused_procedure_call", {"index": "no_such_index", "query": "anything"})
        assert len(sent) == 1, "a refused statement is not retried"
        monkeypatch.undo()
        assert store.health()["ready"], "the store goes on"
    message = str(info.value)
    assert "Neo.ClientError.Procedure.ProcedureCallFailed" in message, message
    assert "There is no such fulltext schema index: no_such_index" in message, message


class CommitCutter:
    """A TCP proxy in front of a Neo4j: everything passes both ways, except that once armed
    (`cut_after_next_commit`), the next Bolt COMMIT message goes to the server and the answer to
    it does not come back: the proxy closes that connection as soon as the server answers."""

    COMMIT = bytes.fromhex("0002b0120000")
    """A chunk of 2 bytes holding COMMIT (a struct of no fields, signature 0x12), then the end marker."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.uri = f"bolt://127.0.0.1:{self.listener.getsockname()[1]}"
        self.armed = threading.Event()
        self.cuts = 0
        threading.Thread(target=self._accept, name="commit-cutter", daemon=True).start()

    def cut_after_next_commit(self) -> None:
        self.armed.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            server = socket.create_connection(self.target)
            committed = threading.Event()
            threading.Thread(target=self._to_server, args=(client, server, committed), daemon=True).start()
            threading.Thread(target=self._to_client, args=(server, client, committed), daemon=True).start()

    def _to_server(self, client: socket.socket, server: socket.socket, committed: threading.Event) -> None:
        tail = b""  # the end of what came before: a COMMIT may arrive split over two reads
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                if self.armed.is_set() and self.COMMIT in tail + data:
                    self.armed.clear()
                    committed.set()  # before the COMMIT goes on: its answer may come back at once
                server.sendall(data)
                tail = (tail + data)[1 - len(self.COMMIT):]  # too short to hold a whole COMMIT
        self._close(client, server)

    def _to_client(self, server: socket.socket, client: socket.socket, committed: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while data := server.recv(65536):
                if committed.is_set():  # the server answered the COMMIT: it has committed
                    self.cuts += 1
                    break
                client.sendall(data)
        self._close(client, server)

    @staticmethod
    def _close(*sockets: socket.socket) -> None:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self.listener.close()


def test_a_write_whose_commit_answer_is_lost_is_sent_again_only_when_repeatable(neo4j_uri: str,
                                                                                 tmp_path: Path) -> None:
    """The driver raises IncompleteCommit when the connection breaks after COMMIT was sent. The
    server may have committed (here it has), so a Hebbian update, which counts, must not be sent
    again: it is applied once and the caller is told it was not sent again. A repeatable write
    (set_indexed) is sent again and answers."""
    proxy = CommitCutter(int(neo4j_uri.rsplit(":", 1)[1]))
    try:
        with cg.open(home=tmp_path / "home", graph=proxy.uri, embedder="hash") as store:
            store.graph.clear()
            store.graph.setup_schema()
            agent = store.agent("helper", user_id="u1")
            a, b = agent.encode("Alice likes green tea"), agent.encode("Bob repairs old bicycles")

            proxy.cut_after_next_commit()
            with pytest.raises(GraphStoreUnavailable) as info:
                store.graph.hebbian_update([[a.id, b.id]], agent.visible_scope_keys)
            assert proxy.cuts == 1, "the connection was cut once, after the server answered COMMIT"
            (edge,) = run_test_cypher(store, "owner_co_activated_between", {"a": a.id, "b": b.id})
            eta = store.config.graph.edges.hebbian_learning_rate
            assert (edge["count"], edge["weight"]) == (1, pytest.approx(eta)), "applied once, not twice"

            proxy.cut_after_next_commit()
            assert store.graph.set_indexed([a.id]) == 1, "a repeatable write is sent again and answers"
            assert proxy.cuts == 2
    finally:
        proxy.close()
    message = str(info.value)
    assert "'hebbian_update'" in message and "IncompleteCommit" in message and "not sent again" in message, message
    assert proxy.uri in message and info.value.url == proxy.uri


@pytest.mark.slow
def test_neo4j_gone_mid_use_is_named_by_the_sync_and_the_async_store(without_gds, tmp_path: Path) -> None:
    """Kills this module's server (a later test starts it again)."""
    server = without_gds
    config = server.config()
    config.graph.retry_attempts = 2

    async def scenario(sync_error: list[BaseException]) -> BaseException:
        async with cg.open_async(tmp_path / "async-home", graph=server.uri, embedder="hash",
                                 config=config) as astore:
            agent = astore.agent("helper", user_id="u1")
            await agent.encode("Stored before the server went away")
            with server.open(tmp_path / "home", config=config) as store:
                store.agent("helper", user_id="u2").encode("Stored before the server went away")
                assert tool.kill(server.dir) is not None
                with pytest.raises(GraphStoreUnavailable) as sync_info:
                    store.agent("helper", user_id="u2").retrieve("stored before the server", top_k=3)
                sync_error.append(sync_info.value)
            with pytest.raises(GraphStoreUnavailable) as async_info:
                await agent.retrieve("stored before the server", top_k=3)
            return async_info.value

    sync_errors: list[BaseException] = []
    async_error = asyncio.run(scenario(sync_errors))
    for error in [*sync_errors, async_error]:
        message = str(error)
        assert server.uri in message and getattr(error, "url", None) == server.uri, message
        assert "Start Neo4j" in message and f"after {config.graph.retry_attempts} attempts" in message, message
        assert server.password not in exception_text(error)
