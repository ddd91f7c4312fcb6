"""The eight cognitive mechanisms: hand-computed values, every guard, and properties
(disabled is a no-op, values stay in range, inputs are never mutated)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.clock import MS_PER_DAY, MS_PER_MINUTE
from cogmem_graph.cognition.mechanisms import (
    MECHANISM_KEY,
    SchemaVerdict,
    apply_schema_encoding,
    changed,
    decay_source_confidence,
    decayed_confidence,
    detect_feeling_of_knowing,
    extractive_gist,
    gist_trace,
    involuntary_candidates,
    mechanism_meta,
    nearest_schema,
    reconsolidate,
    reconsolidation_drift,
    regulate_emotions,
    retrieval_induced_forgetting,
    schema_centroid,
    schema_strength,
    select_for_gist,
    select_involuntary,
    source_confidence_decay,
)
from cogmem_graph.config.consolidation import ConsolidationConfig
from cogmem_graph.config.mechanisms import (
    EmotionRegulationConfig,
    FeelingOfKnowingConfig,
    InvoluntaryRecallConfig,
    MechanismsConfig,
    ReconsolidationConfig,
    RetrievalInducedForgettingConfig,
    SchemaEncodingConfig,
    SourceConfidenceDecayConfig,
    TemporalGistConfig,
)
from cogmem_graph.model import MemoryTrace, MemoryType, Mood, SourceType, content_hash

NOW = 1_700_000_000_000
DAY = MS_PER_DAY
LONG_TEXT = (
    "The ancient dragon Vex attacked the village of Millhaven at dawn, destroying the granary. "
    "Later the dragon returned and the forge burned; the villagers fled north to the hills."
)


def make(**kw) -> MemoryTrace:
    kw.setdefault("content", "the user likes tea")
    kw.setdefault("created_at", NOW - DAY)
    return MemoryTrace(scope_id="u1", agent_id="a1", **kw)


def with_meta(**meta) -> dict:
    return {MECHANISM_KEY: meta}


class Rolls:
    """A random source that returns the given numbers in turn."""

    def __init__(self, *values: float) -> None:
        self._values = list(values)

    def random(self) -> float:
        return self._values.pop(0)


# ---------------------------------------------------------------- reconsolidation

MOOD = Mood(valence=0.6, arousal=0.4, dominance=0.2)


def test_reconsolidation_drifts_five_percent_toward_the_mood():
    trace = make(valence=-0.8, arousal=0.2, dominance=0.0, intensity=0.6)
    out = reconsolidate(trace, MOOD, ReconsolidationConfig(), NOW)
    # dV = 0.05·(0.6 - -0.8) = 0.07; dA = 0.05·(0.4 - 0.2) = 0.01; dD = 0.05·(0.2 - 0) = 0.01
    assert out.valence == pytest.approx(-0.73)
    assert out.arousal == pytest.approx(0.21)
    assert out.dominance == pytest.approx(0.01)
    assert mechanism_meta(out)["cumulativeDrift"] == pytest.approx(0.09)  # 0.07 + 0.01 + 0.01
    assert out.intensity == 0.6  # salience is not the tone
    assert out.updated_at == NOW


def test_reconsolidation_perspective_encoded_drifts_at_half_rate():
    trace = make(valence=-0.8, arousal=0.2, dominance=0.0, structured_data=with_meta(perspectiveEncoded=True))
    out = reconsolidate(trace, MOOD, ReconsolidationConfig(), NOW)
    # rate 0.05·0.5 = 0.025: dV = 0.025·1.4 = 0.035; dA = dD = 0.005
    assert out.valence == pytest.approx(-0.765)
    assert mechanism_meta(out)["cumulativeDrift"] == pytest.approx(0.045)
    assert mechanism_meta(out)["perspectiveEncoded"] is True  # existing bookkeeping kept
    explicit = reconsolidate(make(valence=-0.8), MOOD, ReconsolidationConfig(), NOW, perspective_encoded=True)
    assert explicit.valence == pytest.approx(-0.765)


def test_reconsolidation_respects_the_cumulative_cap():
    trace = make(valence=-0.8, arousal=0.2, dominance=0.0, structured_data=with_meta(cumulativeDrift=0.35))
    out = reconsolidate(trace, MOOD, ReconsolidationConfig(), NOW)
    # budget 0.4 - 0.35 = 0.05 < wanted 0.09: every delta scaled by 0.05/0.09 = 5/9
    assert out.valence == pytest.approx(-0.8 + 0.07 * 5 / 9)  # -0.76111
    assert out.arousal == pytest.approx(0.2 + 0.01 * 5 / 9)  # 0.20556
    assert mechanism_meta(out)["cumulativeDrift"] == pytest.approx(0.4)
    assert reconsolidate(out, MOOD, ReconsolidationConfig(), NOW) is out  # budget spent


def test_reconsolidation_many_retrievals_never_exceed_the_cap():
    trace = make(valence=-1.0, arousal=-1.0, dominance=-1.0)
    mood = Mood(valence=1.0, arousal=1.0, dominance=1.0)
    for _ in range(100):
        trace = reconsolidate(trace, mood, ReconsolidationConfig(), NOW)
    assert mechanism_meta(trace)["cumulativeDrift"] == pytest.approx(0.4)
    # total movement = 0.4 spread evenly over three equal gaps
    assert trace.valence == pytest.approx(-1.0 + 0.4 / 3)


def test_reconsolidation_drift_plain_values():
    assert reconsolidation_drift((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.0, 0.1, 0.4) == ((0.1, 0.0, 0.0), 0.1)
    assert reconsolidation_drift((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.4, 0.1, 0.4) == ((0.0, 0.0, 0.0), 0.4)


def test_reconsolidation_guards():
    cfg = ReconsolidationConfig()
    flashbulb = make(valence=-0.8, encoding_strength=0.9)
    assert reconsolidate(flashbulb, MOOD, cfg, NOW) is flashbulb
    assert reconsolidate(make(valence=-0.8, encoding_strength=0.89), MOOD, cfg, NOW).valence != -0.8
    inactive = make(valence=-0.8, is_active=False)
    assert reconsolidate(inactive, MOOD, cfg, NOW) is inactive
    disabled = make(valence=-0.8)
    assert reconsolidate(disabled, MOOD, ReconsolidationConfig(enabled=False), NOW) is disabled
    settled = make(valence=0.6, arousal=0.4, dominance=0.2)
    assert reconsolidate(settled, MOOD, cfg, NOW) is settled  # nothing to drift toward


# ---------------------------------------------------------------- retrieval-induced forgetting


def test_rif_suppresses_similar_losers_by_twelve_percent():
    winner = make(id="win", stability=1_000_000.0)
    a = make(id="a", stability=1_000_000.0, encoding_strength=0.5)
    at_threshold = make(id="b", stability=1_000_000.0)
    flashbulb = make(id="c", stability=1_000_000.0, encoding_strength=0.95)
    dead = make(id="d", stability=1_000_000.0, encoding_strength=0.05)
    inactive = make(id="f", stability=1_000_000.0, is_active=False)
    competitors = [(winner, 0.99), (a, 0.9), (at_threshold, 0.7), (flashbulb, 0.95), (dead, 0.8), (inactive, 0.9)]
    result = retrieval_induced_forgetting(competitors, {"win"}, RetrievalInducedForgettingConfig(), NOW)
    assert result.suppressed_ids == ["a"]
    assert result.traces[1].stability == pytest.approx(880_000.0)  # 1e6 · (1 - 0.12)
    unchanged = [result.traces[i] is competitors[i][0] for i in (0, 2, 3, 4, 5)]
    assert all(unchanged)
    assert changed([t for t, _ in competitors], result.traces) == [result.traces[1]]


def test_rif_caps_suppressions_and_takes_the_most_similar_first():
    competitors = [(make(id=f"t{i}", stability=100.0), 0.71 + i / 100) for i in range(7)]  # 0.71 .. 0.77
    result = retrieval_induced_forgetting(competitors, set(), RetrievalInducedForgettingConfig(), NOW)
    assert result.suppressed_ids == ["t6", "t5", "t4", "t3", "t2"]
    assert [t.stability for t in result.traces] == pytest.approx([100.0, 100.0, 88.0, 88.0, 88.0, 88.0, 88.0])


def test_rif_disabled_returns_competitors_unchanged():
    competitors = [(make(id="a"), 0.9)]
    result = retrieval_induced_forgetting(competitors, set(), RetrievalInducedForgettingConfig(enabled=False), NOW)
    assert result.traces[0] is competitors[0][0]
    assert result.suppressed_ids == []


# ---------------------------------------------------------------- involuntary recall


def _recall_pool():
    return [
        make(id="old_calm", created_at=NOW - 20 * DAY, intensity=0.0),
        make(id="old_vivid", created_at=NOW - 30 * DAY, intensity=0.5),
        make(id="just_old", created_at=NOW - 14 * DAY, intensity=0.0, encoding_strength=0.15),
        make(id="young", created_at=NOW - 10 * DAY, intensity=0.9),
        make(id="weak", created_at=NOW - 40 * DAY, encoding_strength=0.1),
        make(id="seen", created_at=NOW - 40 * DAY),
        make(id="gone", created_at=NOW - 40 * DAY, is_active=False),
    ]


def test_involuntary_candidates_are_old_strong_enough_active_and_unseen():
    ids = [t.id for t in involuntary_candidates(_recall_pool(), {"seen"}, InvoluntaryRecallConfig(), NOW)]
    assert ids == ["old_calm", "old_vivid", "just_old"]  # 14 days exactly and strength 0.15 exactly qualify


def test_involuntary_recall_age_counts_from_recorded_at():
    imported = make(id="diary", created_at=NOW - 365 * DAY, recorded_at=NOW - DAY)
    assert involuntary_candidates([imported], set(), InvoluntaryRecallConfig(), NOW) == []


def test_involuntary_recall_gate_and_intensity_weighting():
    cfg = InvoluntaryRecallConfig()
    pool = _recall_pool()
    # gate: 0.08 is not < 0.08
    assert select_involuntary(pool, {"seen"}, cfg, NOW, Rolls(0.08)) is None
    # weights: old_calm 0.01 (floor), old_vivid 0.5, just_old 0.01 -> total 0.52
    # roll 0.01·0.52 = 0.0052 < 0.01 -> old_calm
    assert select_involuntary(pool, {"seen"}, cfg, NOW, Rolls(0.0, 0.01)).id == "old_calm"
    # roll 0.5·0.52 = 0.26; minus 0.01 = 0.25 < 0.5 -> old_vivid
    assert select_involuntary(pool, {"seen"}, cfg, NOW, Rolls(0.079, 0.5)).id == "old_vivid"
    # roll 0.99·0.52 = 0.5148; minus 0.01, 0.5 = 0.0048 < 0.01 -> just_old
    assert select_involuntary(pool, {"seen"}, cfg, NOW, Rolls(0.0, 0.99)).id == "just_old"
    assert select_involuntary([], set(), cfg, NOW, Rolls(0.0, 0.5)) is None


def test_involuntary_recall_frequency_is_about_eight_percent():
    rng = random.Random(7)
    pool = _recall_pool()
    hits = sum(select_involuntary(pool, set(), InvoluntaryRecallConfig(), NOW, rng) is not None for _ in range(20_000))
    assert 0.07 < hits / 20_000 < 0.09


def test_involuntary_recall_disabled():
    cfg = InvoluntaryRecallConfig(enabled=False, probability=1.0)
    assert select_involuntary(_recall_pool(), set(), cfg, NOW, Rolls(0.0, 0.0)) is None
    assert involuntary_candidates(_recall_pool(), set(), cfg, NOW) == []


# ---------------------------------------------------------------- feeling-of-knowing


def test_feeling_of_knowing_hand_computed():
    near = make(id="near", entities=["vex", "millhaven"], tags=["dragon"], created_at=NOW - 3 * DAY)
    far = make(id="far", created_at=NOW - 60 * MS_PER_MINUTE)
    retrieved = make(id="hit")
    too_low = make(id="low")
    signals = detect_feeling_of_knowing(
        [(far, 0.35, 0.5), (near, 0.6, 0.8), (retrieved, 0.7, 0.9), (too_low, 0.29, 0.9)],
        FeelingOfKnowingConfig(),
        NOW,
        query_entities=["Vex"],
    )
    assert [s.trace_id for s in signals] == ["near", "far"]
    # near: gap (0.6-0.3)/0.4 = 0.75; overlap 1/max(1, 2) = 0.5 -> 0.4·0.75 + 0.3·0.8 + 0.3·0.5 = 0.69
    assert signals[0].feeling == pytest.approx(0.69)
    assert signals[0].kind == "high_confidence"  # 0.69 > 0.6
    assert signals[0].partial_info == "vex, millhaven | ~3 days ago"
    assert signals[0].cues == ("dragon",)
    # far: gap (0.35-0.3)/0.4 = 0.125 -> 0.4·0.125 + 0.3·0.5 + 0 = 0.2
    assert signals[1].feeling == pytest.approx(0.2)
    assert signals[1].kind == "tip_of_tongue"
    assert signals[1].partial_info is None  # no entities, less than a day old
    yesterday = detect_feeling_of_knowing([(make(), 0.5, 0.5)], FeelingOfKnowingConfig(), NOW)
    assert yesterday[0].partial_info == "~1 day ago"


def test_feeling_of_knowing_caller_cutoff_inactive_and_disabled():
    near = make(id="near")
    cfg = FeelingOfKnowingConfig()
    assert detect_feeling_of_knowing([(near, 0.6, 0.8)], cfg, NOW, retrieval_cutoff=0.5) == []
    assert detect_feeling_of_knowing([(make(is_active=False), 0.6, 0.8)], cfg, NOW) == []
    assert detect_feeling_of_knowing([(near, 0.6, 0.8)], FeelingOfKnowingConfig(enabled=False), NOW) == []


# ---------------------------------------------------------------- temporal gist


def _gistable(**kw) -> MemoryTrace:
    kw.setdefault("content", LONG_TEXT)
    kw.setdefault("created_at", NOW - 61 * DAY)
    kw.setdefault("retrieval_count", 1)
    kw.setdefault("encoding_strength", 0.5)
    return make(**kw)


def test_extractive_gist_first_sentence_plus_keywords():
    gist = extractive_gist(LONG_TEXT)
    assert gist == (
        "The ancient dragon Vex attacked the village of Millhaven at dawn, destroying the granary. "
        "(also: forge, villagers, fled, north, later)"
    )
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
    assert extractive_gist(words, max_words=2) == "alpha beta… (also: gamma, delta, epsilon, zeta, eta)"
    assert extractive_gist("one two three four five", max_words=2) == "one two three four five"  # no saving
    assert extractive_gist("Short.") == "Short."  # nothing to save


def test_a_gists_keywords_are_the_words_that_say_most():
    """A chat message's gist keeps what happened, not its fillers: no contraction, no word
    under three letters, and the rarer of equally frequent words first."""
    message = ("Wow, Caroline! That's great. I just signed up for a pottery class and I'm so excited, "
               "it's up the road from us. Here's a photo of my first bowl!")
    keywords = extractive_gist(message).split("(also: ")[1].rstrip(")").split(", ")
    assert keywords[0] == "pottery"
    assert not {"that's", "i'm", "it's", "here's", "up", "us"} & set(keywords)
    repeated = "We moved. The garden needs work, the garden needs light, and the garden is ours now."
    assert extractive_gist(repeated).split("(also: ")[1].startswith("garden, needs")  # the most frequent first


def test_gist_compresses_and_weakens_by_twenty_percent():
    trace = _gistable(entities=["vex"])
    out = gist_trace(trace, TemporalGistConfig(), NOW)
    assert out.content == extractive_gist(LONG_TEXT)
    assert out.encoding_strength == pytest.approx(0.4)  # 0.5 · 0.8
    assert out.content_hash == content_hash(out.content)
    meta = mechanism_meta(out)
    assert meta["gisted"] is True and meta["gistedAt"] == NOW
    assert meta["originalContentHash"] == content_hash(LONG_TEXT)
    assert gist_trace(out, TemporalGistConfig(), NOW) is out  # never twice


def test_gist_hook_entities_and_fallbacks():
    cfg = TemporalGistConfig()
    trace = _gistable(entities=["Vex", "Millhaven", "Atlantis"])
    out = gist_trace(trace, cfg, NOW, compress=lambda text: "A dragon attacked Millhaven.")
    assert out.content == "A dragon attacked Millhaven. [Vex]"  # Atlantis was never in the text
    bare = gist_trace(trace, TemporalGistConfig(preserve_entities=False), NOW, compress=lambda t: "A dragon attacked.")
    assert bare.content == "A dragon attacked."
    empty = gist_trace(_gistable(), cfg, NOW, compress=lambda text: "   ")
    assert empty.content == extractive_gist(LONG_TEXT)
    longer = gist_trace(_gistable(), cfg, NOW, compress=lambda text: text + " And more.")
    assert longer.content == LONG_TEXT and longer.encoding_strength == 0.5
    assert mechanism_meta(longer)["gisted"] is True
    with pytest.raises(ValueError, match="gist"):
        gist_trace(_gistable(), cfg, NOW, compress=lambda text: "bad\x00gist")


@pytest.mark.parametrize(
    "kw",
    [
        {"created_at": NOW - 59 * DAY},  # too young
        {"created_at": NOW - 365 * DAY, "recorded_at": NOW - DAY},  # imported history: learned yesterday
        {"retrieval_count": 2},  # used often enough to keep its wording
        {"type": MemoryType.PROCEDURAL},
        {"encoding_strength": 0.9},  # flashbulb
        {"is_active": False},
        {"structured_data": with_meta(gisted=True)},
    ],
)
def test_gist_guards(kw):
    trace = _gistable(**kw)
    assert gist_trace(trace, TemporalGistConfig(), NOW) is trace
    assert select_for_gist([trace], TemporalGistConfig(), NOW) == []


def test_gist_selection_oldest_first_capped_and_disabled():
    pool = [_gistable(id=f"t{d}", created_at=NOW - d * DAY) for d in (70, 90, 61, 80)]
    cfg = TemporalGistConfig(max_per_cycle=2)
    assert [t.id for t in select_for_gist(pool, cfg, NOW)] == ["t90", "t80"]
    trace = _gistable()
    assert gist_trace(trace, TemporalGistConfig(enabled=False), NOW) is trace
    assert select_for_gist(pool, TemporalGistConfig(enabled=False), NOW) == []


# ---------------------------------------------------------------- schema encoding


def test_schema_strength_hand_computed():
    cfg = SchemaEncodingConfig()
    assert schema_strength(0.5, 0.8, cfg) == (pytest.approx(0.425), SchemaVerdict.CONGRUENT)  # 0.5 · 0.85
    assert schema_strength(0.5, 0.75, cfg)[1] is SchemaVerdict.CONGRUENT  # threshold inclusive
    assert schema_strength(0.5, 0.5, cfg) == (pytest.approx(0.65), SchemaVerdict.NOVEL)  # 0.5 · 1.3
    assert schema_strength(0.9, 0.1, cfg) == (1.0, SchemaVerdict.NOVEL)  # 1.17 capped at 1
    assert schema_strength(0.5, None, cfg) == (0.5, None)  # no schemas yet
    assert schema_strength(0.5, 0.1, SchemaEncodingConfig(enabled=False)) == (0.5, None)


def test_apply_schema_encoding_and_nearest_schema():
    found = nearest_schema([0.0, 1.0], {"a": [1.0, 0.0], "b": [0.6, 0.8]})
    assert found == ("b", pytest.approx(0.8))  # cos = 0.8 / (1 · 1)
    assert nearest_schema([1.0], {}) is None
    trace = make(encoding_strength=0.5)
    out, verdict = apply_schema_encoding(trace, found[1], SchemaEncodingConfig(), NOW, schema_id=found[0])
    assert verdict is SchemaVerdict.CONGRUENT and out.encoding_strength == pytest.approx(0.425)
    assert mechanism_meta(out) == {"schemaVerdict": "congruent", "schemaId": "b"}
    novel, verdict = apply_schema_encoding(trace, 0.2, SchemaEncodingConfig(), NOW)
    assert verdict is SchemaVerdict.NOVEL and novel.encoding_strength == pytest.approx(0.65)
    assert apply_schema_encoding(trace, 0.2, SchemaEncodingConfig(enabled=False), NOW) == (trace, None)
    inactive = make(is_active=False)
    assert apply_schema_encoding(inactive, 0.2, SchemaEncodingConfig(), NOW)[0] is inactive


# ---------------------------------------------------------------- source-confidence decay


def test_source_confidence_half_lives():
    cfg = SourceConfidenceDecayConfig()
    user = decay_source_confidence(make(created_at=NOW - 40 * DAY), cfg, NOW)
    assert user.confidence == pytest.approx(0.5)  # one 40-day half-life
    weeks = decay_source_confidence(make(created_at=NOW - 28 * DAY), cfg, NOW)
    assert weeks.confidence == pytest.approx(0.5**0.7)  # 0.6156: "after weeks, about 0.6"
    reflection = make(created_at=NOW - 12 * DAY, confidence=0.8, source_type=SourceType.REFLECTION)
    assert decay_source_confidence(reflection, cfg, NOW).confidence == pytest.approx(0.2)  # 0.8 · 0.5²
    floored = make(created_at=NOW - 30 * DAY, source_type=SourceType.REFLECTION)
    assert decay_source_confidence(floored, cfg, NOW).confidence == 0.1  # 0.5⁵ = 0.031 -> floor 0.1
    low = make(created_at=NOW - 30 * DAY, confidence=0.05)
    assert decay_source_confidence(low, cfg, NOW).confidence == 0.05  # never raised to the floor
    assert decayed_confidence(0.9, 0, 6.0, 0.1) == 0.9


def test_source_confidence_is_time_based_not_cycle_based():
    cfg = SourceConfidenceDecayConfig()
    trace = make(created_at=NOW - 40 * DAY)
    halfway = decay_source_confidence(trace, cfg, NOW - 20 * DAY)  # 1.0 · 0.5^0.5
    twice = decay_source_confidence(halfway, cfg, NOW)  # · 0.5^0.5 again
    assert twice.confidence == pytest.approx(0.5)
    assert mechanism_meta(twice)["sourceDecayAt"] == NOW
    assert decay_source_confidence(twice, cfg, NOW) is twice  # nothing elapsed
    recent = make(created_at=NOW - 40 * DAY, structured_data=with_meta(sourceDecayAt=NOW - 30 * MS_PER_MINUTE))
    assert decay_source_confidence(recent, cfg, NOW) is recent  # inside the 1 h interval
    assert source_confidence_decay([trace], cfg, NOW)[0].confidence == pytest.approx(0.5)


def test_source_confidence_guards():
    inactive = make(created_at=NOW - 40 * DAY, is_active=False)
    assert decay_source_confidence(inactive, SourceConfidenceDecayConfig(), NOW) is inactive
    trace = make(created_at=NOW - 40 * DAY)
    assert decay_source_confidence(trace, SourceConfidenceDecayConfig(enabled=False), NOW) is trace


# ---------------------------------------------------------------- emotion regulation


def test_emotion_regulation_reappraises_and_suppresses():
    pool = [
        make(id="hot", valence=-0.9, arousal=0.9, intensity=0.81, encoding_strength=0.5),
        make(id="burning", valence=0.5, arousal=1.0, intensity=0.5, encoding_strength=0.6),
        make(id="warm", valence=-0.9, arousal=0.8, intensity=0.72),
        make(id="flashbulb", arousal=1.0, intensity=0.9, encoding_strength=0.95),
        make(id="gone", arousal=1.0, is_active=False),
    ]
    out = regulate_emotions(pool, EmotionRegulationConfig(), NOW)
    hot, burning = out[0], out[1]
    # hot: everything · 0.85; arousal 0.765 is no longer above 0.8 -> no suppression
    assert (hot.valence, hot.arousal, hot.intensity) == pytest.approx((-0.765, 0.765, 0.6885))
    assert hot.encoding_strength == 0.5
    # burning: arousal 1.0 · 0.85 = 0.85 still > 0.8 -> strength 0.6 · 0.9 = 0.54
    assert (burning.valence, burning.arousal, burning.intensity) == pytest.approx((0.425, 0.85, 0.425))
    assert burning.encoding_strength == pytest.approx(0.54)
    assert mechanism_meta(burning) == {"reappraisals": 1, "lastReappraisedAt": NOW}
    assert all(out[i] is pool[i] for i in (2, 3, 4))  # at threshold, flashbulb, inactive
    assert changed(pool, out) == [hot, burning]


def test_emotion_regulation_cap_takes_the_most_aroused_and_disabled_is_noop():
    pool = [make(id="a", arousal=0.85), make(id="b", arousal=0.95)]
    out = regulate_emotions(pool, EmotionRegulationConfig(max_regulation_per_cycle=1), NOW)
    assert out[0] is pool[0] and out[1].arousal == pytest.approx(0.8075)  # 0.95 · 0.85
    off = regulate_emotions(pool, EmotionRegulationConfig(enabled=False), NOW)
    assert all(a is b for a, b in zip(off, pool, strict=True))


# ---------------------------------------------------------------- configuration


def test_defaults_from_the_references():
    m = MechanismsConfig()
    assert (m.reconsolidation.drift_rate, m.reconsolidation.max_drift_per_trace) == (0.05, 0.4)
    rif = m.retrieval_induced_forgetting
    assert (rif.similarity_threshold, rif.suppression_factor) == (0.7, 0.12)
    assert (m.involuntary_recall.probability, m.involuntary_recall.min_age_days) == (0.08, 14.0)
    assert (m.feeling_of_knowing.partial_activation_threshold, m.feeling_of_knowing.retrieval_cutoff) == (0.3, 0.7)
    assert (m.temporal_gist.age_threshold_days, m.temporal_gist.protect_retrieval_count) == (60.0, 2)
    assert (m.schema_encoding.novelty_boost, m.schema_encoding.congruency_discount) == (1.3, 0.85)
    assert (m.emotion_regulation.arousal_threshold, m.emotion_regulation.reappraisal_rate) == (0.8, 0.15)
    assert set(m.source_confidence_decay.half_life_days) == set(SourceType)
    c = ConsolidationConfig()
    assert (c.min_cluster_size, c.contradiction_honesty_threshold, c.contradiction_confidence_gap) == (5, 0.6, 0.2)
    assert (c.compaction_min_age_ms, c.compaction_min_retrievals) == (7 * DAY, 3)
    assert (c.merge_similarity_threshold, c.archive_retention_ms, c.interval_ms) == (0.92, 365 * DAY, 3_600_000)
    assert not any(getattr(MechanismsConfig.all_disabled(), name).enabled for name in MechanismsConfig.model_fields)


def test_partial_source_rates_keep_the_other_defaults():
    cfg = SourceConfidenceDecayConfig(half_life_days={"reflection": 3})
    assert cfg.half_life_days[SourceType.REFLECTION] == 3.0
    assert cfg.half_life_days[SourceType.USER_STATEMENT] == 40.0


@pytest.mark.parametrize(
    ("factory", "field"),
    [
        (lambda: ReconsolidationConfig(drift_rate=1.5), "drift_rate"),
        (lambda: ReconsolidationConfig(max_drift_per_trace=-0.1), "max_drift_per_trace"),
        (lambda: RetrievalInducedForgettingConfig(suppression_factor=1.0), "suppression_factor"),
        (lambda: RetrievalInducedForgettingConfig(max_suppressions_per_query=-1), "max_suppressions_per_query"),
        (lambda: InvoluntaryRecallConfig(probability=float("nan")), "probability"),
        (lambda: FeelingOfKnowingConfig(partial_activation_threshold=0.8), "partial_activation_threshold"),
        (lambda: TemporalGistConfig(strength_factor=1.2), "strength_factor"),
        (lambda: TemporalGistConfig(max_gist_words=0), "max_gist_words"),
        (lambda: SchemaEncodingConfig(novelty_boost=0.5), "novelty_boost"),
        (lambda: SourceConfidenceDecayConfig(half_life_days={"reflection": 0}), "half_life_days"),
        (lambda: SourceConfidenceDecayConfig(half_life_days={"gossip": 5}), "half_life_days"),
        (lambda: EmotionRegulationConfig(reappraisal_rate=2), "reappraisal_rate"),
        (lambda: MechanismsConfig(temporal_gist={"max_per_cycle": -1}), "max_per_cycle"),
        (lambda: MechanismsConfig(reconsolidation={"drift": 0.1}), "drift"),
        (lambda: ConsolidationConfig(min_cluster_size=1), "min_cluster_size"),
        (lambda: ConsolidationConfig(contradiction_honesty_threshold=1.5), "contradiction_honesty_threshold"),
        (lambda: ConsolidationConfig(merge_similarity_threshold=0), "merge_similarity_threshold"),
        (lambda: ConsolidationConfig(cluster_algorithm="kmeans"), "cluster_algorithm"),
    ],
)
def test_invalid_config_names_the_field(factory, field):
    with pytest.raises(ValidationError, match=field):
        factory()


def test_assignment_is_validated():
    cfg = ReconsolidationConfig()
    with pytest.raises(ValidationError, match="drift_rate"):
        cfg.drift_rate = -1


# ---------------------------------------------------------------- properties

unit = st.floats(0.0, 1.0)
signed = st.floats(-1.0, 1.0)
safe_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=300
).filter(lambda s: s.strip())
metas = st.one_of(
    st.none(),
    st.builds(
        lambda drift, gisted, decay_at, persp: with_meta(
            cumulativeDrift=drift, gisted=gisted, sourceDecayAt=decay_at, perspectiveEncoded=persp
        ),
        st.floats(0.0, 1.0),
        st.booleans(),
        st.integers(NOW - 400 * DAY, NOW),
        st.booleans(),
    ),
    st.just({"user": {"kept": [1, 2]}}),
)


@st.composite
def traces(draw, index: int = 0) -> MemoryTrace:
    created = draw(st.integers(NOW - 400 * DAY, NOW))
    return MemoryTrace(
        id=f"t{index}",
        scope_id="u1",
        agent_id="a1",
        content=draw(st.one_of(safe_text, st.just(LONG_TEXT))),
        type=draw(st.sampled_from(MemoryType)),
        source_type=draw(st.sampled_from(SourceType)),
        confidence=draw(unit),
        valence=draw(signed),
        arousal=draw(signed),
        dominance=draw(signed),
        intensity=draw(unit),
        encoding_strength=draw(unit),
        stability=draw(st.floats(1.0, 1e12)),
        retrieval_count=draw(st.integers(0, 4)),
        created_at=created,
        recorded_at=draw(st.integers(created, NOW)),
        is_active=draw(st.booleans()),
        entities=draw(st.lists(st.sampled_from(["Vex", "Millhaven", "docker"]), max_size=3, unique=True)),
        tags=draw(st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True)),
        structured_data=draw(metas),
    )


@st.composite
def pools(draw) -> list[MemoryTrace]:
    n = draw(st.integers(0, 6))
    return [draw(traces(i)) for i in range(n)]


def mechanisms_configs(enabled: st.SearchStrategy[bool]) -> st.SearchStrategy[MechanismsConfig]:
    return st.builds(
        MechanismsConfig,
        reconsolidation=st.builds(
            ReconsolidationConfig, enabled=enabled, drift_rate=unit, max_drift_per_trace=st.floats(0.0, 6.0),
            perspective_drift_factor=unit, immune_strength=unit,
        ),
        retrieval_induced_forgetting=st.builds(
            RetrievalInducedForgettingConfig, enabled=enabled, similarity_threshold=st.floats(0.0, 0.99),
            suppression_factor=st.floats(0.0, 0.99), max_suppressions_per_query=st.integers(0, 10),
            immune_strength=unit, min_strength=unit,
        ),
        involuntary_recall=st.builds(InvoluntaryRecallConfig, enabled=enabled, probability=unit, min_strength=unit),
        feeling_of_knowing=st.builds(
            FeelingOfKnowingConfig, enabled=enabled, partial_activation_threshold=st.floats(0.0, 0.49),
            retrieval_cutoff=st.floats(0.5, 1.0), gap_weight=unit, similarity_weight=unit, entity_weight=unit,
        ),
        temporal_gist=st.builds(
            TemporalGistConfig, enabled=enabled, age_threshold_days=st.floats(0.0, 100.0),
            protect_retrieval_count=st.integers(0, 5), strength_factor=unit, max_gist_words=st.integers(1, 40),
            preserve_entities=st.booleans(), immune_strength=unit,
        ),
        schema_encoding=st.builds(
            SchemaEncodingConfig, enabled=enabled, cluster_similarity_threshold=signed,
            novelty_boost=st.floats(1.0, 10.0), congruency_discount=unit,
        ),
        source_confidence_decay=st.builds(
            SourceConfidenceDecayConfig, enabled=enabled,
            half_life_days=st.dictionaries(st.sampled_from(SourceType), st.floats(0.01, 1000.0)),
            min_confidence=unit, min_interval_ms=st.integers(0, DAY),
        ),
        emotion_regulation=st.builds(
            EmotionRegulationConfig, enabled=enabled, arousal_threshold=signed, reappraisal_rate=unit,
            max_regulation_per_cycle=st.integers(0, 10), suppression_strength_factor=unit, immune_strength=unit,
        ),
    )


moods = st.builds(Mood, valence=signed, arousal=signed, dominance=signed)
similarities = st.floats(-1.0, 1.0)


def run_all(pool: list[MemoryTrace], cfg: MechanismsConfig, mood: Mood, sims: list[float], rng_seed: int):
    """Every mechanism once over the pool; returns (traces out, other outputs)."""
    out: list[MemoryTrace] = []
    out += [reconsolidate(t, mood, cfg.reconsolidation, NOW) for t in pool]
    competitors = list(zip(pool, sims, strict=False))
    out += retrieval_induced_forgetting(competitors, {"t0"}, cfg.retrieval_induced_forgetting, NOW).traces
    out += [gist_trace(t, cfg.temporal_gist, NOW) for t in select_for_gist(pool, cfg.temporal_gist, NOW)]
    out += [apply_schema_encoding(t, s, cfg.schema_encoding, NOW)[0] for t, s in competitors]
    out += source_confidence_decay(pool, cfg.source_confidence_decay, NOW)
    out += regulate_emotions(pool, cfg.emotion_regulation, NOW)
    picked = select_involuntary(pool, {"t0"}, cfg.involuntary_recall, NOW, random.Random(rng_seed))
    signals = detect_feeling_of_knowing(
        [(t, abs(s), abs(s)) for t, s in competitors], cfg.feeling_of_knowing, NOW, query_entities=["vex"]
    )
    return out, picked, signals


@settings(max_examples=150, deadline=None)
@given(pools(), mechanisms_configs(st.booleans()), moods, st.lists(similarities, max_size=6), st.integers(0, 2**16))
def test_every_mechanism_keeps_values_in_range_and_never_mutates(pool, cfg, mood, sims, seed):
    before = [t.model_dump() for t in pool]
    out, picked, signals = run_all(pool, cfg, mood, sims, seed)
    assert [t.model_dump() for t in pool] == before  # inputs untouched
    for trace in out:
        # a returned trace is a valid trace: every field within its declared range
        assert MemoryTrace.model_validate(trace.model_dump()) == trace
        assert 0.0 <= trace.encoding_strength <= 1.0
        assert 0.0 <= trace.confidence <= 1.0
        assert trace.stability > 0.0
    assert picked is None or picked in pool
    assert all(0.0 <= s.feeling <= 1.0 for s in signals)


@settings(max_examples=150, deadline=None)
@given(pools(), mechanisms_configs(st.just(False)), moods, st.lists(similarities, max_size=6), st.integers(0, 2**16))
def test_every_mechanism_is_a_noop_when_disabled(pool, cfg, mood, sims, seed):
    competitors = list(zip(pool, sims, strict=False))
    assert all(reconsolidate(t, mood, cfg.reconsolidation, NOW) is t for t in pool)
    rif = retrieval_induced_forgetting(competitors, set(), cfg.retrieval_induced_forgetting, NOW)
    assert rif.suppressed_ids == [] and all(a is b for a, (b, _) in zip(rif.traces, competitors, strict=True))
    assert select_involuntary(pool, set(), cfg.involuntary_recall, NOW, random.Random(seed)) is None
    assert detect_feeling_of_knowing([(t, 0.5, 0.5) for t in pool], cfg.feeling_of_knowing, NOW) == []
    assert select_for_gist(pool, cfg.temporal_gist, NOW) == []
    assert all(gist_trace(t, cfg.temporal_gist, NOW) is t for t in pool)
    assert all(apply_schema_encoding(t, s, cfg.schema_encoding, NOW) == (t, None) for t, s in competitors)
    decayed = source_confidence_decay(pool, cfg.source_confidence_decay, NOW)
    assert all(a is b for a, b in zip(decayed, pool, strict=True))
    assert all(a is b for a, b in zip(regulate_emotions(pool, cfg.emotion_regulation, NOW), pool, strict=True))


@settings(max_examples=200, deadline=None)
@given(traces(), moods, st.floats(0.0, 1.0), st.floats(0.0, 6.0))
def test_reconsolidation_never_spends_more_than_the_budget(trace, mood, rate, cap):
    cfg = ReconsolidationConfig(drift_rate=rate, max_drift_per_trace=cap)
    out = reconsolidate(trace, mood, cfg, NOW)
    if out is trace:
        return
    spent_before = mechanism_meta(trace).get("cumulativeDrift", 0.0)
    moved = abs(out.valence - trace.valence) + abs(out.arousal - trace.arousal) + abs(out.dominance - trace.dominance)
    assert moved <= cap - spent_before + 1e-9
    assert mechanism_meta(out)["cumulativeDrift"] <= cap + 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(traces(), min_size=1, max_size=1), moods)
def test_copies_are_independent_of_their_source(pool, mood):
    trace = pool[0]
    out = reconsolidate(trace, mood, ReconsolidationConfig(immune_strength=1.0), NOW)
    if out is not trace:
        out.tags.append("mutated")
        if out.structured_data is not None:
            out.structured_data.setdefault(MECHANISM_KEY, {})["x"] = 1
        assert "mutated" not in trace.tags
        assert "x" not in mechanism_meta(trace)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1e12), st.floats(0.01, 1000.0), st.floats(0.0, 1.0))
def test_decayed_confidence_stays_in_unit_range_and_never_rises(confidence, elapsed, half_life, floor):
    value = decayed_confidence(confidence, elapsed, half_life, floor)
    assert 0.0 <= value <= confidence


@given(safe_text, st.integers(1, 50))
def test_extractive_gist_is_never_longer_than_the_text(text, max_words):
    gist = extractive_gist(text, max_words)
    assert len(gist) <= len(" ".join(text.split()))


def test_schema_centroid_is_the_unit_mean_of_the_members():
    # mean of (1,0) and (0,1) is (0.5,0.5); unit length: (1/sqrt2, 1/sqrt2)
    assert schema_centroid([[1.0, 0.0], [0.0, 1.0]]) == pytest.approx([0.7071068, 0.7071068])
    assert schema_centroid([[3.0, 4.0]]) == pytest.approx([0.6, 0.8])
    assert schema_centroid([[1.0, 0.0], [-1.0, 0.0]]) == [0.0, 0.0]  # opposite members: no direction
    with pytest.raises(ValueError, match="at least one member"):
        schema_centroid([])
