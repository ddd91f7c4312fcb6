"""Consolidation reads what changed since its last run: the decay sweep only the traces whose
`sweepDueAt` has come, the merge step's identical-content check only the groups of traces
written, rewritten or unpinned since (`mergeDueAt`), source-confidence decay a window of
the confidence clock's index. Two stores take the same days of writes, retrievals, pins and
contradictions; one consolidates as users get it, the other with every run reading every
trace (`Consolidator.full_pass`). Each night both must end in the same state: same dormant
set, same merges, same schemas, same contradiction outcomes, same confidences, every
property alike. A small per-run cap keeps backlogs, so confidence decay takes a different
slice of the oldest traces each night."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock
from cogmem_graph.cognition.decay import update_on_retrieval
from cogmem_graph.config import CogmemConfig
from cogmem_graph.graph.port import AccessUpdate, Edge
from cogmem_graph.model import EdgeType, Hexaco, MemoryCategory, MemoryTrace, scope_key

from .conftest import run_test_cypher

USERS = ("u0", "u1")
PER_DAY = 10
DAYS = 12  # long enough for a woken trace to be forgotten again
PER_RUN = 7  # traces a step examines per run: fewer than a day brings, so backlogs form
CATEGORIES = (MemoryCategory.OTHER, MemoryCategory.FACT, MemoryCategory.OTHER, MemoryCategory.COMMITMENT,
              MemoryCategory.PREFERENCE)
TOPICS = ("the garden", "the boat", "the piano", "the bakery", "the library")
LONE = "Quill Island's lighthouse keeper polishes a brass telescope"


def _config(model: str) -> CogmemConfig:
    config = CogmemConfig()
    config.decay.model = model
    config.decay.fsrs_factor = 1.0  # forgetting within days, not weeks
    config.retention.min_retention_other_ms = MS_PER_DAY
    config.retention.min_retention_fact_ms = 2 * MS_PER_DAY
    config.retention.min_retention_commitment_ms = 3 * MS_PER_DAY
    config.consolidation.max_traces_per_cycle = PER_RUN
    return config


def _trace(day: int, user: str, i: int, now: int) -> MemoryTrace:
    emotional = i % 5 == 0
    content = (f"Day {day - 1} item 3 about {TOPICS[3]} for {user}" if i == 9 and day > 0  # an exact duplicate
               else f"Day {day} item {i} about {TOPICS[i % len(TOPICS)]} for {user}")
    return MemoryTrace(
        id=f"{user}-d{day}-{i}", content=content, scope_id=user, agent_id="helper",
        created_at=now, recorded_at=now, next_reinforcement_at=now + MS_PER_DAY,
        encoding_strength=0.1 + 0.08 * i, stability=(0.5 + 0.3 * i) * MS_PER_DAY,
        category=CATEGORIES[(i + day) % len(CATEGORIES)],
        valence=-0.8 if emotional else 0.0, arousal=0.9 if emotional else 0.0, intensity=0.8 if emotional else 0.0)


def _lone(user: str, trace_id: str, now: int) -> MemoryTrace:
    """A memory like no other but its identical twin, already compared with its neighbours, so
    only the identical-content check can find the pair; strong enough to outlast the test."""
    return MemoryTrace(
        id=trace_id, content=LONE, scope_id=user, agent_id="helper", created_at=now, recorded_at=now,
        consolidated_at=now, next_reinforcement_at=now + MS_PER_DAY, encoding_strength=0.9,
        stability=60 * MS_PER_DAY, category=MemoryCategory.FACT)


def _write_day(stores: tuple[cg.MemoryStore, ...], day: int, clock: ManualClock) -> None:
    """One day of the same writes, at the same moments, on every store (ids are chosen, so the
    stores match trace for trace)."""
    now = clock.now_ms()
    traces = [_trace(day, user, i, now) for user in USERS for i in range(PER_DAY)]
    if day in (1, 2):  # the twin arrives the day its original is pinned
        traces += [_lone(user, f"{user}-lone" if day == 1 else f"{user}-lone-twin", now) for user in USERS]
    for store in stores:
        store.graph.upsert_traces(traces)
        store.repair()  # the vectors
    for user in USERS:
        related = [f"{user}-d{day}-{i}" for i in range(6)]
        clock.advance(6 * MS_PER_HOUR)
        recalled = [f"{user}-d{d}-{(day + d) % PER_DAY}" for d in range(max(0, day - 3), day + 1)]
        for store in stores:
            store.graph.merge_edges(EdgeType.SHARED_ENTITY,
                                    [Edge(a, b, 0.4) for a, b in itertools.combinations(related, 2)])
            if day > 0:
                store.graph.merge_edges(EdgeType.CONTRADICTS,
                                        [Edge(f"{user}-d{day}-1", f"{user}-d{day - 1}-1", 0.9)])
                # Interference weakens one trace, reconsolidation shortens another's stability.
                store.graph.set_strengths({f"{user}-d{day - 1}-7": 0.06}, [scope_key("user", user)])
                store.graph.write_mechanism_state([{"id": f"{user}-d{day - 1}-8", "stability": 0.2 * MS_PER_DAY}],
                                                  [scope_key("user", user)])
            _recall(store, user, recalled, clock.now_ms())
    for store in stores:
        helper, other = (store.agent("helper", user_id=user) for user in USERS)
        if day == 2:  # pinned as its identical twin arrives: they are not merged ...
            helper.pin("u0-d1-2")
            helper.pin("u0-lone")
            other.pin("u1-lone")
        if day == 4:  # ... until it is unpinned (for u1: the day its store forgets the bookkeeping)
            helper.unpin("u0-d1-2")
            helper.unpin("u0-lone")
        if day == 5:
            other.unpin("u1-lone")


def _recall(store: cg.MemoryStore, user: str, ids: list[str], now: int) -> None:
    """What a retrieval returning `ids` writes (a dormant trace among them wakes up), without
    the ranking: the stores must see the same recalls."""
    keys = [scope_key("user", user)]
    updates = []
    for trace in store.graph.get_traces(ids, keys):
        u = update_on_retrieval(trace, now, store.config.decay)
        updates.append(AccessUpdate(trace.id, u.last_accessed_at, u.stability, u.reinforcement_interval,
                                    u.next_reinforcement_at, u.encoding_strength))
    store.graph.after_retrieval(updates, ids, [], keys)


def _state(store: cg.MemoryStore) -> dict:
    traces = {}
    for row in run_test_cypher(store, "owner_traces"):
        props = dict(row["trace"])
        props.pop("sweepDueAt", None)  # the bookkeeping itself: the full pass never writes it
        props.pop("mergeDueAt", None)
        traces[props["id"]] = props
    edges = sorted((r["src"], r["dst"], r["type"], r["weight"]) for r in run_test_cypher(store, "owner_edges"))
    schemas = sorted((r["scopeKey"], r["summary"], r["size"], sorted(r["members"]))
                     for r in run_test_cypher(store, "owner_schemas"))
    return {"traces": traces, "edges": edges, "schemas": schemas}


def _differences(a: dict, b: dict) -> list:
    """What differs between two states: (trace id, property, one side, other side), or the
    edge and schema lists."""
    out = [(i, k, a["traces"].get(i, {}).get(k), b["traces"].get(i, {}).get(k))
           for i in sorted(set(a["traces"]) | set(b["traces"]))
           for k in sorted(set(a["traces"].get(i, {})) | set(b["traces"].get(i, {})))
           if a["traces"].get(i, {}).get(k) != b["traces"].get(i, {}).get(k)]
    return out + [(part, a[part], b[part]) for part in ("edges", "schemas") if a[part] != b[part]]


def _outcome(result) -> dict:
    out = result.as_dict()
    out.pop("duration_ms")  # times, not outcomes
    out.pop("search_graph_ms")
    return out


@pytest.fixture
def stores(tmp_path: Path, clock: ManualClock, request) -> Iterator[tuple[cg.MemoryStore, cg.MemoryStore]]:
    with ExitStack() as stack:
        pair = tuple(stack.enter_context(cg.open(home=tmp_path / name, embedder="hash", clock=clock,
                                                 config=_config(request.param)))
                     for name in ("incremental", "full"))
        consolidator_for(pair[1]).full_pass = True
        yield pair


@pytest.mark.slow  # twelve nights of two stores side by side
@pytest.mark.parametrize("stores", ["fsrs6", "ebbinghaus"], indirect=True)
def test_a_store_consolidated_incrementally_ends_each_night_as_one_swept_in_full(stores, clock) -> None:
    incremental, full = stores
    traits = Hexaco(honesty=0.8)
    totals = {"dormant": 0, "merged": 0, "schemas_created": 0, "conflicts_resolved": 0, "confidence_decayed": 0}
    for day in range(DAYS):
        _write_day(stores, day, clock)
        if day == 5:  # as a store written before the schedule: the next run must rebuild it
            run_test_cypher(incremental, "fault_forget_consolidation_bookkeeping", write=True)
        if day == 6:  # other settings: the schedule and the merge bookkeeping start over
            for store in stores:
                store.config.decay.pruning_threshold = 0.08
                store.config.retention.min_retention_fact_ms = MS_PER_DAY
                store.config.consolidation.max_traces_per_cycle = PER_RUN - 1
        clock.advance(12 * MS_PER_HOUR)
        done = [store.consolidate(traits=traits) for store in stores]
        assert _outcome(done[0]) == _outcome(done[1]), f"day {day}: the runs did different things: {done}"
        diff = _differences(_state(incremental), _state(full))
        assert diff == [], f"day {day}: {diff}"
        for name in totals:
            totals[name] += getattr(done[1], name)
    # The comparison means something only if every step had work to do.
    assert all(totals.values()), totals
    for user in USERS:
        assert not incremental.graph.get_traces([f"{user}-lone-twin"], [scope_key("user", user)])[0].is_active
