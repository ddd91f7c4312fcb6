"""Perspective encoding rules: who gets a first-person memory of an event, and how it is asked for.

One event, several witnesses. A witness remembers the event through its own
personality and mood only when three gates pass:

1. **importance** — the event matters enough (at least the threshold);
2. **tier** — the witness is of the important tier (combatant-tier witnesses
   keep the objective event; background-tier witnesses keep nothing);
3. **entity overlap** — the witness relates to someone or something in the event.

Everyone else gets the objective event. Pure functions: `between_turns/` supplies
the entities a witness knows and calls the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.entities import entity_key
from cogmem_graph.model import Hexaco, Mood

__all__ = [
    "GateReason",
    "PerspectiveGate",
    "WitnessTier",
    "describe_mood",
    "describe_personality",
    "entity_overlap",
    "parse_rewrite",
    "perspective_gate",
    "trait_level",
]


class WitnessTier(StrEnum):
    IMPORTANT = "important"
    """Full memory: events are rewritten through the witness's personality."""
    COMBATANT = "combatant"
    """Light memory: the objective event only."""
    BACKGROUND = "background"
    """No memory of the event."""


class GateReason(StrEnum):
    REWRITE = "rewrite"
    DISABLED = "disabled"
    LOW_IMPORTANCE = "low_importance"
    TIER = "tier"
    NO_ENTITY_OVERLAP = "no_entity_overlap"
    BACKGROUND = "background"


@dataclass(frozen=True)
class PerspectiveGate:
    """The decision for one witness."""

    remember: bool
    """False: the witness keeps no memory of the event."""
    rewrite: bool
    """True: a first-person rewrite; False (when remembering): the objective event."""
    reason: GateReason


def entity_overlap(event_entities: Iterable[str], witness_entities: Iterable[str]) -> set[str]:
    """Entity keys the event and the witness share (names compared as entity keys)."""
    event = {entity_key(e) for e in event_entities if entity_key(e)}
    return event & {entity_key(e) for e in witness_entities if entity_key(e)}


def perspective_gate(importance: float, tier: WitnessTier | str, overlap: Iterable[str], *,
                     threshold: float, require_overlap: bool = True, enabled: bool = True) -> PerspectiveGate:
    """Whether a witness remembers the event, and whether through its own eyes."""
    if not 0.0 <= importance <= 1.0:
        raise InvalidArgument(f"importance must be in [0, 1], got {importance!r}", argument="importance")
    kind = WitnessTier(tier)
    if kind is WitnessTier.BACKGROUND:
        return PerspectiveGate(False, False, GateReason.BACKGROUND)
    if not enabled:
        return PerspectiveGate(True, False, GateReason.DISABLED)
    if importance < threshold:
        return PerspectiveGate(True, False, GateReason.LOW_IMPORTANCE)
    if kind is not WitnessTier.IMPORTANT:
        return PerspectiveGate(True, False, GateReason.TIER)
    if require_overlap and not set(overlap):
        return PerspectiveGate(True, False, GateReason.NO_ENTITY_OVERLAP)
    return PerspectiveGate(True, True, GateReason.REWRITE)


def trait_level(value: float, low: float, high: float) -> str:
    """"low", "moderate" or "high", for describing a personality in words."""
    if value > high:
        return "high"
    if value < low:
        return "low"
    return "moderate"


def describe_personality(traits: Hexaco, low: float = 0.4, high: float = 0.6) -> str:
    """The six HEXACO traits as a short line for a prompt, e.g. "emotionality high (0.90)"."""
    return "; ".join(f"{name} {trait_level(value, low, high)} ({value:.2f})"
                     for name, value in traits.model_dump().items())


def describe_mood(mood: Mood) -> str:
    """PAD mood in words for a prompt."""
    def word(value: float, negative: str, positive: str) -> str:
        if value > 0.2:
            return positive
        if value < -0.2:
            return negative
        return "neutral"

    return (f"valence {mood.valence:+.2f} ({word(mood.valence, 'unpleasant', 'pleasant')}), "
            f"arousal {mood.arousal:+.2f} ({word(mood.arousal, 'calm', 'agitated')}), "
            f"dominance {mood.dominance:+.2f} ({word(mood.dominance, 'submissive', 'in control')})")


def parse_rewrite(payload: Mapping[str, Any], max_chars: int) -> str:
    """The first-person memory from a rewrite answer `{"memory": "..."}`; ValueError if absent."""
    if not isinstance(payload, Mapping):
        raise ValueError("the rewrite answer must be an object")
    text = payload.get("memory")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the rewrite answer has no 'memory' text")
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"
