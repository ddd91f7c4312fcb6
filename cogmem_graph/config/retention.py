"""Retention configuration: what the memory keeps, for how long, and what forgetting does.

The decay curve (`DecayConfig`) says how fast a memory weakens; these settings say what
that weakness is allowed to cost. Defaults, and why (the measurements are in
`docs/retention.md`, from `benchmarks/lifecycle.py`):

* Forgetting makes a memory **dormant**, not gone: it leaves the default candidate set
  but a query that matches it strongly still finds it, and recalling it makes it active
  again (the second reference's dormant tier). `"delete"` soft-deletes instead, as the
  first reference's pruning does.
* **Minimum retention by kind of memory** (second reference): preferences, corrections
  and identities (who someone is, their family, health, accounts) are never forgotten
  by decay; commitments and decisions are kept at least 45 days since last use, facts
  14 days, anything else 7 days.
* **Information density** (second reference: entities + facts + temporal signals +
  correction signals): each unit lengthens stability, so small talk fades first.
* Interference and near-duplicate merging never weaken nor merge a memory that carries
  a different fact (other numbers, names or dates) than its neighbour.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cogmem_graph.clock import MS_PER_DAY
from cogmem_graph.config.graph import _Config

RetentionCategory = Literal["preference", "correction", "identity", "commitment", "fact", "other"]


def _never_forgotten() -> list[RetentionCategory]:
    return ["preference", "correction", "identity"]


class RetentionConfig(_Config):
    """Every number of what forgetting may take, and what it does to what it takes."""

    forgetting: Literal["dormant", "delete"] = Field(
        "dormant",
        description="what consolidation does to a memory decayed below the prune threshold: make it dormant "
        "(out of the default candidate set, found again by a strong match, active again once recalled) "
        "or soft-delete it",
    )
    min_retention_commitment_ms: int = Field(
        45 * MS_PER_DAY, ge=0, description="commitments and decisions are not forgotten sooner after last use"
    )
    min_retention_fact_ms: int = Field(14 * MS_PER_DAY, ge=0, description="facts are not forgotten sooner")
    min_retention_other_ms: int = Field(7 * MS_PER_DAY, ge=0, description="anything else is not forgotten sooner")
    permanent_categories: list[RetentionCategory] = Field(
        default_factory=_never_forgotten,
        description="kinds of memory that decay never makes dormant (still subject to contradiction)",
    )
    density_stability_gain: float = Field(
        1.0, ge=0.0, le=10.0,
        description="stability × (1 + gain · information density): a memory with more entities, facts and "
        "dates lasts longer than small talk",
    )
    density_cap: int = Field(6, ge=0, le=100, description="information density counted up to this")
    fact_density: int = Field(
        2, ge=1, le=100, description="information density from which a memory counts as a fact (below: other)"
    )
    protect_distinct_facts: bool = Field(
        True,
        description="interference, near-duplicate reinforcement and merging leave alone a neighbour that "
        "carries other numbers, names or dates (a different fact, however similar the sentence)",
    )
    dormant_recall_rank: int = Field(
        10, ge=0, le=1000,
        description="a dormant memory joins a retrieval's candidates when it ranks this high by relevance among "
        "the query's dense and lexical matches (0: only the similarity path below)",
    )
    dormant_recall_rank_about_self: int = Field(
        50, ge=0, le=1000,
        description="on a question about the asker (first person), a dormant memory that states something (any "
        "category but `other`) joins the candidates when it ranks this high by relevance: what the user told "
        "about themselves answers a direct question about it even when the words match weakly (0: off)",
    )
    dormant_recall_similarity: float = Field(
        0.6, ge=-1.0, le=1.0,
        description="... or when its cosine with the query exceeds this (the tip-of-the-tongue cue)",
    )
    reinforce_retrieved_only: bool = Field(
        True,
        description="consolidation's spaced-repetition step reinforces only memories that were recalled at "
        "least once (the first reference reinforces every due memory, which keeps everything forever)",
    )
