import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.retrieval.fusion import reciprocal_rank_fusion


def test_rrf_hand_computed():
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]], k=60))
    # a: 1/61; b: 1/62 + 1/61; c: 1/63; d: 1/62
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert [i for i, _ in reciprocal_rank_fusion([["a", "b", "c"], ["b", "d"]])] == ["b", "a", "d", "c"]


def test_weights_and_duplicates():
    fused = dict(reciprocal_rank_fusion([["a", "a"], ["b"]], k=0, weights=[1.0, 0.5]))
    assert fused == {"a": 1.0, "b": 0.5}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[1.0, 2.0])


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), max_size=4))
def test_fusion_scores_are_positive_and_sorted(rankings):
    fused = reciprocal_rank_fusion(rankings)
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    assert {i for i, _ in fused} == {i for r in rankings for i in r}


def test_weighted_score_fusion_keeps_score_gaps_and_normalises():
    from cogmem_graph.retrieval.fusion import weighted_score_fusion

    lexical = [("a", 10.0), ("b", 2.0)]
    dense = [("b", 0.8), ("c", 0.4), ("d", -0.1)]
    fused = dict(weighted_score_fusion([lexical, dense], [1.0, 0.5]))
    # a: 1.0*10/10 = 1.0 -> /1.5 = 0.6667; b: (1.0*0.2 + 0.5*1.0)/1.5 = 0.4667
    # c: 0.5*0.5/1.5 = 0.1667; d: negative cosine counts as 0
    assert fused == pytest.approx({"a": 2 / 3, "b": 0.7 / 1.5, "c": 0.25 / 1.5, "d": 0.0})
    assert [i for i, _ in weighted_score_fusion([lexical, dense], [1.0, 0.5])][:2] == ["a", "b"]
    assert dict(weighted_score_fusion([[], dense], [1.0, 0.5]))["b"] == pytest.approx(1.0)
    assert weighted_score_fusion([[], []], [1.0, 1.0]) == []
    with pytest.raises(ValueError):
        weighted_score_fusion([lexical], [1.0, 2.0])


def test_dense_floor_keeps_a_close_paraphrase_above_weak_word_matches():
    from cogmem_graph.retrieval.fusion import dense_floor, weighted_score_fusion
    from cogmem_graph.vectors.port import VectorHit

    lexical = [("weekend-chat", 6.0), ("exercise-chat", 8.0)]
    dense = [VectorHit("run-fact", 0.42), VectorHit("exercise-chat", 0.45), VectorHit("other", 0.20)]
    plain = dict(weighted_score_fusion([lexical, [(h.trace_id, h.score) for h in dense]], [1.0, 0.3]))
    assert plain["run-fact"] < plain["weekend-chat"]  # no shared word: the cosine's share only
    floored = dict(dense_floor(list(plain.items()), dense, 0.9))
    # measured between the pool's worst and best cosine: the worst dense hit gets no floor
    assert floored["run-fact"] == pytest.approx(0.9 * (0.42 - 0.20) / (0.45 - 0.20))
    assert floored["run-fact"] > floored["weekend-chat"]
    assert floored["exercise-chat"] == pytest.approx(max(plain["exercise-chat"], 0.9))
    assert floored["other"] == pytest.approx(plain.get("other", 0.0))
    assert dense_floor(list(plain.items()), [], 0.9) == list(plain.items())
