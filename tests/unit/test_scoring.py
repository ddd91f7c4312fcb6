import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR
from cogmem_graph.cognition.scoring import (
    RecallKind,
    Signals,
    SignalTable,
    classify_recall,
    composite_score,
    composite_scores,
    emotional_congruence,
    emotional_congruences,
    importance_signal,
    importance_signals,
    is_tip_of_tongue,
    modulated_weights,
    prior_weighted_score,
    recency_signal,
    recency_signals,
    signal_contributions,
    tip_of_tongue_mask,
    trait_factor,
)
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.retrieval import RetrievalConfig, SignalWeights
from cogmem_graph.model import Hexaco

# ---------------------------------------------------------------- defaults


def test_default_weights_are_the_reference_values_and_sum_to_one():
    w = SignalWeights()
    assert w.as_dict() == {
        "strength": 0.25,
        "similarity": 0.35,
        "recency": 0.10,
        "emotional": 0.15,
        "activation": 0.10,
        "importance": 0.05,
    }
    # 0.25 + 0.35 + 0.10 + 0.15 + 0.10 + 0.05 = 1.00
    assert w.total() == pytest.approx(1.0)


def test_retrieval_defaults():
    cfg = RetrievalConfig()
    assert cfg.recency_half_life_ms == 86_400_000
    assert (cfg.rrf_k, cfg.rerank) == (60, False)
    # every top_k up to rank_depth gathers and ranks the same candidates (a short list is the head of a long one)
    assert cfg.pool_for(1) == cfg.pool_for(cfg.rank_depth) == cfg.rank_depth * cfg.candidate_multiplier
    assert cfg.pool_for(cfg.rank_depth + 10) == (cfg.rank_depth + 10) * cfg.candidate_multiplier
    assert cfg.ranked_for(5) == cfg.rank_depth * cfg.ranked_multiplier
    reference = CogmemConfig.reference_preset().retrieval  # the reference's pool: top_k x 5, all of it ranked
    assert reference.pool_for(10) == 10 * 5 and reference.pool_for(50) == 50 * 5
    assert reference.ranked_for(10) >= 2 * reference.pool_for(10)
    assert (cfg.tot_min_similarity, cfg.tot_max_strength, cfg.tot_max_confidence) == (0.6, 0.3, 0.4)


# ---------------------------------------------------------------- composite


def test_composite_hand_computed():
    s = Signals(strength=0.8, similarity=0.9, recency=0.5, emotional=0.2, activation=0.4, importance=0.75)
    # 0.25*0.8 = 0.2; 0.35*0.9 = 0.315; 0.10*0.5 = 0.05; 0.15*0.2 = 0.03;
    # 0.10*0.4 = 0.04; 0.05*0.75 = 0.0375  ->  0.6725
    assert composite_score(s) == pytest.approx(0.6725)
    assert composite_score(s, SignalWeights()) == pytest.approx(0.6725)


def test_composite_clamps_each_signal():
    # similarity -0.5 counts as 0, strength 2.0 as 1: 0.25*1 + 0 + 0.05*1 = 0.30
    s = Signals(strength=2.0, similarity=-0.5, importance=1.0)
    assert composite_score(s) == pytest.approx(0.30)
    # all ones with unnormalised weights summing to 1.5 still clamps to 1
    heavy = SignalWeights(strength=1.0, similarity=0.5, recency=0, emotional=0, activation=0, importance=0)
    assert composite_score(Signals(1, 1, 1, 1, 1, 1), heavy) == 1.0


def test_signals_refuse_nan_naming_the_field():
    with pytest.raises(ValueError, match="signals.similarity"):
        Signals(similarity=float("nan"))
    with pytest.raises(ValueError, match="signals.recency"):
        Signals(recency=float("inf"))
    with pytest.raises(ValueError, match="signals.strength"):
        Signals(strength="0.5")  # type: ignore[arg-type]


finite01 = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False)
weight = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def weights(draw):
    values = [draw(weight) for _ in range(6)]
    if sum(values) == 0:
        values[1] = 0.5
    return SignalWeights(**dict(zip(
        ("strength", "similarity", "recency", "emotional", "activation", "importance"), values, strict=True
    )))


@given(st.builds(Signals, finite01, finite01, finite01, finite01, finite01, finite01), weights())
def test_composite_always_in_unit_interval(signals, w):
    score = composite_score(signals, w)
    assert 0.0 <= score <= 1.0
    assert 0.0 <= composite_score(signals) <= 1.0


@given(
    st.builds(Signals, finite01, finite01, finite01, finite01, finite01, finite01),
    st.sampled_from(["strength", "similarity", "recency", "emotional", "activation", "importance"]),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_composite_never_drops_when_a_signal_rises(signals, name, bump):
    raised = Signals(**{**signals.as_dict(), name: getattr(signals, name) + bump})
    assert composite_score(raised) >= composite_score(signals) - 1e-12


# ---------------------------------------------------------------- HEXACO modulation


def test_trait_factor():
    # 1 + 0.5*(2*t - 1): t=0.5 -> 1.0, t=1 -> 1.5, t=0 -> 0.5
    assert trait_factor(0.5, 0.5) == 1.0
    assert trait_factor(1.0, 0.5) == 1.5
    assert trait_factor(0.0, 0.5) == 0.5
    assert trait_factor(0.0, 1.0) == 0.0


def test_neutral_traits_leave_weights_unchanged():
    w = modulated_weights(traits=Hexaco())
    for name, value in SignalWeights().as_dict().items():
        assert getattr(w, name) == pytest.approx(value)


def test_modulated_weights_hand_computed():
    w = modulated_weights(traits=Hexaco(openness=1.0, conscientiousness=0.5, emotionality=0.0))
    # activation 0.10*1.5 = 0.15; importance 0.05*1.0 = 0.05; emotional 0.15*0.5 = 0.075
    # total = 0.25 + 0.35 + 0.10 + 0.075 + 0.15 + 0.05 = 0.975
    assert w.strength == pytest.approx(0.25 / 0.975)  # 0.25641
    assert w.similarity == pytest.approx(0.35 / 0.975)  # 0.35897
    assert w.recency == pytest.approx(0.10 / 0.975)  # 0.10256
    assert w.emotional == pytest.approx(0.075 / 0.975)  # 0.07692
    assert w.activation == pytest.approx(0.15 / 0.975)  # 0.15385
    assert w.importance == pytest.approx(0.05 / 0.975)  # 0.05128
    assert w.total() == pytest.approx(1.0)


def test_conscientiousness_raises_importance():
    w = modulated_weights(traits=Hexaco(conscientiousness=1.0))
    # importance 0.05*1.5 = 0.075; total 1.025; 0.075/1.025 = 0.0731707
    assert w.importance == pytest.approx(0.075 / 1.025)
    assert w.importance > SignalWeights().importance


def test_modulation_renormalises_custom_weights_and_survives_zeroed_weights():
    w = modulated_weights(SignalWeights(strength=2 / 10, similarity=0, recency=0, emotional=0, activation=0,
                                        importance=0))
    assert w.strength == pytest.approx(1.0)
    # only activation is positive, and openness 0 at gain 1 zeroes it: fall back to renormalised input
    cfg = RetrievalConfig(hexaco_weight_gain=1.0)
    only_graph = SignalWeights(strength=0, similarity=0, recency=0, emotional=0, activation=0.4, importance=0)
    w = modulated_weights(only_graph, Hexaco(openness=0.0), config=cfg)
    assert w.activation == pytest.approx(1.0)


unit = st.floats(min_value=0.0, max_value=1.0)


@given(st.builds(Hexaco, honesty=unit, emotionality=unit, extraversion=unit,
                 agreeableness=unit, conscientiousness=unit, openness=unit),
       weights(), unit)
def test_modulated_weights_sum_to_one(traits, w, gain):
    out = modulated_weights(w, traits, config=RetrievalConfig(hexaco_weight_gain=gain))
    assert out.total() == pytest.approx(1.0)
    assert all(v >= 0.0 for v in out.as_dict().values())


# ---------------------------------------------------------------- signals


def test_recency_hand_computed():
    assert recency_signal(0) == 1.0
    # elapsed = one half-life (24 h): e^-1 = 0.367879
    assert recency_signal(MS_PER_DAY) == pytest.approx(math.exp(-1))
    assert recency_signal(MS_PER_DAY) == pytest.approx(0.367879, abs=1e-6)
    # 2 days at a 1-day constant: e^-2 = 0.135335
    assert recency_signal(2 * MS_PER_DAY, half_life_ms=MS_PER_DAY) == pytest.approx(0.135335, abs=1e-6)
    # 6 h at a 12 h constant: e^-0.5 = 0.606531
    assert recency_signal(6 * MS_PER_HOUR, half_life_ms=12 * MS_PER_HOUR) == pytest.approx(0.606531, abs=1e-6)
    assert recency_signal(-5_000) == 1.0  # future timestamps count as now
    with pytest.raises(ValueError, match="half_life_ms"):
        recency_signal(1, half_life_ms=0)
    with pytest.raises(ValueError, match="elapsed_ms"):
        recency_signal(float("nan"))


def test_emotional_congruence_hand_computed():
    assert emotional_congruence(0.5, 0.8) == pytest.approx(0.4)  # 0.5*0.8
    assert emotional_congruence(-0.6, -0.5) == pytest.approx(0.3)  # both negative: congruent
    assert emotional_congruence(0.5, -0.8) == 0.0  # opposite signs: max(0, -0.4)
    assert emotional_congruence(0.0, 0.9) == 0.0  # neutral mood: no bias
    assert emotional_congruence(1.0, 1.0) == 1.0


def test_importance_hand_computed():
    assert importance_signal(1.0) == 1.0  # 0.5 + 0.5*1
    assert importance_signal(0.0) == 0.5  # 0.5 + 0.5*0
    assert importance_signal(0.6) == pytest.approx(0.8)  # 0.5 + 0.5*0.6
    assert importance_signal(0.6, config=RetrievalConfig(importance_base=0.2)) == pytest.approx(0.68)  # 0.2 + 0.8*0.6


# ---------------------------------------------------------------- tip of the tongue


@pytest.mark.parametrize(
    ("similarity", "strength", "confidence", "expected"),
    [
        (0.7, 0.2, 0.9, RecallKind.TIP_OF_TONGUE),  # similar, weak
        (0.7, 0.5, 0.3, RecallKind.TIP_OF_TONGUE),  # similar, strong but untrusted
        (0.7, 0.5, 0.9, RecallKind.RECALLED),  # similar, strong, trusted
        (0.6, 0.1, 0.1, RecallKind.RECALLED),  # similarity must exceed 0.6
        (0.9, 0.3, 0.4, RecallKind.RECALLED),  # 0.3 is not < 0.3, 0.4 is not < 0.4
        (0.2, 0.1, 0.1, RecallKind.RECALLED),  # weak but not a match at all
    ],
)
def test_classify_recall(similarity, strength, confidence, expected):
    assert classify_recall(similarity, strength, confidence) is expected
    assert is_tip_of_tongue(similarity, strength, confidence) == (expected is RecallKind.TIP_OF_TONGUE)


# ---------------------------------------------------------------- invalid config


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf"), 1.5])
def test_invalid_weight_names_the_field(bad):
    with pytest.raises(ValidationError) as err:
        SignalWeights(similarity=bad)
    assert err.value.errors()[0]["loc"] == ("similarity",)
    with pytest.raises(ValidationError) as err:
        RetrievalConfig(weights={"recency": bad})
    assert err.value.errors()[0]["loc"] == ("weights", "recency")


def test_invalid_retrieval_config():
    with pytest.raises(ValidationError, match="at least one signal weight"):
        SignalWeights(strength=0, similarity=0, recency=0, emotional=0, activation=0, importance=0)
    with pytest.raises(ValidationError) as err:
        RetrievalConfig(recency_half_life_ms=0)
    assert err.value.errors()[0]["loc"] == ("recency_half_life_ms",)
    with pytest.raises(ValidationError) as err:
        RetrievalConfig(candidate_multiplier=0)
    assert err.value.errors()[0]["loc"] == ("candidate_multiplier",)
    with pytest.raises(ValidationError) as err:
        RetrievalConfig(similarity_weight=0.3)  # unknown field
    assert err.value.errors()[0]["loc"] == ("similarity_weight",)
    cfg = RetrievalConfig()
    with pytest.raises(ValidationError):
        cfg.hexaco_weight_gain = float("nan")


# ---------------------------------------------------------------- array forms


_signal = st.floats(min_value=-0.5, max_value=1.5, allow_nan=False)
_candidate = st.tuples(_signal, _signal, _signal, _signal, _signal, _signal,
                       st.floats(min_value=-1.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0),
                       st.integers(min_value=-10 * MS_PER_DAY, max_value=400 * MS_PER_DAY))


@given(st.lists(_candidate, max_size=30), st.floats(min_value=-1.0, max_value=1.0))
def test_array_forms_score_every_candidate_as_the_scalar_forms_do(rows, mood_valence) -> None:
    cfg = RetrievalConfig()
    weights = modulated_weights(cfg.weights, Hexaco(openness=0.9), config=cfg)
    columns = list(zip(*rows, strict=True)) if rows else [()] * 9
    table = SignalTable(*(np.array(c, dtype=float) for c in columns[:6]))
    scores = composite_scores(table, weights)
    valences, confidences, elapsed = (np.array(c, dtype=float) for c in columns[6:])
    recency = recency_signals(elapsed, half_life_ms=cfg.recency_half_life_ms)
    emotional = emotional_congruences(mood_valence, valences)
    importance = importance_signals(confidences, config=cfg)
    tot = tip_of_tongue_mask(table.similarity, table.strength, confidences, config=cfg)
    for i, row in enumerate(rows):
        signals = Signals(*row[:6])
        assert table.row(i) == signals
        assert scores[i] == pytest.approx(composite_score(signals, weights), abs=1e-12)
        assert recency[i] == pytest.approx(recency_signal(row[8], half_life_ms=cfg.recency_half_life_ms), rel=1e-12)
        assert emotional[i] == pytest.approx(emotional_congruence(mood_valence, row[6]), abs=1e-15)
        assert importance[i] == pytest.approx(importance_signal(row[7], config=cfg), abs=1e-15)
        assert tot[i] == is_tip_of_tongue(row[1], row[0], row[7], config=cfg)


def test_signal_table_refuses_non_finite_and_ragged_signals() -> None:
    ok = np.zeros(3)
    with pytest.raises(ValueError, match="signals.recency"):
        SignalTable(ok, ok, np.array([0.0, math.nan, 0.0]), ok, ok, ok)
    with pytest.raises(ValueError, match="one value per candidate"):
        SignalTable(ok, ok, ok, ok, ok, np.zeros(2))


@given(st.lists(_candidate, min_size=1, max_size=10), st.floats(min_value=0.0, max_value=1.0))
def test_signal_contributions_add_up_to_the_score_they_explain(rows, prior_weight) -> None:
    cfg = RetrievalConfig()
    weights = modulated_weights(cfg.weights, Hexaco(openness=0.8), config=cfg)
    for row in rows:
        signals = Signals(*row[:6])
        additive = signal_contributions(signals, weights, "additive")
        assert sum(additive.values()) == pytest.approx(composite_score(signals, weights), abs=1e-12)
        prior = signal_contributions(signals, weights, "prior", prior_weight)
        assert set(prior) == set(additive)
        assert sum(prior.values()) == pytest.approx(prior_weighted_score(signals, weights, prior_weight), abs=1e-12)
