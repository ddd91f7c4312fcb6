"""Observer and reflector logic: conversation → typed notes → long-term memories.

Pure functions only (no I/O, no clock, no model); `between_turns/` feeds them turns
and notes and writes what they decide.

- **Token thresholds.** Turns are buffered until they hold enough tokens for the
  observer; notes accumulate until they hold enough for the reflector.
- **Typed notes.** factual, emotional, commitment, preference, creative,
  correction. Without an LLM, keyword rules read them sentence by sentence
  (`language/note_kinds.py`): the strongest cue decides the type (ties: correction, commitment, preference,
  emotional, creative), a sentence with no cue is a factual note only when its
  information density (entities + numbers + stated facts + time words) reaches
  the minimum, and filler ("sounds good", "ok thanks") is no note at all.
- **HEXACO bias.** Each note type has the trait whose owner watches for it:
  emotionality → emotional shifts, conscientiousness → commitments, openness →
  creative tangents, agreeableness → preferences and rapport, honesty →
  corrections. The trait's attention weight (the encoding model's, e.g.
  0.2 + 0.8·E) relative to its weight at a neutral 0.5 is the note's *focus*;
  salience = importance × focus. A note is kept when its salience reaches the
  observer's minimum: a highly emotional agent keeps a mild emotional note that
  an unemotional one drops. Factual notes have focus 1 for everyone.
- **Reflection.** Notes of one type saying nearly the same thing merge (repeated
  observations raise importance: 1 − Π(1 − importance)); merged notes salient
  enough become traces, written in the agent's memory style (conscientious:
  structured, open: associative, otherwise concise).
- **Conflicts by personality.** Honesty above its threshold: the newer
  information wins and supersedes the old. Otherwise agreeableness above its
  threshold: both versions are kept and the discrepancy stays on record.
  Otherwise the clearly more confident side wins (gap above the minimum), or
  nothing is decided.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from cogmem_graph.cognition.encoding import encoding_weights
from cogmem_graph.config.encoding import EncodingConfig
from cogmem_graph.config.observation import ObserverConfig, ReflectorConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.note_kinds import (
    NoteType,
    classify_sentence,
    note_entities,
    note_sentences,
)
from cogmem_graph.model import Hexaco, MemoryType
from cogmem_graph.text import stem, word_tokens

__all__ = [
    "ConflictPolicy",
    "ConflictSide",
    "MemoryStyle",
    "NoteDraft",
    "ObservationNote",
    "Reflection",
    "Turn",
    "combined_importance",
    "conflict_policy",
    "conflict_winner",
    "keep_biased",
    "memory_style",
    "merge_notes",
    "note_focus",
    "note_salience",
    "observer_focus_areas",
    "parse_observer_answer",
    "parse_reflector_answer",
    "reflect_rules",
    "rule_notes",
    "styled_content",
    "threshold_reached",
    "word_overlap",
]


FOCUS_TRAIT: dict[NoteType, str | None] = {
    NoteType.FACTUAL: None,
    NoteType.EMOTIONAL: "emotionality",
    NoteType.COMMITMENT: "conscientiousness",
    NoteType.CREATIVE: "openness",
    NoteType.PREFERENCE: "agreeableness",
    NoteType.CORRECTION: "honesty",
}
"""Which trait makes an observer watch for each kind of note."""

FOCUS_AREAS: dict[str, str] = {
    "emotionality": "emotional shifts, tone changes and sentiment transitions",
    "conscientiousness": "commitments, deadlines, action items and structured plans",
    "openness": "creative tangents, novel ideas and exploratory topics",
    "agreeableness": "the user's preferences, rapport cues and communication style",
    "honesty": "corrections, retractions and contradictions",
}

NOTE_MEMORY_TYPE: dict[NoteType, MemoryType] = {
    NoteType.FACTUAL: MemoryType.SEMANTIC,
    NoteType.PREFERENCE: MemoryType.SEMANTIC,
    NoteType.CORRECTION: MemoryType.SEMANTIC,
    NoteType.EMOTIONAL: MemoryType.EPISODIC,
    NoteType.COMMITMENT: MemoryType.EPISODIC,
    NoteType.CREATIVE: MemoryType.EPISODIC,
}
"""Facts, preferences and corrections are knowledge; feelings, promises and ideas are moments."""

_NEUTRAL = 0.5

# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class Turn:
    """One buffered conversation turn."""

    role: str
    content: str
    created_at: int = 0


@dataclass(frozen=True)
class NoteDraft:
    """A note as an observer produced it, before it is stored."""

    type: NoteType
    content: str
    importance: float
    confidence: float
    turn_index: int = 0
    """Which buffered turn it came from (its time becomes the note's event time)."""
    entities: tuple[str, ...] = ()
    role: str = "user"


@dataclass(frozen=True)
class ObservationNote:
    """A stored observation note (an `ObservationNote` node)."""

    id: str
    type: NoteType
    content: str
    importance: float
    confidence: float
    created_at: int
    """Event time: when the turn it came from was said."""
    entities: tuple[str, ...] = ()
    role: str = "user"
    salience: float = 0.0
    method: str = "rules"
    """"llm" or "rules": who wrote it."""
    scope_key: str = ""
    agent_id: str = ""
    buffer_key: str = ""
    observed_at: int = 0
    reflected_at: int | None = None
    trace_ids: tuple[str, ...] = ()
    """Long-term traces the reflector made of it (empty: kept as a note only)."""
    tokens: int = 0


@dataclass(frozen=True)
class Reflection:
    """One long-term memory the reflector decided to write."""

    content: str
    note_type: NoteType
    memory_type: MemoryType
    importance: float
    confidence: float
    created_at: int
    note_ids: tuple[str, ...]
    entities: tuple[str, ...] = ()


@dataclass(frozen=True)
class _MergedNote:
    type: NoteType
    content: str
    importance: float
    confidence: float
    created_at: int
    note_ids: tuple[str, ...]
    entities: tuple[str, ...] = field(default=())


# ---------------------------------------------------------------- thresholds and bias


def threshold_reached(tokens: int, threshold: int) -> bool:
    """The buffer (or the pending notes) hold enough tokens for the next stage to run."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise InvalidArgument(f"tokens must be a non-negative integer, got {tokens!r}", argument="tokens")
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise InvalidArgument(f"threshold must be a positive integer, got {threshold!r}", argument="threshold")
    return tokens >= threshold


def note_focus(note_type: NoteType | str, traits: Hexaco, encoding: EncodingConfig | None = None) -> float:
    """How strongly this personality attends to a note type, relative to a neutral one:
    the trait's attention weight over its weight at 0.5 (1.0 for facts and for neutral traits)."""
    kind = NoteType(note_type)
    trait = FOCUS_TRAIT[kind]
    if trait is None:
        return 1.0
    attribute = {
        "emotionality": "emotional_sensitivity", "conscientiousness": "procedural_attention",
        "openness": "novelty_attention", "agreeableness": "cooperative_attention", "honesty": "ethical_attention",
    }[trait]
    actual = getattr(encoding_weights(traits, encoding), attribute)
    neutral = getattr(encoding_weights(traits.model_copy(update={trait: _NEUTRAL}), encoding), attribute)
    return actual / neutral if neutral > 0 else 1.0


def note_salience(importance: float, focus: float) -> float:
    """Importance as this observer perceives it: importance × focus, within [0, 1]."""
    if not math.isfinite(importance) or not 0.0 <= importance <= 1.0:
        raise InvalidArgument(f"importance must be in [0, 1], got {importance!r}", argument="importance")
    if not math.isfinite(focus) or focus < 0.0:
        raise InvalidArgument(f"focus must be a non-negative number, got {focus!r}", argument="focus")
    return min(1.0, importance * focus)


def observer_focus_areas(traits: Hexaco, threshold: float) -> list[str]:
    """What this observer watches for most (its traits above `threshold`), strongest first."""
    values = traits.model_dump()
    high = sorted((t for t in FOCUS_AREAS if values[t] > threshold), key=lambda t: -values[t])
    return [FOCUS_AREAS[t] for t in high]


# ---------------------------------------------------------------- rule-based notes


def _clip(text: str, max_chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


def _note_text(role: str, sentence: str, max_chars: int) -> str:
    """A user's words stay first person (as every user statement is stored); other roles are named."""
    text = _clip(sentence, max_chars)
    return text if role == "user" else _clip(f"The {role} said: {text}", max_chars)


def rule_notes(turns: Sequence[Turn], config: ObserverConfig | None = None) -> list[NoteDraft]:
    """Keyword reading of buffered turns: at most one typed note per sentence, in order.
    System turns are instructions, not observations, and are skipped."""
    cfg = config or ObserverConfig()
    notes: list[NoteDraft] = []
    for index, turn in enumerate(turns):
        if turn.role == "system":
            continue
        for sentence in note_sentences(turn.content, cfg.min_note_words):
            verdict = classify_sentence(sentence, cfg.min_fact_density)
            if verdict is None:
                continue
            kind, importance = verdict
            entities = note_entities(sentence, cfg.max_entities_per_note)
            notes.append(NoteDraft(
                type=kind, content=_note_text(turn.role, sentence, cfg.max_note_chars), importance=importance,
                confidence=cfg.rule_confidence, turn_index=index, entities=entities, role=turn.role))
    return notes


def keep_biased(notes: Sequence[NoteDraft], traits: Hexaco, min_salience: float,
                encoding: EncodingConfig | None = None) -> list[tuple[NoteDraft, float]]:
    """The notes this personality keeps, with their salience (importance × focus ≥ minimum)."""
    kept = []
    for note in notes:
        salience = note_salience(note.importance, note_focus(note.type, traits, encoding))
        if salience >= min_salience:
            kept.append((note, salience))
    return kept


# ---------------------------------------------------------------- LLM answers


def _unit(value: Any, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"expected a number in [0, 1], got {value!r}")
    return min(1.0, max(0.0, float(value)))


def _names(value: Any, limit: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("entities must be a list of names")
    return tuple(dict.fromkeys(v.strip() for v in value if isinstance(v, str) and v.strip()))[:limit]


def _index(value: Any, count: int) -> int:
    """A 1-based reference from the prompt (a number or a list of numbers) as a 0-based index."""
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
        raise ValueError(f"reference {value!r} is not one of 1..{count}")
    return value - 1


def parse_observer_answer(payload: Mapping[str, Any], turns: Sequence[Turn],
                          config: ObserverConfig | None = None) -> list[NoteDraft]:
    """Validate an observer LLM answer `{"notes": [{type, content, importance, confidence, turn,
    entities}]}`. Bad items are skipped; a wrong shape, or items none of which is usable,
    raise ValueError (the caller then falls back to the rules). An empty list is a valid answer."""
    cfg = config or ObserverConfig()
    if not isinstance(payload, Mapping) or not isinstance(payload.get("notes"), list):
        raise ValueError("the observer answer must be an object with a 'notes' list")
    items = payload["notes"]
    notes: list[NoteDraft] = []
    for item in items:
        try:
            if not isinstance(item, Mapping):
                raise ValueError("a note must be an object")
            content = item.get("content")
            if not isinstance(content, str) or not content.strip():
                raise ValueError("a note needs content")
            index = _index(item.get("turn", item.get("turns")), len(turns)) if turns else 0
            role = turns[index].role if turns else "user"
            notes.append(NoteDraft(
                type=NoteType(str(item.get("type", "")).strip().lower()),
                content=_clip(content, cfg.max_note_chars),
                importance=_unit(item.get("importance"), _NEUTRAL),
                confidence=_unit(item.get("confidence"), cfg.rule_confidence),
                turn_index=index, entities=_names(item.get("entities"), cfg.max_entities_per_note), role=role))
        except ValueError:
            continue
    if items and not notes:
        raise ValueError(f"none of the observer's {len(items)} notes was usable")
    return notes


def parse_reflector_answer(payload: Mapping[str, Any], notes: Sequence[ObservationNote],
                           max_chars: int = 2_000) -> list[Reflection]:
    """Validate a reflector LLM answer `{"memories": [{content, type, importance, confidence,
    notes: [1-based note numbers], entities}]}`; same rules as the observer's."""
    if not isinstance(payload, Mapping) or not isinstance(payload.get("memories"), list):
        raise ValueError("the reflector answer must be an object with a 'memories' list")
    items = payload["memories"]
    out: list[Reflection] = []
    for item in items:
        try:
            if not isinstance(item, Mapping):
                raise ValueError("a memory must be an object")
            content = item.get("content")
            if not isinstance(content, str) or not content.strip():
                raise ValueError("a memory needs content")
            refs = item.get("notes") or []
            if not isinstance(refs, list):
                refs = [refs]
            sources = [notes[_index(r, len(notes))] for r in refs] if notes else []
            kind = NoteType(str(item.get("type", "")).strip().lower())
            out.append(Reflection(
                content=_clip(content, max_chars), note_type=kind, memory_type=NOTE_MEMORY_TYPE[kind],
                importance=_unit(item.get("importance"), max((n.importance for n in sources), default=_NEUTRAL)),
                confidence=_unit(item.get("confidence"), max((n.confidence for n in sources), default=_NEUTRAL)),
                created_at=max((n.created_at for n in sources), default=0),
                note_ids=tuple(dict.fromkeys(n.id for n in sources)),
                entities=(_names(item.get("entities"), 12)
                          or tuple(dict.fromkeys(e for n in sources for e in n.entities))),
            ))
        except (ValueError, IndexError):
            continue
    if items and not out:
        raise ValueError(f"none of the reflector's {len(items)} memories was usable")
    return out


# ---------------------------------------------------------------- reflection


def word_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' content words (stemmed, stopwords aside), in [0, 1]."""
    wa, wb = {stem(w) for w in word_tokens(a)}, {stem(w) for w in word_tokens(b)}
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


def combined_importance(importances: Sequence[float]) -> float:
    """Importance of an observation made several times: 1 − Π(1 − importance)."""
    remaining = 1.0
    for value in importances:
        remaining *= 1.0 - min(1.0, max(0.0, value))
    return 1.0 - remaining


def merge_notes(notes: Sequence[ObservationNote], similarity: float) -> list[_MergedNote]:
    """Notes of one type whose words overlap at least `similarity` become one: the most
    important wording, the combined importance, the highest confidence, the latest time."""
    groups: list[list[ObservationNote]] = []
    for note in sorted(notes, key=lambda n: (n.created_at, n.id)):
        for group in groups:
            if group[0].type == note.type and any(word_overlap(note.content, g.content) >= similarity for g in group):
                group.append(note)
                break
        else:
            groups.append([note])
    merged = []
    for group in groups:
        lead = max(group, key=lambda n: (n.importance, n.created_at))
        merged.append(_MergedNote(
            type=lead.type, content=lead.content, importance=combined_importance([n.importance for n in group]),
            confidence=max(n.confidence for n in group), created_at=max(n.created_at for n in group),
            note_ids=tuple(n.id for n in group),
            entities=tuple(dict.fromkeys(e for n in group for e in n.entities))))
    return merged


class MemoryStyle(StrEnum):
    STRUCTURED = "structured"
    ASSOCIATIVE = "associative"
    CONCISE = "concise"


def memory_style(traits: Hexaco, threshold: float) -> MemoryStyle:
    """Conscientious minds file memories in order, open minds link them, others keep them short."""
    if traits.conscientiousness > threshold and traits.conscientiousness >= traits.openness:
        return MemoryStyle.STRUCTURED
    if traits.openness > threshold:
        return MemoryStyle.ASSOCIATIVE
    return MemoryStyle.CONCISE


def styled_content(content: str, note_type: NoteType, entities: Sequence[str], style: MemoryStyle) -> str:
    """A reflected memory's wording: structured adds its category, associative its connections."""
    if style is MemoryStyle.STRUCTURED:
        return f"{note_type.value.capitalize()}: {content}"
    if style is MemoryStyle.ASSOCIATIVE and entities:
        return f"{content} (connected to {', '.join(entities[:5])})"
    return content


def reflect_rules(notes: Sequence[ObservationNote], traits: Hexaco, config: ReflectorConfig | None = None,
                  encoding: EncodingConfig | None = None) -> list[Reflection]:
    """Rule-based reflection: merge redundant notes, elevate the salient ones, in the agent's style."""
    cfg = config or ReflectorConfig()
    style = memory_style(traits, cfg.style_trait_threshold)
    out = []
    for merged in merge_notes(notes, cfg.merge_similarity):
        salience = note_salience(merged.importance, note_focus(merged.type, traits, encoding))
        if salience < cfg.min_importance:
            continue
        out.append(Reflection(
            content=styled_content(merged.content, merged.type, merged.entities, style), note_type=merged.type,
            memory_type=NOTE_MEMORY_TYPE[merged.type], importance=merged.importance, confidence=merged.confidence,
            created_at=merged.created_at, note_ids=merged.note_ids, entities=merged.entities))
    return out


# ---------------------------------------------------------------- conflicts


class ConflictPolicy(StrEnum):
    NEWER_WINS = "newer_wins"
    KEEP_BOTH = "keep_both"
    HIGHER_CONFIDENCE = "higher_confidence"


@dataclass(frozen=True)
class ConflictSide:
    """One side of a contradiction: when it happened and was learned, and how sure it is."""

    created_at: int
    recorded_at: int
    confidence: float


def conflict_policy(traits: Hexaco, honesty_threshold: float, agreeableness_threshold: float) -> ConflictPolicy:
    """How this personality settles new information that contradicts a memory."""
    if traits.honesty > honesty_threshold:
        return ConflictPolicy.NEWER_WINS
    if traits.agreeableness > agreeableness_threshold:
        return ConflictPolicy.KEEP_BOTH
    return ConflictPolicy.HIGHER_CONFIDENCE


def conflict_winner(policy: ConflictPolicy, new: ConflictSide, old: ConflictSide,
                    confidence_gap: float) -> Literal["new", "old"] | None:
    """Which side survives; None keeps both (the CONTRADICTS edge records the discrepancy)."""
    if policy is ConflictPolicy.KEEP_BOTH:
        return None
    if policy is ConflictPolicy.NEWER_WINS:
        new_time, old_time = (new.created_at, new.recorded_at), (old.created_at, old.recorded_at)
        if new_time != old_time:
            return "new" if new_time > old_time else "old"
    gap = new.confidence - old.confidence
    if abs(gap) > confidence_gap:
        return "new" if gap > 0 else "old"
    return None

