"""The memory as a user runs it on Neo4j: the `cogmem` commands with `--graph bolt://…`.

A backup made on the embedded FalkorDB restores into Neo4j and exports again record for
record, and back; the demo recalls every question on Neo4j; a wrong password is one clear
error that names the server and not the secret."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.errors import GraphStoreUnavailable
from cogmem_graph.graph.neo4j import Neo4jGraphStore

from .test_cli import CHAT, LOCOMO, NOTES, Run, ok
from .test_cli import cogmem as _cogmem


def cogmem(*args: str, home: Path, graph: str | None = None, stdin: str | None = None) -> Run:
    """`cogmem` on a home, with its graph on Neo4j when `graph` is given."""
    return _cogmem(*(["--graph", graph] if graph else []), *args, home=home, stdin=stdin)


SCHEDULE = ("sweepDueAt", "mergeDueAt")
"""A store's own consolidation schedule: an import makes every trace due in the store it
enters (on either engine), so these two are not part of what a backup carries across."""


def _records(text: str) -> list[dict]:
    records = [r for r in (json.loads(line) for line in text.splitlines()) if r["record"] not in ("header", "footer")]
    for record in records:
        if record["record"] == "trace":
            for key in SCHEDULE:
                record["props"].pop(key, None)
    return records


def _emptied(uri: str) -> str:
    graph = Neo4jGraphStore(uri)
    try:
        graph.clear()
    finally:
        graph.close()
    return uri


@pytest.fixture
def used_home(tmp_path: Path) -> Path:
    """An embedded home after a user's life: three kinds of input, a recall (access counts,
    Hebbian edges) and a night's consolidation."""
    home = tmp_path / "embedded"
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "chat.jsonl").write_text("\n".join(json.dumps(m) for m in CHAT) + "\n")
    (inputs / "notes.txt").write_text(NOTES)
    (inputs / "conversation.json").write_text(json.dumps(LOCOMO))
    for name in ("chat.jsonl", "notes.txt", "conversation.json"):
        ok(cogmem("ingest", str(inputs / name), home=home))
    ok(cogmem("recall", "Docker Compose deploy", home=home))
    ok(cogmem("consolidate", home=home))
    return home


def test_a_backup_moves_from_the_embedded_engine_to_neo4j_and_back(used_home: Path, tmp_path: Path,
                                                                     neo4j_uri: str) -> None:
    uri = _emptied(neo4j_uri)
    first = ok(cogmem("export", "-", home=used_home)).stdout
    original = _records(first)
    assert {r["record"] for r in original} >= {"trace", "entity", "mention", "edge"}
    assert any(r["record"] == "edge" and r["type"] == "CO_ACTIVATED" for r in original)

    on_neo4j = tmp_path / "neo4j-home"  # the vectors' home; the graph is the server's
    ok(cogmem("import", "-", home=on_neo4j, graph=uri, stdin=first))
    from_neo4j = ok(cogmem("export", "-", home=on_neo4j, graph=uri)).stdout
    assert _records(from_neo4j) == original, "Neo4j gives back the backup it was given"

    back = tmp_path / "embedded-again"
    ok(cogmem("import", "-", home=back, stdin=from_neo4j))
    assert _records(ok(cogmem("export", "-", home=back)).stdout) == original

    stats = [ok(cogmem("stats", "--json", home=h, graph=g)).json()
             for h, g in ((used_home, None), (on_neo4j, uri), (back, None))]
    assert stats[1] == stats[0] == stats[2]
    query = ("recall", "Docker Compose deploy server", "-k", "5", "--json", "--no-reinforce")
    ids = [[t["id"] for t in ok(cogmem(*query, home=h, graph=g)).json()["traces"]]
           for h, g in ((used_home, None), (on_neo4j, uri))]
    assert ids[0] and ids[1] == ids[0], "the same memories come back on both engines"


def test_a_gzipped_backup_of_neo4j_restores_into_a_fresh_embedded_home(used_home: Path, tmp_path: Path,
                                                                        neo4j_uri: str) -> None:
    uri = _emptied(neo4j_uri)
    on_neo4j = tmp_path / "neo4j-home"
    ok(cogmem("import", "-", home=on_neo4j, graph=uri, stdin=ok(cogmem("export", "-", home=used_home)).stdout))
    backup = tmp_path / "neo4j.jsonl.gz"
    ok(cogmem("export", str(backup), home=on_neo4j, graph=uri))
    restored = tmp_path / "restored"
    ok(cogmem("import", str(backup), home=restored))
    assert _records(ok(cogmem("export", "-", home=restored)).stdout) == _records(
        gzip.decompress(backup.read_bytes()).decode())


def test_the_demo_recalls_every_question_on_neo4j(tmp_path: Path, neo4j_uri: str) -> None:
    run = cogmem("--graph", _emptied(neo4j_uri), "demo", home=tmp_path / "home")
    ok(run)
    assert "bolt://127.0.0.1" in run.stdout, "the demo says which graph it runs on"
    assert "4 of 4 questions recalled" in run.stdout


def test_a_wrong_password_is_one_clear_error_naming_the_server(tmp_path: Path, neo4j_uri: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = "not-the-password-7Qx"
    monkeypatch.setenv("NEO4J_PASSWORD", wrong)
    with pytest.raises(GraphStoreUnavailable) as info:
        cg.open(home=tmp_path / "home", graph=neo4j_uri, embedder="hash")
    message = str(info.value)
    assert neo4j_uri in message and "NEO4J_PASSWORD" in message and wrong not in message
    # Credentials written into the URL are refused, redacted, with where they belong.
    host = neo4j_uri.split("://", 1)[1]
    with pytest.raises(ValueError, match="NEO4J_PASSWORD") as refused:
        cg.open(home=tmp_path / "home2", graph=f"bolt://neo4j:{wrong}@{host}", embedder="hash")
    assert wrong not in str(refused.value) and host in str(refused.value)


def test_clear_empties_a_store_larger_than_one_transaction_page(tmp_path: Path, neo4j_uri: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`clear` deletes a page per transaction (a single DETACH DELETE of a large store outgrew
    the server's transaction memory), until nothing is left."""
    from cogmem_graph.graph import neo4j as adapter

    with cg.open(home=tmp_path / "home", graph=_emptied(neo4j_uri), embedder="hash") as store:
        store.agent("a", user_id="u1").encode_many([{"content": f"Note {i} about Lisbon and Porto"} for i in range(12)])
        assert store.stats().total_traces == 12
        monkeypatch.setattr(adapter, "CLEAR_PAGE", 5)  # 12 traces and their entities: several pages
        store.graph.clear()
        stats = store.stats()
        assert stats.total_traces == 0 and stats.entities == 0 and not any(stats.edges_by_type.values())
