import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.clock import ManualClock
from cogmem_graph.cognition.working_memory import (
    EvictionReason,
    WorkingMemory,
    working_memory_capacity,
)
from cogmem_graph.config.working_memory import WorkingMemoryConfig
from cogmem_graph.model import Hexaco


def make(traits=None, **kwargs):
    evicted: list[tuple[str, EvictionReason]] = []
    clock = ManualClock(1_000)
    wm = WorkingMemory(
        traits, clock=clock, on_evict=lambda slot, why: evicted.append((slot.trace_id, why)), **kwargs
    )
    return wm, evicted, clock


# ---------------------------------------------------------------- capacity


@pytest.mark.parametrize(
    ("traits", "expected"),
    [
        (None, 7),  # Miller's 7
        (Hexaco(), 7),  # neutral traits
        (Hexaco(openness=0.7), 8),  # 7 + 1
        (Hexaco(conscientiousness=0.7), 6),  # 7 - 1
        (Hexaco(openness=0.9, conscientiousness=0.9), 7),  # 7 + 1 - 1
        (Hexaco(openness=0.6), 7),  # must be *above* 0.6
    ],
)
def test_capacity_from_traits(traits, expected):
    assert working_memory_capacity(traits) == expected
    assert WorkingMemory(traits).capacity == expected


def test_capacity_is_clamped():
    # 9 + 1 would be 10, clamped to max 9; 5 - 3 would be 2, clamped to min 5
    assert working_memory_capacity(Hexaco(openness=1.0), WorkingMemoryConfig(base_capacity=9)) == 9
    cfg = WorkingMemoryConfig(base_capacity=5, conscientiousness_slots=-3)
    assert working_memory_capacity(Hexaco(conscientiousness=1.0), cfg) == 5


unit = st.floats(min_value=0.0, max_value=1.0)
traits_st = st.builds(Hexaco, honesty=unit, emotionality=unit, extraversion=unit,
                      agreeableness=unit, conscientiousness=unit, openness=unit)


@given(traits_st, st.integers(-10, 10), st.integers(-10, 10))
def test_capacity_always_within_5_and_9(traits, o_slots, c_slots):
    assert 5 <= working_memory_capacity(traits) <= 9
    cfg = WorkingMemoryConfig(openness_slots=o_slots, conscientiousness_slots=c_slots)
    assert 5 <= working_memory_capacity(traits, cfg) <= 9


# ---------------------------------------------------------------- activation


def test_focus_rehearse_and_cap():
    wm, _, clock = make()
    slot = wm.focus("mt_1", "deploy with compose")
    assert slot.activation == 0.8
    assert slot.entered_at == clock.now_ms() == 1_000
    assert wm.rehearse("mt_1").activation == pytest.approx(0.95)  # 0.8 + 0.15
    assert wm.rehearse("mt_1").activation == 1.0  # 0.95 + 0.15 = 1.10, capped at 1
    assert slot.rehearsal_count == 2
    # focusing an item already held rehearses it instead of adding a slot
    wm.tick()  # 1.0 - 0.1 = 0.9
    assert wm.focus("mt_1").activation == 1.0  # 0.9 + 0.15 = 1.05 -> 1
    assert len(wm) == 1
    with pytest.raises(KeyError, match="mt_2"):
        wm.rehearse("mt_2")
    with pytest.raises(ValueError, match="trace_id"):
        wm.focus("")


def test_decay_evicts_below_threshold_after_seven_turns():
    wm, evicted, _ = make()
    wm.focus("mt_1")
    # 0.8 -> 0.7 -> 0.6 -> 0.5 -> 0.4 -> 0.3 -> 0.2 after six turns: still held (>= 0.15)
    assert wm.tick(6) == []
    assert wm.get("mt_1").activation == pytest.approx(0.2)
    assert evicted == []
    # seventh turn: 0.2 - 0.1 = 0.1 < 0.15 -> evicted
    out = wm.tick()
    assert [s.trace_id for s in out] == ["mt_1"]
    assert evicted == [("mt_1", EvictionReason.DECAYED)]
    assert "mt_1" not in wm
    assert wm.turn == 7


def test_full_buffer_displaces_the_least_active():
    wm, evicted, _ = make()
    for name in "abcdefg":  # 7 slots, all at 0.8
        wm.focus(name)
    wm.tick()  # all 0.7
    for name in "abdefg":
        wm.rehearse(name)  # 0.85, except c stays 0.7
    wm.focus("h")
    assert evicted == [("c", EvictionReason.DISPLACED)]
    assert len(wm) == 7 and "h" in wm and "c" not in wm


def test_ties_displace_the_oldest():
    wm, evicted, clock = make(Hexaco(conscientiousness=0.9, openness=0.1))  # capacity 6
    assert wm.capacity == 6
    for name in "abcdef":
        wm.focus(name)
        clock.advance(seconds=1)
    wm.focus("g")
    assert evicted == [("a", EvictionReason.DISPLACED)]


def test_attention_weights_share_activation():
    wm, _, _ = make()
    wm.focus("a")
    wm.tick(2)  # a: 0.8 - 0.2 = 0.6
    wm.focus("b")  # b: 0.8
    # weights: 0.6 / 1.4 = 0.428571, 0.8 / 1.4 = 0.571429
    assert wm.get("a").attention_weight == pytest.approx(0.6 / 1.4)
    assert wm.get("b").attention_weight == pytest.approx(0.8 / 1.4)
    assert wm.trace_ids == ["b", "a"]


def test_remove_and_clear_do_not_call_back():
    wm, evicted, _ = make()
    wm.focus("a")
    wm.focus("b")
    assert wm.remove("a").trace_id == "a"
    assert wm.remove("zzz") is None
    wm.clear()
    assert len(wm) == 0 and evicted == []


def test_callback_error_propagates_after_the_state_is_updated():
    def boom(slot, why):
        raise RuntimeError(f"could not store {slot.trace_id}")

    wm = WorkingMemory(clock=ManualClock(), on_evict=boom)
    wm.focus("a")
    with pytest.raises(RuntimeError, match="could not store a"):
        wm.tick(7)
    assert "a" not in wm


def test_format_for_prompt():
    wm, _, clock = make()
    wm.focus("mt_1", "user wants\nDocker Compose")
    wm.tick(3)  # mt_1: 0.5
    clock.advance(seconds=1)
    wm.focus("mt_2")  # 0.8
    wm.tick(3)  # mt_1: 0.2, mt_2: 0.5
    wm.rehearse("mt_2")  # 0.65
    clock.advance(seconds=1)
    wm.focus("mt_3")  # 0.8
    assert wm.format_for_prompt() == (
        "- [ACTIVE] mt_3 (activation: 0.80)\n"
        "- [fading] mt_2 (activation: 0.65)\n"
        "- [weak] mt_1 (activation: 0.20): user wants Docker Compose"
    )
    assert WorkingMemory().format_for_prompt() == ""


# ---------------------------------------------------------------- properties


ops = st.lists(
    st.one_of(
        st.tuples(st.just("focus"), st.sampled_from("abcdefghijkl")),
        st.tuples(st.just("rehearse"), st.sampled_from("abcdefghijkl")),
        st.tuples(st.just("tick"), st.integers(0, 3)),
    ),
    max_size=60,
)


@settings(max_examples=200)
@given(traits_st, ops)
def test_on_evict_called_once_per_evicted_item(traits, operations):
    evicted: list[str] = []
    wm = WorkingMemory(traits, clock=ManualClock(), on_evict=lambda slot, why: evicted.append(slot.trace_id))
    entered = 0
    for op, arg in operations:
        if op == "focus":
            entered += arg not in wm
            wm.focus(arg)
        elif op == "rehearse":
            if arg in wm:
                wm.rehearse(arg)
        else:
            before = set(wm.trace_ids)
            out = wm.tick(arg)
            assert {s.trace_id for s in out} <= before
            assert all(s.activation < wm.config.eviction_threshold for s in out)
        assert len(wm) <= wm.capacity
        for slot in wm.slots:
            assert wm.config.eviction_threshold <= slot.activation <= 1.0
        # everything that entered is either still held or was handed to on_evict exactly once
        assert entered == len(wm) + len(evicted)
    if len(wm):
        assert sum(s.attention_weight for s in wm.slots) == pytest.approx(1.0)


# ---------------------------------------------------------------- config


def test_working_memory_defaults():
    cfg = WorkingMemoryConfig()
    assert (cfg.base_capacity, cfg.min_capacity, cfg.max_capacity) == (7, 5, 9)
    assert (cfg.initial_activation, cfg.rehearsal_boost, cfg.decay_per_turn, cfg.eviction_threshold) == (
        0.8, 0.15, 0.1, 0.15,
    )


def test_invalid_working_memory_config():
    with pytest.raises(ValidationError) as err:
        WorkingMemoryConfig(decay_per_turn=float("nan"))
    assert err.value.errors()[0]["loc"] == ("decay_per_turn",)
    with pytest.raises(ValidationError) as err:
        WorkingMemoryConfig(rehearsal_boost=-0.1)
    assert err.value.errors()[0]["loc"] == ("rehearsal_boost",)
    with pytest.raises(ValidationError, match="base_capacity"):
        WorkingMemoryConfig(min_capacity=8)
    with pytest.raises(ValidationError, match="eviction_threshold"):
        WorkingMemoryConfig(eviction_threshold=0.9)
    with pytest.raises(ValidationError):
        WorkingMemoryConfig(capacity=7)  # unknown field
