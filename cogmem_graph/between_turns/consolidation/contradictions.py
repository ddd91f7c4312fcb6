"""Step 5: contradiction resolution over CONTRADICTS. Honest agents believe the newer side,
others the clearly more confident one; the winner SUPERSEDES the loser."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from cogmem_graph.graph.port import Resolution
from cogmem_graph.graph.rows import ContradictionRow
from cogmem_graph.model import Hexaco

RESOLVED_REASON = "superseded"
"""The reason on the SUPERSEDES edge from a contradiction's winner to its loser."""

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext


def side_time(row: ContradictionRow, side: Literal["a", "b"]) -> tuple[int, int]:
    """When one side of a contradiction was said: event time, then record time."""
    if side == "a":
        return row["aCreatedAt"] or 0, row["aRecordedAt"] or 0
    return row["bCreatedAt"] or 0, row["bRecordedAt"] or 0


def resolution_winner(row: ContradictionRow, honesty: float, honesty_threshold: float,
                      confidence_gap: float) -> str | None:
    """Who wins a contradiction: newer wins for an honest agent; otherwise the more confident
    side, only when it leads by more than the gap. None: leave it unresolved."""
    a_time, b_time = side_time(row, "a"), side_time(row, "b")
    if honesty > honesty_threshold and a_time != b_time:
        return row["a"] if a_time > b_time else row["b"]
    gap = float(row["aConfidence"] or 0.0) - float(row["bConfidence"] or 0.0)
    if abs(gap) > confidence_gap:
        return row["a"] if gap > 0 else row["b"]
    return None


def resolve_contradictions(sc: StepContext, key: str) -> None:
    """The run's `traits` None: each contradiction is judged with the traits of the agent that
    wrote its newer side (as its handle was opened in this process), else `fallback_traits`."""
    cfg = sc.ctx.config.consolidation
    rows = sc.ctx.graph.unresolved_contradictions(key, cfg.max_traces_per_cycle)
    decided: list[Resolution] = []
    lost: set[str] = set()
    for row in rows:
        if row["a"] in lost or row["b"] in lost or row["a"] == row["b"]:
            continue
        judge = sc.traits or traits_of(sc, row)
        winner = resolution_winner(row, judge.honesty, cfg.contradiction_honesty_threshold,
                                   cfg.contradiction_confidence_gap)
        if winner is None:
            continue
        loser = row["b"] if winner == row["a"] else row["a"]
        if row["bPinned" if loser == row["b"] else "aPinned"]:
            continue  # a truth anchor is never superseded by consolidation
        lost.add(loser)
        decided.append(Resolution(winner, loser))
    if not decided:
        return
    keep = sc.ctx.config.retention.forgetting == "dormant"
    losers = sc.ctx.graph.resolve_contradictions(decided, key, now=sc.now(), reason=RESOLVED_REASON,
                                                 weight=sc.ctx.config.graph.edges.supersedes_weight,
                                                 keep_loser=keep)
    if not keep:
        sc.deactivate_vectors(losers)
    sc.result.conflicts_resolved += len(losers)


def traits_of(sc: StepContext, row: ContradictionRow) -> Hexaco:
    agent_id = row["aAgent"] if side_time(row, "a") >= side_time(row, "b") else row["bAgent"]
    return sc.ctx.agent_traits(agent_id) or sc.fallback_traits
