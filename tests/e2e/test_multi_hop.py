"""GraphRAG multi-hop retrieval end to end on the embedded default (FalkorDB started by the
library, Qdrant local mode, the hash embedder): chains across entities with their evidence
paths, tenant isolation over shared entity nodes, global questions answered from community
summaries, and argument checking."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.clock import MS_PER_HOUR, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.graph.port import Edge
from cogmem_graph.model import EdgeType, entity_key
from cogmem_graph.retrieval.multihop.results import MultiHopResult

START = 1_700_000_000_000
ALICE = "Alice Moreau joined Initech as a data engineer"
LISBON = "Initech moved its headquarters to Lisbon last year"
QUESTION = "Which city is Alice Moreau's employer based in?"
DISTRACTORS = [
    "The city council said the new stadium will be based near the river",
    "Which city has the best food? I think the city of Porto",
    "My employer is based in a big city with a lot of traffic",
    "The city where the employer of my cousin is based is Madrid",
    "Bob likes to cook pasta on Sundays",
    "The employer survey asked which city people are based in",
]
GARDEN = ["planted tomatoes in the backyard", "watered the roses every evening", "bought a rake and some compost",
          "the gardening club meets on saturdays", "pruned the old apple tree"]
MOTORBIKES = ["Bob repairs old motorbikes", "Bob sold his motorbike to Carl", "Bob rides his motorbike to work",
              "Bob cleans the motorbike chain every week", "Bob dreams of a motorbike trip with Carl"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[cg.MemoryStore]:
    with cg.open(home=tmp_path / "home", embedder="hash", clock=ManualClock(START)) as s:
        yield s


def _chain_world(store: cg.MemoryStore) -> tuple[cg.AgentMemory, dict[str, str]]:
    agent = store.agent("helper", user_id="u1", organization_id="acme")
    traces = agent.encode_many([{"content": text} for text in [ALICE, LISBON, *DISTRACTORS]])
    return agent, {t.content: t.id for t in traces}


def test_a_two_hop_chain_is_found_with_its_evidence_path(store) -> None:
    agent, ids = _chain_world(store)
    plain = agent.retrieve(QUESTION, top_k=3, record_access=False)
    assert ids[ALICE] in plain.ids and ids[LISBON] not in plain.ids, "the answer shares no words with the question"

    result = agent.multi_hop(QUESTION, hops=2, top_k=10)
    assert isinstance(result, MultiHopResult) and result.mode == "local"
    assert [(e.name, e.fan) for e in result.entities] == [("Alice Moreau", 1)]
    assert ids[LISBON] in result.ids
    found = next(t for t in result.traces if t.trace.id == ids[LISBON])
    path = found.path
    # The chain: the question (naming Alice Moreau, or matching the text of her trace) leads to
    # her trace, which mentions Initech, which the answer mentions.
    assert path.trace_ids == [ids[ALICE], ids[LISBON]]
    assert path.entities[-1] == "Initech" and path.entities in (["Initech"], ["Alice Moreau", "Initech"])
    assert found.hops == path.hops == len(path.entities)
    kinds = [(s.kind, s.relation) for s in path.steps]
    assert kinds[0] == ("query", "") and kinds[-3:] == [("trace", kinds[-3][1]), ("entity", "MENTIONS"),
                                                        ("trace", "MENTIONS")]
    assert kinds[1] in (("entity", "NAMES"), ("trace", "MATCHES"))
    assert path.steps[-3].label == ALICE and path.steps[-1].label == LISBON
    assert "[Initech]" in str(path) and "Lisbon" in str(path)
    assert 0.0 < found.score <= 1.0 and found.signals["spread"] > 0.0
    assert result.traces[0].score == 1.0 and result.ranking == "spreading_activation"


TOWNS = ["Porto", "Madrid", "Berlin", "Oslo", "Vienna", "Dublin", "Prague", "Warsaw", "Athens", "Zurich",
         "Lyon", "Turin", "Seville", "Bergen", "Ghent", "Krakow", "Malmo", "Bruges", "Bilbao", "Graz"]
SIGHTS = ["bakeries", "bridges", "museums", "markets", "trams", "parks", "harbours", "libraries", "cafes", "festivals"]


def test_multi_hop_keeps_what_retrieve_ranks_first_and_reaches_what_it_misses(store) -> None:
    """The read path's ranking leads (fused with the walk's); the walk brings in an answer two
    hops away that retrieve() leaves out at the same top_k; every trace carries an exact path."""
    agent = store.agent("helper", user_id="u1")
    towns = [f"{town} is a city known for its {SIGHTS[i % len(SIGHTS)]}, says my employer"
             for i, town in enumerate(TOWNS)]
    # Learned an hour apart, so no memory is indexed with another as its conversational context.
    ids = {t.content: t.id for t in agent.encode_many([{"content": text, "created_at": START - (30 - i) * MS_PER_HOUR}
                                                       for i, text in enumerate([ALICE, LISBON, *towns])])}
    question = "Which cities has Alice Moreau's employer been based in?"
    # The read path leads and the walk fills the tail: a dozen results hold both.
    plain = agent.retrieve(question, top_k=12, record_access=False)
    assert ids[LISBON] not in plain.ids

    result = agent.multi_hop(question, hops=2, top_k=12)
    assert result.ids[:3] == plain.ids[:3], "the read path's best stay first"
    assert ids[LISBON] in result.ids, "and the walk reaches what it misses"
    lisbon = next(t for t in result.traces if t.trace.id == ids[LISBON])
    assert lisbon.path.trace_ids == [ids[ALICE], ids[LISBON]] and lisbon.path.entities[-1] == "Initech"
    assert [t.score for t in result.traces] == sorted((t.score for t in result.traces), reverse=True)
    assert result.traces[0].score == 1.0
    _assert_exact_paths(store, agent, result)


def _assert_exact_paths(store: cg.MemoryStore, agent: cg.AgentMemory, result: MultiHopResult) -> None:
    """Each step of each path holds in the memory: the query names the entity it starts from, a
    trace next to an entity mentions it, a text match comes straight from the query, and the
    path ends at the trace it explains."""
    on_paths = list({s.id for t in result.traces for s in t.path.steps if s.kind == "trace"})
    mentions = {t.id: {entity_key(n) for n in t.entities}
                for t in store.graph.get_traces(on_paths, agent.visible_scope_keys)}
    named = {e.key for e in result.entities}
    for item in result.traces:
        steps = item.path.steps
        assert steps[0].kind == "query" and steps[-1].kind == "trace" and steps[-1].id == item.trace.id
        for before, step in itertools.pairwise(steps):
            if step.relation == "NAMES":
                assert before.kind == "query" and step.id in named
            elif step.relation == "MATCHES":
                assert before.kind == "query" and step.kind == "trace"
            else:
                assert step.relation == "MENTIONS"
                trace, entity = (before, step) if before.kind == "trace" else (step, before)
                assert entity.id in mentions[trace.id], str(item.path)


def test_one_hop_stays_next_to_the_query(store) -> None:
    agent, ids = _chain_world(store)
    result = agent.multi_hop(QUESTION, hops=1, top_k=10)
    first = next(t for t in result.traces if t.trace.id == ids[ALICE])
    assert first.hops == 1 and first.path.entities == ["Alice Moreau"]
    assert all(t.hops <= 1 for t in result.traces)


@pytest.mark.parametrize("seed_source", ["retrieve", "hybrid"])
def test_fewer_than_top_k_come_back_when_the_query_reaches_fewer(tmp_path, seed_source) -> None:
    """Only memories the query reaches come back: the ones it matches and their hops, never
    unrelated ones padding the answer up to top_k."""
    config = CogmemConfig()
    config.retrieval.multi_hop.seed_source = seed_source
    with cg.open(home=tmp_path / "home", embedder="hash", clock=ManualClock(START), config=config) as store:
        _only_what_the_query_reaches(store.agent("helper", user_id="u1"))


def _only_what_the_query_reaches(agent: cg.AgentMemory) -> None:
    atlas = ["Maya Chen leads the Atlas project", "The Atlas project moves the billing system to Kubernetes"]
    hop = "Kubernetes upgrades are handled by Priya Nair"
    traces = agent.encode_many([{"content": text} for text in [*atlas, hop, *GARDEN]])
    ids = {t.content: t.id for t in traces}

    result = agent.multi_hop("What is the Atlas project about?", hops=2, top_k=10)
    assert {ids[text] for text in atlas} <= set(result.ids), "the matches stay"
    assert ids[hop] in result.ids, "and so does what they lead to"
    assert not {ids[text] for text in GARDEN} & set(result.ids), "nothing unrelated fills the top 10"
    assert len(result.traces) == 3
    reached = next(t for t in result.traces if t.trace.id == ids[hop])
    assert reached.hops >= 1 and reached.path.entities[-1] == "Kubernetes"

    nothing = agent.multi_hop("volcano eruption forecast", top_k=10)
    assert nothing.traces == [], "a query that matches nothing finds nothing"


def test_names_written_in_lower_case_still_start_the_walk(store) -> None:
    agent, ids = _chain_world(store)
    result = agent.multi_hop("where is alice moreau's employer based", top_k=10)
    assert [e.key for e in result.entities] == ["alice moreau"]
    assert ids[LISBON] in result.ids


def test_multi_hop_changes_nothing_in_the_memory(store) -> None:
    agent, ids = _chain_world(store)
    before = {t.id: t.model_dump() for t in store.graph.get_traces(list(ids.values()), agent.visible_scope_keys)}
    stats = store.stats()
    agent.multi_hop(QUESTION, top_k=5)
    after = {t.id: t.model_dump() for t in store.graph.get_traces(list(ids.values()), agent.visible_scope_keys)}
    assert after == before and store.stats() == stats


def test_the_walk_never_crosses_another_tenants_traces(store) -> None:
    """Entities are shared nodes: "Initech" links both tenants' traces. Neither may reach the
    other's memories through it, see them in a path, or count them in an entity's fan."""
    mine, ids = _chain_world(store)
    theirs = store.agent("helper", user_id="u1", organization_id="globex")  # same user id, other tenant
    foreign = theirs.encode_many([
        {"content": "Initech was acquired by Umbrella Corp"},
        {"content": "Umbrella Corp is run by Albert Wesker from Raccoon City", "scope": "organization"},
    ])
    foreign_ids = {t.id for t in foreign}
    visible = set(mine.visible_scope_keys)

    result = mine.multi_hop("Who owns Initech, the employer of Alice Moreau?", hops=3, top_k=50)
    assert result.ids and not foreign_ids & set(result.ids)
    on_paths = {i for t in result.traces for i in t.path.trace_ids}
    assert not foreign_ids & on_paths
    assert {t.trace.scope_key for t in result.traces} <= visible
    assert not {"Umbrella Corp", "Albert Wesker", "Raccoon City"} & {n for t in result.traces for n in t.path.entities}
    assert {e.key: e.fan for e in result.entities}["initech"] == 2, "only the caller's mentions count"

    other = theirs.multi_hop("Where is Initech based and who works there?", hops=3, top_k=50)
    assert set(other.ids) <= foreign_ids and not set(ids.values()) & {
        i for t in other.traces for i in t.path.trace_ids}
    assert "Alice Moreau" not in {n for t in other.traces for n in t.path.entities}


def _topic(agent: cg.AgentMemory, texts: list[str]) -> list[str]:
    """Traces linked as one topic (SAME_TOPIC), naming no entity: only their community joins them."""
    ids = [t.id for t in agent.encode_many([{"content": text} for text in texts])]
    agent.store.graph.merge_edges(EdgeType.SAME_TOPIC, [Edge(a, b, 0.5) for a, b in itertools.combinations(ids, 2)])
    return ids


def test_a_global_question_is_answered_from_community_summaries(store) -> None:
    agent = store.agent("helper", user_id="u1")
    garden = _topic(agent, GARDEN)
    agent.encode_many([{"content": text} for text in MOTORBIKES])
    stranger = store.agent("helper", user_id="u2")
    _topic(stranger, GARDEN)
    assert store.consolidate().schemas_created == 3
    schemas = {s["id"]: s for s in consolidator_for(store).schemas(agent.visible_scope_keys)}
    (garden_schema,) = [s for s in schemas.values() if set(s["members"]) == set(garden)]

    result = agent.multi_hop("Give me an overview of the gardening", top_k=10)
    assert result.mode == "global" and result.entities == []
    assert result.communities and result.communities[0].id == garden_schema["id"]
    assert result.communities[0].summary == garden_schema["summary"]
    assert {c.id for c in result.communities} <= set(schemas), "only the caller's communities"
    assert set(garden) <= set(result.ids[: len(garden)]), "the community's members come first"
    via_schema = [t for t in result.traces if any(s.kind == "schema" for s in t.path.steps)]
    assert via_schema, "members the text does not match are reached through their community"
    steps = via_schema[0].path.steps
    assert [(s.kind, s.relation) for s in steps] == [("query", ""), ("schema", "MATCHES"), ("trace", "SCHEMA_INSTANCE")]
    assert steps[1].label == garden_schema["summary"] and steps[2].id in garden
    assert all(t.trace.scope_key == "user:u1" for t in result.traces)

    local = agent.multi_hop("What does Bob ride to work?", top_k=5)
    assert local.mode == "local" and local.communities == []


@pytest.mark.parametrize("hops", [0, -1, 5, True, 1.5, "2"])
def test_bad_hops_are_refused_naming_the_argument(store, hops) -> None:
    agent = store.agent("helper", user_id="u1")
    with pytest.raises(ValueError, match="hops"):
        agent.multi_hop("anything", hops=hops)


@pytest.mark.parametrize("query", ["", "   ", None, 42])
def test_an_empty_query_is_refused_naming_the_argument(store, query) -> None:
    agent = store.agent("helper", user_id="u1")
    with pytest.raises(ValueError, match="query"):
        agent.multi_hop(query)


@pytest.mark.parametrize("top_k", [0, -3, False, "10"])
def test_bad_top_k_is_refused_naming_the_argument(store, top_k) -> None:
    agent = store.agent("helper", user_id="u1")
    with pytest.raises(ValueError, match="top_k"):
        agent.multi_hop("anything", top_k=top_k)


def test_an_empty_memory_answers_with_nothing(store) -> None:
    result = store.agent("helper", user_id="u1").multi_hop("What do I know about Alice?")
    assert result.traces == [] and result.entities == [] and len(result) == 0


def test_retrieve_blends_multi_hop_candidates_in_when_the_query_names_several_entities(tmp_path) -> None:
    config = CogmemConfig()
    config.retrieval.multi_hop_blend = True
    # Encoded as one conversation, each statement would be indexed with the one before it as
    # context (and Lisbon found through Tom Price's turn): here they are separate facts.
    config.write.context_vectors = False
    question = "In which city do Alice Moreau and Tom Price work?"
    texts = [ALICE, "Tom Price is the newest hire at Initech", LISBON, *DISTRACTORS]
    found: dict[bool, cg.RetrievalResult] = {}
    for blend in (False, True):
        config.retrieval.multi_hop_blend = blend
        with cg.open(home=tmp_path / f"home-{blend}", embedder="hash", clock=ManualClock(START), config=config) as s:
            agent = s.agent("helper", user_id="u1")
            agent.encode_many([{"content": text} for text in texts])
            found[blend] = agent.retrieve(question, top_k=3, record_access=False)
            one_name = agent.retrieve("In which city does Alice Moreau work?", top_k=10, record_access=False)
            assert not [t for t in one_name.traces if "multi_hop" in t.sources], "one name is not several"
    assert LISBON not in [t.trace.content for t in found[False].traces], "the answer shares no words with the question"
    lisbon = next(t for t in found[True].traces if t.trace.content == LISBON)
    assert "multi_hop" in lisbon.sources and lisbon.signals["similarity"] > 0.0
