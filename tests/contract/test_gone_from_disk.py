"""What a user asks to forget is gone from every file under the memory home.

Memories whose content, tags and metadata carry a unique marker are encoded beside others
that are kept; the marked ones are then deleted the hard way (their trace nodes, the Entity
nodes only they mention, and their vector points), and the store compacts its storage:
`graph.compact_storage()` and `vectors.compact()`. Every file under the home is then read
as bytes: the marker (in any letter case: entity keys are lower-cased) must be in none of
them, nor the bytes of a vector written for a deleted point, while the memories that were
kept are still found, after closing and reopening too. The same scan finds the marker
before compaction, so the test can fail.

Both embedded vector engines are covered (Qdrant Edge, the default, and qdrant-client's
local mode), always with the embedded FalkorDB. The graph server is asked to write its
snapshot uncompressed (`rdbcompression no`, a runtime setting): LZF-compressed strings in
the append-only log's RDB base would otherwise hide text from a byte scan.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.vectors.port import VectorPoint

MARKER = "ZEBRA-MARKER-93c1f"
TEST_CYPHER = Path(__file__).resolve().parents[1] / "cypher"
KEPT = [f"kept {i}: the harbour of Lisbon was calm and sunny on day {i}" for i in range(4)]
GHOST_ID = f"ghost-{MARKER}"
"""A point written straight through the vector port, its payload carrying the marker (as a
point's tags and metadata do once they are part of its payload)."""


def _ghost_vector(dim: int) -> list[float]:
    """A unit vector no embedder makes: 64 components of ±1/8 in a fixed sign pattern, the rest 0.
    Exactly representable, so the engines store these very floats."""
    signs = int.from_bytes(MARKER.encode()[:8], "big")
    return [(0.125 if signs >> (i % 64) & 1 else -0.125) if i < 64 else 0.0 for i in range(dim)]


def _vector_patterns(vector: list[float]) -> list[bytes]:
    """The ghost's first 32 components as each engine writes them: little-endian float32
    (Qdrant Edge's vector storage) or pickled Python floats (local mode's SQLite rows)."""
    head = vector[:32]
    return [struct.pack("<32f", *head), b"".join(b"G" + struct.pack(">d", v) for v in head)]


def _files_holding(home: Path, needles: list[bytes]) -> list[str]:
    """Every file under `home` that holds one of `needles` (compared lower-cased), read whole."""
    lowered = [n.lower() for n in needles]
    found = []
    for path in sorted(home.rglob("*")):
        if path.is_file():
            data = path.read_bytes().lower()
            if any(n in data for n in lowered):
                found.append(str(path.relative_to(home)))
    return found


def _run_test_cypher(store: cg.MemoryStore, name: str, params: dict) -> list[dict]:
    text = CypherLibrary(store.graph.dialect, root=TEST_CYPHER).get(name)
    return store.graph._run_text(text, params, write=True, name=f"test_{name}")


def _kept_found(store: cg.MemoryStore) -> set[str]:
    agent = store.agent("a", user_id="u")
    found = {r.trace.content for r in agent.retrieve("the harbour of Lisbon, calm and sunny", top_k=10).traces}
    assert not any(MARKER in content for content in found), "a forgotten memory came back"
    return found & set(KEPT)


def _bookkeeping_holds_no_text(home: Path) -> None:
    """The server's own files (log, lock, address file) and the engines' small bookkeeping
    files hold no memory's text, kept or forgotten."""
    data_parts = {"appendonlydir", "segments", "wal", "collection"}
    bookkeeping = [p for p in home.rglob("*") if p.is_file() and not data_parts & set(p.relative_to(home).parts)]
    assert any(p.name == "server.log" for p in bookkeeping), [str(p) for p in bookkeeping]
    words = [b"lisbon", b"harbour", b"vault", MARKER.lower().encode()]
    assert [str(p.relative_to(home)) for p in bookkeeping if any(w in p.read_bytes().lower() for w in words)] == []


@pytest.fixture(params=["edge", "local"])
def home_config(request, tmp_path: Path) -> Iterator[tuple[Path, cg.CogmemConfig]]:
    config = cg.CogmemConfig()
    config.vectors.embedded = request.param
    yield tmp_path / "home", config


def test_forgotten_memories_leave_no_byte_under_the_home(home_config, clock: ManualClock) -> None:
    home, config = home_config
    marker = [MARKER.encode()]
    with cg.open(home=home, embedder="hash", config=config, clock=clock) as store:
        server = store.graph.embedded_server.client()
        server.config_set("rdbcompression", "no")
        # FalkorDB's query telemetry (a stream of recent queries with their parameters) is off.
        assert server.execute_command("GRAPH.CONFIG", "GET", "CMD_INFO")[1] in (0, b"0", False)
        agent = store.agent("a", user_id="u")
        forgotten = [agent.encode(f"secret {i}: the vault code is {MARKER}, tell no one", tags=[MARKER],
                                  metadata={"k": MARKER}) for i in range(3)]
        kept = [agent.encode(text) for text in KEPT]
        assert {t.content for t in kept} == set(KEPT)
        ghost = _ghost_vector(store.embedder.dim)
        store.vectors.upsert([VectorPoint(trace_id=GHOST_ID, scope_key=forgotten[0].scope_key, type="episodic",
                                          created_at=forgotten[0].created_at, dense=ghost, content_hash=MARKER)])
        vector_dir = Path(store.vectors.location)
        graph_dir = store.graph.embedded_server.data_dir
        patterns = _vector_patterns(ghost)

        # The scan can fail: the marker is on disk in both stores, and so is the ghost's vector.
        assert _files_holding(graph_dir, marker), "the graph's log should hold the marked memories"
        assert _files_holding(vector_dir, marker), "the vector index should hold the marked payload"
        assert _files_holding(vector_dir, patterns), "the vector index should hold the ghost's vector"

        ids = [t.id for t in forgotten]
        _run_test_cypher(store, "fault_forget_orphan_entities", {"ids": ids})
        for trace_id in ids:
            _run_test_cypher(store, "fault_delete_trace_node", {"id": trace_id})
        store.vectors.delete([*ids, GHOST_ID])
        # Deleted is not yet gone: the append-only log still replays what was deleted, and Edge
        # keeps deleted points in its segments and write-ahead log. (Local mode's SQLite keeps
        # them in free pages unless, as in Debian's build, it was compiled with SECURE_DELETE.)
        assert _files_holding(graph_dir, marker)
        if config.vectors.embedded == "edge":
            assert _files_holding(vector_dir, marker)
            assert _files_holding(vector_dir, patterns)

        graph_report = store.graph.compact_storage()
        vector_report = store.vectors.compact()
        assert graph_report["graph"] == "embedded falkordb" and graph_report["files_after"] >= 3, graph_report
        assert "note" not in vector_report, vector_report

        assert _files_holding(home, marker) == [], (graph_report, vector_report)
        assert list(server.scan_iter(match="telemetry{*}")) == []
        _bookkeeping_holds_no_text(home)
        assert _files_holding(home, patterns) == []
        assert store.vectors.count([forgotten[0].scope_key]) == len(KEPT)
        assert _kept_found(store) == set(KEPT)
        # Writes after compaction still land (the rebuilt shard is the live one).
        agent.encode("after compaction: the harbour of Lisbon stayed calm and sunny")

    assert _files_holding(home, marker) == []
    assert _files_holding(home, patterns) == []
    with cg.open(home=home, embedder="hash", config=config, clock=clock) as store:
        assert _kept_found(store) == set(KEPT)
        assert store.vectors.count([forgotten[0].scope_key]) == len(KEPT) + 1
        assert store.vectors.existing_ids([*ids, GHOST_ID]) == set()
    assert _files_holding(home, marker) == []

    _bookkeeping_holds_no_text(home)


def test_compaction_drops_query_telemetry_a_server_kept(tmp_path: Path, clock: ManualClock) -> None:
    """A home written while FalkorDB's CMD_INFO was on holds a `telemetry{<graph>}` stream: recent
    queries with their parameters, memories' text included. Compaction deletes it from disk."""
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        server = store.graph.embedded_server.client()
        server.config_set("rdbcompression", "no")
        stream = f"telemetry{{{store.config.graph.graph_name}}}"
        server.xadd(stream, {"Query": "(a write)", "Query parameters": f"CYPHER content='{MARKER}'"})
        store.agent("a", user_id="u").encode(KEPT[0])
        assert _files_holding(home, [MARKER.encode()]), "the stream should be in the append-only log"

        report = store.graph.compact_storage()
        assert report["query_telemetry_dropped"] == 1, report
        assert server.exists(stream) == 0
        assert _files_holding(home, [MARKER.encode()]) == []
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        assert _kept_found(store) == {KEPT[0]}


def test_edge_compaction_swaps_the_shard_of_every_index_on_the_folder(tmp_path: Path) -> None:
    """Indexes opened on one folder share one shard: after one of them compacts, all of them read
    and write the rebuilt shard, and the folder is private, with no hidden leftovers beside it."""
    from cogmem_graph.vectors.qdrant_edge import EdgeVectorIndex

    dim = 16
    first = EdgeVectorIndex(model="m", dim=dim, path=tmp_path)
    second = EdgeVectorIndex(model="m", dim=dim, path=tmp_path)
    try:
        points = [VectorPoint(trace_id=f"t{i}", scope_key="user:u", type="episodic", created_at=i,
                              dense=[float(i + 1 if j == i % dim else 0.5) for j in range(dim)],
                              content_hash=MARKER if i < 5 else "") for i in range(40)]
        first.upsert(points)
        first.delete([p.trace_id for p in points[:5]])
        report = first.compact()
        assert report["points"] == 35 and report["swap"] in ("exchange", "rename"), report
        assert all(a is b for a, b in zip(first.shards_for(None), second.shards_for(None), strict=True))
        assert second.count(["user:u"]) == 35
        second.upsert([VectorPoint(trace_id="late", scope_key="user:u", type="episodic", created_at=99,
                                   dense=[1.0] * dim)])
        assert first.existing_ids(["late", "t0", "t7"]) == {"late", "t7"}
        assert _files_holding(tmp_path, [MARKER.encode()]) == []
        assert [p.name for p in tmp_path.iterdir()] == [first.name]
        assert Path(first.location).stat().st_mode & 0o777 == 0o700
    finally:
        first.close()
        second.close()
    with EdgeVectorIndex(model="m", dim=dim, path=tmp_path) as reopened:
        assert reopened.count(["user:u"]) == 36


def test_indexes_without_files_say_so() -> None:
    """An in-memory index has no file to compact; it says so instead of failing."""
    from cogmem_graph.config.vectors import VectorConfig
    from cogmem_graph.vectors.qdrant import QdrantVectorIndex

    index = QdrantVectorIndex(model="m", dim=8, config=VectorConfig(url=":memory:"))
    try:
        assert "nothing on disk" in index.compact()["note"]
    finally:
        index.close()


@pytest.mark.parametrize("fault", ["before the swap", "reopening after the swap"])
def test_a_failed_edge_compaction_keeps_the_old_shard(tmp_path: Path, monkeypatch, fault: str) -> None:
    """A fault during the rebuild (injected into the adapter's own steps, the engine untouched)
    leaves the old shard in place and in use, with every acknowledged point."""
    from cogmem_graph.vectors import qdrant_edge

    dim = 8
    index = qdrant_edge.EdgeVectorIndex(model="m", dim=dim, path=tmp_path)
    try:
        index.upsert([VectorPoint(trace_id=f"t{i}", scope_key="user:u", type="episodic", created_at=i,
                                  dense=[float(i + 1 if j == i % dim else 1) for j in range(dim)]) for i in range(20)])
        index.delete(["t0"])
        if fault == "before the swap":
            def broken(folder: Path) -> None:
                raise OSError("disk full (injected)")
            monkeypatch.setattr(qdrant_edge, "_make_private", broken)
        else:
            real_open, calls = qdrant_edge._open_shard, []

            def broken(path: Path, dim: int, *settings, **options):
                calls.append(path)
                if len(calls) == 2:  # the rebuilt shard, now at the live path
                    raise qdrant_edge.VectorStoreUnavailable("cannot open (injected)", url=str(path))
                return real_open(path, dim, *settings, **options)
            monkeypatch.setattr(qdrant_edge, "_open_shard", broken)
        with pytest.raises((OSError, qdrant_edge.VectorStoreUnavailable)):
            index.compact()
        monkeypatch.undo()
        assert index.count(["user:u"]) == 19
        index.upsert([VectorPoint(trace_id="late", scope_key="user:u", type="episodic", created_at=99,
                                  dense=[1.0] * dim)])
        assert [p.name for p in tmp_path.iterdir()] == [index.name]
    finally:
        index.close()
    with qdrant_edge.EdgeVectorIndex(model="m", dim=dim, path=tmp_path) as reopened:
        assert reopened.count(["user:u"]) == 20
        assert reopened.compact()["points"] == 20
