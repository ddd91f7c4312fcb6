"""Counting the work one public call does on the embedded default, exactly.

`count_work(store)` installs thin counting wrappers around the real objects of a real
store (nothing is mocked: the embedded FalkorDB and the Qdrant Edge index do the work) and
removes them when the block ends. It counts:

- **graph requests**: every `GRAPH.*` command sent to the graph server on the store's
  connections, counted where the `redis` client puts it on the wire (`send_command` of each
  connection the store's pool hands out). A plain statement, a pipelined `read_later` read
  (sent on a connection of its own, its reply read later), a write left unconfirmed and a
  retry are one request each: the round trips of the call. Connection set-up (AUTH, HELLO,
  CLIENT SETINFO) is not counted: it depends on how many pooled connections are open yet.
- **statements**: the same requests by statement name. The adapter sends a statement's text
  from `cypher/` (after its parameter header), so the name is found by the text: the
  longest statement of the dialect, relationship types and type labels filled in, that the
  query ends with. A query matching none is named `<unnamed: …>`; other commands by their
  own name (`GRAPH.CONSTRAINT`).
- **vector calls**: calls of the `VectorIndex` port's methods on `store.vectors`, by method.
- **texts embedded**: texts the embedding model computed (under the store's LRU cache, so a
  cache hit is not counted), and the number of calls to it.

Nothing is added to the library's code paths: outside the block they run as they always do.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import cogmem_graph as cg
from cogmem_graph.graph.cypher import EDGE_TYPE_PLACEHOLDER, TYPE_LABEL_PLACEHOLDER
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.model import EdgeType, MemoryType
from cogmem_graph.vectors.port import VectorIndex

VECTOR_METHODS = tuple(sorted(name for name, value in vars(VectorIndex).items()
                              if not name.startswith("_") and callable(value)))
"""The port's methods: every call the memory makes into its vector index goes through one."""

GRAPH_QUERIES = ("GRAPH.QUERY", "GRAPH.RO_QUERY")


@dataclass
class Work:
    """What one block of calls asked of the graph server, the vector index and the embedder."""

    statements: Counter[str] = field(default_factory=Counter)
    reads: int = 0
    """GRAPH.RO_QUERY requests."""
    writes: int = 0
    """GRAPH.QUERY requests (each one synced to disk before the server answers)."""
    other_requests: int = 0
    """Other GRAPH.* commands."""
    vector_calls: Counter[str] = field(default_factory=Counter)
    texts_embedded: int = 0
    embed_calls: int = 0

    @property
    def round_trips(self) -> int:
        return self.reads + self.writes + self.other_requests

    def summary(self) -> str:
        statements = ", ".join(f"{name}×{n}" for name, n in sorted(self.statements.items()))
        vectors = ", ".join(f"{name}×{n}" for name, n in sorted(self.vector_calls.items()))
        return (f"graph round trips {self.round_trips} ({self.reads} reads, {self.writes} writes, "
                f"{self.other_requests} other): {statements or 'none'}; vector calls "
                f"{sum(self.vector_calls.values())}: {vectors or 'none'}; texts embedded "
                f"{self.texts_embedded} in {self.embed_calls} calls")


def statement_texts(graph: FalkorGraphStore) -> list[tuple[str, str]]:
    """(text, name) of every statement the adapter can send, longest text first."""
    library = graph.cypher
    found: dict[str, str] = {}
    for name in library.names():
        text = library.get(name)
        if EDGE_TYPE_PLACEHOLDER in text:
            variants = [library.for_edge(name, edge_type) for edge_type in EdgeType]
        elif TYPE_LABEL_PLACEHOLDER in text:
            variants = [library.for_type_label(name, memory_type) for memory_type in MemoryType]
        else:
            variants = [text]
        for variant in variants:
            found[variant] = f"{found[variant]}|{name}" if variant in found else name
    return sorted(found.items(), key=lambda item: len(item[0]), reverse=True)


def _name_of(query: str, texts: list[tuple[str, str]]) -> str:
    for text, name in texts:
        if query.endswith(text):
            return name
    return f"<unnamed: …{query[-80:]!r}>"


@contextmanager
def count_work(store: cg.MemoryStore) -> Iterator[Work]:
    """Count what the calls made inside the block cost (see the module's docstring). Writes
    left unconfirmed by earlier calls are confirmed first, so the block starts from a quiet
    lane; a call's own unconfirmed write is counted when it is sent."""
    graph = store.graph
    if not isinstance(graph, FalkorGraphStore):
        raise TypeError(f"count_work counts the embedded FalkorDB adapter, not {graph!r}")
    graph.confirm_writes()
    work = Work()
    lock = threading.Lock()
    restore: list[Callable[[], None]] = []
    texts = statement_texts(graph)
    graph_name = graph.config.graph_name

    def on_send(args: tuple[Any, ...]) -> None:
        command = str(args[0]).upper() if args else ""
        if not command.startswith("GRAPH."):
            return  # connection set-up
        with lock:
            if command in GRAPH_QUERIES and len(args) > 2 and args[1] == graph_name:
                work.statements[_name_of(str(args[2]), texts)] += 1
                if command == "GRAPH.QUERY":
                    work.writes += 1
                else:
                    work.reads += 1
            else:
                work.statements[command] += 1
                work.other_requests += 1

    wrapped: dict[int, Any] = {}
    pool = graph._db.connection.connection_pool
    get_connection = pool.get_connection

    def counting_get_connection(*args: Any, **kwargs: Any) -> Any:
        connection = get_connection(*args, **kwargs)
        if id(connection) not in wrapped:
            send = connection.send_command

            def counting_send(*command: Any, **options: Any) -> Any:
                on_send(command)
                return send(*command, **options)
            connection.send_command = counting_send
            wrapped[id(connection)] = connection
        return connection

    pool.get_connection = counting_get_connection
    restore.append(lambda: delattr(pool, "get_connection"))

    vectors = store.vectors
    for method in VECTOR_METHODS:
        original = getattr(vectors, method)

        def counting_call(*args: Any, _method: str = method, _original: Any = original, **kwargs: Any) -> Any:
            with lock:
                work.vector_calls[_method] += 1
            return _original(*args, **kwargs)
        setattr(vectors, method, counting_call)
        restore.append(lambda _method=method: delattr(vectors, _method))

    # The model under the LRU cache. `embed_query` and `embed_queries` of most embedders call their own `embed`:
    # only the outermost call of a thread counts.
    model = getattr(store.embedder, "inner", store.embedder)
    depth = threading.local()
    for method, size in (("embed", len), ("embed_query", lambda _text: 1), ("embed_queries", len)):
        original = getattr(model, method, None)
        if original is None:  # an embedder without query batches
            continue

        def counting_embed(texts: Any, _original: Any = original, _size: Callable[[Any], int] = size) -> Any:
            outermost = not getattr(depth, "n", 0)
            if outermost:
                with lock:
                    work.embed_calls += 1
                    work.texts_embedded += _size(texts)
            depth.n = getattr(depth, "n", 0) + 1
            try:
                return _original(texts)
            finally:
                depth.n -= 1
        setattr(model, method, counting_embed)
        restore.append(lambda _method=method: delattr(model, _method))

    try:
        yield work
    finally:
        for undo in reversed(restore):
            undo()
        for connection in wrapped.values():
            del connection.send_command
