"""Homes written by older releases open with today's code and keep every memory.

Each archive under tests/fixtures/homes/ is a home an older commit wrote with
tools/make_fixture_home.py (see the README there), beside the manifest of what it wrote.
Opened here (a copy), it must be upgraded with a warning, then list, get, retrieve, filter
and erase every memory; `cogmem migrate` must say what it would do and do it; a home from a
newer layout must be refused.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.api import upgrade
from cogmem_graph.errors import MemoryNotFound

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "homes"
ARCHIVES = sorted(FIXTURES.glob("*.tar.gz"))

FILTERS = [
    ({"tags_any": ["deployment"]}, {"deploy", "staging"}),
    ({"metadata": {"project": "atlas"}}, {"deploy", "room", "staging"}),
    ({"scope": ["organization"]}, {"policy"}),
    ({"scope": ["thread"]}, {"room"}),
    ({"scope": ["user"], "tags_any": ["food", "personal"]}, {"allergy", "contact"}),
]


def _unpack(archive: Path, into: Path) -> tuple[Path, dict]:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "home", json.loads((into / "fixture.json").read_text())


def _cogmem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cogmem_graph.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "COLUMNS": "200"})


def _agent(store: cg.MemoryStore, manifest: dict):
    ident = manifest["identity"]
    return store.agent(ident["agent_id"], user_id=ident["user_id"], thread_id=ident["thread_id"],
                       organization_id=ident["organization_id"])


def _files_holding(home: Path, needle: bytes) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file() and not p.is_symlink() and needle in p.read_bytes()]


def test_there_are_fixture_homes_from_before_filters_and_point_ids() -> None:
    names = {p.name for p in ARCHIVES}
    assert any(n.startswith("before-filters-") for n in names)
    assert any(n.startswith("before-point-ids-") for n in names)
    for archive in ARCHIVES:
        assert archive.stat().st_size < 1_000_000, archive


@pytest.mark.parametrize("archive", ARCHIVES, ids=[p.name.removesuffix(".tar.gz") for p in ARCHIVES])
def test_an_older_home_opens_upgraded_with_every_memory(archive: Path, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    home, manifest = _unpack(archive, tmp_path)
    assert not (home / upgrade.STAMP_FILE).exists()
    keys = {m["key"]: m for m in manifest["memories"]}
    ids = {m["id"]: m["key"] for m in manifest["memories"]}

    with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.upgrade"):
        store = cg.open(home=home, embedder=manifest["embedder"])
    try:
        said = [r.getMessage() for r in caplog.records if r.name == "cogmem_graph.api.upgrade"]
        assert any("upgrading it to version 1" in m for m in said), said
        assert any("upgraded to data layout version 1" in m for m in said), said
        stamp = home / upgrade.STAMP_FILE
        assert json.loads(stamp.read_text())["version"] == upgrade.STORE_VERSION
        assert stat.S_IMODE(os.stat(stamp).st_mode) == 0o600
        assert store.graph.store_version() == (upgrade.STORE_VERSION, cg.__version__)
        assert store.vectors.own_point_ids and store.vectors.partitions > 1

        agent = _agent(store, manifest)
        assert {r.id for r in agent.list(limit=100).items} == set(ids)
        for m in manifest["memories"]:
            record = agent.get(m["id"])
            assert (record.trace.content, record.trace.scope.value) == (m["content"], m["scope"])
            assert (record.trace.tags, record.trace.metadata) == (m["tags"], m["metadata"])
            assert record.trace.pinned is m["pinned"]
            hits = agent.retrieve(m["content"], top_k=5).traces
            assert hits and hits[0].trace.id == m["id"], (m["key"], [ids.get(h.trace.id) for h in hits])
        for where, expected in FILTERS:
            assert {ids[r.id] for r in agent.list(where, limit=100).items} == expected, where
            found = {ids[h.trace.id] for h in agent.retrieve("Atlas Priya Acme meeting", top_k=10, where=where).traces}
            assert found == expected, where

        gone = keys["room"]
        receipt = agent.forget(gone["id"], compact=True)
        assert receipt.forgotten == [gone["id"]]
        with pytest.raises(MemoryNotFound):
            agent.get(gone["id"])
        assert store.vectors.existing_ids([gone["id"]]) == set()
        assert gone["id"] not in {r.id for r in agent.list(limit=100).items}
        receipt = store.erase(manifest["identity"]["user_id"],
                              organization_id=manifest["identity"]["organization_id"])
        left = {ids[r.id] for r in agent.list(limit=100).items}
        assert left == {"policy"}  # the organization's memory stays, without its author
    finally:
        store.close()
    for key in ("room", "allergy", "contact"):
        assert _files_holding(home, keys[key]["content"].encode()) == [], key

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.upgrade"), \
            cg.open(home=home, embedder=manifest["embedder"]) as again:
        assert {ids[r.id] for r in _agent(again, manifest).list(limit=100).items} == {"policy"}
    assert [r for r in caplog.records if r.name == "cogmem_graph.api.upgrade"] == []


def test_cogmem_migrate_dry_run_then_run(tmp_path: Path) -> None:
    home, manifest = _unpack(next(p for p in ARCHIVES if p.name.startswith("before-filters-")), tmp_path)
    args = ["--home", str(home), "--embedder", manifest["embedder"], "migrate"]
    dry = _cogmem(*args, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["dry_run"] and plan["graph_version"] is None and plan["home_version"] is None
    steps = {s["name"]: s["pending"] for s in plan["steps"]}
    assert steps == {"graph-metadata": 6, "vector-payloads": 6, "vector-point-ids": 6, "graph-stamp": 0,
                     "home-stamp": 0}
    assert not (home / upgrade.STAMP_FILE).exists()

    ran = _cogmem(*args)
    assert ran.returncode == 0, ran.stderr
    assert "did upgrade to version 1" in ran.stdout and "metadata lists" in ran.stdout
    assert json.loads((home / upgrade.STAMP_FILE).read_text())["version"] == upgrade.STORE_VERSION

    again = _cogmem(*args)
    assert again.returncode == 0, again.stderr
    assert "up to date" in again.stdout
    with cg.open(home=home, embedder=manifest["embedder"]) as store:
        agent = _agent(store, manifest)
        assert {r.id for r in agent.list({"metadata": {"project": "atlas"}}, limit=100).items} == {
            m["id"] for m in manifest["memories"] if m["metadata"].get("project") == "atlas"}


def test_an_interrupted_migrate_is_run_again(tmp_path: Path) -> None:
    home, manifest = _unpack(next(p for p in ARCHIVES if p.name.startswith("before-point-ids-")), tmp_path)

    class Stop(Exception):
        pass

    def stop_after_payloads(step: str, done: int, total: int) -> None:
        if step == "vector-payloads":
            raise Stop

    with cg.open(home=home, embedder=manifest["embedder"], upgrade=False) as store:
        with pytest.raises(Stop):
            upgrade.migrate(store, on_progress=stop_after_payloads)
        assert store.graph.store_version() is None  # stamped only once every step is done
    assert not (home / upgrade.STAMP_FILE).exists()
    with cg.open(home=home, embedder=manifest["embedder"], upgrade=False) as store:
        left = [s.name for s in upgrade.plan(store).steps]
        assert "vector-point-ids" in left and "graph-stamp" in left
        upgrade.migrate(store)
        assert upgrade.plan(store).steps == []
        assert store.vectors.own_point_ids
        assert len(_agent(store, manifest).list(limit=100).items) == len(manifest["memories"])


def test_a_home_from_a_newer_layout_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash") as store:
        store.agent("a", user_id="u").encode("a memory to keep safe from an older library")
    stamp = home / upgrade.STAMP_FILE
    stamp.write_text(json.dumps({"version": upgrade.STORE_VERSION + 1, "release": "9.0.0"}))
    with pytest.raises(upgrade.StoreVersionTooNew, match=r"version 2 \(written by cogmem-graph 9.0.0\).*upgrade"):
        cg.open(home=home, embedder="hash")
    result = _cogmem("--home", str(home), "--embedder", "hash", "migrate", "--dry-run")
    assert result.returncode == 1 and "upgrade cogmem-graph" in result.stderr, result.stderr
    assert json.loads(stamp.read_text())["version"] == upgrade.STORE_VERSION + 1  # left as it was


def test_a_new_store_is_stamped_in_the_graph_and_a_newer_graph_refused(store: cg.MemoryStore) -> None:
    """On each engine: the stamp is one named statement each way."""
    store.graph.set_store_version(upgrade.STORE_VERSION, cg.__version__, 1)
    assert store.graph.store_version() == (upgrade.STORE_VERSION, cg.__version__)
    upgrade.check_not_newer(store)
    store.graph.set_store_version(upgrade.STORE_VERSION + 1, "9.0.0", 2)
    assert store.graph.store_version() == (upgrade.STORE_VERSION + 1, "9.0.0")
    with pytest.raises(upgrade.StoreVersionTooNew, match="the graph at"):
        upgrade.check_not_newer(store)
    store.graph.set_store_version(upgrade.STORE_VERSION, cg.__version__, 3)
