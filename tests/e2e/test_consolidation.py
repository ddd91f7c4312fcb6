"""Consolidation end to end on each graph engine (the embedded FalkorDB started by the library,
and Neo4j with GDS when the run has one; Qdrant local mode, the hash embedder) with a
controlled clock."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.between_turns.archive import ArchiveNotFound, ArchiveWriteError, MemoryArchive
from cogmem_graph.between_turns.consolidation import ConsolidationResult
from cogmem_graph.between_turns.consolidation.steps import EachKey
from cogmem_graph.clock import MS_PER_DAY, MS_PER_MINUTE, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import GraphQueryError
from cogmem_graph.graph.cypher import CypherLibrary
from cogmem_graph.graph.port import Edge, Mention
from cogmem_graph.language.contradiction import contradicts
from cogmem_graph.model import EdgeType, Hexaco, MemoryTrace, MemoryType, Mood

START = 1_700_000_000_000
TEST_CYPHER = Path(__file__).resolve().parents[1] / "cypher"
ALICE = ["Alice went hiking in the Alps", "Alice loves climbing rocks", "Alice bought new boots for climbing",
         "Alice trains at the gym on Mondays", "Alice wants to climb Mont Blanc next year"]
GROUPS = {
    "Dana": ["Dana restores old sailing boats", "Dana sailed to the island with Dana's brother",
             "Dana repainted the hull in red", "Dana joined the regatta club", "Dana fixed the mast herself"],
    "Eli": ["Eli grows tomatoes on his balcony", "Eli swapped seeds with a neighbour",
            "Eli lost his basil to the frost", "Eli built a compost bin"],
    "Fay": ["Fay plays the cello in an orchestra", "Fay practised scales for two hours",
            "Fay bought new strings"],
}
"""Three communities of 5, 4 and 3 traces: each group shares its person, nothing links the groups."""
STORY = ("The ancient dragon Vex attacked the village of Millhaven at dawn. It destroyed the granary and the "
         "blacksmith forge, and the villagers fled to the hills while the guards rang the bells until noon.")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture(params=["falkordb", "neo4j"])
def engine(request: pytest.FixtureRequest) -> str | None:
    """The graph every test of this module runs on: None for the embedded FalkorDB, else the
    run's Neo4j (held by this test alone; `_open` empties it)."""
    return None if request.param == "falkordb" else request.getfixturevalue("neo4j_uri")


@contextmanager
def _open(tmp_path: Path, clock: ManualClock, graph: str | None,
          config: CogmemConfig | None = None) -> Iterator[cg.MemoryStore]:
    with cg.open(home=tmp_path / "home", graph=graph, embedder="hash", clock=clock, config=config) as s:
        if graph is not None:
            s.graph.clear()
            s.graph.setup_schema()
        yield s


@pytest.fixture
def store(tmp_path: Path, clock: ManualClock, engine: str | None) -> Iterator[cg.MemoryStore]:
    with _open(tmp_path, clock, engine) as s:
        yield s


def _auto_algorithm(store: cg.MemoryStore) -> str:
    """What cluster_algorithm="auto" reports on the store's engine (the Neo4j of the tests has GDS)."""
    return "falkordb_label_propagation" if store.graph.dialect == "falkordb" else "gds_louvain"


def _put(store: cg.MemoryStore, *traces: MemoryTrace) -> None:
    """Write traces straight to the graph; repair() indexes them in Qdrant."""
    store.graph.upsert_traces(list(traces))
    store.repair()


def _trace(store, key_user: str, content: str, **fields) -> MemoryTrace:
    now = store.clock.now_ms()
    defaults = {"created_at": now, "recorded_at": now, "next_reinforcement_at": now + MS_PER_DAY}
    return MemoryTrace(content=content, scope_id=key_user, agent_id="helper", **{**defaults, **fields})


def _get(store, trace_id: str, keys: list[str]) -> MemoryTrace:
    return store.graph.get_traces([trace_id], keys)[0]


def _edges(store, trace_id: str, keys: list[str], edge_type: EdgeType) -> list[Edge]:
    return [e for e in store.graph.get_edges([trace_id], keys) if e.type is edge_type]


def test_a_weak_old_neutral_trace_goes_dormant_while_an_emotional_one_stays(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    keys = agent.visible_scope_keys
    neutral = agent.encode("The printer is on floor two")
    emotional = agent.encode("My father died last night and I am devastated", mood=Mood(valence=-0.9, arousal=0.9))
    assert store.consolidate().dormant == 0
    clock.advance(days=30)
    result = store.consolidate()
    assert (result.dormant, result.pruned) == (1, 0)
    old = _get(store, neutral.id, keys)
    assert old.is_active and old.dormant, "forgotten, not gone"
    assert not _get(store, emotional.id, keys).dormant
    assert store.vectors.count(keys, active=True) == 2, "a dormant trace stays findable by a strong match"
    assert store.stats().dormant_traces == 1


def test_a_weak_old_neutral_trace_is_pruned_while_an_emotional_one_survives(tmp_path, clock, engine) -> None:
    """The reference preset's pruning soft-deletes."""
    with _open(tmp_path, clock, engine, CogmemConfig.reference_preset()) as store:
        _pruned_under_the_reference_preset(store, clock)


def _pruned_under_the_reference_preset(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    keys = agent.visible_scope_keys
    neutral = agent.encode("The printer is on floor two")
    emotional = agent.encode("My father died last night and I am devastated", mood=Mood(valence=-0.9, arousal=0.9))
    assert emotional.intensity > store.config.decay.emotional_protection_intensity
    first = store.consolidate()
    assert first.pruned == 0 and first.total_processed == 2
    clock.advance(days=30)
    result = store.consolidate()
    assert result.pruned == 1
    assert _get(store, neutral.id, keys).is_active is False
    assert _get(store, emotional.id, keys).is_active is True
    assert store.vectors.count(keys, active=True) == 1, "the pruned trace's vector is deactivated too"
    assert [t.trace.id for t in agent.retrieve("printer floor", top_k=5).traces] == [emotional.id]


def test_near_duplicates_merge_into_the_oldest_with_the_union_of_tags(store, clock) -> None:
    agent = store.agent("helper", user_id="u1")
    keys = agent.visible_scope_keys
    old = agent.encode("Alice adopted a small grey kitten from the animal shelter last weekend", tags=["pets"])
    assert store.consolidate().merged == 0  # `old` is now consolidated: found again only through Qdrant
    clock.advance(MS_PER_MINUTE)
    new = agent.encode("Alice adopted a small grey kitten from the animal shelter on the weekend",
                       tags=["alice", "pets"])
    assert new.id != old.id, "below the write path's near-duplicate threshold, above the merge threshold"
    result = store.consolidate()
    assert result.merged == 1
    survivor, loser = _get(store, old.id, keys), _get(store, new.id, keys)
    assert survivor.is_active and not loser.is_active
    assert survivor.tags == ["pets", "alice"] and survivor.verification_count == 1
    assert [(e.src, e.dst) for e in _edges(store, old.id, keys, EdgeType.SUPERSEDES)] == [(old.id, new.id)]
    assert store.vectors.count(keys, active=True) == 1


def test_near_duplicates_written_in_one_batch_merge(store) -> None:
    agent = store.agent("helper", user_id="u1")
    a, b, other = agent.encode_many([
        {"content": "Alice adopted a small grey kitten from the animal shelter last weekend"},
        {"content": "Alice adopted a small grey kitten from the animal shelter on the weekend"},
        {"content": "The printer is on floor two"}])
    assert store.consolidate().merged == 1
    active = {t.id for t in store.graph.get_traces([a.id, b.id, other.id], ["user:u1"]) if t.is_active}
    assert other.id in active and len(active & {a.id, b.id}) == 1  # same time: the smaller id survives
    assert min(a.id, b.id) in active


def test_identical_traces_merge(store) -> None:
    original = _trace(store, "u1", "The office wifi password changed", tags=["office"])
    twin = original.model_copy(update={"id": "mt_twin", "tags": ["wifi"], "retrieval_count": 2})
    twin = MemoryTrace.model_validate(twin.model_dump())
    _put(store, original, twin)
    keys = ["user:u1"]
    result = store.consolidate(["user:u1"])
    assert result.merged == 1
    kept = [t for t in store.graph.get_traces([original.id, twin.id], keys) if t.is_active]
    assert len(kept) == 1 and set(kept[0].tags) == {"office", "wifi"} and kept[0].retrieval_count == 2


def test_replay_links_recent_traces_the_write_path_did_not(store, clock) -> None:
    first = _trace(store, "u1", "Lena called about the Lisbon trip", sequence_key="thread:t1")
    clock.advance(MS_PER_MINUTE)
    second = _trace(store, "u1", "Lena booked the Lisbon hotel", sequence_key="thread:t1")
    _put(store, first, second)  # straight into the graph: no edges yet
    store.graph.merge_mentions([Mention(t.id, "lena", "Lena", "person") for t in (first, second)])
    result = store.consolidate(["user:u1"])
    assert result.edges_created == 2
    types = {e.type for e in store.graph.get_edges([second.id], ["user:u1"])}
    assert types == {EdgeType.SHARED_ENTITY, EdgeType.TEMPORAL_SEQUENCE}
    assert store.consolidate(["user:u1"]).edges_created == 0, "each trace is replayed once"


def test_a_cluster_of_related_traces_yields_a_schema(store) -> None:
    agent = store.agent("helper", user_id="u1")
    keys = agent.visible_scope_keys
    members = agent.encode_many([{"content": text} for text in ALICE] + [{"content": "The printer is on floor two"}])
    result = store.consolidate()
    assert result.schemas_created == 1 and result.cluster_algorithm == _auto_algorithm(store)
    (schema,) = consolidator_for(store).schemas(keys)
    assert set(schema["members"]) == {t.id for t in members[:5]}
    assert schema["size"] == 5 and schema["weight"] == pytest.approx(0.6)
    assert schema["scopeKey"] == "user:u1" and "alice" in schema["summary"].lower()
    same_topic = _edges(store, members[0].id, keys, EdgeType.SAME_TOPIC)
    assert len(same_topic) == 4, "SAME_TOPIC links every member of a small cluster"
    assert result.edges_created >= 5 + 10  # SCHEMA_INSTANCE edges + the SAME_TOPIC clique
    again = store.consolidate()
    assert again.schemas_created == 0, "members of a schema are not clustered again"


def test_schema_encoding_discounts_congruent_input_and_boosts_novel_input(tmp_path, clock, engine) -> None:
    """Once consolidation holds a schema about Alice's climbing, more of the same encodes
    weaker (x0.85) and something unrelated stronger (x1.3); before any schema both encode plainly."""
    from cogmem_graph.write.drafts import build_trace
    from cogmem_graph.write.request import EncodeRequest

    config = CogmemConfig()
    config.mechanisms.schema_encoding.cluster_similarity_threshold = 0.5  # hash embedder: word overlap
    config.write.neighbours = 0  # no interference from the similar old traces: the schema's effect alone
    with _open(tmp_path, clock, engine, config) as store:
        agent = store.agent("helper", user_id="u1")
        congruent, novel = "Alice loves climbing new rocks in the Alps", "The printer on floor two is jammed"
        plain = {text: build_trace(agent.context(), EncodeRequest(content=text), clock.now_ms()).encoding_strength
                 for text in (congruent, novel)}
        before = agent.encode(novel + " again")
        assert "schemaVerdict" not in (before.structured_data or {}).get("mechanismMetadata", {})

        agent.encode_many([{"content": text} for text in ALICE])
        store.consolidate()
        (schema,) = consolidator_for(store).schemas(agent.visible_scope_keys)
        fits, surprises = agent.encode(congruent), agent.encode(novel)
        assert fits.encoding_strength == pytest.approx(plain[congruent] * 0.85)
        assert fits.structured_data["mechanismMetadata"] == {"schemaVerdict": "congruent", "schemaId": schema["id"]}
        assert surprises.encoding_strength == pytest.approx(min(1.0, plain[novel] * 1.3))
        assert surprises.structured_data["mechanismMetadata"] == {"schemaVerdict": "novel"}
        stored = _get(store, fits.id, agent.visible_scope_keys)
        assert stored.encoding_strength == pytest.approx(fits.encoding_strength)

        other = store.agent("helper", user_id="u2")  # schemas are per tenant: nothing to fit for u2
        assert other.encode(congruent).encoding_strength == pytest.approx(plain[congruent])


@pytest.mark.parametrize("algorithm", ["auto", "cypher"])
def test_only_the_largest_communities_a_run_turns_into_schemas_are_read(tmp_path, clock, engine, algorithm) -> None:
    config = CogmemConfig()
    config.consolidation.cluster_algorithm = algorithm
    config.consolidation.min_cluster_size = 3
    config.consolidation.max_schemas_per_cycle = 2
    with _open(tmp_path, clock, engine, config) as store:
        agent = store.agent("helper", user_id="u1")
        written = {name: {t.id for t in agent.encode_many([{"content": c} for c in texts])}
                   for name, texts in GROUPS.items()}
        consolidator = consolidator_for(store)
        clusters, _algorithm = consolidator.detect_clusters(agent.visible_scope_keys)
        assert [set(members) for _key, members in clusters] == [written["Dana"], written["Eli"]], \
            "the two largest communities, largest first; the third is not read"
        assert store.consolidate().schemas_created == 2
        schemas = consolidator.schemas(agent.visible_scope_keys)
        assert {m for schema in schemas for m in schema["members"]} == written["Dana"] | written["Eli"]
        assert store.consolidate().schemas_created == 1, "the next run reads the community left"


def test_the_cypher_fallback_finds_the_same_clusters(tmp_path, clock, engine) -> None:
    config = CogmemConfig()
    config.consolidation.cluster_algorithm = "cypher"
    config.consolidation.min_cluster_size = 3
    with _open(tmp_path, clock, engine, config) as store:
        agent = store.agent("helper", user_id="u1")
        alice = agent.encode_many([{"content": t} for t in ALICE[:3]])
        bob = agent.encode_many([{"content": t} for t in (
            "Bob repairs old motorbikes", "Bob sold his motorbike to Carl", "Bob rides to work every day")])
        consolidator = consolidator_for(store)
        clusters, algorithm = consolidator.detect_clusters(agent.visible_scope_keys)
        assert algorithm == "cypher_label_propagation"
        assert sorted(sorted(m) for _, m in clusters) == sorted(
            [sorted(t.id for t in alice), sorted(t.id for t in bob)])
        result = store.consolidate()
        assert result.schemas_created == 2 and result.cluster_algorithm == "cypher_label_propagation"


def _gds_graphs(store: cg.MemoryStore) -> set[str]:
    """The names in Neo4j's GDS graph catalog now."""
    text = CypherLibrary("neo4j", root=TEST_CYPHER).get("owner_gds_graphs")
    return {r["graphName"] for r in store.graph._run_text(text, {}, write=False, name="test_owner_gds_graphs")}


@pytest.mark.parametrize(("engine", "algorithm", "reported"), [
    ("falkordb", "auto", "falkordb_label_propagation"),
    ("falkordb", "label_propagation", "falkordb_label_propagation"),
    ("falkordb", "cypher", "cypher_label_propagation"),
    ("neo4j", "auto", "gds_louvain"),
    ("neo4j", "louvain", "gds_louvain"),
    ("neo4j", "leiden", "gds_leiden"),
    ("neo4j", "label_propagation", "gds_label_propagation"),
    ("neo4j", "cypher", "cypher_label_propagation"),
], indirect=["engine"])
def test_every_cluster_algorithm_finds_the_same_communities_and_leaves_no_gds_graph(
        tmp_path, clock, engine, algorithm, reported) -> None:
    """Each engine's algorithms (GDS Louvain, Leiden and label propagation on Neo4j, FalkorDB's
    label propagation, the Cypher fallback on both) find the three groups, largest first, and
    each becomes a schema; on Neo4j no projected graph is left in the GDS catalog."""
    config = CogmemConfig()
    config.consolidation.cluster_algorithm = algorithm
    config.consolidation.min_cluster_size = 3
    with _open(tmp_path, clock, engine, config) as store:
        gds_before = _gds_graphs(store) if engine else set()
        agent = store.agent("helper", user_id="u1")
        written = [{t.id for t in agent.encode_many([{"content": c} for c in texts])} for texts in GROUPS.values()]
        consolidator = consolidator_for(store)
        clusters, found_by = consolidator.detect_clusters(agent.visible_scope_keys)
        assert found_by == reported
        assert [(key, set(members)) for key, members in clusters] == [("user:u1", group) for group in written]
        result = store.consolidate()
        assert (result.schemas_created, result.cluster_algorithm) == (3, reported)
        schemas = consolidator.schemas(agent.visible_scope_keys)
        assert sorted((s["size"], set(s["members"])) for s in schemas) == sorted((len(g), g) for g in written)
        assert {s["algorithm"] for s in schemas} == {reported}
        assert store.consolidate().schemas_created == 0, "members of a schema are not clustered again"
        if engine:
            left = {name for name in _gds_graphs(store) - gds_before if name.startswith("cogmem_")}
            assert left == set(), "consolidation drops the graphs it projects"


def test_a_failing_community_call_leaves_no_projected_graph(tmp_path, clock, neo4j_uri, monkeypatch) -> None:
    """The scope graph is projected, then the community call fails (the one fault injected):
    the run raises and the projection is dropped all the same."""
    config = CogmemConfig()
    config.consolidation.min_cluster_size = 3
    with _open(tmp_path, clock, neo4j_uri, config) as store:
        before = _gds_graphs(store)
        agent = store.agent("helper", user_id="u1")
        agent.encode_many([{"content": c} for c in GROUPS["Dana"]])

        def failing(*args, **kwargs):
            assert {n for n in _gds_graphs(store) - before if n.startswith("cogmem_consolidation_")}, "projected"
            raise GraphQueryError("the community call failed")

        monkeypatch.setattr(store.graph, "gds_communities", failing)
        with pytest.raises(GraphQueryError, match="community call failed"):
            store.consolidate()
        assert {n for n in _gds_graphs(store) - before if n.startswith("cogmem_")} == set()
        monkeypatch.undo()
        assert store.consolidate().schemas_created == 1, "the next run clusters as usual"


def test_auto_without_gds_falls_back_to_cypher_and_says_so_once_per_store(
        tmp_path, clock, neo4j_uri, caplog, monkeypatch) -> None:
    """On a Neo4j without the GDS procedures "auto" clusters in plain Cypher, and the log says
    so once per store, naming what is missing and what to install. This Neo4j has GDS: the
    run asks it for procedure names it does not have."""
    from cogmem_graph.between_turns.consolidation import clusters

    caplog.set_level(logging.WARNING, logger=clusters.__name__)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == clusters.__name__]

    config = CogmemConfig()
    config.consolidation.min_cluster_size = 3
    with _open(tmp_path, clock, neo4j_uri, config) as store:
        real = set(clusters._GDS_PROCEDURES.values())
        assert store.graph.gds_procedures_available(sorted(real)) == real
        agent = store.agent("helper", user_id="u1")
        agent.encode_many([{"content": c} for c in GROUPS["Dana"]])
        assert store.consolidate().cluster_algorithm == "gds_louvain"
        assert warnings() == [], "nothing to say where GDS is present"

        absent = {algorithm: f"gds.cogmemAbsent.{algorithm}.stream" for algorithm in clusters._GDS_PROCEDURES}
        monkeypatch.setattr(clusters, "_GDS_PROCEDURES", absent)
        assert store.graph.gds_procedures_available(sorted(absent.values())) == set()
        agent.encode_many([{"content": c} for c in GROUPS["Eli"]])
        first = store.consolidate()
        assert (first.cluster_algorithm, first.schemas_created) == ("cypher_label_propagation", 1)
        agent.encode_many([{"content": c} for c in GROUPS["Fay"]])
        second = store.consolidate()
        assert (second.cluster_algorithm, second.schemas_created) == ("cypher_label_propagation", 1)
        (said,) = warnings()
        assert "gds.cogmemAbsent.louvain.stream" in said and "gds.cogmemAbsent.label_propagation.stream" in said
        assert "Graph Data Science" in said and "plugins/" in said and "cluster_algorithm='cypher'" in said
        assert "testpassword123" not in said

    caplog.clear()
    with _open(tmp_path, clock, neo4j_uri, config) as other:
        other.agent("helper", user_id="u1").encode_many([{"content": c} for c in GROUPS["Dana"]])
        other.consolidate()
        other.consolidate()
        assert len(warnings()) == 1, "a store of its own says it once too"


def test_a_knowledge_update_supersedes_the_old_fact(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", traits=Hexaco(honesty=0.8))
    keys = agent.visible_scope_keys
    paris = agent.encode("I live in Paris")
    clock.advance(10 * MS_PER_MINUTE)
    berlin = agent.encode("I moved to Berlin")
    confidence = contradicts(berlin.content, paris.content)
    assert confidence >= 0.5
    store.graph.merge_edges(EdgeType.CONTRADICTS, [Edge(berlin.id, paris.id, confidence)])
    # Before any consolidation, the newer statement already ranks first.
    ranked = [t.trace.id for t in agent.retrieve("where do I live", top_k=2, record_access=False).traces]
    assert ranked == [berlin.id, paris.id]

    undecided = store.consolidate(traits=Hexaco())  # neutral honesty, equal confidence: left unresolved
    assert undecided.conflicts_resolved == 0 and not _get(store, paris.id, keys).dormant
    result = store.consolidate()  # judged by the traits of the agent that stated the correction
    assert result.conflicts_resolved == 1
    old = _get(store, paris.id, keys)
    assert old.is_active and old.dormant and old.contradicted_by == [berlin.id]
    assert [(e.src, e.dst) for e in _edges(store, berlin.id, keys, EdgeType.SUPERSEDES)] == [(berlin.id, paris.id)]
    assert store.consolidate().conflicts_resolved == 0, "settled once"
    ranked = [t.trace.id for t in agent.retrieve("where do I live", top_k=2).traces]
    assert ranked == [berlin.id, paris.id], "the old fact stays reachable, below the new one"
    assert _get(store, paris.id, keys).dormant, "recalling a superseded fact does not make it current again"


def _old_emotional_story(store, clock) -> MemoryTrace:
    trace = _trace(store, "u1", STORY, intensity=0.5, valence=-0.6, arousal=0.5, encoding_strength=0.6,
                   stability=10 * MS_PER_DAY, entities=["Vex", "Millhaven"])
    _put(store, trace)
    clock.advance(days=61)
    return trace


def test_a_gisted_trace_rehydrates_to_its_exact_original(store, clock) -> None:
    story = _old_emotional_story(store, clock)
    keys = ["user:u1"]
    result = store.consolidate(keys)
    assert result.gisted == 1 and result.archived == 1
    gisted = _get(store, story.id, keys)
    assert gisted.content != STORY and len(gisted.content) < len(STORY) and gisted.indexed
    assert "Vex" in gisted.content and "Millhaven" in gisted.content
    assert store.rehydrate(story.id) == STORY
    after = _get(store, story.id, keys)
    assert (after.encoding_strength, after.retrieval_count, after.last_accessed_at) == (
        gisted.encoding_strength, gisted.retrieval_count, gisted.last_accessed_at), "rehydration is not rehearsal"
    archived = MemoryArchive(store.graph, store.clock).get(story.id)
    assert archived.access_count == 1 and archived.access_log == (clock.now_ms(),)
    assert archived.reason == "temporal_gist" and archived.content_hash == story.content_hash
    assert store.consolidate(keys).gisted == 0, "a trace is gisted once"


def test_a_failing_archive_write_leaves_the_trace_untouched(store, clock, monkeypatch) -> None:
    story = _old_emotional_story(store, clock)
    keys = ["user:u1"]

    def broken(self, traces, reason):
        raise ArchiveWriteError("disk full")

    monkeypatch.setattr(MemoryArchive, "store", broken)
    result = store.consolidate(keys)
    assert result.gisted == 0 and result.gist_failures == 1 and result.archived == 0
    assert _get(store, story.id, keys).content == STORY
    assert MemoryArchive(store.graph, store.clock).get(story.id) is None
    monkeypatch.undo()
    assert store.consolidate(keys).gisted == 1, "the gist is retried on the next run"


def test_rehydrate_without_archive_and_retention(store, clock) -> None:
    a = _trace(store, "u1", "Kept because it is re-read")
    b = _trace(store, "u1", "Dropped after a year")
    _put(store, a, b)
    assert store.rehydrate(a.id) == a.content, "a trace never gisted is its own original"
    with pytest.raises(ArchiveNotFound):
        store.rehydrate("mt_nope")
    with pytest.raises(ValueError):
        store.rehydrate("")
    archive = MemoryArchive(store.graph, store.clock)
    assert archive.store([a, b], reason="test") == [a.id, b.id]
    clock.advance(days=200)
    assert archive.rehydrate(a.id) == a.content
    clock.advance(days=200)
    assert archive.prune(365 * MS_PER_DAY, ["user:u1"]) == 1
    assert archive.get(a.id) is not None and archive.get(b.id) is None


def test_old_often_retrieved_episodic_traces_become_semantic(store, clock) -> None:
    trace = _trace(store, "u1", "We celebrated the launch at the harbour", intensity=0.5, retrieval_count=3)
    _put(store, trace)
    clock.advance(days=8)
    result = store.consolidate(["user:u1"])
    assert result.compacted == 1
    assert _get(store, trace.id, ["user:u1"]).type is MemoryType.SEMANTIC
    assert store.stats().traces_by_type == {"semantic": 1}


def test_consolidation_never_touches_another_scope_key(store, clock) -> None:
    u1, u2 = store.agent("helper", user_id="u1"), store.agent("helper", user_id="u2")
    pairs = {}
    for agent in (u1, u2):
        a = agent.encode("Alice adopted a small grey kitten from the animal shelter last weekend")
        b = agent.encode("Alice adopted a small grey kitten from the animal shelter on the weekend")
        pairs[agent.identity.user_id] = (a, b)
    result = store.consolidate(["user:u1"])
    assert result.merged == 1 and result.scope_keys == ["user:u1"]
    assert all(t.is_active for t in store.graph.get_traces([t.id for t in pairs["u2"]], ["user:u2"]))
    everything = store.consolidate()  # the owner's run: each scope key on its own
    assert everything.merged == 1 and set(everything.scope_keys) == {"user:u1", "user:u2"}
    kept = [t for t in store.graph.get_traces([t.id for p in pairs.values() for t in p], ["user:u1", "user:u2"])
            if t.is_active]
    assert sorted(t.scope_key for t in kept) == ["user:u1", "user:u2"], "never merged across scope keys"


def test_the_mutex_refuses_overlapping_runs(store) -> None:
    store.agent("helper", user_id="u1").encode("The printer is on floor two")
    consolidator = consolidator_for(store)
    assert consolidator is consolidator_for(store)
    started, release = threading.Event(), threading.Event()
    original = consolidator.steps

    def slow_start(sc, key):
        started.set()
        release.wait(10)

    consolidator.steps = (EachKey((slow_start,)), *original)
    results: list[ConsolidationResult] = []
    worker = threading.Thread(target=lambda: results.append(store.consolidate()))
    worker.start()
    try:
        assert started.wait(10)
        assert consolidator.running
        overlapping = store.consolidate()
        assert overlapping.skipped and overlapping.total_processed == 0
    finally:
        release.set()
        worker.join(10)
        consolidator.steps = original
    assert results and not results[0].skipped and results[0].total_processed == 1


def test_periodic_consolidation_runs_until_stopped(store) -> None:
    store.agent("helper", user_id="u1").encode("The printer is on floor two")
    consolidator = consolidator_for(store)
    with pytest.raises(ValueError):
        consolidator.start_periodic(0)
    consolidator.start_periodic(0.05)
    try:
        for _ in range(200):
            if consolidator.last_result is not None:
                break
            threading.Event().wait(0.05)
    finally:
        consolidator.stop(timeout=10)
    assert consolidator.last_result is not None and consolidator.last_result.total_processed == 1
    assert consolidator.last_error is None


def test_bad_scope_keys_are_refused(store) -> None:
    with pytest.raises(ValueError, match="scope_keys"):
        store.consolidate("user:u1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scope_keys"):
        store.consolidate([])
    assert store.consolidate().total_processed == 0


def _checked(store: cg.MemoryStore, written: list[MemoryTrace]) -> int:
    """How many of these memories the merge step has compared with the older ones."""
    traces = store.graph.get_traces([t.id for t in written], [written[0].scope_key])
    return sum(1 for t in traces if t.consolidated_at is not None)


@pytest.mark.parametrize("embedded", ["local", "edge"])
def test_the_merge_step_embeds_only_what_it_compares_and_edge_checks_the_whole_backlog(
        tmp_path: Path, clock: ManualClock, engine: str | None, monkeypatch, embedded: str) -> None:
    """qdrant-client's local mode budgets the merge step's neighbour queries (5 a run here):
    a run embeds no more unchecked memories than it compares, and the next run goes on with
    the rest. Qdrant Edge answers a run's queries in one batch: no budget holds the
    backlog back."""
    from cogmem_graph.between_turns.consolidation import merge

    monkeypatch.setattr(merge, "LOCAL_MERGE_POINT_BUDGET", 30)  # 30 points: the floor, 5 queries a run
    config = CogmemConfig()
    config.vectors.embedded = embedded
    with _open(tmp_path, clock, engine, config) as store:
        agent = store.agent("a1", user_id="u1")
        notes = [f"Note {i}: the {word} shelf holds {i} jars" for i, word in
                 enumerate(("left", "right", "top", "low", "back", "front") * 5)]
        written = agent.encode_many([{"content": text} for text in notes])
        embedder = store.context().embedder
        real_embed = embedder.embed
        asked: list[int] = []

        def counting(texts):
            asked.append(sum(1 for text in texts if text in notes))
            return real_embed(texts)

        monkeypatch.setattr(embedder, "embed", counting)
        clock.advance(2 * 60 * MS_PER_MINUTE)
        store.consolidate()
        if embedded == "local":
            assert _checked(store, written) == 5
            assert sum(asked) == 5, "only the memories compared this run are embedded"
            for _ in range(5):
                clock.advance(MS_PER_DAY)
                store.consolidate()
            assert _checked(store, written) == 30
            assert sum(asked) == 30, "each memory embedded once on its way through the backlog"
        else:
            assert _checked(store, written) == 30
            assert sum(asked) == 30
