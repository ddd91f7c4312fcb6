"""Encoding model and keyword features, checked against hand-computed reference formulas."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from cogmem_graph.cognition.encoding import (
    attention_multiplier,
    compute_encoding,
    emotional_boost,
    emotional_intensity,
    emotional_valence,
    encoding_weights,
    initial_stability,
    initial_strength,
    is_flashbulb,
    mood_congruence_boost,
    yerkes_dodson,
)
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.encoding import EncodingConfig, TraitWeight
from cogmem_graph.language import features
from cogmem_graph.language.features import (
    NO_FEATURES,
    ContentFeatures,
    cue_score,
    detect_features,
    sentiment_score,
    tokenize,
)
from cogmem_graph.model import Hexaco, Mood

REF = CogmemConfig.reference_preset().encoding
"""The first reference's numbers (base stability 1 h): what the hand computations use."""

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
signed = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
traits_st = st.builds(
    Hexaco,
    honesty=unit, emotionality=unit, extraversion=unit,
    agreeableness=unit, conscientiousness=unit, openness=unit,
)
mood_st = st.builds(Mood, valence=signed, arousal=signed, dominance=signed)
features_st = st.builds(
    ContentFeatures,
    novelty=unit, procedure=unit, emotion=unit, social=unit, cooperation=unit,
    ethical=unit, contradiction=unit, topic_relevance=unit, sentiment=signed,
)


# ---------------------------------------------------------------- HEXACO weights


def test_encoding_weights_hand_computed():
    w = encoding_weights(
        Hexaco(openness=0.7, conscientiousness=0.8, emotionality=0.5,
               extraversion=0.25, agreeableness=1.0, honesty=0.0)
    )
    assert w.novelty_attention == pytest.approx(0.79)       # 0.3 + 0.7*0.7
    assert w.procedural_attention == pytest.approx(0.86)    # 0.3 + 0.7*0.8
    assert w.emotional_sensitivity == pytest.approx(0.6)    # 0.2 + 0.8*0.5
    assert w.social_attention == pytest.approx(0.4)         # 0.2 + 0.8*0.25
    assert w.cooperative_attention == pytest.approx(1.0)    # 0.2 + 0.8*1.0
    assert w.ethical_attention == pytest.approx(0.2)        # 0.2 + 0.8*0.0


def test_attention_multiplier_hand_computed():
    w = encoding_weights(Hexaco())  # all traits 0.5: novelty/procedure 0.65, others 0.6
    assert attention_multiplier(w, NO_FEATURES) == pytest.approx(0.5)
    # 0.5 + 0.65*0.15 (novelty) + 0.65*0.15 (procedure) = 0.695
    assert attention_multiplier(w, ContentFeatures(novelty=1.0, procedure=1.0)) == pytest.approx(0.695)
    # contradiction is not trait-weighted: 0.5 + 0.15 + 0.15*0.4 (topic relevance) = 0.71
    assert attention_multiplier(w, ContentFeatures(contradiction=1.0, topic_relevance=0.4)) == pytest.approx(0.71)
    # graded score scales the bonus: 0.5 + 0.6*0.10*0.5 (emotion) = 0.53
    assert attention_multiplier(w, ContentFeatures(emotion=0.5)) == pytest.approx(0.53)
    everything = ContentFeatures(
        novelty=1, procedure=1, emotion=1, social=1, cooperation=1, ethical=1, contradiction=1, topic_relevance=1
    )
    # 0.5 + 0.195 + 4*0.06 + 0.15 + 0.15 = 1.235 -> capped at 1.0
    assert attention_multiplier(w, everything) == pytest.approx(1.0)


# ---------------------------------------------------------------- arousal and emotion


@pytest.mark.parametrize(
    ("arousal01", "expected"),
    [
        (0.5, 1.0),    # peak
        (0.75, 0.75),  # 1 - 4*0.25^2
        (0.25, 0.75),  # symmetric
        (0.8, 0.64),   # 1 - 4*0.3^2
        (0.0, 0.3),    # 1 - 4*0.25 = 0 -> floor 0.3
        (1.0, 0.3),
    ],
)
def test_yerkes_dodson_hand_computed(arousal01, expected):
    assert yerkes_dodson(arousal01) == pytest.approx(expected)


def test_emotion_helpers_hand_computed():
    assert emotional_valence(0.8, 0.5) == pytest.approx(0.71)  # 0.7*0.8 + 0.3*0.5
    assert emotional_intensity(-0.71, 0.75) == pytest.approx(0.5325)  # |-0.71| * 0.75
    assert emotional_boost(0.5, 0.6) == pytest.approx(1.15)  # 1 + 0.5*0.6*0.5
    assert mood_congruence_boost(0.5, 0.8, 0.6) == pytest.approx(1.072)  # 1 + 0.4*0.6*0.3
    assert mood_congruence_boost(-0.5, -0.8, 0.6) == pytest.approx(1.072)  # both negative: congruent
    assert mood_congruence_boost(0.5, -0.8, 0.6) == 1.0  # incongruent never penalises


def test_flashbulb_threshold_is_strict():
    assert not is_flashbulb(0.8)
    assert is_flashbulb(0.81)
    assert not is_flashbulb(1.0, EncodingConfig(flashbulb_threshold=1.0))  # threshold 1 disables flashbulbs


def test_initial_strength_and_stability_hand_computed():
    assert initial_strength(0.5, 0.75, 1.2, 0.6) == pytest.approx(0.27)  # 0.5*0.75*1.2*0.6
    assert initial_strength(0.5, flashbulb_boost=2.0, congruence_boost=1.3) == 1.0  # 1.3 capped
    assert initial_stability(0.5, False, REF) == pytest.approx(14_400_000)  # 3.6e6 * (1 + 6*0.5)
    assert initial_stability(0.5, True, REF) == pytest.approx(72_000_000)  # ... * 5
    assert initial_stability(0.0, False, REF) == pytest.approx(3_600_000)  # base stability


def test_compute_encoding_hand_computed():
    mood = Mood(valence=0.5, arousal=0.5)  # arousal01 = 0.75
    result = compute_encoding(mood, Hexaco(), ContentFeatures(novelty=1.0, sentiment=0.8), REF)
    # arousal boost  = 1 - 4*(0.75-0.5)^2                 = 0.75
    # valence        = 0.7*0.8 + 0.3*0.5                  = 0.71
    # intensity      = 0.71 * 0.75                        = 0.5325
    # emotional boost= 1 + 0.5325*0.6*0.5                 = 1.15975
    # attention      = 0.5 + 0.65*0.15                    = 0.5975
    # congruence     = 1 + (0.5*0.8)*0.6*0.3              = 1.072
    # S0             = 0.5*0.75*1.15975*0.5975*1.072      = 0.27856615125
    # stability      = 3.6e6 * (1 + 6*0.27856615125)      = 9,617,028.867
    assert result.arousal_boost == pytest.approx(0.75)
    assert result.valence == pytest.approx(0.71)
    assert result.intensity == pytest.approx(0.5325)
    assert result.emotional_boost == pytest.approx(1.15975)
    assert result.attention == pytest.approx(0.5975)
    assert result.congruence_boost == pytest.approx(1.072)
    assert not result.flashbulb
    assert result.strength == pytest.approx(0.27856615125)
    assert result.stability_ms == pytest.approx(3_600_000 * (1 + 6 * 0.27856615125))
    assert result.stability_ms == pytest.approx(9_617_028.867, abs=0.001)
    assert result.arousal == 0.5 and result.dominance == 0.0


def test_compute_encoding_flashbulb_hand_computed():
    mood = Mood(valence=1.0, arousal=1.0)  # arousal01 = 1
    result = compute_encoding(mood, Hexaco(emotionality=1.0), ContentFeatures(sentiment=1.0), REF)
    # valence 0.7+0.3 = 1, intensity 1*1 = 1 > 0.8 -> flashbulb
    # arousal boost floor 0.3; sensitivity 0.2+0.8 = 1; emotional boost 1 + 1*1*0.5 = 1.5
    # attention 0.5; congruence 1 + 1*1*1*0.3 = 1.3; flashbulb x2
    # S0 = 0.5*0.3*1.5*0.5*1.3*2 = 0.2925 ; stability = 3.6e6*(1 + 6*0.2925)*5 = 49.59e6
    assert result.flashbulb
    assert result.intensity == pytest.approx(1.0)
    assert result.strength == pytest.approx(0.2925)
    assert result.stability_ms == pytest.approx(49_590_000)


def test_zero_base_strength_disables_strength_but_keeps_base_stability():
    cfg = REF.model_copy(update={"base_strength": 0.0})
    result = compute_encoding(Mood(valence=0.3, arousal=0.0), Hexaco(), ContentFeatures(novelty=1.0), cfg)
    assert result.strength == 0.0
    assert result.stability_ms == pytest.approx(3_600_000)


def test_zero_gains_disable_modulation():
    cfg = EncodingConfig(
        mood_congruence_gain=0.0, emotional_boost_gain=0.0, yerkes_dodson_steepness=0.0, flashbulb_threshold=1.0
    )
    # intensity 0.9 * 0.95 = 0.855 would be a flashbulb under the default threshold 0.8
    result = compute_encoding(Mood(valence=0.9, arousal=0.9), Hexaco(), ContentFeatures(sentiment=0.9), cfg)
    assert result.intensity == pytest.approx(0.855)
    assert not result.flashbulb
    assert result.congruence_boost == 1.0
    assert result.emotional_boost == 1.0
    assert result.arousal_boost == 1.0
    assert result.strength == pytest.approx(0.25)  # 0.5 * attention 0.5


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="arousal01"):
        yerkes_dodson(float("nan"))
    with pytest.raises(ValueError, match="arousal01"):
        yerkes_dodson(1.5)
    with pytest.raises(ValueError, match="intensity"):
        is_flashbulb(-0.1)
    with pytest.raises(ValueError, match="strength"):
        initial_stability(2.0, False)


# ---------------------------------------------------------------- config validation


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base_strength", float("nan")),
        ("base_strength", 1.5),
        ("flashbulb_threshold", -0.1),
        ("flashbulb_strength_multiplier", 0.5),
        ("base_stability_ms", 0.0),
        ("base_stability_ms", float("inf")),
        ("yerkes_dodson_floor", 2.0),
        ("mood_congruence_gain", float("nan")),
    ],
)
def test_invalid_encoding_config_names_the_field(field, value):
    with pytest.raises(ValidationError, match=field):
        EncodingConfig(**{field: value})


def test_encoding_config_refuses_unknown_fields_and_bad_assignment():
    with pytest.raises(ValidationError, match="base_strenght"):
        EncodingConfig(base_strenght=0.5)
    cfg = EncodingConfig()
    with pytest.raises(ValidationError, match="base_strength"):
        cfg.base_strength = -1.0


def test_trait_weight_must_stay_in_unit_range():
    with pytest.raises(ValidationError, match="floor \\+ gain"):
        TraitWeight(floor=0.5, gain=0.7)
    with pytest.raises(ValidationError, match="novelty_attention"):
        EncodingConfig(novelty_attention={"floor": 0.3, "gain": float("nan")})


# ---------------------------------------------------------------- properties


@given(mood_st, traits_st, features_st)
def test_strength_in_unit_interval_and_stability_at_least_base(mood, traits, features):
    result = compute_encoding(mood, traits, features)
    assert 0.0 <= result.strength <= 1.0
    assert result.stability_ms >= 3_600_000
    assert 0.0 <= result.intensity <= 1.0
    assert -1.0 <= result.valence <= 1.0
    assert result.flashbulb == (result.intensity > 0.8)
    assert 0.3 <= result.arousal_boost <= 1.0


@given(mood_st, traits_st, features_st, unit)
def test_any_valid_base_strength_keeps_strength_in_range(mood, traits, features, base):
    result = compute_encoding(mood, traits, features, EncodingConfig(base_strength=base))
    assert 0.0 <= result.strength <= 1.0
    assert math.isfinite(result.stability_ms)


@given(traits_st, features_st, unit)
def test_attention_is_monotone_in_novelty(traits, features, extra):
    w = encoding_weights(traits)
    lower = ContentFeatures(**{**features.__dict__, "novelty": features.novelty * extra})
    assert attention_multiplier(w, lower) <= attention_multiplier(w, features) + 1e-12


@given(unit)
def test_yerkes_dodson_range(a):
    assert 0.3 <= yerkes_dodson(a) <= 1.0


# ---------------------------------------------------------------- keyword features


def test_cue_score_halves_the_gap():
    assert [cue_score(n) for n in range(4)] == [0.0, 0.5, 0.75, 0.875]


def test_detect_features_on_examples():
    f = detect_features("I was so happy and excited when my sister visited with her kids!")
    assert f.emotion > 0.5 and f.sentiment > 0.5 and f.social > 0.5
    assert f.personal > 0
    f = detect_features("Actually, that was wrong: the deadline is no longer Friday. Remind me tomorrow.")
    assert f.contradiction >= 0.75 and f.prospective >= 0.75
    f = detect_features("To deploy, first install Docker, then run the pipeline.")
    assert f.procedure >= 0.875
    f = detect_features("We should be honest and fair; lying betrays trust.")
    assert f.ethical >= 0.875
    f = detect_features("Thanks for helping, let's work together and share the load.")
    assert f.cooperation >= 0.875
    f = detect_features("I had a new idea today, a surprising discovery.")
    assert f.novelty >= 0.875
    assert detect_features("") == NO_FEATURES
    assert detect_features("   ...  ") == NO_FEATURES


def test_negation_flips_sentiment():
    # 1 positive, 0 negative -> 1/2 ; negated -> -1/2
    assert sentiment_score(tokenize("I am happy")) == pytest.approx(0.5)
    assert sentiment_score(tokenize("I am not happy")) == pytest.approx(-0.5)
    assert sentiment_score(tokenize("I don\u2019t hate it")) == pytest.approx(0.5)
    # 2 positive, 1 negative -> (2-1)/(3+1) = 0.25
    assert sentiment_score(tokenize("great and wonderful but sad")) == pytest.approx(0.25)


def test_topic_relevance_is_share_of_topic_terms():
    f = detect_features("We moved the deployment to Kubernetes", topic_terms=["kubernetes", "deployment", "helm"])
    assert f.topic_relevance == pytest.approx(2 / 3)
    assert detect_features("anything").topic_relevance == 0.0


def test_content_features_validate():
    with pytest.raises(ValueError, match="novelty"):
        ContentFeatures(novelty=1.5)
    with pytest.raises(ValueError, match="sentiment"):
        ContentFeatures(sentiment=float("nan"))
    with pytest.raises(ValueError, match="emotion"):
        ContentFeatures(emotion=True)
    assert ContentFeatures(sentiment=-1.0).sentiment == -1.0


@given(st.text(max_size=300), st.lists(st.text(max_size=20), max_size=5))
def test_detect_features_always_in_range(text, topic):
    f = detect_features(text, topic_terms=topic)  # construction validates every range
    assert -1.0 < f.sentiment < 1.0 or f.sentiment == 0.0


_PHRASE_WORDS = sorted({w for lex in features._LEXICONS for p in lex.phrases for w in p.split()} | {"x", "the"})


@given(st.lists(st.sampled_from(_PHRASE_WORDS), max_size=40))
def test_phrase_counts_skip_only_phrases_that_cannot_occur(words) -> None:
    """Phrases are searched only when their first word is present: the counts equal a
    search for every phrase, on texts made of the phrases' own words."""
    joined = f" {' '.join(words)} "
    for lexicon in features._LEXICONS:
        every = sum(joined.count(f" {phrase} ") for phrase in lexicon.phrases)
        assert lexicon.phrase_count(joined, frozenset(words)) == every
