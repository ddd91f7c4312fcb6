"""Prospective memory: intentions that come back to mind when their moment arrives.

"Remember to do X when Y happens." Three kinds of trigger, as the reference names them:

- `time_based` fires once the current time reaches the trigger time; a recurring
  one then moves to its next occurrence (`next_occurrence`), skipping any it missed,
  so a reminder left alone for a week fires once, not seven times;
- `event_based` fires when one of its keywords (or entity names) appears in the
  current turn or among the turn's named events (`matched_keywords`, word-stem
  matching, so "deployment" is met by "deploying");
- `context_based` fires when the cosine similarity of the current turn to the
  intention's cue reaches the threshold (`context_trigger_fires`, default 0.7).

A one-shot intention is spent by its firing; a recurring one stays active. A
recurring cue-triggered intention pauses for its cooldown after each firing, so a
topic that keeps coming up does not repeat the reminder every turn.

Pure: no I/O, the time is always passed in; `between_turns/` reads and writes the graph.
"""

from __future__ import annotations

import math
import numbers
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Any

from cogmem_graph.config.prospective import ProspectiveConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MAX_EPOCH_MS, MAX_ID_CHARS, check_text, epoch_ms_of
from cogmem_graph.text import stem, word_tokens

MAX_INTENTION_CHARS = 10_000
MAX_KEYWORDS = 100
MAX_KEYWORD_CHARS = 200
MAX_CUE_CHARS = 10_000


class TriggerKind(StrEnum):
    TIME = "time_based"
    EVENT = "event_based"
    CONTEXT = "context_based"


def new_intention_id() -> str:
    return "pm_" + uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Intention:
    """One remembered intention and its trigger state. Times are epoch ms."""

    id: str
    scope_key: str
    agent_id: str
    content: str
    kind: TriggerKind
    trigger_at: int | None = None
    """time_based: the first occurrence (and the anchor of recurrences); otherwise 'not before'."""
    interval_ms: int | None = None
    """time_based and recurring: the time between occurrences."""
    keywords: tuple[str, ...] = ()
    cue: str | None = None
    similarity_threshold: float | None = None
    recurring: bool = False
    cooldown_ms: int = 0
    importance: float = 0.5
    fired_count: int = 0
    last_fired_at: int | None = None
    next_fire_at: int = 0
    """Earliest time the intention may fire next (the trigger time for time_based)."""
    active: bool = True
    created_at: int = 0
    updated_at: int = 0
    cancelled_at: int | None = None

    def to_props(self) -> dict[str, Any]:
        """Graph properties (camelCase; lists of strings and primitives only)."""
        return {_camel(f.name): _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_props(cls, props: dict[str, Any]) -> Intention:
        """From graph properties; keys that are not fields (the cue's vector) are ignored."""
        data = {_FIELD_OF_PROP[k]: v for k, v in props.items() if k in _FIELD_OF_PROP}
        data["kind"] = TriggerKind(data["kind"])
        data["keywords"] = tuple(data.get("keywords") or ())
        return cls(**data)


_PROP_NAMES = {"kind": "triggerKind"}


def _camel(name: str) -> str:
    if name in _PROP_NAMES:
        return _PROP_NAMES[name]
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _plain(value: Any) -> Any:
    if isinstance(value, TriggerKind):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


_FIELD_OF_PROP = {_camel(f.name): f.name for f in fields(Intention)}


@dataclass(frozen=True, slots=True)
class FiredReminder:
    """An intention that fired this turn (its state after firing) and why."""

    intention: Intention
    fired_at: int
    matched_keywords: tuple[str, ...] = ()
    similarity: float | None = None


# ---------------------------------------------------------------- the triggers


def time_trigger_fires(fire_at: int, now: int) -> bool:
    """A time trigger fires once the current time has reached its time."""
    return now >= fire_at


def next_occurrence(anchor: int, interval_ms: int, now: int) -> int:
    """The first occurrence anchor + k·interval strictly after `now` (k ≥ 1): a recurring
    reminder catches up in one step instead of firing once per missed interval."""
    if interval_ms <= 0:
        raise InvalidArgument(f"interval_ms must be positive, got {interval_ms}", argument="interval_ms")
    if now < anchor:
        return anchor
    return anchor + ((now - anchor) // interval_ms + 1) * interval_ms


@lru_cache(maxsize=4_096)
def keyword_terms(keyword: str) -> tuple[str, ...]:
    """The word stems a keyword is matched by (stopwords and one-letter words dropped)."""
    return tuple(stem(word) for word in word_tokens(keyword))


@lru_cache(maxsize=16)
def turn_terms(text: str) -> tuple[str, ...]:
    """The word stems of a turn, split once however many intentions look at it."""
    return tuple(stem(word) for word in word_tokens(text))


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    return n > 0 and any(tuple(haystack[i : i + n]) == tuple(needle) for i in range(len(haystack) - n + 1))


def matched_keywords(keywords: Iterable[str], text: str, events: Iterable[str] = ()) -> tuple[str, ...]:
    """The keywords that appear in the turn: a keyword's stems, in order, as consecutive
    words of the text or of one of the named events."""
    haystacks = [turn_terms(t) for t in (text, *events)]
    return tuple(k for k in keywords if any(_contains(h, keyword_terms(k)) for h in haystacks))


def context_trigger_fires(similarity: float, threshold: float) -> bool:
    """A context trigger fires when the turn is at least `threshold` similar to the cue."""
    return similarity >= threshold


def is_eligible(intention: Intention, now: int) -> bool:
    """Active, and its next allowed firing time has come (trigger time, 'not before', cooldown)."""
    return intention.active and now >= intention.next_fire_at


def evaluate(
    intention: Intention, now: int, text: str = "", events: Iterable[str] = (), similarity: float | None = None
) -> FiredReminder | None:
    """Whether `intention` fires on this turn; `similarity` is cos(turn, cue) for a context
    trigger (None: the turn has no text to compare)."""
    if not is_eligible(intention, now):
        return None
    if intention.kind is TriggerKind.TIME:
        return FiredReminder(intention, now) if time_trigger_fires(intention.next_fire_at, now) else None
    if intention.kind is TriggerKind.EVENT:
        found = matched_keywords(intention.keywords, text, events)
        return FiredReminder(intention, now, matched_keywords=found) if found else None
    if similarity is None or intention.similarity_threshold is None:
        return None
    if context_trigger_fires(similarity, intention.similarity_threshold):
        return FiredReminder(intention, now, similarity=similarity)
    return None


def after_firing(intention: Intention, now: int) -> Intention:
    """The intention's state once it has fired at `now`: a one-shot is spent; a recurring
    time trigger moves to its next occurrence; a recurring cue trigger waits its cooldown."""
    state: dict[str, Any] = {"fired_count": intention.fired_count + 1, "last_fired_at": now, "updated_at": now}
    if not intention.recurring:
        return replace(intention, active=False, **state)
    if intention.kind is TriggerKind.TIME:
        assert intention.interval_ms is not None and intention.trigger_at is not None
        following = next_occurrence(intention.trigger_at, intention.interval_ms, now)
    else:
        following = now + intention.cooldown_ms
    return replace(intention, next_fire_at=following, **state)


# ---------------------------------------------------------------- building one from a request


def duration_ms(value: int | timedelta, field: str, *, allow_zero: bool = False) -> int:
    """Milliseconds from an int or a timedelta."""
    if isinstance(value, timedelta):
        value = int(value.total_seconds() * 1000)
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgument(f"{field} must be milliseconds (an int) or a timedelta, got {value!r}", argument=field)
    if value < 0 or (value == 0 and not allow_zero):
        raise InvalidArgument(f"{field} must be {'non-negative' if allow_zero else 'positive'}, got {value!r}",
                              argument=field)
    if value > MAX_EPOCH_MS:
        raise InvalidArgument(f"{field} must be at most {MAX_EPOCH_MS:,} ms (about 8,000 years), got {value!r}",
                              argument=field)
    return int(value)


def _unit(value: Any, field: str, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InvalidArgument(f"{field} must be a number, got {value!r}", argument=field)
    if not (0.0 < value <= 1.0 if low_open else 0.0 <= value <= 1.0):  # type: ignore[operator]  # numbers.Real is not typed for comparison
        raise InvalidArgument(f"{field} must be in {'(0, 1]' if low_open else '[0, 1]'}, got {value!r}", argument=field)
    return float(value)


def _keywords(value: str | Iterable[str]) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        raise InvalidArgument(f"on_keywords must be a list of strings, got {value!r}", argument="on_keywords") from None
    if not items:
        raise InvalidArgument("on_keywords must name at least one keyword", argument="on_keywords")
    if len(items) > MAX_KEYWORDS:
        raise InvalidArgument(f"on_keywords holds {len(items)} keywords; at most {MAX_KEYWORDS}",
                              argument="on_keywords")
    out: list[str] = []
    for i, item in enumerate(items):
        name = f"on_keywords[{i}]"
        if not isinstance(item, str):
            raise InvalidArgument(f"{name} must be a string, got {item!r}", argument=name)
        check_text(item, name, allow_empty=False, max_len=MAX_KEYWORD_CHARS)
        if not keyword_terms(item):
            raise InvalidArgument(f"{name} ({item!r}) has no word to look for (only stopwords or single letters)",
                                  argument=name)
        if item.strip() not in out:
            out.append(item.strip())
    return tuple(out)


def new_intention(
    content: str, *, scope_key: str, agent_id: str, now: int, config: ProspectiveConfig | None = None,
    at: int | datetime | str | None = None, every: int | timedelta | None = None,
    on_keywords: str | Iterable[str] | None = None, on_context: str | None = None,
    recurring: bool | None = None, cooldown: int | timedelta | None = None,
    threshold: float | None = None, importance: float | None = None, intention_id: str | None = None,
) -> Intention:
    """Validate a reminder request and build its intention. The trigger kind follows from
    the arguments: `on_keywords` → event_based, `on_context` → context_based, otherwise
    `at` / `every` → time_based. Every error names the argument at fault."""
    cfg = config or ProspectiveConfig()
    if not isinstance(content, str):
        raise InvalidArgument(f"content must be a string, got {type(content).__name__}", argument="content")
    check_text(content, "content", allow_empty=False, max_len=MAX_INTENTION_CHARS)
    if recurring is not None and not isinstance(recurring, bool):
        raise InvalidArgument(f"recurring must be True or False, got {recurring!r}", argument="recurring")
    start = None if at is None else epoch_ms_of(at, "at")
    common: dict[str, Any] = {
        "id": intention_id or new_intention_id(), "scope_key": scope_key, "agent_id": agent_id,
        "content": content,
        "importance": cfg.default_importance if importance is None else _unit(importance, "importance"),
        "created_at": now, "updated_at": now,
    }
    check_text(common["id"], "intention_id", allow_empty=False, max_len=MAX_ID_CHARS)

    if on_keywords is not None and on_context is not None:
        raise InvalidArgument("give one trigger: on_keywords or on_context, not both", argument="on_keywords")
    if on_keywords is None and on_context is None:
        if cooldown is not None:
            raise InvalidArgument("cooldown applies to recurring keyword or context reminders; use every= for time",
                                  argument="cooldown")
        if threshold is not None:
            raise InvalidArgument("threshold applies to context reminders (on_context=)", argument="threshold")
        return _time_intention(common, now, start, every, recurring)

    if every is not None:
        raise InvalidArgument("every applies to time reminders; a keyword or context reminder repeats with "
                              "recurring=True (and an optional cooldown=)", argument="every")
    repeat = bool(recurring)
    if cooldown is not None and not repeat:
        raise InvalidArgument("cooldown applies to recurring reminders: pass recurring=True as well",
                              argument="cooldown")
    pause = cfg.cooldown_ms if cooldown is None else duration_ms(cooldown, "cooldown", allow_zero=True)
    cue_fields: dict[str, Any]
    if on_keywords is not None:
        if threshold is not None:
            raise InvalidArgument("threshold applies to context reminders (on_context=), not to on_keywords",
                                  argument="threshold")
        cue_fields = {"kind": TriggerKind.EVENT, "keywords": _keywords(on_keywords)}
    else:
        if not isinstance(on_context, str):
            raise InvalidArgument(f"on_context must be a string describing the situation, got {on_context!r}",
                                  argument="on_context")
        check_text(on_context, "on_context", allow_empty=False, max_len=MAX_CUE_CHARS)
        cue_fields = {
            "kind": TriggerKind.CONTEXT, "cue": on_context,
            "similarity_threshold": cfg.similarity_threshold if threshold is None
            else _unit(threshold, "threshold", low_open=True),
        }
    return Intention(**common, **cue_fields, trigger_at=start, recurring=repeat, cooldown_ms=pause if repeat else 0,
                     next_fire_at=now if start is None else start)


def _time_intention(common: dict[str, Any], now: int, start: int | None, every: Any, recurring: bool | None
                    ) -> Intention:
    if start is None and every is None:
        raise InvalidArgument("a reminder needs a trigger: at=, every=, on_keywords= or on_context=", argument="at")
    interval = None if every is None else duration_ms(every, "every")
    if recurring and interval is None:
        raise InvalidArgument("a recurring time reminder needs every= (its interval)", argument="every")
    if recurring is False and interval is not None:
        raise InvalidArgument("every= makes a time reminder recurring; drop recurring=False or every=",
                              argument="every")
    first = start if start is not None else now + interval  # type: ignore[operator]  # every= is given if at= is not
    return Intention(**common, kind=TriggerKind.TIME, trigger_at=first, interval_ms=interval,
                     recurring=interval is not None, next_fire_at=first)
