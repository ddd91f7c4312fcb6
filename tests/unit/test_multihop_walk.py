"""The bookkeeping of multi-hop retrieval: where the walk starts (the names a question carries,
language/query_names.py) and how evidence chains are kept."""

from __future__ import annotations

import pytest

from cogmem_graph.config.multihop import GLOBAL_CUES
from cogmem_graph.language.query_names import (
    is_global_question,
    query_entity_keys,
    query_ngram_keys,
)
from cogmem_graph.retrieval.multihop.bookkeeping import (
    Origin,
    Walk,
    merge_entity_activation,
    proportional,
    schema_relevance,
    start_shares,
    term_overlap,
)


def test_query_entities_are_the_names_the_extractor_finds_a_possessive_names_its_owner() -> None:
    keys = dict(query_entity_keys("Which city is Alice Moreau's employer Initech based in?", 8))
    assert "alice moreau" in keys and "initech" in keys
    assert all(not k.endswith("'s") for k in keys)
    assert query_entity_keys("what did we say about it?", 8) == []


def test_lower_case_names_become_ngram_candidates_without_stopword_edges() -> None:
    keys = [k for k, _ in query_ngram_keys("where does alice moreau work")]
    assert "alice moreau" in keys and "alice" in keys
    assert not [k for k in keys if k.split()[0] in {"where", "does"} or k.split()[-1] == "does"]
    assert len(query_ngram_keys("word " * 5000)) <= 64, "a long query gives a bounded number of lookups"


@pytest.mark.parametrize(("query", "expected"), [
    ("Give me an overview of the gardening", True),
    ("What are the main themes in what I told you?", True),
    ("Summarize everything about Atlas", True),
    ("Where does Alice work?", False),
    ("Is the generalist role open?", False),  # "general" inside a word is not a cue
])
def test_global_questions_name_a_cue_as_whole_words(query, expected) -> None:
    assert is_global_question(query, GLOBAL_CUES) is expected


def test_one_unit_of_activation_is_split_between_the_groups_present() -> None:
    assert start_shares({"entities": 1.0, "text": 1.0, "schemas": 0.0}) == {"entities": 0.5, "text": 0.5}
    assert start_shares({"entities": 0.0, "text": 0.0}) == {}
    split = proportional(0.6, {"a": 2.0, "b": 1.0, "c": 0.0})
    assert split == pytest.approx({"a": 0.4, "b": 0.2})


def test_a_summary_scores_by_its_centroid_and_shared_terms() -> None:
    assert term_overlap("climbing in the Alps", "Alice climbs rocks in the alps") == pytest.approx(1.0)
    assert schema_relevance(None, 0.5) == 0.5
    assert schema_relevance(0.8, 0.2) == pytest.approx(0.5)
    assert schema_relevance(-0.4, 0.2) == pytest.approx(0.1), "a negative similarity counts as none"


def test_chains_follow_rounds_back_to_the_query_and_prefer_the_short_graph_explanation() -> None:
    walk = Walk(entity_names={"alice": "Alice", "initech": "Initech"})
    walk.seed("t1", 0.1, Origin("match", 0, strength=0.1))
    walk.seed("t3", 0.02, Origin("match", 0, strength=0.02))
    walk.reach("t1", 1, 0.25, Origin("entity", 1, entity="alice", strength=0.25))            # the query names Alice
    walk.reach("t2", 1, 0.05, Origin("entity", 1, entity="initech", from_id="t1", strength=0.05))
    walk.reach("t2", 2, 0.12, Origin("entity", 2, entity="initech", from_id="t1", strength=0.12))
    walk.reach("t3", 2, 0.03, Origin("entity", 2, entity="initech", from_id="t1", strength=0.03))

    assert walk.chain("t1") == [("entity", "alice"), ("trace", "t1")], "named by the query beats a text match"
    # round 2 brought t2 most, and round 1 less than half of that: the longer chain explains it,
    # and t1 is explained by its own round-1 origin (the query naming Alice)
    assert walk.chain("t2") == [("entity", "alice"), ("trace", "t1"), ("entity", "initech"), ("trace", "t2")]
    assert walk.chain("t2", min_share=0.4) == [("match", "t1"), ("trace", "t1"), ("entity", "initech"),
                                               ("trace", "t2")], "the shorter chain when it is close enough"
    assert walk.chain("t3") == [("entity", "alice"), ("trace", "t1"), ("entity", "initech"), ("trace", "t3")]
    assert [tid for tid, _ in walk.ranked()] == ["t1", "t2", "t3"]
    assert walk.total("t2") == pytest.approx(0.17)


def test_a_schema_member_is_explained_by_its_community() -> None:
    walk = Walk()
    walk.seed("m", 0.03, Origin("schema", 0, schema="s1", strength=0.03))
    walk.seed("m", 0.01, Origin("match", 0, strength=0.01))
    assert walk.chain("m") == [("schema", "s1"), ("trace", "m")]


def test_entity_rows_from_the_query_and_from_traces_merge_by_key() -> None:
    merged = merge_entity_activation(
        [{"key": "alice", "activation": 0.5, "fromId": None, "exponent": 1.0}],
        [{"key": "alice", "activation": 0.2, "fromId": "t1", "exponent": 1.5},
         {"key": "initech", "activation": 0.1, "fromId": "t1", "exponent": 1.5}],
    )
    assert merged == [{"key": "alice", "activation": pytest.approx(0.7), "fromId": None, "exponent": 1.0},
                      {"key": "initech", "activation": 0.1, "fromId": "t1", "exponent": 1.5}]
