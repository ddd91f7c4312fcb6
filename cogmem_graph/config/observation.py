"""Observer and reflector configuration: what a conversation leaves behind.

Reference values (doc 000): the observer turns buffered conversation into notes
once the buffer holds 30,000 tokens; the reflector turns accumulated notes into
long-term traces once they hold 40,000 tokens. Notes are typed (factual,
emotional, commitment, preference, creative, correction). From doc 003's
observer: a note keeps at most 500 characters and 8 entities, and text whose
information density is below 2 is filler, not an observation.

The remaining numbers are this library's choices, documented with their fields:
how strongly personality tilts what is kept (`min_salience`, `min_importance`),
how sure a rule-based reading is (`rule_confidence`), and when a trait counts as
"high" for focus and memory style (0.6, the honesty threshold the consolidation
reference uses). The reflector's conflict rules reuse the consolidation
contradiction numbers (`ConsolidationConfig.contradiction_honesty_threshold`,
`contradiction_confidence_gap`): one place per fact.
"""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.clock import MS_PER_MINUTE
from cogmem_graph.config.graph import _Config


class ObserverConfig(_Config):
    """Buffered turns → typed observation notes."""

    activation_threshold_tokens: int = Field(
        30_000, ge=1, le=10_000_000, description="the observer runs once the unobserved turns hold this many tokens"
    )
    min_salience: float = Field(
        0.3, ge=0.0, le=1.0,
        description="a note is kept when importance x personality focus reaches this (a neutral agent keeps "
        "notes of importance 0.3; high emotionality keeps weaker emotional notes, low emotionality drops them)",
    )
    focus_trait_threshold: float = Field(
        0.6, ge=0.0, le=1.0, description="a trait above this is named as a focus in the observer's LLM prompt"
    )
    rule_confidence: float = Field(
        0.8, ge=0.0, le=1.0,
        description="confidence of a note read by the keyword rules (an LLM states its own); it becomes the "
        "reflected trace's confidence",
    )
    min_note_words: int = Field(
        3, ge=1, le=100,
        description="content words a sentence needs to become a rule-based note ('great, thanks' is not)",
    )
    min_fact_density: int = Field(
        2, ge=1, le=100,
        description="entities + numbers + stated facts a sentence without any cue needs to become a factual note",
    )
    max_note_chars: int = Field(500, ge=20, le=100_000, description="a note's content is cut at this length")
    max_entities_per_note: int = Field(8, ge=0, le=100)
    prompt_notes: int = Field(
        10, ge=0, le=1_000,
        description="newest unreflected notes offered to the Observations section of assemble_for_prompt",
    )
    max_turns_per_run: int = Field(2_000, ge=1, le=1_000_000, description="buffered turns one observer run takes")
    llm_max_tokens: int = Field(1_500, ge=16, le=100_000, description="answer budget of the observer's LLM call")
    claim_lease_ms: int = Field(
        10 * MS_PER_MINUTE, ge=1,
        description="turns claimed by a run that never finished become claimable again after this",
    )


class ReflectorConfig(_Config):
    """Observation notes → long-term traces, through the normal write path."""

    activation_threshold_tokens: int = Field(
        40_000, ge=1, le=10_000_000, description="the reflector runs once unreflected notes hold this many tokens"
    )
    min_importance: float = Field(
        0.4, ge=0.0, le=1.0,
        description="a (merged) note becomes a long-term trace when importance x personality focus reaches this; "
        "weaker notes stay notes unless they are observed again (repetition raises importance)",
    )
    merge_similarity: float = Field(
        0.8, gt=0.0, le=1.0, description="word overlap (Jaccard) at or above which two notes of one type are merged"
    )
    agreeableness_threshold: float = Field(
        0.6, ge=0.0, le=1.0,
        description="an agent above this (and not above the honesty threshold) keeps both sides of a conflict",
    )
    style_trait_threshold: float = Field(
        0.6, ge=0.0, le=1.0,
        description="conscientiousness above this writes structured traces, openness above this associative ones",
    )
    max_notes_per_run: int = Field(1_000, ge=1, le=1_000_000, description="notes one reflector run takes")
    llm_max_tokens: int = Field(1_500, ge=16, le=100_000, description="answer budget of the reflector's LLM call")
    claim_lease_ms: int = Field(
        10 * MS_PER_MINUTE, ge=1,
        description="notes claimed by a run that never finished become claimable again after this",
    )
