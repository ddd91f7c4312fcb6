"""Decay, spaced repetition, interference and pruning against hand-computed reference formulas."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock
from cogmem_graph.cognition.decay import (
    InterferenceNeighbour,
    apply_strength_loss,
    current_strength,
    current_strengths,
    difficulty_bonus,
    dormant_from,
    ebbinghaus_strength,
    elapsed_since_access,
    emotional_bonus,
    fsrs_retention,
    fsrs_strength,
    interference,
    is_emotionally_protected,
    is_endangered,
    is_prunable,
    is_reinforcement_due,
    next_reinforcement_interval,
    proactive_interference,
    rehearsal_stability,
    retrieval_diminish,
    retroactive_interference,
    scaled_overlap,
    spaced_repetition_update,
    stability_growth_factor,
    trace_is_prunable,
    trace_strength,
    update_on_retrieval,
    weakens_below_after,
)
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.decay import DecayConfig
from cogmem_graph.model import MemoryTrace

FSRS = DecayConfig(model="fsrs6")
REF = CogmemConfig.reference_preset().decay
"""The first reference's numbers (Ebbinghaus, +0.1 strength per recall): what the hand computations use."""
T0 = 1_700_000_000_000

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
stability_st = st.floats(min_value=1.0, max_value=1e12, allow_nan=False)
elapsed_st = st.integers(min_value=0, max_value=10**13)
model_st = st.sampled_from([DecayConfig(), FSRS])


def make_trace(**kw) -> MemoryTrace:
    base = {"content": "x", "scope_id": "u1", "agent_id": "a", "created_at": T0}
    return MemoryTrace(**(base | kw))


# ---------------------------------------------------------------- forgetting curves


def test_ebbinghaus_hand_computed():
    assert ebbinghaus_strength(0.8, MS_PER_HOUR, 0) == pytest.approx(0.8)
    # 0.8 * e^-1 = 0.8 * 0.36787944 = 0.29430355
    assert ebbinghaus_strength(0.8, MS_PER_HOUR, MS_PER_HOUR) == pytest.approx(0.29430355)
    # 0.5 * e^-3 = 0.02489353
    assert ebbinghaus_strength(0.5, MS_PER_HOUR, 3 * MS_PER_HOUR) == pytest.approx(0.02489353)


def test_fsrs_retention_hand_computed():
    assert fsrs_retention(0, MS_PER_DAY) == 1.0
    # t = S: (1 + 1/9)^-2 = (9/10)^2 = 0.81
    assert fsrs_retention(MS_PER_DAY, MS_PER_DAY) == pytest.approx(0.81)
    # t = 9S: (1 + 1)^-2 = 0.25
    assert fsrs_retention(9 * MS_PER_DAY, MS_PER_DAY) == pytest.approx(0.25)
    # S0 * R = 0.5 * 0.25
    assert fsrs_strength(0.5, MS_PER_DAY, 9 * MS_PER_DAY) == pytest.approx(0.125)
    # decay 1.0 -> exponent -1: (1 + 9/9)^-1 = 0.5
    assert fsrs_retention(9, 1, DecayConfig(fsrs_decay=1.0)) == pytest.approx(0.5)


def test_power_law_has_the_heavier_tail():
    # t = 10 S: e^-10 = 4.54e-5 versus (1 + 10/9)^-2 = 81/361 = 0.22438
    assert ebbinghaus_strength(1.0, 1.0, 10.0) == pytest.approx(math.exp(-10))
    assert fsrs_retention(10.0, 1.0) == pytest.approx(81 / 361)


def test_current_strength_selects_model_and_counts_from_last_access():
    now = T0 + MS_PER_HOUR
    assert current_strength(0.8, MS_PER_HOUR, T0, now, REF) == pytest.approx(0.8 * math.exp(-1))
    assert current_strength(0.8, MS_PER_HOUR, T0, now, FSRS) == pytest.approx(0.8 * 0.81)
    # clock earlier than the last access: no decay, never "un-forgetting" above S0
    assert current_strength(0.8, MS_PER_HOUR, now, T0) == pytest.approx(0.8)
    assert elapsed_since_access(now, T0) == 0


def test_two_clocks_decay_from_recorded_at_not_event_time():
    year_old_diary = make_trace(created_at=T0 - 365 * MS_PER_DAY, recorded_at=T0, encoding_strength=0.5)
    assert year_old_diary.last_accessed_at == T0
    assert trace_strength(year_old_diary, T0) == pytest.approx(0.5)
    assert not trace_is_prunable(year_old_diary, T0)


def test_injected_clock_drives_decay():
    clock = ManualClock(T0)
    trace = make_trace(encoding_strength=0.5, stability=MS_PER_HOUR)
    assert trace_strength(trace, clock.now_ms()) == pytest.approx(0.5)
    clock.advance(hours=3)
    assert trace_strength(trace, clock.now_ms(), REF) == pytest.approx(0.5 * math.exp(-3))


# ---------------------------------------------------------------- spaced repetition


def test_growth_pieces_hand_computed():
    assert difficulty_bonus(0.3) == pytest.approx(0.7)  # 1 - 0.3
    assert difficulty_bonus(0.95) == pytest.approx(0.1)  # max(0.1, 0.05)
    assert retrieval_diminish(0) == 1.0
    assert retrieval_diminish(5) == pytest.approx(1 / 1.5)  # 1 / (1 + 0.1*5)
    assert emotional_bonus(0.5) == pytest.approx(1.15)  # 1 + 0.3*0.5
    # (1.5 + 2*0.1) * 1 * 1 = 1.7
    assert stability_growth_factor(1.0, 0, 0.0) == pytest.approx(1.7)


def test_spaced_repetition_update_hand_computed():
    now = T0 + MS_PER_HOUR
    update = spaced_repetition_update(
        encoding_strength=0.5, stability_ms=MS_PER_HOUR, retrieval_count=2, last_accessed_at=T0,
        reinforcement_interval_ms=MS_PER_DAY, intensity=0.5, now_ms=now, config=REF,
    )
    # current    = 0.5 * e^-1                     = 0.18393972
    # difficulty = 1 - 0.18393972                 = 0.81606028
    # diminish   = 1 / (1 + 0.1*2)                = 0.83333333
    # emotional  = 1 + 0.3*0.5                    = 1.15
    # growth     = (1.5 + 2*0.81606028)*0.8333*1.15 = 3.13212056*0.95833333 = 3.00161554
    assert update.strength_before == pytest.approx(0.18393972)
    assert update.growth_factor == pytest.approx(3.00161554)
    assert update.stability == pytest.approx(MS_PER_HOUR * 3.00161554)
    assert update.encoding_strength == pytest.approx(0.6)  # 0.5 + 0.1
    assert update.retrieval_count == 3
    assert update.last_accessed_at == now
    assert update.reinforcement_interval == 2 * MS_PER_DAY  # doubled
    assert update.next_reinforcement_at == now + 2 * MS_PER_DAY


def test_update_on_retrieval_of_a_trace():
    trace = make_trace(encoding_strength=0.95, stability=MS_PER_HOUR, intensity=0.0)
    update = update_on_retrieval(trace, T0, REF)
    # no time passed: current 0.95, difficulty max(0.1, 0.05) = 0.1, growth 1.5 + 0.2 = 1.7
    assert update.growth_factor == pytest.approx(1.7)
    assert update.encoding_strength == 1.0  # 0.95 + 0.1 capped at 1
    assert update.reinforcement_interval == 2 * trace.reinforcement_interval


def test_diminishing_returns_never_shrink_stability():
    # count 20, easy recall: (1.5 + 0.2) / (1 + 2) = 0.567 -> floored at 1.0
    assert stability_growth_factor(1.0, 20, 0.0) == 1.0


def test_interval_doubling_is_capped_and_never_shrinks():
    assert next_reinforcement_interval(MS_PER_DAY) == 2 * MS_PER_DAY
    assert next_reinforcement_interval(300 * MS_PER_DAY) == 365 * MS_PER_DAY
    assert next_reinforcement_interval(400 * MS_PER_DAY) == 400 * MS_PER_DAY
    assert next_reinforcement_interval(MS_PER_DAY, DecayConfig(interval_multiplier=1.0)) == MS_PER_DAY


def test_reinforcement_schedule_and_fsrs_rehearsal():
    assert is_reinforcement_due(T0, T0)
    assert not is_reinforcement_due(T0 + 1, T0)
    assert is_endangered(0.29) and not is_endangered(0.3)
    assert rehearsal_stability(MS_PER_DAY) == pytest.approx(1.5 * MS_PER_DAY)


# ---------------------------------------------------------------- interference


def test_interference_hand_computed():
    assert scaled_overlap(0.85, 0.7) == pytest.approx(0.5)  # (0.85-0.7)/(1-0.7)
    assert retroactive_interference(0.85) == pytest.approx(0.075)  # 0.5 * 0.15
    assert retroactive_interference(1.0) == pytest.approx(0.15)
    assert retroactive_interference(0.7) == 0.0  # at the threshold: nothing
    assert retroactive_interference(-0.3) == 0.0
    assert retroactive_interference(1.0000001) == pytest.approx(0.15)  # float noise above 1 is clamped
    # 1.0*0.1*0.8 + 0.5*0.1*0.6 = 0.08 + 0.03 = 0.11
    assert proactive_interference([(1.0, 0.8), (0.85, 0.6), (0.5, 1.0)]) == pytest.approx(0.11)
    # ten identical strong neighbours: 10 * 0.1 = 1.0 -> capped at 0.3
    assert proactive_interference([(1.0, 1.0)] * 10) == pytest.approx(0.3)


def test_interference_result():
    result = interference([
        InterferenceNeighbour("a", 1.0, 0.8),
        InterferenceNeighbour("b", 0.85, 0.6),
        InterferenceNeighbour("c", 0.4, 0.9),
    ])
    assert result.retroactive == pytest.approx({"a": 0.15, "b": 0.075})
    assert result.proactive == pytest.approx(0.11)
    assert apply_strength_loss(0.5, result.retroactive["b"]) == pytest.approx(0.425)
    assert apply_strength_loss(0.05, 0.15) == 0.0
    assert interference([]).proactive == 0.0


def test_disabled_interference():
    cfg = DecayConfig(retroactive_max_reduction=0.0, proactive_cap=0.0)
    result = interference([InterferenceNeighbour("a", 1.0, 1.0)], cfg)
    assert result.retroactive == {}
    assert result.proactive == 0.0


# ---------------------------------------------------------------- pruning


def test_prune_eligibility_and_emotional_protection():
    assert is_prunable(0.04, 0.0)
    assert is_prunable(0.04, 0.3)  # protection needs intensity *above* 0.3
    assert not is_prunable(0.04, 0.31)
    assert not is_prunable(0.05, 0.0)  # strictly below the threshold
    assert not is_prunable(0.0, 0.0, is_active=False)
    assert is_emotionally_protected(0.9) and not is_emotionally_protected(0.3)
    assert not is_prunable(0.0, 0.0, DecayConfig(pruning_threshold=0.0))  # threshold 0 disables pruning


def test_trace_pruning_after_decay():
    weak = make_trace(encoding_strength=0.5, stability=MS_PER_HOUR)
    later = T0 + 3 * MS_PER_HOUR  # 0.5 * e^-3 = 0.0249 < 0.05
    assert trace_is_prunable(weak, later, REF)
    assert not trace_is_prunable(weak.model_copy(update={"intensity": 0.5}), later, REF)
    assert not trace_is_prunable(weak, T0 + 2 * MS_PER_HOUR, REF)  # 0.5 * e^-2 = 0.0677


# ---------------------------------------------------------------- bad input and config


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="stability_ms"):
        ebbinghaus_strength(0.5, 0.0, 10)
    with pytest.raises(ValueError, match="encoding_strength"):
        ebbinghaus_strength(float("nan"), 1.0, 10)
    with pytest.raises(ValueError, match="similarity"):
        retroactive_interference(float("nan"))
    with pytest.raises(ValueError, match="retrieval_count"):
        retrieval_diminish(-1)
    with pytest.raises(ValueError, match="intensity"):
        is_prunable(0.0, 1.5)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model", "linear"),
        ("pruning_threshold", float("nan")),
        ("pruning_threshold", 1.5),
        ("emotional_protection_intensity", -0.1),
        ("interference_threshold", 1.0),
        ("proactive_cap", float("inf")),
        ("fsrs_decay", 0.0),
        ("fsrs_factor", float("nan")),
        ("min_growth_factor", 0.5),
        ("max_reinforcement_interval_ms", 0),
    ],
)
def test_invalid_decay_config_names_the_field(field, value):
    with pytest.raises(ValidationError, match=field):
        DecayConfig(**{field: value})


def test_decay_config_defaults_and_assignment():
    cfg = DecayConfig()
    assert (cfg.model, cfg.pruning_threshold, cfg.emotional_protection_intensity) == ("fsrs6", 0.05, 0.3)
    assert cfg.retrieval_strength_boost == 0.0 and (REF.model, REF.retrieval_strength_boost) == ("ebbinghaus", 0.1)
    assert (cfg.interference_threshold, cfg.proactive_cap, cfg.retroactive_max_reduction) == (0.7, 0.3, 0.15)
    assert (cfg.fsrs_decay, cfg.fsrs_factor) == (0.5, 9.0)
    with pytest.raises(ValidationError, match="interference_threshold"):
        cfg.interference_threshold = float("nan")
    with pytest.raises(ValidationError, match="prune_threshold"):
        DecayConfig(prune_threshold=0.1)


# ---------------------------------------------------------------- properties


@given(unit, stability_st, elapsed_st, model_st)
def test_strength_stays_in_unit_interval_and_below_s0(s0, stability, elapsed, cfg):
    s = current_strength(s0, stability, T0, T0 + elapsed, cfg)
    assert 0.0 <= s <= s0 <= 1.0


@given(unit, stability_st, elapsed_st, elapsed_st, model_st)
def test_decay_is_monotone_non_increasing_in_time(s0, stability, a, b, cfg):
    early, late = sorted((a, b))
    assert current_strength(s0, stability, T0, T0 + late, cfg) <= current_strength(s0, stability, T0, T0 + early, cfg)


@given(
    unit, stability_st, st.integers(min_value=0, max_value=10_000), elapsed_st,
    st.integers(min_value=1, max_value=400 * MS_PER_DAY), unit, model_st,
)
def test_retrieval_never_lowers_stability(s0, stability, count, elapsed, interval, intensity, cfg):
    now = T0 + elapsed
    update = spaced_repetition_update(
        encoding_strength=s0, stability_ms=stability, retrieval_count=count, last_accessed_at=T0,
        reinforcement_interval_ms=interval, intensity=intensity, now_ms=now, config=cfg,
    )
    assert update.stability >= stability
    assert update.growth_factor >= 1.0
    assert s0 <= update.encoding_strength <= 1.0
    assert update.retrieval_count == count + 1
    assert update.reinforcement_interval >= interval
    assert update.next_reinforcement_at > now == update.last_accessed_at
    # right after the retrieval the memory is at least as strong as before it
    assert current_strength(update.encoding_strength, update.stability, now, now, cfg) >= update.strength_before


@given(st.lists(st.tuples(st.floats(-1.0, 1.0), unit), max_size=30))
def test_interference_losses_are_bounded(neighbours):
    assert 0.0 <= proactive_interference(neighbours) <= 0.3
    for similarity, _ in neighbours:
        assert 0.0 <= retroactive_interference(similarity) <= 0.15


@pytest.mark.parametrize("model", ["ebbinghaus", "fsrs6"])
@given(rows=st.lists(st.tuples(st.floats(min_value=0.0, max_value=1.0),
                               st.floats(min_value=1.0, max_value=1e11),
                               st.integers(min_value=0, max_value=2 * 10**12)), max_size=30))
def test_current_strengths_equal_the_scalar_curve_for_each_trace(model, rows) -> None:
    now = 10**12
    config = DecayConfig(model=model)
    s0, stability, last = (np.array(c) for c in zip(*rows, strict=True)) if rows else (np.array([]),) * 3
    strengths = current_strengths(s0, stability, last, now, config)
    for i, (a, b, c) in enumerate(rows):
        assert strengths[i] == pytest.approx(current_strength(a, b, c, now, config), rel=1e-12, abs=1e-300)


def test_current_strengths_name_the_bad_argument() -> None:
    ok = np.array([0.5])
    with pytest.raises(ValueError, match="encoding_strength"):
        current_strengths(np.array([1.5]), np.array([1.0]), np.array([0]), 1)
    with pytest.raises(ValueError, match="stability_ms"):
        current_strengths(ok, np.array([0.0]), np.array([0]), 1)
    with pytest.raises(ValueError, match="stability_ms"):
        current_strengths(ok, np.array([math.inf]), np.array([0]), 1)


# ---------------------------------------------------------------- projection to dormancy


@given(s0=st.floats(min_value=0.06, max_value=1.0), stability=stability_st, cfg=model_st)
def test_the_strength_reaches_the_threshold_exactly_when_projected(s0: float, stability: float,
                                                                    cfg: DecayConfig) -> None:
    after = weakens_below_after(s0, stability, 0.05, cfg)
    assert after is not None and after > 0
    curve = fsrs_strength(s0, stability, after, cfg) if cfg.model == "fsrs6" else ebbinghaus_strength(s0, stability,
                                                                                                         after)
    assert curve == pytest.approx(0.05, rel=1e-6)


def test_the_projection_counts_the_minimum_retention_and_spares_what_decay_never_forgets() -> None:
    cfg = DecayConfig(model="ebbinghaus")  # threshold 0.05
    trace = make_trace(encoding_strength=0.5, stability=MS_PER_DAY, last_accessed_at=T0)
    crossing = MS_PER_DAY * math.log(0.5 / 0.05)  # about 2.3 days
    assert dormant_from(trace, 0, cfg) == int(T0 + crossing)
    assert dormant_from(trace, 7 * MS_PER_DAY, cfg) == T0 + 7 * MS_PER_DAY, "not before the category's minimum"
    assert dormant_from(trace, None, cfg) is None, "a permanent category"
    assert dormant_from(make_trace(encoding_strength=0.5, stability=MS_PER_DAY, last_accessed_at=T0, pinned=True),
                        0, cfg) is None
    assert dormant_from(make_trace(encoding_strength=0.5, stability=MS_PER_DAY, last_accessed_at=T0, intensity=0.95),
                        0, cfg) is None, "emotional memories are protected"
    assert weakens_below_after(0.01, MS_PER_DAY, 0.05, cfg) == 0.0
    assert weakens_below_after(0.5, MS_PER_DAY, 0.0, cfg) is None
    with pytest.raises(ValueError, match="threshold"):
        weakens_below_after(0.5, MS_PER_DAY, 1.5, cfg)
