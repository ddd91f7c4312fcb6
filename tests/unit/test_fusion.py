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
