"""Decay: forgetting, strengthening on retrieval, interference and pruning.

* Forgetting. FSRS-6 (the default, `DecayConfig.model`): S(t) = S0 · R with
  power-law retention R = (1 + Δt / (factor · stability))^(-1 / decay), which
  keeps a heavier tail for well-established memories. Ebbinghaus (the first
  reference's): S(t) = S0 · e^(-Δt / stability). Δt counts from the last access, never from the
  event time, so imported history is not born forgotten.
* Spaced repetition. A successful retrieval multiplies stability by a growth
  factor that is larger for memories that were hard to recall (desirable
  difficulty), smaller after many retrievals (diminishing returns) and larger
  for emotional memories; the reinforcement interval doubles.
* Interference. A new trace weakens old similar traces (retroactive) and old
  similar traces weaken the new one (proactive, capped in total).
* Pruning. Weak traces may be soft-deleted, except emotional ones.

Pure functions: times are epoch-ms integers passed in explicitly; no clock, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from cogmem_graph.config.decay import DecayConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MemoryTrace

_DEFAULT_CONFIG = DecayConfig()


def _cfg(config: DecayConfig | None) -> DecayConfig:
    return _DEFAULT_CONFIG if config is None else config


def _finite(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgument(f"{name} must be a finite number, got {value!r}", argument=name)
    return float(value)


def _check(name: str, value: float, low: float, high: float) -> float:
    """Refuse NaN/inf and out-of-range inputs with an error that names the argument."""
    v = _finite(name, value)
    if not low <= v <= high:
        raise InvalidArgument(f"{name} must be in [{low:g}, {high:g}], got {value!r}", argument=name)
    return v


def _positive(name: str, value: float) -> float:
    v = _finite(name, value)
    if v <= 0.0:
        raise InvalidArgument(f"{name} must be > 0, got {value!r}", argument=name)
    return v


# ---------------------------------------------------------------- forgetting curves


def elapsed_since_access(last_accessed_at: int, now_ms: int) -> int:
    """Δt in ms since the last access; 0 if the clock reads earlier (skew never un-forgets)."""
    return max(0, int(now_ms) - int(last_accessed_at))


def ebbinghaus_strength(encoding_strength: float, stability_ms: float, elapsed_ms: float) -> float:
    """Ebbinghaus forgetting curve S0 · e^(-Δt / stability)."""
    s0 = _check("encoding_strength", encoding_strength, 0.0, 1.0)
    tau = _positive("stability_ms", stability_ms)
    dt = max(0.0, _finite("elapsed_ms", elapsed_ms))
    return s0 * math.exp(-dt / tau)


def fsrs_retention(elapsed_ms: float, stability_ms: float, config: DecayConfig | None = None) -> float:
    """FSRS-6 power-law retention R = (1 + t / (factor · S))^(-1 / decay), in (0, 1].

    t and S share a unit (ms here), so only their ratio matters.
    """
    cfg = _cfg(config)
    tau = _positive("stability_ms", stability_ms)
    dt = max(0.0, _finite("elapsed_ms", elapsed_ms))
    return (1.0 + dt / (cfg.fsrs_factor * tau)) ** (-1.0 / cfg.fsrs_decay)


def fsrs_strength(
    encoding_strength: float, stability_ms: float, elapsed_ms: float, config: DecayConfig | None = None
) -> float:
    """Power-law alternative to Ebbinghaus: S0 · R(Δt, stability)."""
    s0 = _check("encoding_strength", encoding_strength, 0.0, 1.0)
    return s0 * fsrs_retention(elapsed_ms, stability_ms, config)


def current_strength(
    encoding_strength: float,
    stability_ms: float,
    last_accessed_at: int,
    now_ms: int,
    config: DecayConfig | None = None,
) -> float:
    """Strength now, on the curve `config.model` selects; Δt counts from the last access."""
    cfg = _cfg(config)
    dt = elapsed_since_access(last_accessed_at, now_ms)
    if cfg.model == "fsrs6":
        return fsrs_strength(encoding_strength, stability_ms, dt, cfg)
    return ebbinghaus_strength(encoding_strength, stability_ms, dt)


def current_strengths(
    encoding_strength: np.ndarray,
    stability_ms: np.ndarray,
    last_accessed_at: np.ndarray,
    now_ms: int,
    config: DecayConfig | None = None,
) -> np.ndarray:
    """`current_strength` of many traces at once, as arrays: retrieval ranks ~100
    candidates, and one array expression costs what a few scalar calls do."""
    cfg = _cfg(config)
    s0 = check_array("encoding_strength", encoding_strength, 0.0, 1.0)
    tau = check_array("stability_ms", stability_ms, 0.0, math.inf)
    if (tau <= 0.0).any():
        raise InvalidArgument(f"stability_ms must be > 0, got {float(tau.min())!r}", argument="stability_ms")
    dt = np.maximum(0, int(now_ms) - np.asarray(last_accessed_at, dtype=np.int64)).astype(np.float64)
    if cfg.model == "fsrs6":
        return s0 * (1.0 + dt / (cfg.fsrs_factor * tau)) ** (-1.0 / cfg.fsrs_decay)
    return s0 * np.exp(-dt / tau)


def check_array(name: str, values: np.ndarray, low: float, high: float) -> np.ndarray:
    """`_check` for an array: finite floats within [low, high], or an error naming the argument."""
    array = np.asarray(values, dtype=np.float64)
    if not np.isfinite(array).all():
        raise InvalidArgument(f"{name} must hold finite numbers, got {array[~np.isfinite(array)][0]!r}", argument=name)
    if array.size and (array.min() < low or array.max() > high):
        bad = array[(array < low) | (array > high)][0]
        raise InvalidArgument(f"{name} must be in [{low:g}, {high:g}], got {float(bad)!r}", argument=name)
    return array


def trace_strength(trace: MemoryTrace, now_ms: int, config: DecayConfig | None = None) -> float:
    """`current_strength` of a MemoryTrace."""
    return current_strength(trace.encoding_strength, trace.stability, trace.last_accessed_at, now_ms, config)


# ---------------------------------------------------------------- spaced repetition


def difficulty_bonus(current: float, config: DecayConfig | None = None) -> float:
    """Desirable difficulty: max(floor, 1 - current strength); hard recalls teach more."""
    return max(_cfg(config).difficulty_floor, 1.0 - _check("current", current, 0.0, 1.0))


def retrieval_diminish(retrieval_count: int, config: DecayConfig | None = None) -> float:
    """Diminishing returns 1 / (1 + rate · n): the tenth rehearsal adds less than the first."""
    if retrieval_count < 0:
        raise InvalidArgument(f"retrieval_count must be >= 0, got {retrieval_count!r}", argument="retrieval_count")
    return 1.0 / (1.0 + _cfg(config).diminishing_rate * retrieval_count)


def emotional_bonus(intensity: float, config: DecayConfig | None = None) -> float:
    """1 + gain · intensity: emotional memories consolidate faster."""
    return 1.0 + _cfg(config).emotional_bonus_gain * _check("intensity", intensity, 0.0, 1.0)


def stability_growth_factor(
    current: float, retrieval_count: int, intensity: float, config: DecayConfig | None = None
) -> float:
    """(base + gain · difficulty) · diminish · emotional bonus, floored so it never shrinks stability."""
    cfg = _cfg(config)
    raw = (
        (cfg.growth_base + cfg.difficulty_gain * difficulty_bonus(current, cfg))
        * retrieval_diminish(retrieval_count, cfg)
        * emotional_bonus(intensity, cfg)
    )
    return max(cfg.min_growth_factor, raw)


def next_reinforcement_interval(interval_ms: int, config: DecayConfig | None = None) -> int:
    """Interval doubling (× multiplier), capped; an interval already past the cap is kept."""
    cfg = _cfg(config)
    current = int(_positive("interval_ms", interval_ms))
    grown = min(cfg.max_reinforcement_interval_ms, round(current * cfg.interval_multiplier))
    return max(current, grown)


@dataclass(frozen=True)
class RetrievalUpdate:
    """New decay and schedule fields of a trace after a successful retrieval."""

    encoding_strength: float
    stability: float
    retrieval_count: int
    last_accessed_at: int
    reinforcement_interval: int
    next_reinforcement_at: int
    strength_before: float
    """Strength just before the retrieval (what difficulty was judged on)."""
    growth_factor: float


def spaced_repetition_update(
    *,
    encoding_strength: float,
    stability_ms: float,
    retrieval_count: int,
    last_accessed_at: int,
    reinforcement_interval_ms: int,
    intensity: float,
    now_ms: int,
    config: DecayConfig | None = None,
) -> RetrievalUpdate:
    """Apply one successful retrieval: grow stability, bump strength, restart the clock, double the interval."""
    cfg = _cfg(config)
    at = max(int(now_ms), int(last_accessed_at))
    before = current_strength(encoding_strength, stability_ms, last_accessed_at, at, cfg)
    growth = stability_growth_factor(before, retrieval_count, intensity, cfg)
    interval = next_reinforcement_interval(reinforcement_interval_ms, cfg)
    return RetrievalUpdate(
        encoding_strength=min(1.0, encoding_strength + cfg.retrieval_strength_boost),
        stability=stability_ms * growth,
        retrieval_count=retrieval_count + 1,
        last_accessed_at=at,
        reinforcement_interval=interval,
        next_reinforcement_at=at + interval,
        strength_before=before,
        growth_factor=growth,
    )


def update_on_retrieval(trace: MemoryTrace, now_ms: int, config: DecayConfig | None = None) -> RetrievalUpdate:
    """`spaced_repetition_update` for a MemoryTrace."""
    return spaced_repetition_update(
        encoding_strength=trace.encoding_strength,
        stability_ms=trace.stability,
        retrieval_count=trace.retrieval_count,
        last_accessed_at=trace.last_accessed_at,
        reinforcement_interval_ms=trace.reinforcement_interval,
        intensity=trace.intensity,
        now_ms=now_ms,
        config=config,
    )


def is_reinforcement_due(next_reinforcement_at: int, now_ms: int) -> bool:
    """Consolidation reinforces traces whose scheduled time has come."""
    return int(now_ms) >= int(next_reinforcement_at)


def is_endangered(retention: float, config: DecayConfig | None = None) -> bool:
    """FSRS rehearsal target: retention has fallen below the threshold."""
    return _check("retention", retention, 0.0, 1.0) < _cfg(config).fsrs_rehearsal_threshold


def rehearsal_stability(stability_ms: float, config: DecayConfig | None = None) -> float:
    """Stability after a testing-effect rehearsal of an endangered memory."""
    return _positive("stability_ms", stability_ms) * _cfg(config).fsrs_rehearsal_boost


# ---------------------------------------------------------------- interference


def scaled_overlap(similarity: float, threshold: float) -> float:
    """How far above the interference threshold a similarity lies, rescaled to [0, 1]."""
    s = min(1.0, _finite("similarity", similarity))
    t = _check("threshold", threshold, 0.0, 1.0)
    if s <= t or t >= 1.0:
        return 0.0
    return (s - t) / (1.0 - t)


def retroactive_interference(similarity: float, config: DecayConfig | None = None) -> float:
    """Strength an old trace loses to a similar new one: 0 at the threshold, the maximum at similarity 1."""
    cfg = _cfg(config)
    return scaled_overlap(similarity, cfg.interference_threshold) * cfg.retroactive_max_reduction


def proactive_interference(
    neighbours: Iterable[tuple[float, float]], config: DecayConfig | None = None
) -> float:
    """Strength a new trace loses to old similar ones, given (similarity, their current strength).

    Each neighbour costs gain · overlap · its strength; the total is capped so a crowded
    topic can still learn something new.
    """
    cfg = _cfg(config)
    total = 0.0
    for similarity, strength in neighbours:
        overlap = scaled_overlap(similarity, cfg.interference_threshold)
        total += overlap * cfg.proactive_gain * _check("strength", strength, 0.0, 1.0)
    return min(cfg.proactive_cap, total)


@dataclass(frozen=True)
class InterferenceNeighbour:
    """An existing trace similar to the one being encoded."""

    trace_id: str
    similarity: float
    current_strength: float


@dataclass(frozen=True)
class InterferenceResult:
    """Losses to apply: per old trace (retroactive) and for the new trace (proactive)."""

    retroactive: dict[str, float]
    proactive: float


def interference(
    neighbours: Iterable[InterferenceNeighbour], config: DecayConfig | None = None
) -> InterferenceResult:
    """Both directions of interference between a new trace and its nearest neighbours."""
    cfg = _cfg(config)
    items = list(neighbours)
    retro: dict[str, float] = {}
    for n in items:
        loss = retroactive_interference(n.similarity, cfg)
        if loss > 0.0:
            retro[n.trace_id] = max(loss, retro.get(n.trace_id, 0.0))
    proactive = proactive_interference(((n.similarity, n.current_strength) for n in items), cfg)
    return InterferenceResult(retroactive=retro, proactive=proactive)


def apply_strength_loss(strength: float, loss: float) -> float:
    """Subtract an interference loss from an encoding strength, staying in [0, 1]."""
    s = _check("strength", strength, 0.0, 1.0)
    return max(0.0, min(1.0, s - max(0.0, _finite("loss", loss))))


# ---------------------------------------------------------------- pruning


def is_emotionally_protected(intensity: float, config: DecayConfig | None = None) -> bool:
    """Memories that hit hard (intensity above the protection threshold) are never pruned."""
    return _check("intensity", intensity, 0.0, 1.0) > _cfg(config).emotional_protection_intensity


def is_prunable(
    strength: float, intensity: float, config: DecayConfig | None = None, *, is_active: bool = True
) -> bool:
    """A trace may be soft-deleted when active, weaker than the threshold and not emotional."""
    cfg = _cfg(config)
    return (
        is_active
        and _check("strength", strength, 0.0, 1.0) < cfg.pruning_threshold
        and not is_emotionally_protected(intensity, cfg)
    )


def trace_is_prunable(trace: MemoryTrace, now_ms: int, config: DecayConfig | None = None) -> bool:
    """`is_prunable` for a MemoryTrace at a given time."""
    return is_prunable(trace_strength(trace, now_ms, config), trace.intensity, config, is_active=trace.is_active)


def weakens_below_after(encoding_strength: float, stability_ms: float, threshold: float,
                        config: DecayConfig | None = None) -> float | None:
    """How long after its last access a trace's strength falls below `threshold` on the
    curve `config.model` selects (ms; 0 when it is already there). None: never (threshold 0)."""
    cfg = _cfg(config)
    s0 = _check("encoding_strength", encoding_strength, 0.0, 1.0)
    tau = _positive("stability_ms", stability_ms)
    thr = _check("threshold", threshold, 0.0, 1.0)
    if thr <= 0.0:
        return None
    if s0 < thr:
        return 0.0
    if cfg.model == "fsrs6":
        return cfg.fsrs_factor * tau * ((s0 / thr) ** cfg.fsrs_decay - 1.0)
    return tau * math.log(s0 / thr)


def dormant_from(trace: MemoryTrace, min_retention_ms: int | None, config: DecayConfig | None = None) -> int | None:
    """The first moment (epoch ms) the decay sweep may make `trace` dormant if it is not used
    again: weaker than the pruning threshold and past its category's minimum retention
    (`min_retention_ms`; None: a category decay never forgets). None: never (pinned, emotional,
    permanent, or a threshold of 0). The sweep runs with consolidation, so it happens at the
    first run after that."""
    cfg = _cfg(config)
    if trace.pinned or min_retention_ms is None or is_emotionally_protected(trace.intensity, cfg):
        return None
    after = weakens_below_after(trace.encoding_strength, trace.stability, cfg.pruning_threshold, cfg)
    if after is None:
        return None
    return int(trace.last_accessed_at + max(after, float(min_retention_ms)))
