"""GraphStore contract: the same behaviour on every backend present."""

from __future__ import annotations

import math
import random
import threading
from pathlib import Path

import pytest
from pydantic import ValidationError

from cogmem_graph.config.graph import ActivationConfig, EdgeDefaults
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.graph.cypher_store.graph_store import LINK_ROWS_PER_STATEMENT
from cogmem_graph.graph.port import AccessUpdate, Edge, Mention, NeighbourState
from cogmem_graph.model import STRUCTURAL_EDGE_TYPES, EdgeType, MemoryTrace, MemoryType, Scope, content_hash

U1 = ["user:u1"]
TEST_CYPHER = Path(__file__).resolve().parents[1] / "cypher"


def make(content: str, *, scope_id: str = "u1", scope: Scope = Scope.USER, **kw) -> MemoryTrace:
    kw.setdefault("created_at", 1_700_000_000_000)
    return MemoryTrace(content=content, scope=scope, scope_id=scope_id, agent_id="agent-1", **kw)


def ids_of(traces) -> list[str]:
    return [t.id for t in traces]


# ---------------------------------------------------------------- traces


def test_upsert_and_read_back_every_field(graph):
    t = make(
        "I prefer deploying with Docker Compose",
        type=MemoryType.SEMANTIC,
        tags=["deployment", "docker"],
        entities=["Docker Compose"],
        structured_data={"tool": "compose", "n": [1, 2]},
        metadata={"dia_id": "D1:3", "turn": 3},
        valence=0.4,
        arousal=0.2,
        intensity=0.35,
        encoding_strength=0.7,
        stability=7_200_000.0,
        sequence_key="thread-1",
    )
    assert graph.upsert_traces([t]) == 1
    (back,) = graph.get_traces([t.id], U1)
    assert back == t


def test_type_label_follows_type_changes(graph):
    t = make("fact", type=MemoryType.EPISODIC)
    graph.upsert_traces([t])
    graph.upsert_traces([t.model_copy(update={"type": MemoryType.SEMANTIC})])
    (back,) = graph.get_traces([t.id], U1)
    assert back.type is MemoryType.SEMANTIC
    sub = graph.subgraph([t.id], U1)
    assert sub.traces[0]["type"] == "semantic"


def _type_labels(graph, traces) -> dict[str, list[str]]:
    text = CypherLibrary(graph.dialect, root=TEST_CYPHER).get("owner_type_labels")
    return {r["id"]: r["labels"] for r in graph._run_text(text, {"ids": ids_of(traces)}, write=False, name="labels")}


def test_fresh_traces_get_their_type_label_without_the_retype_step(graph):
    episodic, semantic = make("an event", type=MemoryType.EPISODIC), make("a fact", type=MemoryType.SEMANTIC)
    assert graph.upsert_traces([episodic, semantic], fresh=True) == 2
    assert _type_labels(graph, [episodic, semantic]) == {episodic.id: ["Episodic"], semantic.id: ["Semantic"]}
    graph.upsert_traces([episodic.model_copy(update={"type": MemoryType.SEMANTIC})])  # not fresh: moved
    assert _type_labels(graph, [episodic]) == {episodic.id: ["Semantic"]}


def test_upsert_is_idempotent_and_deduplicates_a_batch(graph):
    t = make("same")
    graph.upsert_traces([t, t])
    graph.upsert_traces([t])
    assert graph.stats(U1).total_traces == 1


def test_reads_are_scoped(graph):
    mine, theirs = make("mine"), make("theirs", scope_id="u2")
    graph.upsert_traces([mine, theirs])
    assert ids_of(graph.get_traces([mine.id, theirs.id], U1)) == [mine.id]
    assert ids_of(graph.list_traces(U1)) == [mine.id]
    assert graph.stats(U1).total_traces == 1
    assert graph.stats().total_traces == 2
    with pytest.raises(ValueError, match="scope_keys"):
        graph.get_traces([mine.id], [])
    with pytest.raises(ValueError, match="scope_keys"):
        graph.list_traces("user:u1")  # a bare string is not a list of keys


def test_list_orders_by_event_time_and_pages(graph):
    traces = [make(f"t{i}", created_at=1_000 + i) for i in range(5)]
    graph.upsert_traces(traces)
    listed = graph.list_traces(U1, skip=1, limit=2)
    assert [t.content for t in listed] == ["t3", "t2"]


def test_soft_delete_keeps_the_trace_but_hides_it_from_active_reads(graph):
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    assert graph.soft_delete([a.id], U1, reason="test") == [a.id]
    assert graph.soft_delete([a.id], U1, reason="again") == []  # already inactive
    assert ids_of(graph.list_traces(U1)) == [b.id]
    assert {t.id for t in graph.list_traces(U1, include_inactive=True)} == {a.id, b.id}
    (gone,) = graph.get_traces([a.id], U1)
    assert gone.is_active is False
    # another tenant cannot delete
    assert graph.soft_delete([b.id], ["user:u2"], reason="attack") == []


def test_neighbour_states_read_text_and_decay_state_inside_the_scope_only(graph):
    mine = make("mine", encoding_strength=0.7, stability=5_000.0, last_accessed_at=42)
    retired, theirs = make("retired"), make("theirs", scope_id="u2")
    graph.upsert_traces([mine, retired, theirs])
    graph.soft_delete([retired.id], U1, reason="test")
    states = {s.id: s for s in graph.neighbour_states([mine.id, retired.id, theirs.id, "mt_missing"], U1)}
    assert set(states) == {mine.id, retired.id}, "another tenant's trace is never read"
    assert states[mine.id] == NeighbourState(mine.id, "mine", content_hash("mine"), True, 0.7, 5_000.0, 42)
    assert states[retired.id].is_active is False and states[retired.id].content == "retired"
    assert graph.neighbour_states([], U1) == []
    with pytest.raises(ValueError, match="scope_keys"):
        graph.neighbour_states([mine.id], [])


def test_indexed_flag_and_unindexed_listing(graph):
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    assert {t.id for t in graph.unindexed_traces()} == {a.id, b.id}
    graph.set_indexed([a.id])
    assert ids_of(graph.unindexed_traces()) == [b.id]
    assert graph.stats().unindexed_traces == 1


# ---------------------------------------------------------------- edges


def test_all_eight_edge_types_created_and_read_back(graph):
    traces = [make(f"t{i}") for i in range(9)]
    graph.upsert_traces(traces)
    weights = {}
    for i, edge_type in enumerate(EdgeType):
        if edge_type is EdgeType.SCHEMA_INSTANCE:
            continue  # trace -> schema node; covered with schemas
        w = round(0.1 * (i + 1), 2)
        assert graph.merge_edges(edge_type, [Edge(traces[i].id, traces[i + 1].id, w)]) == 1
        weights[edge_type] = (traces[i].id, traces[i + 1].id, w)
    edges = graph.get_edges(ids_of(traces), U1)
    got = {e.type: (e.src, e.dst, pytest.approx(e.weight)) for e in edges}
    assert got == {k: (s, d, pytest.approx(w)) for k, (s, d, w) in weights.items()}
    stats = graph.stats(U1)
    assert set(stats.edges_by_type) == set(weights)


def test_schema_instance_edge_type_is_accepted(graph):
    # SCHEMA_INSTANCE can also link trace to trace (a trace standing for a schema).
    a, b = make("instance"), make("schema-like")
    graph.upsert_traces([a, b])
    assert graph.merge_edges(EdgeType.SCHEMA_INSTANCE, [Edge(a.id, b.id, 0.6)]) == 1
    assert graph.stats().edges_by_type == {"SCHEMA_INSTANCE": 1}


def test_merge_edges_keeps_the_stronger_weight_and_rejects_bad_weights(graph):
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(a.id, b.id, 0.4), Edge(a.id, b.id, 0.7)])
    graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(a.id, b.id, 0.5)])
    (edge,) = graph.get_edges([a.id], U1)
    assert edge.weight == pytest.approx(0.7)
    with pytest.raises(ValueError, match="weight"):
        graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(a.id, b.id, 1.5)])
    with pytest.raises(ValueError):
        graph.merge_edges("DROP_ALL", [Edge(a.id, b.id, 0.5)])


def test_structural_edges_never_outweigh_their_ceiling(graph):
    """Activation skips SHARED_ENTITY / TEMPORAL_SEQUENCE on weak paths on the strength of
    this ceiling, so no such edge may be stored heavier; other types may weigh up to 1."""
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    ceiling = graph.config.edges.structural_weight_ceiling
    for kind in STRUCTURAL_EDGE_TYPES:
        with pytest.raises(ValueError, match="structural_weight_ceiling"):
            graph.merge_edges(kind, [Edge(a.id, b.id, ceiling + 0.1)])
        graph.merge_edges(kind, [Edge(a.id, b.id, ceiling)])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(a.id, b.id, 1.0)])
    assert sorted((e.type.value, e.weight) for e in graph.get_edges([a.id], U1)) == sorted(
        [("SHARED_ENTITY", ceiling), ("TEMPORAL_SEQUENCE", ceiling), ("CO_ACTIVATED", 1.0)])


def test_structural_weights_must_stay_under_their_ceiling():
    with pytest.raises(ValidationError, match="shared_entity_weight.*structural_weight_ceiling"):
        EdgeDefaults(shared_entity_weight=0.7)
    assert EdgeDefaults(shared_entity_weight=0.7, structural_weight_ceiling=0.8).shared_entity_weight == 0.7


def test_shared_entity_edges_link_traces_mentioning_the_same_entity(graph):
    a, b, c = make("Alice met Bob", created_at=1), make("Alice again", created_at=2), make("nothing", created_at=3)
    other = make("Alice elsewhere", scope_id="u2")
    graph.upsert_traces([a, b, c, other])
    graph.merge_mentions(
        [Mention(a.id, "alice", "Alice", "person"), Mention(b.id, "alice", "Alice", "person"),
         Mention(a.id, "bob", "Bob", "person"), Mention(other.id, "alice", "Alice", "person")]
    )
    assert graph.derive_shared_entity_edges([a.id, b.id], U1) == 1
    edges = graph.get_edges([a.id, b.id, c.id], U1)
    assert [(e.type, {e.src, e.dst}, e.weight) for e in edges] == [(EdgeType.SHARED_ENTITY, {a.id, b.id}, 0.5)]
    # the other tenant's trace was never linked
    assert graph.get_edges([other.id], ["user:u2"]) == []
    assert graph.stats(U1).entities == 2


def test_shared_entity_links_each_trace_to_at_most_its_limit_once_across_statements(graph):
    limit = graph.config.edges.shared_entity_max_links
    old = [make(f"Alice note {i}", created_at=1_000 + i) for i in range(limit + 2)]
    new = [make(f"Alice news {i}", created_at=5_000 + i) for i in range(LINK_ROWS_PER_STATEMENT + 5)]
    for batch in (old, new):  # as encoding writes them: a batch's edges right after the batch
        graph.upsert_traces(batch)
        graph.merge_mentions([Mention(t.id, "alice", "Alice", "person") for t in batch])
        linked = graph.derive_shared_entity_edges([t.id for t in batch], U1)  # new: more rows than one statement

    everything = [t.id for t in old + new]
    edges = [e for e in graph.get_edges(everything, U1) if e.type is EdgeType.SHARED_ENTITY]
    pairs = [(e.src, e.dst) for e in edges]
    assert len(pairs) == len(set(pairs)) and not {(b, a) for a, b in pairs} & set(pairs), "each pair once"
    out: dict[str, int] = {}
    for src, _ in pairs:
        out[src] = out.get(src, 0) + 1
    assert all(out.get(t.id, 0) >= 1 for t in new), "every new trace is linked"
    assert max(out.values()) <= limit
    assert linked == sum(out.get(t.id, 0) for t in new)
    assert graph.stats(U1).edges_by_type["SHARED_ENTITY"] == len(pairs), "no parallel edges"
    graph.derive_shared_entity_edges([t.id for t in new], U1)
    assert graph.stats(U1).edges_by_type["SHARED_ENTITY"] == len(pairs), "deriving again adds no edge"


def test_shared_entity_links_go_to_the_most_recent_visible_active_mentions(graph):
    """Among many mentions of one entity, a new trace links to the newest of the caller's
    active ones: not to older ones, a newer forgotten one, or another tenant's."""
    limit = graph.config.edges.shared_entity_max_links
    old = [make(f"Alice note {i}", created_at=1_000 + i) for i in range(limit + 20)]
    forgotten = make("Alice, forgotten", created_at=4_000)
    theirs = make("Alice, theirs", scope_id="u2", created_at=4_500)
    graph.upsert_traces([*old, forgotten, theirs])
    graph.merge_mentions([Mention(t.id, "alice", "Alice", "person") for t in [*old, forgotten, theirs]])
    graph.soft_delete([forgotten.id], U1, reason="test")
    new = make("Alice today", created_at=5_000)
    graph.upsert_traces([new])
    graph.merge_mentions([Mention(new.id, "alice", "Alice", "person")])
    assert graph.derive_shared_entity_edges([new.id], U1) == limit
    linked = {e.dst for e in graph.get_edges([new.id], U1) if e.type is EdgeType.SHARED_ENTITY and e.src == new.id}
    assert linked == {t.id for t in old[-limit:]}


def test_known_entity_keys_count_only_the_callers_active_mentions(graph):
    """A name is known to a caller only through its own active memories, however often
    other tenants mention it."""
    ours, gone = make("Biscuit's vet visit"), make("Pickle's check-up")
    theirs = [make(f"Biscuit and Rex {i}", scope_id="u2") for i in range(30)]
    graph.upsert_traces([ours, gone, *theirs])
    graph.merge_mentions([Mention(t.id, "rex", "Rex", "animal") for t in theirs]
                         + [Mention(t.id, "biscuit", "Biscuit", "animal") for t in [*theirs, ours]]
                         + [Mention(gone.id, "pickle", "Pickle", "animal")])
    graph.soft_delete([gone.id], U1, reason="test")
    asked = ["biscuit", "rex", "pickle", "never-named", "biscuit"]
    assert graph.known_entity_keys(asked, U1) == {"biscuit"}
    assert graph.known_entity_keys(asked, ["user:u2"]) == {"biscuit", "rex"}
    assert graph.known_entity_keys([], U1) == set()


def test_structural_edges_in_one_call_equal_the_two_derivations(graph):
    """`derive_structural_edges` sends both candidate reads at once; the edges are those
    `derive_temporal_edges` and `derive_shared_entity_edges` make, here in a twin scope."""
    minute = 60_000
    shapes: dict[str, set] = {}
    for scope_id, together in (("u1", False), ("u2", True)):
        turns = [make(f"turn {i} with Alice" if i % 2 else f"turn {i}", scope_id=scope_id,
                      created_at=minute * (i + 1), sequence_key=f"th-{scope_id}") for i in range(6)]
        graph.upsert_traces(turns)
        graph.merge_mentions([Mention(t.id, "alice", "Alice", "person") for t in turns if "Alice" in t.content])
        keys, ids = [f"user:{scope_id}"], ids_of(turns)
        if together:
            linked = graph.derive_structural_edges(ids, keys)
        else:
            linked = graph.derive_temporal_edges(ids, keys) + graph.derive_shared_entity_edges(ids, keys)
        name = {t.id: t.content for t in turns}
        # inside a batch a SHARED_ENTITY pair's direction follows the (random) ids
        shapes[scope_id] = {(name[e.src], name[e.dst], e.type) if e.type is EdgeType.TEMPORAL_SEQUENCE
                            else (frozenset((name[e.src], name[e.dst])), e.type)
                            for e in graph.get_edges(ids, keys)}
        assert linked == len(shapes[scope_id])
    assert shapes["u1"] == shapes["u2"]
    assert {shape[-1] for shape in shapes["u1"]} == {EdgeType.TEMPORAL_SEQUENCE, EdgeType.SHARED_ENTITY}
    assert graph.derive_structural_edges([], U1) == 0


def test_temporal_sequence_is_a_chain_within_the_window(graph):
    minute = 60_000
    seq = [make(f"turn {i}", created_at=10 * minute + i * minute, sequence_key="th1") for i in range(4)]
    late = make("much later", created_at=10 * minute + 20 * minute, sequence_key="th1")
    other_thread = make("other thread", created_at=10 * minute + 1, sequence_key="th2")
    graph.upsert_traces([*seq, late, other_thread])
    created = graph.derive_temporal_edges(ids_of([*seq, late, other_thread]), U1)
    assert created == 3
    edges = {(e.src, e.dst) for e in graph.get_edges(ids_of(seq), U1)}
    assert edges == {(seq[i].id, seq[i - 1].id) for i in range(1, 4)}  # a chain, not a clique


# ---------------------------------------------------------------- spreading activation


def _activation_graph(graph):
    """S is the seed. Edges (undirected for spreading): S-A 0.8, A-B 1.0, S-B 0.6, B-C 0.9, C-F 1.0."""
    names = ["S", "A", "B", "C", "F"]
    t = {n: make(n) for n in names}
    graph.upsert_traces(list(t.values()))
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(t["S"].id, t["A"].id, 0.8)])
    graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(t["A"].id, t["B"].id, 1.0), Edge(t["B"].id, t["S"].id, 0.6)])
    graph.merge_edges(EdgeType.CAUSED_BY, [Edge(t["C"].id, t["B"].id, 0.9), Edge(t["C"].id, t["F"].id, 1.0)])
    return t


def test_activation_matches_hand_computation(graph):
    t = _activation_graph(graph)
    got = {a.trace_id: a.activation for a in graph.spread_activation([t["S"].id], U1)}
    # decay 0.5 per hop, threshold 0.1:
    # A: S-A 0.8*0.5 = 0.4, plus S-B-A 0.6*0.5*1.0*0.5 = 0.15           -> 0.55
    # B: S-B 0.6*0.5 = 0.3, plus S-A-B 0.8*0.5*1.0*0.5 = 0.2            -> 0.5
    # C: S-B-C 0.3*0.9*0.5 = 0.135; S-A-B-C 0.2*0.9*0.5 = 0.09 < 0.1    -> 0.135
    # F: S-B-C-F 0.135*1.0*0.5 = 0.0675 < 0.1                          -> not activated
    expected = {t["A"].id: 0.55, t["B"].id: 0.5, t["C"].id: 0.135}
    assert got.keys() == expected.keys()
    for trace_id, value in expected.items():
        assert got[trace_id] == pytest.approx(value)
    order = [a.trace_id for a in graph.spread_activation([t["S"].id], U1)]
    assert order == [t["A"].id, t["B"].id, t["C"].id]


def test_activation_brings_the_ranking_fields_of_what_it_reaches(graph):
    t = _activation_graph(graph)
    graph.set_indexed([t["A"].id, t["B"].id], True)  # C stays unindexed: not yet searchable
    reached = {a.trace_id: a for a in graph.spread_activation([t["S"].id], U1)}
    read = {v.id: v for v in graph.trace_vitals([t["A"].id, t["B"].id, t["C"].id], U1)}
    assert set(read) == {t["A"].id, t["B"].id}
    assert reached[t["A"].id].vitals == read[t["A"].id]
    assert reached[t["B"].id].vitals == read[t["B"].id]
    assert reached[t["C"].id].vitals is None


def test_seeds_start_with_the_activation_retrieval_gives_them(graph):
    t = _activation_graph(graph)
    got = {a.trace_id: a.activation for a in graph.spread_activation([t["S"].id], U1, seed_activation={t["S"].id: 0.5})}
    # every path scales with the seed, and the threshold still applies per path:
    # A: S-A 0.5*0.8*0.5 = 0.2; S-B-A 0.5*0.6*0.5*1.0*0.5 = 0.075 < 0.1 -> 0.2
    # B: S-B 0.5*0.6*0.5 = 0.15; S-A-B 0.5*0.8*0.5*1.0*0.5 = 0.1       -> 0.25
    # C: S-B-C 0.15*0.9*0.5 = 0.0675 < 0.1                            -> not activated
    assert got == {t["A"].id: pytest.approx(0.2), t["B"].id: pytest.approx(0.25)}


def test_activation_respects_depth_threshold_and_max_results(graph):
    t = _activation_graph(graph)
    one_hop = graph.spread_activation([t["S"].id], U1, ActivationConfig(max_depth=1))
    assert {a.trace_id: round(a.activation, 6) for a in one_hop} == {t["A"].id: 0.4, t["B"].id: 0.3}
    low = graph.spread_activation([t["S"].id], U1, ActivationConfig(threshold=0.05))
    assert t["F"].id in {a.trace_id for a in low}
    top1 = graph.spread_activation([t["S"].id], U1, ActivationConfig(max_results=1))
    assert [a.trace_id for a in top1] == [t["A"].id]


def test_multi_path_summation_is_capped_at_one(graph):
    seeds = [make(f"seed{i}") for i in range(3)]
    x = make("hub")
    graph.upsert_traces([*seeds, x])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(s.id, x.id, 1.0) for s in seeds])
    # three paths of 1.0 * 0.5 each = 1.5, capped at 1.0
    (act,) = graph.spread_activation(ids_of(seeds), U1)
    assert act.trace_id == x.id and act.activation == pytest.approx(1.0)
    single = {a.trace_id: a.activation for a in graph.spread_activation(ids_of(seeds[:1]), U1)}
    # one seed: the hub gets 0.5; the other seeds lie behind it at 0.5 * 1.0 * 0.5 = 0.25
    assert single == {x.id: pytest.approx(0.5), seeds[1].id: pytest.approx(0.25), seeds[2].id: pytest.approx(0.25)}


def _walks(edges, seeds, start, depth, decay, threshold):
    """Reference: every walk from a seed that never turns straight back, pruned below the
    threshold, summed per trace (seeds excluded) and capped at 1."""
    total: dict[str, float] = {}
    frontier = [(s, "", start[s]) for s in seeds]
    for _ in range(depth):
        frontier = [f for f in frontier if f[2] * decay >= threshold]
        nxt = []
        for node, prev, act in frontier:
            for a, b, w in edges:
                for here, there in ((a, b), (b, a)):
                    if here == node and there != prev and act * w * decay >= threshold:
                        nxt.append((there, node, act * w * decay))
        for there, _, act in nxt:
            if there not in seeds:
                total[there] = total.get(there, 0.0) + act
        frontier = nxt
    return {k: min(1.0, v) for k, v in total.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_activation_equals_the_walk_reference_on_a_random_graph(graph, seed):
    """Parallel edges, cycles and heavy weights: hop by hop, activation sums exactly the
    walks the definition names, at depths 1 to 4 — although paths too weak to cross a
    structural edge (weights up to the ceiling here) no longer look at those edges."""
    rng = random.Random(seed)
    traces = [make(f"node {i}") for i in range(14)]
    graph.upsert_traces(traces)
    kinds = [EdgeType.CO_ACTIVATED, EdgeType.SHARED_ENTITY, EdgeType.TEMPORAL_SEQUENCE, EdgeType.SUPERSEDES,
             EdgeType.CAUSED_BY]
    ceiling = graph.config.edges.structural_weight_ceiling
    edges = []
    for kind in kinds:
        pairs = {tuple(rng.sample(range(len(traces)), 2)) for _ in range(12)}
        heaviest = ceiling if kind in STRUCTURAL_EDGE_TYPES else 1.0
        batch = [Edge(traces[a].id, traces[b].id, round(rng.uniform(0.2, heaviest), 3)) for a, b in pairs]
        graph.merge_edges(kind, batch)
        edges += [(e.src, e.dst, e.weight) for e in batch]
    seeds = [t.id for t in rng.sample(traces, 3)]
    start = {s: round(rng.uniform(0.5, 1.0), 3) for s in seeds}
    for depth in (1, 2, 3, 4):
        cfg = ActivationConfig(max_depth=depth, threshold=0.05, max_results=100)
        got = {a.trace_id: a.activation for a in graph.spread_activation(seeds, U1, cfg, seed_activation=start)}
        expected = _walks(edges, set(seeds), start, depth, cfg.decay_per_hop, cfg.threshold)
        assert got.keys() == expected.keys(), depth
        for trace_id, value in expected.items():
            assert got[trace_id] == pytest.approx(value), (depth, trace_id)


def test_activation_never_crosses_scope_keys(graph):
    seed, near = make("seed"), make("near")
    foreign = make("foreign", scope_id="u2")
    behind = make("behind the foreign trace")
    graph.upsert_traces([seed, near, foreign, behind])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(seed.id, near.id, 1.0), Edge(seed.id, foreign.id, 1.0)])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(foreign.id, behind.id, 1.0)])
    got = {a.trace_id for a in graph.spread_activation([seed.id], U1)}
    assert got == {near.id}  # neither the foreign trace nor what lies only behind it
    both = {a.trace_id for a in graph.spread_activation([seed.id], ["user:u1", "user:u2"])}
    assert both == {near.id, foreign.id, behind.id}


def test_activation_skips_inactive_traces(graph):
    seed, dead, beyond = make("seed"), make("dead"), make("beyond")
    graph.upsert_traces([seed, dead, beyond])
    graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(seed.id, dead.id, 1.0), Edge(dead.id, beyond.id, 1.0)])
    graph.soft_delete([dead.id], U1, reason="test")
    assert graph.spread_activation([seed.id], U1) == []


@pytest.mark.parametrize("wire", ["hebbian_update", "after_retrieval", "merge_edges", "legacy"])
def test_weak_paths_still_cross_edges_strengthened_after_the_traces_were_written(graph, wire):
    """S -SHARED_ENTITY 0.5- A -CO_ACTIVATED- B: the path reaches A at 0.25, too weak for any
    structural edge, so the next hop is skipped unless A's edges could carry it. Each way of
    making A-B strong must keep A's bound (strongestLink) up to date — and a trace written
    before the bound existed (no property) is never skipped."""
    s, a, b = make("S"), make("A"), make("B")
    graph.upsert_traces([s, a, b])
    graph.merge_edges(EdgeType.SHARED_ENTITY, [Edge(s.id, a.id, 0.5)])
    k = 20  # 1 - 0.9^20 = 0.878: 0.25 x 0.878 x 0.5 = 0.11 stays above the 0.1 threshold
    if wire == "hebbian_update":
        graph.hebbian_update([[a.id, b.id]] * k, U1)
    elif wire == "after_retrieval":
        for _ in range(k):
            graph.after_retrieval([], [a.id, b.id], [], U1)
    elif wire == "merge_edges":
        graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(a.id, b.id, 1 - 0.9 ** k)])
    else:  # a home from before the bound: the edge is there, the property is not
        graph.merge_edges(EdgeType.CO_ACTIVATED, [Edge(a.id, b.id, 1 - 0.9 ** k)])
        graph.run("import_trace_props", {"rows": [{"id": a.id, "props": {"strongestLink": None}}]}, write=True)
    got = {x.trace_id: x.activation for x in graph.spread_activation([s.id], U1)}
    assert got == {a.id: pytest.approx(0.25), b.id: pytest.approx(0.25 * (1 - 0.9 ** k) * 0.5)}
    weak = {x.trace_id for x in graph.spread_activation([s.id], U1, seed_activation={s.id: 0.85})}
    assert weak == {a.id}  # 0.2125 x 0.878 x 0.5 < 0.1: B is out of reach


# ---------------------------------------------------------------- Hebbian learning


def test_hebbian_closed_form_sequential(graph):
    a, b, c = make("a"), make("b"), make("c")
    graph.upsert_traces([a, b, c])
    eta = graph.config.edges.hebbian_learning_rate
    first = graph.hebbian_update([[a.id, b.id, c.id]], U1)
    assert len(first) == 3 and all(w == pytest.approx(eta) for w in first.values())
    for _ in range(4):
        graph.hebbian_update([[b.id, a.id]], U1)
    pair = tuple(sorted([a.id, b.id]))
    w = graph.hebbian_update([[a.id, b.id], [a.id, b.id]], U1)[pair]  # two sets in one call
    assert w == pytest.approx(1 - (1 - eta) ** 7)


def test_hebbian_concurrent_updates_equal_closed_form(graph):
    a, b = make("a"), make("b")
    graph.upsert_traces([a, b])
    threads, per_thread = 8, 5
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(per_thread):
                graph.hebbian_update([[a.id, b.id]], U1)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert not errors
    (edge,) = graph.get_edges([a.id], U1)
    k = threads * per_thread
    assert edge.type is EdgeType.CO_ACTIVATED
    assert edge.weight == pytest.approx(1 - (1 - graph.config.edges.hebbian_learning_rate) ** k)


def test_hebbian_ignores_traces_outside_scope(graph):
    a, foreign = make("a"), make("foreign", scope_id="u2")
    graph.upsert_traces([a, foreign])
    assert graph.hebbian_update([[a.id, foreign.id]], U1) == {}
    assert graph.stats().edges_by_type == {}


# ---------------------------------------------------------------- access, lexical, inspection


def test_record_access_increments_in_the_database(graph):
    t = make("remember me")
    graph.upsert_traces([t])
    upd = AccessUpdate(t.id, last_accessed_at=5_000, stability=9e6, reinforcement_interval=7, next_reinforcement_at=9)
    assert graph.record_access([upd], U1) == {t.id: 1}
    assert graph.record_access([upd, upd], U1) == {t.id: 2}  # deduplicated within a batch
    (back,) = graph.get_traces([t.id], U1)
    assert (back.retrieval_count, back.last_accessed_at, back.stability) == (2, 5_000, 9e6)
    assert (back.reinforcement_interval, back.next_reinforcement_at) == (7, 9)
    assert graph.record_access([upd], ["user:u2"]) == {}


def test_after_retrieval_writes_access_hebbian_and_mechanisms_in_one_statement(graph):
    a, b, c, loser = make("a"), make("b"), make("c"), make("loser")
    foreign = make("foreign", scope_id="u2")
    graph.upsert_traces([a, b, c, loser, foreign])
    eta = graph.config.edges.hebbian_learning_rate
    updates = [AccessUpdate(t.id, last_accessed_at=5_000, stability=9e6, reinforcement_interval=7,
                            next_reinforcement_at=9) for t in (a, b, c)]
    changes = [{"id": a.id, "valence": 0.5, "arousal": 0.1, "dominance": 0.2, "structuredData": '{"x": 1}'},
               {"id": loser.id, "stability": 1234.0}]
    graph.after_retrieval(updates, [a.id, b.id, c.id], changes, U1)
    graph.after_retrieval(updates[:2], [b.id, a.id], [], U1)
    back = {t.id: t for t in graph.get_traces([a.id, b.id, c.id, loser.id], U1)}
    assert [back[t.id].retrieval_count for t in (a, b, c, loser)] == [2, 2, 1, 0]
    assert (back[c.id].last_accessed_at, back[c.id].stability, back[c.id].next_reinforcement_at) == (5_000, 9e6, 9)
    assert (back[a.id].valence, back[a.id].structured_data) == (0.5, {"x": 1})
    assert back[a.id].stability == 9e6  # a null field leaves the property alone
    assert back[loser.id].stability == 1234.0
    weights = {tuple(sorted((e.src, e.dst))): e.weight
               for e in graph.get_edges([a.id, b.id, c.id], U1) if e.type is EdgeType.CO_ACTIVATED}
    assert weights[tuple(sorted((a.id, b.id)))] == pytest.approx(1 - (1 - eta) ** 2)
    assert weights[tuple(sorted((a.id, c.id)))] == pytest.approx(eta)
    assert len(weights) == 3
    # only the access part, or only the changes: the other parts' empty lists do not stop it
    graph.after_retrieval([], [], [{"id": loser.id, "stability": 99.0}], U1)
    assert graph.get_traces([loser.id], U1)[0].stability == 99.0
    # another tenant's traces are never written
    graph.after_retrieval([AccessUpdate(foreign.id, 1, 1.0, 1, 1)], [a.id, foreign.id],
                          [{"id": foreign.id, "stability": 1.0}], U1)
    (untouched,) = graph.get_traces([foreign.id], ["user:u2"])
    assert (untouched.retrieval_count, untouched.stability) == (0, foreign.stability)
    assert sum(1 for e in graph.get_edges([a.id], U1) if e.type is EdgeType.CO_ACTIVATED) == 2


def test_fulltext_search_is_scoped_and_filters_inactive(graph):
    a = make("We deploy containers with Docker Compose")
    b = make("Docker images are built nightly")
    c = make("The cat sat on the mat")
    foreign = make("Docker in another tenant", scope_id="u2")
    graph.upsert_traces([a, b, c, foreign])
    hits = {h.trace_id for h in graph.fulltext_search("How do we use Docker?", U1)}
    assert hits == {a.id, b.id}
    graph.soft_delete([b.id], U1, reason="test")
    assert {h.trace_id for h in graph.fulltext_search("docker", U1)} == {a.id}
    assert graph.fulltext_search("the of and", U1) == []  # nothing searchable


def test_fulltext_search_every_word_of_a_group(graph):
    a = make("Our flight to Lisbon departs at 08:40")
    b = make("The flight to Porto departs at 9:10")
    c = make("Lisbon is lovely in spring")
    foreign = make("The flight to Lisbon departs at 7:00", scope_id="u2")
    graph.upsert_traces([a, b, c, foreign])
    assert {h.trace_id for h in graph.fulltext_search("", U1, every_word_of=["flight lisbon departs"])} == {a.id}
    assert {h.trace_id for h in graph.fulltext_search("porto", U1, every_word_of=["flight lisbon departs"])} == {
        a.id, b.id}  # a word of the text, or every word of a group
    assert {h.trace_id for h in graph.fulltext_search("", U1, every_word_of=["lisbon spring", "porto"])} == {
        c.id, b.id}
    assert graph.fulltext_search("", U1, every_word_of=["the of and"]) == []  # nothing searchable


@pytest.mark.parametrize(
    "query",
    ['"unterminated', "a -b +c", "@content:{x}", "x|y", "(((", "AND OR NOT", "\\", "*?~^", "][}{", "'; DROP"],
)
def test_fulltext_query_syntax_is_never_interpreted(graph, query):
    t = make("plain words only")
    graph.upsert_traces([t])
    assert graph.fulltext_search(query, U1) == [] or all(h.trace_id == t.id for h in graph.fulltext_search(query, U1))
    for hits in (graph.fulltext_search("", U1, every_word_of=[query, f"plain {query}"]),
                 graph.fulltext_search(query, U1, every_word_of=[query])):
        assert all(h.trace_id == t.id for h in hits)


def test_subgraph_holds_traces_neighbours_entities_and_edges(graph):
    a, b, far = make("a"), make("b"), make("far")
    foreign = make("foreign", scope_id="u2")
    graph.upsert_traces([a, b, far, foreign])
    graph.merge_mentions([Mention(a.id, "docker", "Docker", "tech")])
    graph.merge_edges(EdgeType.SAME_TOPIC,
                      [Edge(a.id, b.id, 0.5), Edge(b.id, far.id, 0.5), Edge(a.id, foreign.id, 0.9)])
    sub = graph.subgraph([a.id], U1)
    assert {t["id"] for t in sub.traces} == {a.id, b.id}
    assert [e["key"] for e in sub.entities] == ["docker"]
    kinds = sorted((e["type"], e["src"], e["dst"]) for e in sub.edges)
    assert kinds == sorted([("SAME_TOPIC", a.id, b.id), ("MENTIONS", a.id, "docker")])


# ---------------------------------------------------------------- hostile input


HOSTILE = [  # cypher-payload: injection strings stored as data, never run
    "MATCH (n) DETACH DELETE n",
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) CALL db.idx.fulltext.drop(\'Trace\') //',
    "{$rows} `backtick` $param \\ \\\\ \\n",
    "CYPHER x=1 RETURN x",
    "line1\nline2\r\n\ttab",
    "emoji 😀 and ünïcödé and 中文",
    '{"json": [1, 2, {"a": null}]}',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_user_input_is_data_never_query(graph, text):
    bystander = make("bystander", scope_id="other")
    graph.upsert_traces([bystander])
    before = graph.stats()
    t = make(text, scope_id=text, tags=[text, "plain"], entities=[text], metadata={text: text},
             sequence_key=text, source_id=text)
    graph.upsert_traces([t])
    graph.merge_mentions([Mention(t.id, text, text, text)])
    keys = [t.scope_key]
    (back,) = graph.get_traces([t.id], keys)
    assert back == t
    assert back.content == text and back.tags == [text, "plain"] and back.scope_id == text
    graph.fulltext_search(text, keys)
    graph.spread_activation([t.id], keys)
    after = graph.stats()
    assert after.total_traces == before.total_traces + 1
    assert graph.get_traces([bystander.id], ["user:other"])[0] == bystander
    assert after.entities == before.entities + 1


def test_numbers_round_trip(graph):
    # Integers (epoch ms) are exact; FalkorDB returns doubles with 15 significant digits.
    t = make("numbers", encoding_strength=0.1 + 0.2, stability=1e-3 + 1, created_at=2**53 - 1)
    graph.upsert_traces([t])
    (back,) = graph.get_traces([t.id], U1)
    assert back.encoding_strength == pytest.approx(t.encoding_strength, rel=1e-14)
    assert back.stability == pytest.approx(t.stability, rel=1e-14)
    assert back.created_at == 2**53 - 1
    assert not math.isnan(back.valence)
