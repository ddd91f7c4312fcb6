"""The eight cognitive mechanisms as pure functions.

Each mechanism takes traces (or plain numbers) and returns new values; inputs
are never mutated (changed traces are `model_copy` results, unchanged traces
come back as the very same objects, so `out is not before` tells a caller what
to write back). Nothing here does I/O or reads a clock: time arrives as
`now_ms`, randomness as an `rng`. `between_turns/` decides when to call what and
persists the results; the temporal-gist archive is its job too (write the
verbatim original first, then the gist).

Guards, as the references prescribe:
- flashbulb immunity: encoding strength >= 0.9 exempts a trace from
  reconsolidation, retrieval-induced forgetting, temporal gist and emotion
  regulation;
- dead-trace protection: RIF leaves traces weaker than 0.1 alone;
- inactive skip: soft-deleted traces are never touched or surfaced;
- disabled bypass: with `enabled=False` a transforming mechanism returns its
  input unchanged and a detecting one returns nothing.

Bookkeeping the mechanisms need across calls (cumulative drift, gist marks,
last source decay) lives under `structured_data["mechanismMetadata"]`, so the
trace envelope itself stays the reference's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, Protocol

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.cognition.embedding_space import cosine
from cogmem_graph.config.mechanisms import (
    EmotionRegulationConfig,
    FeelingOfKnowingConfig,
    InvoluntaryRecallConfig,
    ReconsolidationConfig,
    RetrievalInducedForgettingConfig,
    SchemaEncodingConfig,
    SourceConfidenceDecayConfig,
    TemporalGistConfig,
)
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.language.common_words import COMMON_WORDS
from cogmem_graph.language.memory_kind import durable_sentences, fact_sentences, value_tokens
from cogmem_graph.model import MemoryTrace, MemoryType, Mood, check_text, content_hash
from cogmem_graph.text import word_tokens

__all__ = [
    "MECHANISM_KEY",
    "FeelingOfKnowing",
    "GistCompressor",
    "RandomSource",
    "RifResult",
    "SchemaVerdict",
    "apply_schema_encoding",
    "schema_centroid",
    "changed",
    "decay_source_confidence",
    "decayed_confidence",
    "detect_feeling_of_knowing",
    "extractive_gist",
    "feeling_of_knowing_score",
    "gist_trace",
    "involuntary_candidates",
    "is_flashbulb_grade",
    "is_gist_eligible",
    "mechanism_meta",
    "nearest_schema",
    "reconsolidate",
    "reconsolidation_drift",
    "regulate_emotions",
    "retrieval_induced_forgetting",
    "schema_strength",
    "select_for_gist",
    "select_involuntary",
    "source_confidence_decay",
    "suppressed_stability",
]

MECHANISM_KEY = "mechanismMetadata"
"""Key of the mechanisms' bookkeeping inside `MemoryTrace.structured_data`."""

PAD = tuple[float, float, float]


# ---------------------------------------------------------------- shared helpers


def _clamp(value: float, low: float, high: float) -> float:
    return low if value < low else high if value > high else value


def mechanism_meta(trace: MemoryTrace) -> dict[str, Any]:
    """A copy of the trace's mechanism bookkeeping (empty when it has none)."""
    data = trace.structured_data or {}
    meta = data.get(MECHANISM_KEY)
    return dict(meta) if isinstance(meta, Mapping) else {}


def _updated(trace: MemoryTrace, now_ms: int, meta: Mapping[str, Any] | None = None, **fields: Any) -> MemoryTrace:
    """A deep copy with `fields` changed, bookkeeping merged in and `updated_at` moved on.

    Deep, so later edits of the copy's lists can never reach the caller's trace.
    """
    update: dict[str, Any] = dict(fields)
    if meta:
        structured = dict(trace.structured_data or {})
        structured[MECHANISM_KEY] = {**mechanism_meta(trace), **meta}
        update["structured_data"] = structured
    update["updated_at"] = max(trace.updated_at, int(now_ms))
    return trace.model_copy(update=update, deep=True)


def is_flashbulb_grade(trace: MemoryTrace, immune_strength: float) -> bool:
    """Flashbulb-grade traces (encoding strength at or above the floor) resist change:
    memories that hit that hard are the ones a person keeps intact."""
    return trace.encoding_strength >= immune_strength


def changed(before: Sequence[MemoryTrace], after: Sequence[MemoryTrace]) -> list[MemoryTrace]:
    """The traces a batch mechanism actually replaced: what the caller must write back."""
    return [new for old, new in zip(before, after, strict=True) if new is not old]


# ---------------------------------------------------------------- 1. reconsolidation


def reconsolidation_drift(
    trace_pad: PAD, mood_pad: PAD, cumulative: float, rate: float, cap: float
) -> tuple[PAD, float]:
    """Move a PAD triple `rate` of the way toward the mood, within the drift budget.

    Returns the new triple and the new cumulative drift (sum of absolute moves).
    Once `cap` total drift has been spent the memory's tone is settled.
    """
    remaining = cap - cumulative
    if remaining <= 0.0 or rate <= 0.0:
        return trace_pad, cumulative
    deltas = [rate * (m - t) for t, m in zip(trace_pad, mood_pad, strict=True)]
    total = sum(abs(d) for d in deltas)
    if total == 0.0:
        return trace_pad, cumulative
    if total > remaining:
        deltas = [d * (remaining / total) for d in deltas]
        total = remaining
    moved = tuple(_clamp(t + d, -1.0, 1.0) for t, d in zip(trace_pad, deltas, strict=True))
    return (moved[0], moved[1], moved[2]), cumulative + total


def reconsolidate(
    trace: MemoryTrace,
    mood: Mood,
    config: ReconsolidationConfig,
    now_ms: int,
    *,
    perspective_encoded: bool | None = None,
) -> MemoryTrace:
    """Retrieval re-opens a memory: its emotional context drifts toward the current mood.

    Perspective-encoded traces drift at a reduced rate (they were already
    rewritten once at encoding). Intensity is left alone: it records how hard
    the event hit, which protects it from pruning, and is not the current tone.
    """
    if not config.enabled or not trace.is_active or is_flashbulb_grade(trace, config.immune_strength):
        return trace
    meta = mechanism_meta(trace)
    if perspective_encoded is None:
        perspective_encoded = bool(meta.get("perspectiveEncoded", False))
    rate = config.drift_rate * (config.perspective_drift_factor if perspective_encoded else 1.0)
    cumulative = float(meta.get("cumulativeDrift", 0.0))
    before: PAD = (trace.valence, trace.arousal, trace.dominance)
    after, new_cumulative = reconsolidation_drift(
        before, (mood.valence, mood.arousal, mood.dominance), cumulative, rate, config.max_drift_per_trace
    )
    if after == before:
        return trace
    return _updated(
        trace,
        now_ms,
        {"cumulativeDrift": new_cumulative, "lastDriftAt": int(now_ms)},
        valence=after[0],
        arousal=after[1],
        dominance=after[2],
    )


# ---------------------------------------------------------------- 2. retrieval-induced forgetting


def suppressed_stability(stability: float, factor: float) -> float:
    """Stability after one suppression: the competitor will fade faster, not vanish."""
    return stability * (1.0 - factor)


@dataclass(frozen=True)
class RifResult:
    """Competitors in input order (suppressed ones replaced) and who was suppressed."""

    traces: list[MemoryTrace]
    suppressed_ids: list[str]


def retrieval_induced_forgetting(
    competitors: Sequence[tuple[MemoryTrace, float]],
    retrieved_ids: Collection[str],
    config: RetrievalInducedForgettingConfig,
    now_ms: int,
) -> RifResult:
    """Weaken the stability of similar traces that lost the retrieval race.

    `competitors` pairs each candidate with its cosine similarity to what was
    retrieved. The most similar losers are suppressed first, at most
    `max_suppressions_per_query` of them, so redundant memories thin out
    without anything being deleted.
    """
    traces = [trace for trace, _ in competitors]
    if not config.enabled:
        return RifResult(traces, [])
    retrieved = set(retrieved_ids)
    eligible = [
        (index, similarity)
        for index, (trace, similarity) in enumerate(competitors)
        if trace.id not in retrieved
        and trace.is_active
        and similarity > config.similarity_threshold
        and not is_flashbulb_grade(trace, config.immune_strength)
        and trace.encoding_strength >= config.min_strength
    ]
    eligible.sort(key=lambda pair: (-pair[1], pair[0]))
    suppressed: list[str] = []
    for index, _ in eligible[: config.max_suppressions_per_query]:
        trace = traces[index]
        new_stability = suppressed_stability(trace.stability, config.suppression_factor)
        if new_stability <= 0.0:  # a suppression factor of 0.999... on a tiny stability
            continue
        traces[index] = _updated(trace, now_ms, stability=new_stability)
        suppressed.append(trace.id)
    return RifResult(traces, suppressed)


# ---------------------------------------------------------------- 3. involuntary recall


class RandomSource(Protocol):
    """Anything with `random() -> float in [0, 1)`, e.g. `random.Random(seed)`."""

    def random(self) -> float: ...


def involuntary_candidates(
    traces: Iterable[MemoryTrace],
    retrieved_ids: Collection[str],
    config: InvoluntaryRecallConfig,
    now_ms: int,
) -> list[MemoryTrace]:
    """Memories that may surface unasked: active, not already retrieved, held long
    enough (age counts from `recorded_at`, when the memory was learned) and not too weak."""
    if not config.enabled:
        return []
    retrieved = set(retrieved_ids)
    min_age_ms = config.min_age_days * MS_PER_DAY
    return [
        t
        for t in traces
        if t.is_active
        and t.id not in retrieved
        and now_ms - t.recorded_at >= min_age_ms
        and t.encoding_strength >= config.min_strength
    ]


def select_involuntary(
    traces: Iterable[MemoryTrace],
    retrieved_ids: Collection[str],
    config: InvoluntaryRecallConfig,
    now_ms: int,
    rng: RandomSource,
) -> MemoryTrace | None:
    """With probability `config.probability`, one old memory that "comes to mind".

    Emotionally intense memories come to mind more often (weight = intensity,
    floored so calm ones still can).
    """
    if not config.enabled or rng.random() >= config.probability:
        return None
    candidates = involuntary_candidates(traces, retrieved_ids, config, now_ms)
    if not candidates:
        return None
    weights = [max(config.min_weight, t.intensity) for t in candidates]
    roll = rng.random() * sum(weights)
    for trace, weight in zip(candidates, weights, strict=True):
        roll -= weight
        if roll < 0.0:
            return trace
    return candidates[-1]


# ---------------------------------------------------------------- 4. feeling-of-knowing


@dataclass(frozen=True)
class FeelingOfKnowing:
    """A memory the agent senses but cannot quite place."""

    trace_id: str
    feeling: float
    kind: Literal["tip_of_tongue", "high_confidence"]
    partial_info: str | None
    cues: tuple[str, ...]


def feeling_of_knowing_score(
    score: float,
    similarity: float,
    entity_overlap: float,
    cutoff: float,
    config: FeelingOfKnowingConfig,
) -> float:
    """How strongly a near-miss feels known: closeness to the cutoff, raw
    similarity and shared entities (the accessibility heuristic), in [0, 1]."""
    low = config.partial_activation_threshold
    span = cutoff - low
    gap = _clamp((score - low) / span, 0.0, 1.0) if span > 0 else 0.0
    value = (
        config.gap_weight * gap
        + config.similarity_weight * _clamp(similarity, 0.0, 1.0)
        + config.entity_weight * _clamp(entity_overlap, 0.0, 1.0)
    )
    return _clamp(value, 0.0, 1.0)


def _entity_overlap(trace_entities: Sequence[str], query_entities: set[str]) -> float:
    if not query_entities or not trace_entities:
        return 0.0
    mine = {e.casefold() for e in trace_entities}
    return len(mine & query_entities) / max(len(query_entities), len(mine))


class FeelingOfKnowingCandidate(Protocol):
    """What a feeling-of-knowing signal reads of a candidate (a `MemoryTrace` has it all)."""

    id: str
    is_active: bool
    entities: Sequence[str]
    created_at: int
    tags: Sequence[str]


def detect_feeling_of_knowing(
    candidates: Iterable[tuple[FeelingOfKnowingCandidate, float, float]],
    config: FeelingOfKnowingConfig,
    now_ms: int,
    *,
    retrieval_cutoff: float | None = None,
    query_entities: Iterable[str] = (),
) -> list[FeelingOfKnowing]:
    """Signals for candidates `(trace, composite score, similarity)` whose score fell in
    the partial-activation zone [threshold, cutoff): the "I should know this" band.

    Strongest feeling first. The cutoff defaults to the configured upper edge.
    """
    if not config.enabled:
        return []
    cutoff = config.retrieval_cutoff if retrieval_cutoff is None else retrieval_cutoff
    low = config.partial_activation_threshold
    wanted = {e.casefold() for e in query_entities}
    signals: list[FeelingOfKnowing] = []
    for trace, score, similarity in candidates:
        if not trace.is_active or not (low <= score < cutoff):
            continue
        feeling = feeling_of_knowing_score(
            score, similarity, _entity_overlap(trace.entities, wanted), cutoff, config
        )
        parts: list[str] = []
        if trace.entities:
            parts.append(", ".join(trace.entities[:3]))
        age_days = (now_ms - trace.created_at) // MS_PER_DAY
        if age_days > 0:
            parts.append(f"~{age_days} day{'s' if age_days > 1 else ''} ago")
        signals.append(
            FeelingOfKnowing(
                trace_id=trace.id,
                feeling=feeling,
                kind="high_confidence" if feeling > config.high_confidence_above else "tip_of_tongue",
                partial_info=" | ".join(parts) or None,
                cues=tuple(trace.tags),
            )
        )
    signals.sort(key=lambda s: -s.feeling)
    return signals


# ---------------------------------------------------------------- 5. temporal gist

GistCompressor = Callable[[str], str]
"""Text in, gist out: an LLM call, or the extractive fallback."""

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def extractive_gist(text: str, max_words: int = 30, max_keywords: int = 5) -> str:
    """Offline gist: the first sentence (at most `max_words` words), every later sentence that
    carries a fact of its own (`language.memory_kind.fact_sentences`: a gist never drops what
    the user told in passing, "... Oh, my gym locker is number 38.") or a value (a number, a
    name, a code, a date: `value_tokens`, "Keep answers under 100 words"), and the content words of
    the rest that say most: the most frequent, and among equals the less common English words
    first ("pottery" before "class"); contractions and words under three letters ("that's",
    "up") say nothing and are left out. Returns the text itself when that would not be
    shorter, since a gist that is longer than the original saves nothing."""
    flat = " ".join(text.split())
    sentences = _SENTENCE_END.split(flat)
    words = sentences[0].split()
    gist = " ".join(words[:max_words]) + ("…" if len(words) > max_words else "")
    facts = set(fact_sentences(" ".join(sentences[1:]))) if len(sentences) > 1 else set()
    kept = [s for s in sentences[1:] if any(f in s for f in facts) or value_tokens(s)]
    if kept:
        gist = " ".join([gist, *kept])
    rest = " ".join([s for s in sentences[1:] if s not in kept]
                    + ([" ".join(words[max_words:])] if len(words) > max_words else []))
    if rest and max_keywords > 0:
        have = set(word_tokens(gist))
        counts = Counter(w for w in word_tokens(rest)
                         if w not in have and len(w) > 2 and "'" not in w and "’" not in w)
        ranked = sorted(counts, key=lambda w: (-counts[w], w in COMMON_WORDS))  # stable: first seen first
        keywords = ranked[:max_keywords]
        if keywords:
            gist += " (also: " + ", ".join(keywords) + ")"
    return gist if len(gist) < len(flat) else flat


def kept_facts(original: str, gist: str) -> str:
    """A gist with every durable sentence of the original added where the gist lost it (an
    LLM's summary may drop "my locker is number 38"): nothing the user told of themselves is
    summarised away. (The extractive gist keeps every sentence that carries a fact, as it cannot
    tell which an anecdote needs; an LLM's summary is trusted with the anecdote's.)"""
    lowered = " ".join(gist.split()).casefold()
    lost = [s for s in durable_sentences(original) if " ".join(s.split()).casefold() not in lowered]
    return " ".join([gist, *lost]) if lost else gist


def is_gist_eligible(trace: MemoryTrace, config: TemporalGistConfig, now_ms: int) -> bool:
    """Old (held `age_threshold_days`, counted from `recorded_at` so importing an old
    diary does not gist it at once), rarely retrieved, episodic or semantic, active,
    not flashbulb-grade and not gisted before."""
    return (
        config.enabled
        and trace.is_active
        and trace.type in (MemoryType.EPISODIC, MemoryType.SEMANTIC)
        and now_ms - trace.recorded_at >= config.age_threshold_days * MS_PER_DAY
        and trace.retrieval_count < config.protect_retrieval_count
        and not is_flashbulb_grade(trace, config.immune_strength)
        and not mechanism_meta(trace).get("gisted", False)
    )


def select_for_gist(
    traces: Iterable[MemoryTrace], config: TemporalGistConfig, now_ms: int
) -> list[MemoryTrace]:
    """The traces to gist this cycle: eligible ones, oldest first, at most `max_per_cycle`."""
    if not config.enabled:
        return []
    eligible = [t for t in traces if is_gist_eligible(t, config, now_ms)]
    eligible.sort(key=lambda t: (t.recorded_at, t.id))
    return eligible[: config.max_per_cycle]


def gist_trace(
    trace: MemoryTrace,
    config: TemporalGistConfig,
    now_ms: int,
    compress: GistCompressor | None = None,
) -> MemoryTrace:
    """Replace verbatim content by its gist; the trace weakens by `strength_factor`.

    The caller must archive the verbatim original *before* writing the result
    (write-ahead). An empty gist falls back to the extractive one; a gist no
    shorter than the original keeps the original and costs no strength (only the
    mark is set, so the trace is not offered again). Entity names the gist
    dropped are appended when `preserve_entities` is on. Exceptions from
    `compress` propagate: the caller decides how to degrade.
    """
    if not is_gist_eligible(trace, config, now_ms):
        return trace
    original = trace.content
    gist = (compress(original) if compress is not None else "").strip()
    gist = kept_facts(original, gist) if gist else extractive_gist(original, config.max_gist_words)
    check_text(gist, "gist", allow_empty=False)
    if config.preserve_entities:
        lowered_gist, lowered_original = gist.casefold(), original.casefold()
        dropped = [
            e for e in trace.entities if e.casefold() in lowered_original and e.casefold() not in lowered_gist
        ]
        if dropped:
            gist = f"{gist} [{', '.join(dropped)}]"
    meta = {"gisted": True, "gistedAt": int(now_ms), "originalContentHash": trace.content_hash}
    if len(gist) >= len(original):
        return _updated(trace, now_ms, meta)
    return _updated(
        trace,
        now_ms,
        meta,
        content=gist,
        content_hash=content_hash(gist),
        encoding_strength=_clamp(trace.encoding_strength * config.strength_factor, 0.0, 1.0),
    )


# ---------------------------------------------------------------- 6. schema encoding


class SchemaVerdict(StrEnum):
    CONGRUENT = "congruent"
    NOVEL = "novel"


def schema_centroid(embeddings: Sequence[Sequence[float]]) -> list[float]:
    """The unit-length mean of a cluster's member embeddings: where the schema sits in
    embedding space, the point new input is compared with."""
    if not embeddings:
        raise InvalidArgument("embeddings must not be empty: a schema centroid needs at least one member embedding",
                              argument="embeddings")
    dim = len(embeddings[0])
    mean = [sum(vector[i] for vector in embeddings) / len(embeddings) for i in range(dim)]
    norm = math.sqrt(sum(x * x for x in mean))
    return [x / norm for x in mean] if norm > 0 else mean


def nearest_schema(
    embedding: Sequence[float], centroids: Mapping[str, Sequence[float]]
) -> tuple[str, float] | None:
    """(schema id, cosine) of the closest schema centroid, or None when there are none."""
    best: tuple[str, float] | None = None
    for schema_id, centroid in centroids.items():
        similarity = cosine(embedding, centroid)
        if best is None or similarity > best[1]:
            best = (schema_id, similarity)
    return best


def schema_strength(
    strength: float, similarity: float | None, config: SchemaEncodingConfig
) -> tuple[float, SchemaVerdict | None]:
    """Encoding strength adjusted for fit with what the agent already knows.

    Congruent input (similarity to the nearest schema at or above the threshold)
    is discounted, novel input boosted (capped at 1). With no schema at all
    (`similarity` None) nothing can be surprising yet, so the strength stays.
    """
    if not config.enabled or similarity is None:
        return strength, None
    if similarity >= config.cluster_similarity_threshold:
        return _clamp(strength * config.congruency_discount, 0.0, 1.0), SchemaVerdict.CONGRUENT
    return _clamp(strength * config.novelty_boost, 0.0, 1.0), SchemaVerdict.NOVEL


def apply_schema_encoding(
    trace: MemoryTrace,
    similarity: float | None,
    config: SchemaEncodingConfig,
    now_ms: int,
    *,
    schema_id: str | None = None,
) -> tuple[MemoryTrace, SchemaVerdict | None]:
    """`schema_strength` on a trace, recording the verdict (and matched schema).

    Apply before stability is derived from the strength, as encoding does.
    """
    if not config.enabled or not trace.is_active:
        return trace, None
    strength, verdict = schema_strength(trace.encoding_strength, similarity, config)
    if verdict is None:
        return trace, None
    meta: dict[str, Any] = {"schemaVerdict": verdict.value}
    if verdict is SchemaVerdict.CONGRUENT and schema_id is not None:
        meta["schemaId"] = schema_id
    return _updated(trace, now_ms, meta, encoding_strength=strength), verdict


# ---------------------------------------------------------------- 7. source-confidence decay


def decayed_confidence(confidence: float, elapsed_ms: float, half_life_days: float, floor: float) -> float:
    """Confidence after `elapsed_ms` of exponential fading with the given half-life.

    Never below `floor`, and never raised: a confidence already under the floor stays.
    """
    if elapsed_ms <= 0:
        return confidence
    faded = confidence * 0.5 ** (elapsed_ms / (half_life_days * MS_PER_DAY))
    return faded if faded >= floor else min(confidence, floor)


def decay_source_confidence(
    trace: MemoryTrace, config: SourceConfidenceDecayConfig, now_ms: int
) -> MemoryTrace:
    """Fade confidence in where the memory came from, at its source type's rate.

    Time-based (elapsed since the last decay, or since `recorded_at`), so how
    often consolidation runs does not change how fast confidence fades.
    """
    if not config.enabled or not trace.is_active:
        return trace
    since = int(mechanism_meta(trace).get("sourceDecayAt", trace.recorded_at))
    elapsed = now_ms - since
    if elapsed <= 0 or elapsed < config.min_interval_ms:
        return trace
    confidence = decayed_confidence(
        trace.confidence, elapsed, config.half_life_days[trace.source_type], config.min_confidence
    )
    return _updated(trace, now_ms, {"sourceDecayAt": int(now_ms)}, confidence=_clamp(confidence, 0.0, 1.0))


def source_confidence_decay(
    traces: Iterable[MemoryTrace], config: SourceConfidenceDecayConfig, now_ms: int
) -> list[MemoryTrace]:
    """`decay_source_confidence` over a batch, in input order."""
    return [decay_source_confidence(t, config, now_ms) for t in traces]


# ---------------------------------------------------------------- 8. emotion regulation


def regulate_emotions(
    traces: Sequence[MemoryTrace], config: EmotionRegulationConfig, now_ms: int
) -> list[MemoryTrace]:
    """One consolidation cycle of emotion regulation, in input order.

    Reappraisal: the most aroused active traces (arousal above the threshold, at
    most `max_regulation_per_cycle`) lose `reappraisal_rate` of their valence,
    arousal and intensity. Suppression: any of them still above the threshold
    also loses encoding strength (less retrievable, feeling unchanged).
    """
    out = list(traces)
    if not config.enabled:
        return out
    chosen = [
        i
        for i, t in enumerate(traces)
        if t.is_active and t.arousal > config.arousal_threshold and not is_flashbulb_grade(t, config.immune_strength)
    ]
    chosen.sort(key=lambda i: (-traces[i].arousal, traces[i].id))
    keep = 1.0 - config.reappraisal_rate
    for i in chosen[: config.max_regulation_per_cycle]:
        trace = traces[i]
        arousal = _clamp(trace.arousal * keep, -1.0, 1.0)
        fields: dict[str, Any] = {
            "valence": _clamp(trace.valence * keep, -1.0, 1.0),
            "arousal": arousal,
            "intensity": _clamp(trace.intensity * keep, 0.0, 1.0),
        }
        if arousal > config.arousal_threshold:
            fields["encoding_strength"] = _clamp(
                trace.encoding_strength * config.suppression_strength_factor, 0.0, 1.0
            )
        meta = mechanism_meta(trace)
        out[i] = _updated(
            trace,
            now_ms,
            {"reappraisals": int(meta.get("reappraisals", 0)) + 1, "lastReappraisedAt": int(now_ms)},
            **fields,
        )
    return out
