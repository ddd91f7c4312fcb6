"""`cg.open()`: one memory store = a graph, a vector index and an embedder.

With no arguments everything is embedded under one home folder (`./.cogmem`
or `$COGMEM_HOME`): a FalkorDB server started by the library, Qdrant in local
mode, and the best local embedder. Production passes URLs instead.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from pydantic import ValidationError

from cogmem_graph import aio_bridge, telemetry
from cogmem_graph.api import governance
from cogmem_graph.api.consolidation_log import ConsolidationLog
from cogmem_graph.api.records import AgentRecords, MoodSource, as_mood_source, as_traits
from cogmem_graph.api.upgrade import check_not_newer, upgrade_on_open
from cogmem_graph.audit import AuditLog
from cogmem_graph.between_turns.archive import MemoryArchive
from cogmem_graph.clock import Clock, SystemClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.graph import FALKOR_SCHEMES
from cogmem_graph.context import MemoryContext
from cogmem_graph.errors import BackendUnavailable, InvalidArgument, StoreClosed, field_problems, first_field
from cogmem_graph.graph.port import GraphStats, GraphStore
from cogmem_graph.home import (
    EDGE_DIR,
    GRAPH_DIR,
    LOCAL_VECTORS_DIR,
    default_home,
    home_access,
    private_dir,
    secure_home,
    write_private,
)
from cogmem_graph.home_lock import HomeHold, hold_home
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.model import Hexaco
from cogmem_graph.operations import checked_arguments
from cogmem_graph.providers import LLM, CachedEmbedder, Embedder, Reranker, best_local_embedder, make_embedder
from cogmem_graph.providers.embedders import gives_sentences
from cogmem_graph.redact import redact_url, redact_urls
from cogmem_graph.results import RepairResult
from cogmem_graph.vectors.port import VectorIndex
from cogmem_graph.write.indexing import index_unindexed, reembed_all

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.between_turns import perspective
    from cogmem_graph.between_turns.consolidation import ConsolidationResult, Consolidator
    from cogmem_graph.between_turns.perspective import EventEncoding

__all__ = ["MemoryStore", "StoreClosed", "consolidator_for", "default_home", "open"]

log = logging.getLogger(__name__)

HandleT = TypeVar("HandleT", bound=AgentRecords)

REPAIR_BATCH = 500
HEALTH_TIMEOUT_S = 2.0
"""How long `MemoryStore.health()` waits for the backends' answers (both are asked at once)."""
HEALTH_CACHE_S = 1.0
"""How long `MemoryStore.health()` answers from its last check: a storm of probes costs one check
per second."""
CLOSED_HEALTH = {"ready": False, "graph": "the store is closed", "vectors": "the store is closed"}
"""What `MemoryStore.health()` answers once the store is closed."""
_LOOPBACK_PORT = re.compile(r"(?:(?:falkor|redis)://)?127\.0\.0\.1:\d+")


def _open_graph(uri: str | None, home: Path, config: CogmemConfig, clock: Clock) -> GraphStore:
    if uri is None:
        from cogmem_graph.graph.falkordb.store import FalkorGraphStore

        return FalkorGraphStore(data_dir=home / GRAPH_DIR, config=config.graph, clock=clock)
    scheme = uri.split("://", 1)[0].lower()
    if scheme in FALKOR_SCHEMES:
        from cogmem_graph.graph.falkordb.store import FalkorGraphStore

        return FalkorGraphStore(url=uri, config=config.graph, clock=clock)
    if scheme in ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"):
        from cogmem_graph.graph.neo4j import Neo4jGraphStore

        return Neo4jGraphStore(uri, config=config.graph, clock=clock)
    raise InvalidArgument(f"graph must be a falkor://, redis://, rediss:// (TLS), bolt:// or neo4j:// URL, "
                          f"not {redact_url(uri)!r}", argument="graph")


def _open_vectors(embedder: Embedder, config: CogmemConfig, home: Path) -> VectorIndex:
    """A Qdrant server when a URL is set; else the embedded index under the home:
    Qdrant Edge (in-process engine) or qdrant-client's local mode, as configured."""
    vectors = config.vectors
    if vectors.url is None and vectors.embedded == "edge":
        from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex

        return EdgeVectorIndex(model=embedder.name, dim=embedder.dim, config=vectors, path=home / EDGE_DIR,
                               sentences=gives_sentences(embedder))
    from cogmem_graph.vectors.qdrant import QdrantVectorIndex  # qdrant-client: 1.5 s of imports

    return QdrantVectorIndex(model=embedder.name, dim=embedder.dim, config=vectors, local_path=home / LOCAL_VECTORS_DIR)


def warn_other_embedders(index: VectorIndex, home: Path, embedder: Embedder) -> None:
    """Vectors of one embedder live in their own collection: a home indexed by another one
    opens with an empty collection, and every search would quietly find nothing. Say so,
    naming both, when the home holds another embedder's collection and this one is empty."""
    folder = home / EDGE_DIR
    if not folder.is_dir():
        return
    current = getattr(index, "name", "")
    others = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != current)
    if others and index.count(None, active=None) == 0:
        log.warning("the vectors under %s were made by another embedder (collection %s); this store uses %r "
                    "(collection %s, empty), so the memories indexed there are not searchable: open it "
                    "with the embedder that made them (e.g. embedder='local' for MiniLM, 'hash' for the "
                    "hash embedder), or index them for this one with store.repair() (`cogmem repair`)",
                    folder, ", ".join(others), embedder.name, current)


def warn_unsearchable(graph: GraphStore, index: VectorIndex, config: CogmemConfig, home: Path) -> None:
    """A graph on a server and vectors of this process only: traces another process indexed
    in its own vectors are in the graph but not in this index, so no search from here finds
    them. Two counts (searchable traces in the graph, active vectors here), not a comparison
    of ids; warn with the difference, a lower bound of what cannot be searched."""
    url = config.vectors.url
    if config.graph.uri is None or (url is not None and url != ":memory:"):
        return  # the home's own graph, or vectors on a server that every process can share
    in_graph = graph.count_searchable_traces()
    in_index = index.count(None, active=True)
    if in_graph <= in_index:
        return
    where = f"the embedded vector index under {home}" if url is None else "the in-process vector index (':memory:')"
    log.warning("the graph at %s holds %s but %s holds %s: at least %s in the graph cannot be found by this "
                "store's searches, only reached through the graph's edges from what they find (their vectors "
                "are in another process's index; the two counts were compared, not the ids). To use one memory "
                "from many processes, point every process at one Qdrant server (vectors=URL, --vectors) or share "
                "the memory through `cogmem serve` (cg.connect, --server)",
                redact_url(config.graph.uri), _count(in_graph, "searchable trace"), where,
                _count(in_index, "vector"), _count(in_graph - in_index, "trace"))


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _make_embedder(embedder: str | Embedder | None, local_threads: int | None = None) -> Embedder:
    """The embedder a spec names; a local one runs on `local_threads` torch threads."""
    local = {"threads": local_threads}
    if embedder is None or embedder == "auto":
        return best_local_embedder(**local)
    if isinstance(embedder, str):
        kind = embedder.strip().partition(":")[0].lower()
        return make_embedder(embedder, **(local if kind == "local" else {}))
    for attribute in ("name", "dim", "embed", "embed_query"):
        if not hasattr(embedder, attribute):
            raise InvalidArgument(f"embedder must be a spec string or an Embedder (missing {attribute!r})",
                                  argument="embedder")
    return embedder


def _make_reranker(reranker: Any) -> Reranker | None:
    if reranker is None or reranker is False:
        return None
    if reranker == "cohere":
        from cogmem_graph.providers import CohereReranker

        return CohereReranker()
    if hasattr(reranker, "rerank"):
        given: Reranker = reranker  # any object with rerank(), taken as the Reranker it stands for
        return given
    raise InvalidArgument(f"reranker must be None, 'cohere' or an object with rerank(), not {reranker!r}",
                          argument="reranker")


def _make_llm(llm: Any) -> LLM | None:
    """None, "openai" / "openai:<chat model>" (key from OPENAI_API_KEY), or an object with
    `complete` (and `complete_json` for the observer, reflector and perspective steps)."""
    if llm is None or llm is False:
        return None
    if isinstance(llm, str):
        provider, _, model = llm.partition(":")
        if provider != "openai":
            raise InvalidArgument(f"llm must be 'openai' or 'openai:<model>', not {llm!r}", argument="llm")
        from cogmem_graph.providers import OpenAIChat

        return OpenAIChat(model) if model else OpenAIChat()
    if hasattr(llm, "complete"):
        given: LLM = llm  # any object with complete(), taken as the LLM it stands for
        return given
    raise InvalidArgument(f"llm must be None, 'openai:<model>' or an object with complete(), not {type(llm).__name__}",
                          argument="llm")


class MemoryStore:
    """A graph + vectors + embedder, shared by every agent handle made from it. Thread-safe
    for concurrent encode/retrieve; close it (or use `with`) to stop the embedded server.

    Every method that reaches a backend raises `StoreClosed` once the store is closed, and
    `BackendUnavailable` when the graph or the vector index cannot be reached.
    """

    def __init__(
        self, *, home: Path, graph: GraphStore, vectors: VectorIndex, embedder: Embedder, config: CogmemConfig,
        clock: Clock, reranker: Any = None, llm: Any = None, home_hold: HomeHold | None = None,
    ) -> None:
        self.home = home
        self._home_hold = home_hold  # this store's share of the process's lock on the home, if it uses one
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.config = config
        self.clock = clock
        self.reranker = reranker
        self.llm = llm
        self._closed = False
        self._lock = threading.Lock()
        self._agent_traits: dict[str, Hexaco] = {}
        self._health = _HealthChecks()

    def __repr__(self) -> str:
        return f"MemoryStore(graph={self.graph!r}, vectors={self.vectors!r}, embedder={self.embedder.name!r})"

    @property
    def closed(self) -> bool:
        """True once `close()` ran: a server's readiness probe reads it."""
        return self._closed

    def health(self) -> dict[str, Any]:
        """Whether the store can serve now: `{"ready": bool, "graph": "ok" | why not, "vectors":
        "ok" | why not}`, ready when both say "ok". Never raises.

        Each backend is asked once (`GraphStore.ping`, `VectorIndex.ping`), both at once, and
        waited for at most HEALTH_TIMEOUT_S; a check still running from an earlier call is not
        started again. The answer is reused for HEALTH_CACHE_S. An embedded graph server found
        dead is started again without waiting (so an idle store heals): it says so until it
        answers. The embedded graph is named by its folder ("embedded graph under
        <home>/graph"), never by the port it happens to run on.

        Returns:
            `{"ready": bool, "graph": "ok" or why not, "vectors": "ok" or why not}`.
        """
        if self._closed:
            return dict(CLOSED_HEALTH)
        checks = self._health
        with checks.lock:
            if checks.answer is not None and time.monotonic() - checks.at < HEALTH_CACHE_S:
                return dict(checks.answer)
            found = checks.run({"graph": lambda: self.graph.ping(), "vectors": lambda: self.vectors.ping()})
            answer = {"ready": all(v == "ok" for v in found.values()),
                      **{name: self._health_text(text) for name, text in found.items()}}
            checks.answer, checks.at = answer, time.monotonic()
            return dict(answer)

    def _health_text(self, text: str) -> str:
        if text == "ok":
            return text
        if self.config.graph.uri is None:  # the embedded server's port is its own business
            text = _LOOPBACK_PORT.sub(f"the embedded graph under {self.home / GRAPH_DIR}", text)
        return redact_urls(text)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("this memory store is closed; call cg.open() again")

    def context(self) -> MemoryContext:
        """The store owner's context (no agent identity): what consolidation gets instead of
        the store. `AgentMemory.context()` narrows it to one agent.

        Returns:
            A `MemoryContext` on this store's ports and providers.
        """
        vectors, embedder, reranker, llm = self.vectors, self.embedder, self.reranker, self.llm
        if aio_bridge.active():  # a call of the async store on the event loop: what has no asyncio client
            if not getattr(vectors, "native_async", False):  # a Qdrant server's index awaits its own client
                vectors = aio_bridge.OffLoop(vectors)
            reranker = None if reranker is None else aio_bridge.OffLoop(reranker)
            llm = None if llm is None else aio_bridge.OffLoop(llm)
            if not isinstance(embedder, CachedEmbedder):  # the cache sends only its misses off the loop
                embedder = aio_bridge.OffLoop(embedder)
        return MemoryContext(
            graph=self.graph, vectors=vectors, embedder=embedder, config=self.config,
            clock=self.clock, reranker=reranker, llm=llm, agent_traits=self.agent_traits,
            check_open=self._check_open)

    def agent(
        self, agent_id: str, *, traits: Hexaco | Mapping[str, Any] | None = None, user_id: str | None = None,
        thread_id: str | None = None, persona_id: str | None = None, organization_id: str | None = None,
        mood: MoodSource | Mapping[str, Any] = None,
    ) -> AgentMemory:
        """A handle for one agent; its identity decides which memories it may see and write.

        Args:
            agent_id: the agent.
            traits: `Hexaco` traits or a dict of their fields (default: neutral).
            user_id, thread_id, persona_id, organization_id: the rest of the identity; each
                adds the scope of that id to what the agent sees.
            mood: a `Mood`, a dict of its fields, or a callable returning the current `Mood`.

        Returns:
            An `AgentMemory`.

        Raises:
            ValueError: an invalid identity, traits or mood (the message names the field).
            StoreClosed: the store is closed.
        """
        from cogmem_graph.api.agent import AgentMemory  # the read and write paths, loaded on the first handle

        return self._handle(AgentMemory, agent_id, traits=traits, user_id=user_id, thread_id=thread_id,
                            persona_id=persona_id, organization_id=organization_id, mood=mood)

    def records(
        self, agent_id: str, *, traits: Hexaco | Mapping[str, Any] | None = None, user_id: str | None = None,
        thread_id: str | None = None, persona_id: str | None = None, organization_id: str | None = None,
        mood: MoodSource | Mapping[str, Any] = None,
    ) -> AgentRecords:
        """A handle on one agent's memory records, without recall or encoding: `get`, `list`,
        `update`, `history`, `forget`, `export`, `pin`, `stats`, `neighbourhood`, as on
        `agent(...)`, inside the same visible scopes. It loads neither the read nor the write
        path (nor numpy), so a script or a command that only inspects, corrects or forgets
        memories starts faster. Arguments, errors: as `agent`.

        Returns:
            An `AgentRecords`.
        """
        return self._handle(AgentRecords, agent_id, traits=traits, user_id=user_id, thread_id=thread_id,
                            persona_id=persona_id, organization_id=organization_id, mood=mood)

    def _handle(self, kind: type[HandleT], agent_id: str, *, traits: Hexaco | Mapping[str, Any] | None,
                user_id: str | None, thread_id: str | None, persona_id: str | None, organization_id: str | None,
                mood: MoodSource | Mapping[str, Any]) -> HandleT:
        self._check_open()
        try:
            identity = AgentIdentity(agent_id=agent_id, user_id=user_id, thread_id=thread_id,
                                     persona_id=persona_id, organization_id=organization_id)
        except ValidationError as exc:
            raise InvalidArgument(f"not a valid agent identity: {field_problems(exc.errors())}",
                                  argument=first_field(exc.errors(), default="agent_id")) from None
        traits = as_traits(traits)
        mood = as_mood_source(mood)
        if traits is not None:
            self._agent_traits[identity.agent_id] = traits
        return kind(self, identity, traits or Hexaco(), mood)

    def agent_traits(self, agent_id: str) -> Hexaco | None:
        """The traits the latest handle of `agent_id` in this process was opened with:
        consolidation judges an agent's contradictions by them.

        Args:
            agent_id: the agent.

        Returns:
            Its `Hexaco` traits, or None when none were given.
        """
        return self._agent_traits.get(agent_id)

    def stats(self) -> GraphStats:
        """Counts of the whole store.

        Returns:
            `GraphStats`: traces by type and state, edges by type, entities.

        Raises:
            StoreClosed: the store is closed.
        """
        self._check_open()
        return self.graph.stats()

    @functools.cached_property
    def consolidation_log(self) -> ConsolidationLog:
        """The last consolidation runs, under the home (`api.consolidation_log`)."""
        return ConsolidationLog(self.home)

    def repair(self, *, reembed: bool = False, on_progress: Callable[[str, int], None] | None = None
               ) -> RepairResult:
        """Reconcile the vectors with the graph (the source of truth): index traces the
        graph holds unindexed, deactivate vectors of inactive traces, remove vectors
        whose trace is gone, reactivate vectors of active traces.

        A home opened with another embedder than the one that indexed it has an empty
        collection for the new one: `repair()` indexes every memory there.

        Args:
            reembed: also embed every memory again with this store's embedder and replace its
                vector: for vectors an older version made (memories written before sentence
                vectors have none) or a model changed under the same name. The vector
                segments are compacted first, so that a segment made before sentence vectors
                takes them. Memories stay searchable throughout; an interrupted run can be
                run again.
            on_progress: `on_progress(kind, n)` after each batch ("reembedded" or
                "reindexed", n memories): a progress bar.

        Returns:
            A `RepairResult` counting each.

        Raises:
            StoreClosed: the store is closed.
        """
        self._check_open()
        checked_arguments("repair", {"reembed": reembed})
        report = on_progress or (lambda kind, n: None)
        result = RepairResult()
        if reembed:
            self.vectors.compact()
            result.reembedded = reembed_all(self.context(), batch_size=REPAIR_BATCH,
                                            on_batch=lambda n: report("reembedded", n))
        # A vector lost behind the graph's back (index rebuilt, collection dropped): index again.
        known = self.vectors.all_ids()
        lost = [i for i in self.graph.indexed_trace_ids() if i not in known]
        self.graph.set_indexed(lost, False)
        result.reindexed = index_unindexed(self.context(), batch_size=REPAIR_BATCH,
                                           on_batch=lambda n: report("reindexed", n))
        active_vectors = self.vectors.all_ids(active=True)
        inactive_vectors = self.vectors.all_ids(active=False)
        state = self.graph.trace_index_state(list(active_vectors | inactive_vectors))
        gone = [i for i in active_vectors | inactive_vectors if i not in state]
        to_deactivate = [i for i in active_vectors if state.get(i) is False]
        to_reactivate = [i for i in inactive_vectors if state.get(i) is True]
        self.vectors.delete(gone)
        if gone:  # a forgotten memory's vector: its bytes leave the files at the next compaction
            self.compaction_due()
        self.vectors.set_active(to_deactivate, False)
        self.vectors.set_active(to_reactivate, True)
        result.removed_vectors = len(gone)
        result.deactivated_vectors = len(to_deactivate)
        result.reactivated_vectors = len(to_reactivate)
        return result

    # ------------------------------------------------------------ governance (owner)

    def erase(self, user_id: str, *, organization_id: str | None = None, include_shared: bool = False,
              compact: bool = True, on_progress: Any = None) -> governance.EraseReceipt:
        """Erase everything of one user (see `api.governance.erase`): an owner operation.

        Args:
            user_id: the user.
            organization_id: their organization, when their scopes carry one.
            include_shared: also delete what they wrote into shared scopes (else it stays,
                without its author).
            compact: rewrite the files now so that nothing erased stays in them.
            on_progress: `on_progress(kind, n)`, called after each batch (a progress bar).

        Returns:
            An `EraseReceipt`: the scope keys erased and the counts.

        Raises:
            ValueError: a missing or invalid `user_id` or `organization_id`; or no
                `organization_id` while the user has nothing outside an organization but
                users of that id have memories under one (the message names them).
            StoreClosed: the store is closed.
        """
        checked_arguments("erase", {"user_id": user_id, "organization_id": organization_id,
                                    "include_shared": include_shared, "compact": compact})
        return governance.erase(self, user_id, organization_id=organization_id, include_shared=include_shared,
                                compact=compact, on_progress=on_progress)

    def users(self, *, organization_id: str | None = None) -> list[str]:
        """The ids of the users who hold memories (in their user scope or one of their
        threads), sorted: an owner operation, as `erase` and `export` of a user are.

        Args:
            organization_id: that organization's users; without it, the users outside every
                organization (a user id is qualified by its organization, as in `erase`).

        Returns:
            The user ids, without their organization.

        Raises:
            ValueError: an invalid `organization_id`.
            StoreClosed: the store is closed.
        """
        self._check_open()
        checked_arguments("users", {"organization_id": organization_id})
        return governance.users(self, organization_id)

    def export(self, out: TextIO, *, user_id: str | None = None, organization_id: str | None = None,
               on_progress: Any = None) -> Any:
        """Write JSON Lines that `import` reads: the whole store, or one user's scopes (their
        user and thread memories, with what hangs off them). Audited.

        Args:
            out: a text stream to write to.
            user_id, organization_id: one user's scopes only.
            on_progress: `on_progress(section, n)`, called as records are written.

        Returns:
            The `PortableCounts` written.

        Raises:
            ValueError: an invalid `user_id` or `organization_id`, or a user found only under
                organizations while `organization_id` is not given (as `erase`).
            StoreClosed: the store is closed.
        """
        self._check_open()
        keys = None
        if user_id is not None or organization_id is not None:
            _, keys = governance.user_scopes(self, user_id, organization_id, verb="export")
        return governance.export(self, out, keys, {"owner": True}, on_progress=on_progress)

    COMPACTION_DUE = "compaction.due"

    def compaction_due(self) -> None:
        """Note that deleted data waits to leave the files (the next consolidation compacts)."""
        private_dir(self.home)
        write_private(self.home / self.COMPACTION_DUE, b"")

    def compact(self) -> dict[str, Any]:
        """Rewrite the embedded graph's files and the vector segments so that deleted memories
        are in no file under the home. With servers, see docs/privacy.md.

        Returns:
            `{"vectors": ..., "graph": ...}`: what each rewrite reports.

        Raises:
            StoreClosed: the store is closed.
        """
        self._check_open()
        # The graph's rewrite runs in its server's process: the vectors compact meanwhile.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogmem-compact") as pool:
            graph = pool.submit(self.graph.compact_storage)
            report = {"vectors": self.vectors.compact()}
            report["graph"] = graph.result()
        (self.home / self.COMPACTION_DUE).unlink(missing_ok=True)
        return report

    def close(self) -> None:
        """Close the vector index and the graph (the embedded server stops) and let the home
        go. Closing again does nothing."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with contextlib.suppress(OSError):  # refusals counted and not yet written: their summary
            AuditLog(self.home, self.config.audit).flush(self.clock.now_ms())
        try:
            self.vectors.close()
        finally:
            try:
                self.graph.close()
            finally:
                if self._home_hold is not None:
                    self._home_hold.release()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def consolidate(
        self, scope_keys: list[str] | None = None, *, traits: Hexaco | None = None, trigger: str = "call"
    ) -> ConsolidationResult:
        """Run consolidation now (docs/architecture.md, "One consolidation run") over `scope_keys`,
        or every scope key when None.
        `traits` decide contradictions (honesty); without them each contradiction is decided by
        the traits of the agent that stated its newer side (`agent_traits`). Overlapping runs
        are refused (`skipped`). Each run that ran is kept in `consolidation_log`; every run (its
        duration, outcome and counts) is reported to `telemetry`.

        Args:
            scope_keys: the scope keys to consolidate; None for every one.
            traits: the traits that decide every contradiction of this run.
            trigger: what started the run, as the log records it.

        Returns:
            The run's `ConsolidationResult` (`skipped` when another run held the mutex).

        Raises:
            StoreClosed: the store is closed.
        """
        self._check_open()
        started = self.clock.now_ms()
        timer = telemetry.now()
        try:
            result = consolidator_for(self).run(scope_keys, traits=traits)
            if (self.home / self.COMPACTION_DUE).exists():  # a forget since the last run: out of the files too
                self.compact()
            if not result.skipped:
                # After compacting, which rewrites partitions without their search graphs.
                building = time.perf_counter()
                self.vectors.build_search_graphs()
                result.search_graph_ms = round((time.perf_counter() - building) * 1000, 1)
                self.consolidation_log.record(result, trigger=trigger, at_ms=started)
        except BaseException:
            telemetry.consolidation(trigger, timer, "failed")
            raise
        telemetry.consolidation(trigger, timer, "skipped" if result.skipped else "ran", result.counts())
        return result

    def rehydrate(self, trace_id: str) -> str:
        """The verbatim original of any (gisted or rewritten) trace in the store, whatever its
        scope, without strengthening the trace. An owner operation: give agents (and the
        tools an LLM calls) `agent.rehydrate`, which sees only the agent's visible scopes.

        Args:
            trace_id: the trace's id.

        Returns:
            The original text (the trace's own content when it was never rewritten).

        Raises:
            ArchiveNotFound: no trace or archived original of that id.
            ValueError: `trace_id` is not a string.
            StoreClosed: the store is closed.
        """
        self._check_open()
        return MemoryArchive(self.graph, self.clock).rehydrate(trace_id)

    def encode_event(self, event: str, witnesses: Any, *, importance: float | None = None,
                     entities: Any = (), created_at: int | None = None, tags: Any = (),
                     metadata: dict[str, Any] | None = None) -> EventEncoding:
        """Perspective encoding: one event, a trace per witness (agent handles or `Witness`
        objects) in each witness's own agent scope — a first-person rewrite by the LLM when
        the gates pass (importance, tier, entity overlap), the objective event otherwise.

        Args:
            event: what happened.
            witnesses: agent handles of this store, or `Witness` objects.
            importance, entities, created_at, tags, metadata: as for `AgentMemory.encode`.

        Returns:
            An `EventEncoding`: each witness's `WitnessMemory`.

        Raises:
            ValueError: an empty event, no witnesses, a witness of another store, or an
                invalid field.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import perspective  # on first use, like consolidation

        self._check_open()
        ctx = self.context()
        perspective.check_event(event, importance, entities, ctx.config.perspective)
        return perspective.encode_event(ctx, event, self._witnesses(witnesses), importance=importance,
                                        entities=entities, created_at=created_at, tags=tags, metadata=metadata)

    def _witnesses(self, witnesses: Any) -> list[tuple[perspective.Witness, MemoryContext]]:
        """Each witness (an agent handle or a `Witness`) with its agent's context, checked."""
        from cogmem_graph.api.agent import AgentMemory
        from cogmem_graph.between_turns import perspective

        if isinstance(witnesses, str | bytes) or not isinstance(witnesses, Sequence) or not witnesses:
            raise InvalidArgument("witnesses must be a non-empty list of agent handles or Witness objects",
                                  argument="witnesses")
        out: list[tuple[perspective.Witness, MemoryContext]] = []
        seen: set[str] = set()
        for index, item in enumerate(witnesses):
            witness = perspective.Witness(item) if isinstance(item, AgentMemory) else item
            if not isinstance(witness, perspective.Witness) or not isinstance(witness.agent, AgentMemory):
                raise InvalidArgument(f"witnesses[{index}] must be an agent handle or a Witness, "
                                      f"not {type(item).__name__}", argument=f"witnesses[{index}]")
            if witness.agent.store is not self:
                raise InvalidArgument(f"witnesses[{index}] is an agent of another store",
                                      argument=f"witnesses[{index}]")
            ctx = witness.agent.context()
            perspective.check_witness(index, witness, ctx, seen)
            out.append((witness, ctx))
        return out



class _HealthChecks:
    """What `MemoryStore.health()` keeps: its last answer, and the checks that outlived their wait."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answer: dict[str, Any] | None = None
        self.at = 0.0
        self._late: dict[str, tuple[threading.Thread, float]] = {}

    def run(self, pings: dict[str, Callable[[], None]]) -> dict[str, str]:
        """Each ping on a thread of its own, all waited for together up to HEALTH_TIMEOUT_S:
        "ok", or why not. A ping that did not return in time keeps its thread, and is not
        started again until it has returned."""
        started: dict[str, tuple[threading.Thread, dict[str, str]]] = {}
        found: dict[str, str] = {}
        now = time.monotonic()
        for name, ping in pings.items():
            late = self._late.get(name)
            if late is not None and late[0].is_alive():
                found[name] = f"{name} check started {now - late[1]:.0f} s ago has not returned"
                continue
            self._late.pop(name, None)
            box: dict[str, str] = {}
            thread = threading.Thread(target=_ping_into, args=(ping, box), name=f"cogmem-health-{name}", daemon=True)
            thread.start()
            started[name] = (thread, box)
        deadline = now + HEALTH_TIMEOUT_S
        for name, (thread, box) in started.items():
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self._late[name] = (thread, now)
                found[name] = f"{name} did not answer within {HEALTH_TIMEOUT_S:.0f} s"
            else:
                found[name] = box.get("answer", f"{name} check failed")
        return {name: found[name] for name in pings}


def _ping_into(ping: Callable[[], None], box: dict[str, str]) -> None:
    try:
        ping()
    except BackendUnavailable as exc:
        box["answer"] = str(exc)
    except Exception as exc:  # reported, not raised: health() never raises
        box["answer"] = f"{type(exc).__name__}: {exc}"
    else:
        box["answer"] = "ok"


_consolidators: weakref.WeakKeyDictionary[MemoryStore, Consolidator] = weakref.WeakKeyDictionary()
_consolidators_lock = threading.Lock()


def consolidator_for(store: MemoryStore) -> Consolidator:
    """The store's consolidator (created on first use, on the owner's context), so every run
    shares one mutex."""
    # Imported on first use: consolidation brings numpy, which opening a store for
    # `cogmem stats`, `list` or `export` does not need.
    from cogmem_graph.between_turns.consolidation import Consolidator

    with _consolidators_lock:
        consolidator = _consolidators.get(store)
        if consolidator is None:
            consolidator = _consolidators[store] = Consolidator(store.context())
        return consolidator


def open(  # noqa: A001 - the public entry point is `cg.open()`
    home: str | Path | None = None, *, graph: str | None = None, vectors: str | None = None,
    embedder: str | Embedder | None = None, reranker: Any = None, llm: Any = None,
    config: CogmemConfig | None = None, clock: Clock | None = None, upgrade: bool = True,
) -> MemoryStore:
    """Open a memory store.

    - `home`: folder of the embedded graph and vectors (default `./.cogmem` or `$COGMEM_HOME`),
      private to its owner (folders 0700, files 0600; looser modes are tightened here, with a warning);
      one written by an older version is upgraded here, with a warning (see `cogmem migrate`);
    - `graph`: `neo4j://` / `bolt://` URL for Neo4j, `falkor://host:port` (or `redis://`;
      `rediss://` / `falkors://` over TLS) for an external FalkorDB; None starts the embedded
      FalkorDB under `home`;
    - `vectors`: Qdrant server URL, or `":memory:"`; None uses the embedded index under `home`
      (`config.vectors.embedded`: Qdrant Edge or qdrant-client local mode);
    - `embedder`: "local" (MiniLM), "hash", "openai:text-embedding-3-small", an Embedder, or
      None for the best local one (MiniLM, else hash with a warning);
    - `llm`: "openai:gpt-4o-mini" (or any chat model, key from OPENAI_API_KEY) or an LLM object
      for the steps that use one (observer, reflector, perspective, schema summaries, gist);
      None runs their offline fallbacks.

    Args:
        home, graph, vectors, embedder, llm: as above.
        reranker: None, "cohere" (key from COHERE_API_KEY) or an object with `rerank()`.
        config: a `CogmemConfig` (copied; `graph` and `vectors` override its URLs).
        clock: the clock decay and schedules read (default the system's).
        upgrade: upgrade a store an older version wrote, as it opens (a warning says what
            was done); False leaves that to `cogmem_graph.api.upgrade.migrate` (`cogmem migrate`,
            with a progress bar). A store a newer version wrote is refused either way.

    Returns:
        An open `MemoryStore`; close it, or use it in a `with` block.

    Raises:
        ValueError: an unknown URL scheme, embedder, reranker or llm.
        HomeLocked: another process uses this home's embedded graph or vectors.
        HomeNotAccessible: this user may not write the home (the message names the path).
        StoreVersionTooNew: the home or graph was written by a newer cogmem-graph.
        EmbeddedServerError: the embedded FalkorDB could not be started.
        BackendUnavailable: a graph or vector server cannot be reached (the message names
            the URL and what to start).
    """
    cfg = (config or CogmemConfig()).model_copy(deep=True)
    home_path = Path(home) if home is not None else default_home()
    if graph is not None:
        cfg.graph.uri = graph
    if vectors is not None:
        cfg.vectors.url = vectors
    clock = clock or SystemClock()
    emb = _make_embedder(embedder, cfg.local_embedder_threads)
    if cfg.embedding_cache_size:
        emb = CachedEmbedder(emb, max_size=cfg.embedding_cache_size)
    rer = _make_reranker(reranker)
    chat = _make_llm(llm)
    with home_access(home_path):  # a home this user may not write: HomeNotAccessible naming it
        if cfg.graph.uri is None or cfg.vectors.url is None or home_path.exists():
            # Private before anything is written in it: folders 0700, files 0600 (cogmem_graph/home.py);
            # a home left open to other users is tightened, with a warning. A store with every backend
            # on a server makes no home until it writes its audit file (private too).
            secure_home(home_path)
        # One process at a time uses a home's embedded graph or vectors (cogmem_graph/home_lock.py):
        # another one is refused here, naming this one and `cogmem serve`.
        hold = hold_home(home_path) if cfg.graph.uri is None or cfg.vectors.url is None else None
    try:
        graph_store = _open_graph(cfg.graph.uri, home_path, cfg, clock)
    except BaseException:
        if hold is not None:
            hold.release()
        raise
    index = None
    try:
        graph_store.setup_schema()
        index = _open_vectors(emb, cfg, home_path)
        warn_other_embedders(index, home_path, emb)
        warn_unsearchable(graph_store, index, cfg, home_path)
    except BaseException:
        try:
            if index is not None:
                index.close()
        finally:
            graph_store.close()
            if hold is not None:
                hold.release()
        raise
    store = MemoryStore(home=home_path, graph=graph_store, vectors=index, embedder=emb, config=cfg,
                        clock=clock, reranker=rer, llm=chat, home_hold=hold)
    try:
        # A store written by an older version is upgraded here, with a warning saying so; one
        # written by a newer version is refused (cogmem_graph/api/upgrade.py).
        if upgrade:
            upgrade_on_open(store)
        else:
            check_not_newer(store)
    except BaseException:
        store.close()
        raise
    return store
