"""Working memory: Baddeley's capacity-limited slot buffer of what the agent is
thinking about right now.

In-memory and pure: no storage, no I/O. Time comes from an injected clock (only
to stamp when an item entered) and activation moves per conversational turn, so
the host calls `tick()` once per turn. Evicted items are handed to an `on_evict`
callback, which is where the host may write them back to long-term memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from cogmem_graph.clock import Clock, SystemClock
from cogmem_graph.config.working_memory import WorkingMemoryConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import Hexaco


def working_memory_capacity(traits: Hexaco | None = None, config: WorkingMemoryConfig | None = None) -> int:
    """Miller's 7, +1 for high openness (broader attention), -1 for high
    conscientiousness (deeper focus per item), clamped to [5, 9]."""
    cfg = config or WorkingMemoryConfig()
    capacity = cfg.base_capacity
    if traits is not None:
        if traits.openness > cfg.trait_threshold:
            capacity += cfg.openness_slots
        if traits.conscientiousness > cfg.trait_threshold:
            capacity += cfg.conscientiousness_slots
    return max(cfg.min_capacity, min(cfg.max_capacity, capacity))


def _settle(activation: float) -> float:
    """Round away float dust so 0.8 - 6 x 0.1 is 0.2, not 0.19999999999999996,
    and threshold comparisons behave as the arithmetic on paper."""
    return round(activation, 10)


class EvictionReason(StrEnum):
    """Why an item left working memory."""

    DISPLACED = "displaced"  # a new item needed its slot
    DECAYED = "decayed"  # its activation fell below the eviction threshold


@dataclass(slots=True)
class WorkingMemorySlot:
    """One item held in working memory."""

    trace_id: str
    content: str
    activation: float
    entered_at: int
    entered_turn: int
    rehearsal_count: int = 0
    attention_weight: float = 0.0
    """This slot's share of the total activation (all weights sum to 1)."""


EvictCallback = Callable[[WorkingMemorySlot, EvictionReason], None]


class WorkingMemory:
    """Capacity-limited buffer of slots with activation levels.

    - `focus(id)` brings an item in at the initial activation (0.8), evicting the
      least active slot when full; focusing an item already held rehearses it.
    - `rehearse(id)` adds 0.15 activation (capped at 1).
    - `tick()` ends a turn: every activation drops by 0.1 and slots below 0.15
      are evicted.

    The callback runs after the buffer has been updated, so it may inspect or
    re-focus safely; an exception it raises propagates to the caller.
    """

    def __init__(
        self,
        traits: Hexaco | None = None,
        *,
        config: WorkingMemoryConfig | None = None,
        clock: Clock | None = None,
        on_evict: EvictCallback | None = None,
    ) -> None:
        self._config = config or WorkingMemoryConfig()
        self._clock: Clock = clock or SystemClock()
        self._capacity = working_memory_capacity(traits, self._config)
        self._on_evict = on_evict
        self._slots: dict[str, WorkingMemorySlot] = {}
        self._turn = 0

    # ------------------------------------------------------------ inspection

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def turn(self) -> int:
        """Turns ended so far with `tick()`."""
        return self._turn

    @property
    def config(self) -> WorkingMemoryConfig:
        return self._config

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, trace_id: object) -> bool:
        return trace_id in self._slots

    def get(self, trace_id: str) -> WorkingMemorySlot | None:
        return self._slots.get(trace_id)

    @property
    def slots(self) -> list[WorkingMemorySlot]:
        """Slots, most active first (ties: earliest entered first)."""
        return sorted(self._slots.values(), key=lambda s: (-s.activation, s.entered_at, s.entered_turn))

    @property
    def trace_ids(self) -> list[str]:
        return [slot.trace_id for slot in self.slots]

    # ------------------------------------------------------------ operations

    def focus(self, trace_id: str, content: str = "") -> WorkingMemorySlot:
        """Attend to an item. New items enter at the initial activation; when the
        buffer is full the least active slot is displaced first. An item already
        held is rehearsed instead (and its content refreshed when given)."""
        if not isinstance(trace_id, str) or not trace_id:
            raise InvalidArgument("trace_id must be a non-empty string", argument="trace_id")
        existing = self._slots.get(trace_id)
        if existing is not None:
            if content:
                existing.content = content
            return self.rehearse(trace_id)
        evicted: list[WorkingMemorySlot] = []
        while len(self._slots) >= self._capacity:
            weakest = min(self._slots.values(), key=lambda s: (s.activation, s.entered_at, s.entered_turn))
            evicted.append(self._slots.pop(weakest.trace_id))
        slot = WorkingMemorySlot(
            trace_id=trace_id,
            content=content,
            activation=self._config.initial_activation,
            entered_at=self._clock.now_ms(),
            entered_turn=self._turn,
        )
        self._slots[trace_id] = slot
        self._reweigh()
        self._notify(evicted, EvictionReason.DISPLACED)
        return slot

    def rehearse(self, trace_id: str) -> WorkingMemorySlot:
        """Maintenance rehearsal: bump activation (capped at 1)."""
        slot = self._slots.get(trace_id)
        if slot is None:
            raise KeyError(f"trace_id {trace_id!r} is not in working memory")
        slot.activation = _settle(min(1.0, slot.activation + self._config.rehearsal_boost))
        slot.rehearsal_count += 1
        self._reweigh()
        return slot

    def tick(self, turns: int = 1) -> list[WorkingMemorySlot]:
        """End `turns` turns: decay every slot and evict those that fell below the
        threshold. Returns the evicted slots (the callback sees each once)."""
        if turns < 0:
            raise InvalidArgument("turns must be >= 0", argument="turns")
        evicted: list[WorkingMemorySlot] = []
        for _ in range(turns):
            self._turn += 1
            for slot in list(self._slots.values()):
                slot.activation = _settle(max(0.0, slot.activation - self._config.decay_per_turn))
                if slot.activation < self._config.eviction_threshold:
                    evicted.append(self._slots.pop(slot.trace_id))
        self._reweigh()
        self._notify(evicted, EvictionReason.DECAYED)
        return evicted

    def remove(self, trace_id: str) -> WorkingMemorySlot | None:
        """Drop an item deliberately (not forgetting: the callback is not called)."""
        slot = self._slots.pop(trace_id, None)
        if slot is not None:
            self._reweigh()
        return slot

    def clear(self) -> None:
        """Empty the buffer without eviction callbacks (e.g. a new session)."""
        self._slots.clear()

    # ------------------------------------------------------------ output

    def label(self, activation: float) -> str:
        """[ACTIVE] / [fading] / [weak] by activation."""
        if activation >= self._config.active_label_threshold:
            return "ACTIVE"
        if activation >= self._config.fading_label_threshold:
            return "fading"
        return "weak"

    def format_lines(self) -> list[str]:
        """One prompt line per slot, most active first."""
        lines = []
        for slot in self.slots:
            line = f"- [{self.label(slot.activation)}] {slot.trace_id} (activation: {slot.activation:.2f})"
            content = " ".join(slot.content.split())
            if content:
                line += f": {content}"
            lines.append(line)
        return lines

    def format_for_prompt(self) -> str:
        """The slots as prompt lines, e.g. `- [ACTIVE] mt_1 (activation: 0.85): text`."""
        return "\n".join(self.format_lines())

    # ------------------------------------------------------------ internals

    def _reweigh(self) -> None:
        total = sum(slot.activation for slot in self._slots.values())
        for slot in self._slots.values():
            slot.attention_weight = slot.activation / total if total > 0 else 0.0

    def _notify(self, evicted: list[WorkingMemorySlot], reason: EvictionReason) -> None:
        if self._on_evict is None:
            return
        for slot in evicted:
            self._on_evict(slot, reason)

    def __repr__(self) -> str:
        return f"WorkingMemory(capacity={self._capacity}, items={len(self._slots)}, turn={self._turn})"
