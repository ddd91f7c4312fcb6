"""test_incremental_consolidation.py on Neo4j: a store consolidated as users get it must end
each night as one whose runs read every trace (`Consolidator.full_pass`).

Neo4j Community holds one database, so the two stores cannot live side by side as they do on
the embedded FalkorDB: the incremental store lives its nights first, each night's outcome and
state recorded, then the database is emptied and the full-pass store lives the same nights on
a clock started at the same moment. Night by night, the records must match. And the nights
of a full-pass store on Neo4j (GDS Louvain) end as those on the embedded FalkorDB (its label
propagation) do."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock
from cogmem_graph.model import Hexaco, scope_key

from .conftest import START_MS, run_test_cypher
from .test_incremental_consolidation import (
    DAYS,
    PER_RUN,
    USERS,
    _config,
    _differences,
    _outcome,
    _state,
    _write_day,
)


def _nights(home: Path, uri: str | None, model: str, *, full_pass: bool) -> list[tuple[dict, dict]]:
    """One store's nights on `uri` (None: the embedded FalkorDB), with the writes, faults and
    setting changes of the FalkorDB test: the outcome of each night's run and the state it left."""
    clock = ManualClock(START_MS)
    nights = []
    with cg.open(home=home, graph=uri, embedder="hash", clock=clock, config=_config(model)) as store:
        store.graph.clear()
        store.graph.setup_schema()
        consolidator_for(store).full_pass = full_pass
        for day in range(DAYS):
            _write_day((store,), day, clock)
            if day == 5 and not full_pass:  # as a store written before the schedule
                run_test_cypher(store, "fault_forget_consolidation_bookkeeping", write=True)
            if day == 6:
                store.config.decay.pruning_threshold = 0.08
                store.config.retention.min_retention_fact_ms = MS_PER_DAY
                store.config.consolidation.max_traces_per_cycle = PER_RUN - 1
            clock.advance(12 * MS_PER_HOUR)
            done = store.consolidate(traits=Hexaco(honesty=0.8))
            nights.append((_outcome(done), _state(store)))
        for user in USERS:
            assert not store.graph.get_traces([f"{user}-lone-twin"], [scope_key("user", user)])[0].is_active
    return nights


@pytest.mark.slow  # twelve nights of two stores, one after the other
@pytest.mark.parametrize("model", ["fsrs6", "ebbinghaus"])
def test_on_neo4j_a_store_consolidated_incrementally_ends_each_night_as_one_swept_in_full(
        tmp_path: Path, neo4j_uri: str, model: str) -> None:
    incremental = _nights(tmp_path / "incremental", neo4j_uri, model, full_pass=False)
    full = _nights(tmp_path / "full", neo4j_uri, model, full_pass=True)
    for day, ((did, state), (did_full, state_full)) in enumerate(zip(incremental, full, strict=True)):
        assert did == did_full, f"day {day}: the runs did different things: {did} / {did_full}"
        diff = _differences(state, state_full)
        assert diff == [], f"day {day}: {diff}"
    totals = {name: sum(did[name] for did, _ in full)
              for name in ("dormant", "merged", "schemas_created", "conflicts_resolved", "confidence_decayed")}
    assert all(totals.values()), totals  # the comparison means something only if every step had work
    assert {did["cluster_algorithm"] for did, _ in full if did["schemas_created"]} == {"gds_louvain"}


def _unlike(a: Any, b: Any) -> bool:
    """Different beyond the last digits: FalkorDB answers a float with 15 significant digits."""
    if isinstance(a, float) or isinstance(b, float):
        return not (isinstance(a, int | float) and isinstance(b, int | float)
                    and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12))
    return bool(a != b)


@pytest.mark.slow  # twelve nights of a store on each engine
def test_the_nights_on_neo4j_end_as_on_falkordb(tmp_path: Path, neo4j_uri: str) -> None:
    on_falkordb = _nights(tmp_path / "falkordb", None, "fsrs6", full_pass=True)
    on_neo4j = _nights(tmp_path / "neo4j", neo4j_uri, "fsrs6", full_pass=True)
    for day, ((did_f, state_f), (did_n, state_n)) in enumerate(zip(on_falkordb, on_neo4j, strict=True)):
        if did_f["schemas_created"]:
            assert (did_f["cluster_algorithm"], did_n["cluster_algorithm"]) == (
                "falkordb_label_propagation", "gds_louvain")
        did_f["cluster_algorithm"] = did_n["cluster_algorithm"] = None
        assert did_f == did_n, f"day {day}: the runs did different things"
        traces = [x for x in _differences({**state_f, "edges": [], "schemas": []},
                                          {**state_n, "edges": [], "schemas": []}) if _unlike(x[2], x[3])]
        assert traces == [], f"day {day}: {traces}"
        edges = [(e, f) for e, f in zip(state_f["edges"], state_n["edges"], strict=True)
                 if e[:3] != f[:3] or _unlike(e[3], f[3])]
        assert edges == [], f"day {day}: {edges}"
        assert state_f["schemas"] == state_n["schemas"], f"day {day}"
