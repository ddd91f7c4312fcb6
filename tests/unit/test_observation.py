"""Observer and reflector logic as pure functions: thresholds, typed notes (read by
language/note_kinds.py), HEXACO bias, LLM answer validation, merging, memory style and
conflicts by personality."""

from __future__ import annotations

import pytest

from cogmem_graph.cognition.observation import (
    ConflictPolicy,
    ConflictSide,
    MemoryStyle,
    NoteDraft,
    ObservationNote,
    Turn,
    combined_importance,
    conflict_policy,
    conflict_winner,
    keep_biased,
    memory_style,
    merge_notes,
    note_focus,
    note_salience,
    observer_focus_areas,
    parse_observer_answer,
    parse_reflector_answer,
    reflect_rules,
    rule_notes,
    styled_content,
    threshold_reached,
    word_overlap,
)
from cogmem_graph.config.encoding import EncodingConfig, TraitWeight
from cogmem_graph.config.observation import ObserverConfig, ReflectorConfig
from cogmem_graph.language.note_kinds import NoteType, classify_sentence, information_density
from cogmem_graph.model import Hexaco, MemoryType

# ---------------------------------------------------------------- thresholds


@pytest.mark.parametrize(("tokens", "reached"), [(0, False), (29_999, False), (30_000, True), (45_000, True)])
def test_the_observer_runs_once_the_buffer_holds_its_threshold(tokens, reached) -> None:
    assert threshold_reached(tokens, ObserverConfig().activation_threshold_tokens) is reached


def test_reference_thresholds_are_the_defaults() -> None:
    assert ObserverConfig().activation_threshold_tokens == 30_000
    assert ReflectorConfig().activation_threshold_tokens == 40_000


@pytest.mark.parametrize(("tokens", "threshold", "field"),
                         [(-1, 10, "tokens"), (1.5, 10, "tokens"), (5, 0, "threshold")])
def test_bad_threshold_arguments_name_the_field(tokens, threshold, field) -> None:
    with pytest.raises(ValueError, match=field):
        threshold_reached(tokens, threshold)


# ---------------------------------------------------------------- HEXACO bias


def test_a_neutral_personality_attends_to_every_note_type_alike() -> None:
    assert all(note_focus(t, Hexaco()) == pytest.approx(1.0) for t in NoteType)


@pytest.mark.parametrize(("note_type", "trait"), [
    (NoteType.EMOTIONAL, "emotionality"), (NoteType.COMMITMENT, "conscientiousness"),
    (NoteType.CREATIVE, "openness"), (NoteType.PREFERENCE, "agreeableness"), (NoteType.CORRECTION, "honesty"),
])
def test_each_note_type_is_watched_by_its_trait(note_type, trait) -> None:
    low, mid, high = (note_focus(note_type, Hexaco(**{trait: v})) for v in (0.1, 0.5, 0.9))
    assert low < mid < high
    others = [t for t in NoteType if t not in (note_type, NoteType.FACTUAL)]
    assert all(note_focus(t, Hexaco(**{trait: 0.9})) == pytest.approx(1.0) for t in others)


def test_facts_are_noticed_whatever_the_personality() -> None:
    extreme = Hexaco(honesty=0, emotionality=0, extraversion=0, agreeableness=0, conscientiousness=0, openness=0)
    assert note_focus(NoteType.FACTUAL, extreme) == 1.0


def test_focus_follows_the_encoding_models_attention_weights() -> None:
    flat = EncodingConfig(emotional_sensitivity=TraitWeight(floor=1.0, gain=0.0))
    assert note_focus(NoteType.EMOTIONAL, Hexaco(emotionality=0.0), flat) == pytest.approx(1.0)
    # 0.2 + 0.8·E over its value at 0.5: E = 0.9 -> 0.92 / 0.6
    assert note_focus(NoteType.EMOTIONAL, Hexaco(emotionality=0.9)) == pytest.approx(0.92 / 0.6)


def test_salience_is_importance_times_focus_capped_at_one() -> None:
    assert note_salience(0.5, 1.2) == pytest.approx(0.6)
    assert note_salience(0.9, 1.5) == 1.0
    with pytest.raises(ValueError, match="importance"):
        note_salience(1.2, 1.0)
    with pytest.raises(ValueError, match="focus"):
        note_salience(0.5, -1.0)


def test_high_emotionality_keeps_an_emotional_note_that_low_emotionality_drops() -> None:
    notes = [NoteDraft(NoteType.EMOTIONAL, "The demo made me nervous.", 0.5, 0.8),
             NoteDraft(NoteType.FACTUAL, "Alice works at Google.", 0.5, 0.8)]
    minimum = ObserverConfig().min_salience
    warm = [n.type for n, _ in keep_biased(notes, Hexaco(emotionality=0.9), minimum)]
    cool = [n.type for n, _ in keep_biased(notes, Hexaco(emotionality=0.1), minimum)]
    assert warm == [NoteType.EMOTIONAL, NoteType.FACTUAL]
    assert cool == [NoteType.FACTUAL]


def test_the_llm_is_told_the_high_traits_strongest_first() -> None:
    areas = observer_focus_areas(Hexaco(honesty=0.7, emotionality=0.9, openness=0.6), 0.6)
    assert len(areas) == 2 and "emotional" in areas[0] and "corrections" in areas[1]
    assert observer_focus_areas(Hexaco(), 0.6) == []


# ---------------------------------------------------------------- rule-based notes


@pytest.mark.parametrize(("sentence", "note_type"), [
    ("Actually, I moved to Berlin last month.", NoteType.CORRECTION),
    ("I changed my mind about the trip to Rome.", NoteType.CORRECTION),
    ("I need to ship the quarterly report by Friday.", NoteType.COMMITMENT),
    ("We decided to migrate the database next quarter.", NoteType.COMMITMENT),
    ("I prefer dark mode in every editor.", NoteType.PREFERENCE),
    ("I really hate long meetings after lunch.", NoteType.PREFERENCE),
    ("The demo made me nervous.", NoteType.EMOTIONAL),
    ("What if we built a tiny robot that waters the plants?", NoteType.CREATIVE),
    ("Alice works at Google since 2019.", NoteType.FACTUAL),
])
def test_sentences_are_typed_by_their_strongest_cue(sentence, note_type) -> None:
    verdict = classify_sentence(sentence, ObserverConfig().min_fact_density)
    assert verdict is not None and verdict[0] is note_type and 0.0 < verdict[1] <= 1.0


def test_more_cues_mean_more_importance() -> None:
    _, one = classify_sentence("The demo made me nervous.", 2)
    _, three = classify_sentence("The demo made me nervous, anxious and upset.", 2)
    assert three > one


def test_a_sentence_without_cue_is_a_fact_only_when_dense_enough() -> None:
    assert classify_sentence("The weather is rather odd around here.", 2) is None
    assert information_density("Alice met Bob in Lisbon on Monday at 10.") >= 4
    _, sparse = classify_sentence("Alice visited Porto.", 2)
    _, dense = classify_sentence("Alice met Bob in Lisbon on Monday at 10.", 2)
    assert dense > sparse


@pytest.mark.parametrize("filler", ["Sounds good to me!", "Ok, thanks.", "Great, thank you so much!", "Hi there."])
def test_filler_is_no_observation(filler) -> None:
    assert rule_notes([Turn("user", filler)]) == []


def test_rule_notes_keep_order_roles_and_turns() -> None:
    turns = [Turn("system", "You prefer short answers and must be polite."),
             Turn("user", "Sounds good. I prefer tea over coffee."),
             Turn("assistant", "I will send you the summary by Friday.")]
    notes = rule_notes(turns)
    assert [(n.type, n.turn_index, n.role) for n in notes] == [
        (NoteType.PREFERENCE, 1, "user"), (NoteType.COMMITMENT, 2, "assistant")]
    assert notes[0].content == "I prefer tea over coffee.", "the user's words stay first person"
    assert notes[1].content == "The assistant said: I will send you the summary by Friday."
    assert all(n.confidence == ObserverConfig().rule_confidence for n in notes)


def test_rule_notes_respect_length_and_entity_limits() -> None:
    cfg = ObserverConfig(max_note_chars=40, max_entities_per_note=2)
    [note] = rule_notes([Turn("user", "Actually, Alice, Bob, Carol and Dave moved to Berlin with Erin and Frank.")],
                        cfg)
    assert len(note.content) <= 40 and note.content.endswith("…")
    assert note.entities == ("Alice", "Bob"), "cue words are no entities and the cap holds"


# ---------------------------------------------------------------- LLM answers

TURNS = [Turn("user", "I was anxious", 100), Turn("assistant", "Sorry to hear", 200), Turn("user", "I like tea", 300)]


def test_observer_answer_is_validated_item_by_item() -> None:
    payload = {"notes": [
        {"type": "Preference", "content": "I like tea", "importance": 1.7, "turn": 3, "entities": ["tea", ""]},
        {"type": "emotional", "content": "I was anxious", "turns": [1]},
        {"type": "gossip", "content": "unknown type"},
        {"type": "factual", "content": "   "},
        {"type": "factual", "content": "out of range", "turn": 9},
        "not an object",
    ]}
    notes = parse_observer_answer(payload, TURNS)
    assert [(n.type, n.turn_index, n.role) for n in notes] == [
        (NoteType.PREFERENCE, 2, "user"), (NoteType.EMOTIONAL, 0, "user")]
    assert notes[0].importance == 1.0 and notes[0].entities == ("tea",)
    assert notes[1].importance == 0.5 and notes[1].confidence == ObserverConfig().rule_confidence


@pytest.mark.parametrize("payload", [{}, {"notes": "many"}, [], {"notes": [{"type": "gossip", "content": "x"}]}])
def test_malformed_observer_answers_raise_so_the_rules_take_over(payload) -> None:
    with pytest.raises(ValueError):
        parse_observer_answer(payload, TURNS)


def test_an_empty_note_list_is_a_valid_answer() -> None:
    assert parse_observer_answer({"notes": []}, TURNS) == []


def _note(i: str, kind: NoteType, content: str, importance: float = 0.5, at: int = 0, **kw) -> ObservationNote:
    return ObservationNote(id=i, type=kind, content=content, importance=importance, confidence=0.8, created_at=at, **kw)


def test_reflector_answer_maps_note_numbers_to_ids_and_times() -> None:
    notes = [_note("a", NoteType.PREFERENCE, "I like tea", at=10, entities=("tea",)),
             _note("b", NoteType.PREFERENCE, "Tea, always", 0.9, at=20)]
    [memory] = parse_reflector_answer(
        {"memories": [{"content": "I like tea", "type": "preference", "notes": [1, 2]}, {"content": ""}]}, notes)
    assert memory.note_ids == ("a", "b") and memory.created_at == 20
    assert memory.memory_type is MemoryType.SEMANTIC and memory.importance == 0.9 and memory.entities == ("tea",)
    with pytest.raises(ValueError):
        parse_reflector_answer({"memories": None}, notes)
    with pytest.raises(ValueError):
        parse_reflector_answer({"memories": [{"content": "x", "type": "preference", "notes": [7]}]}, notes)


# ---------------------------------------------------------------- reflection


def test_word_overlap_and_combined_importance() -> None:
    assert word_overlap("I prefer dark mode", "As I said, I prefer dark mode!") > 0.7
    assert word_overlap("I prefer dark mode", "The cat sleeps") == 0.0
    assert combined_importance([0.5, 0.5]) == pytest.approx(0.75)
    assert combined_importance([]) == 0.0


def test_redundant_notes_of_one_type_merge_and_grow_in_importance() -> None:
    notes = [_note("a", NoteType.PREFERENCE, "I prefer dark mode in every editor", 0.3, at=1),
             _note("b", NoteType.PREFERENCE, "As I said, I prefer dark mode in every editor", 0.3, at=5),
             _note("c", NoteType.FACTUAL, "I prefer dark mode in every editor", 0.3, at=3)]
    merged = merge_notes(notes, 0.8)
    assert [(m.type, m.note_ids) for m in merged] == [(NoteType.PREFERENCE, ("a", "b")), (NoteType.FACTUAL, ("c",))]
    assert merged[0].importance == pytest.approx(0.51) and merged[0].created_at == 5


def test_reflection_elevates_what_is_salient_or_repeated() -> None:
    notes = [_note("a", NoteType.PREFERENCE, "I prefer dark mode", 0.3),
             _note("b", NoteType.PREFERENCE, "I prefer dark mode", 0.3),
             _note("c", NoteType.CREATIVE, "A robot that waters plants", 0.3),
             _note("d", NoteType.COMMITMENT, "Ship the report by Friday", 0.75)]
    out = reflect_rules(notes, Hexaco())
    assert [(r.note_type, r.note_ids) for r in out] == [
        (NoteType.PREFERENCE, ("a", "b")), (NoteType.COMMITMENT, ("d",))]
    assert out[1].memory_type is MemoryType.EPISODIC and out[0].memory_type is MemoryType.SEMANTIC
    open_mind = reflect_rules(notes, Hexaco(openness=1.0))
    assert NoteType.CREATIVE in {r.note_type for r in open_mind}, "an open mind elevates the idea"


def test_memory_style_follows_personality() -> None:
    assert memory_style(Hexaco(conscientiousness=0.9, openness=0.8), 0.6) is MemoryStyle.STRUCTURED
    assert memory_style(Hexaco(openness=0.9), 0.6) is MemoryStyle.ASSOCIATIVE
    assert memory_style(Hexaco(), 0.6) is MemoryStyle.CONCISE
    assert styled_content("Ship it", NoteType.COMMITMENT, [], MemoryStyle.STRUCTURED) == "Commitment: Ship it"
    assert styled_content("Met Bob", NoteType.FACTUAL, ["Bob", "Lisbon"], MemoryStyle.ASSOCIATIVE) == \
        "Met Bob (connected to Bob, Lisbon)"
    assert styled_content("Met Bob", NoteType.FACTUAL, ["Bob"], MemoryStyle.CONCISE) == "Met Bob"


# ---------------------------------------------------------------- conflicts


@pytest.mark.parametrize(("traits", "policy"), [
    (Hexaco(honesty=0.9, agreeableness=0.9), ConflictPolicy.NEWER_WINS),
    (Hexaco(honesty=0.5, agreeableness=0.9), ConflictPolicy.KEEP_BOTH),
    (Hexaco(), ConflictPolicy.HIGHER_CONFIDENCE),
])
def test_personality_chooses_how_conflicts_are_settled(traits, policy) -> None:
    assert conflict_policy(traits, honesty_threshold=0.6, agreeableness_threshold=0.6) is policy


def test_conflict_winners() -> None:
    old, new = ConflictSide(100, 100, 1.0), ConflictSide(200, 200, 0.7)
    assert conflict_winner(ConflictPolicy.NEWER_WINS, new, old, 0.2) == "new"
    assert conflict_winner(ConflictPolicy.NEWER_WINS, ConflictSide(50, 300, 0.7), old, 0.2) == "old", \
        "the event time decides, not when it was learned"
    assert conflict_winner(ConflictPolicy.KEEP_BOTH, new, old, 0.2) is None
    assert conflict_winner(ConflictPolicy.HIGHER_CONFIDENCE, new, old, 0.2) == "old"
    assert conflict_winner(ConflictPolicy.HIGHER_CONFIDENCE, ConflictSide(200, 200, 0.9), old, 0.2) is None
    same_time = ConflictSide(100, 100, 0.5)
    assert conflict_winner(ConflictPolicy.NEWER_WINS, same_time, old, 0.2) == "old", "a tie falls back to confidence"
