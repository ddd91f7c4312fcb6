"""The consolidation runs kept under the home: bounded, private, newest first, and read by
scope so that a caller who sees some scope keys learns only those keys' counts."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cogmem_graph.api.consolidation_log import MAX_RUNS, ConsolidationLog
from cogmem_graph.between_turns.consolidation.result import ConsolidationResult


def run_over(**by_scope: dict[str, int]) -> ConsolidationResult:
    result = ConsolidationResult(scope_keys=list(by_scope))
    for key, counts in by_scope.items():
        before = result.counts()
        for name, n in counts.items():
            setattr(result, name, getattr(result, name) + n)
        result.credit(key, before)
    return result


def test_runs_are_kept_newest_first_bounded_and_private(tmp_path: Path) -> None:
    log = ConsolidationLog(tmp_path / "home")
    assert log.runs() == []
    for at in range(MAX_RUNS + 5):
        log.record(run_over(u1={"merged": 1}), trigger="schedule", at_ms=at)
    runs = log.runs(limit=MAX_RUNS)
    assert len(runs) == MAX_RUNS and runs[0]["at"] == MAX_RUNS + 4 and runs[-1]["at"] == 5
    assert stat.S_IMODE(os.stat(log.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(log.path.parent).st_mode) == 0o700
    with pytest.raises(ValueError, match="limit"):
        log.runs(limit=0)


def test_a_reader_of_some_scopes_sees_only_their_counts(tmp_path: Path) -> None:
    log = ConsolidationLog(tmp_path)
    log.record(run_over(maya={"merged": 2, "dormant": 1}, tom={"merged": 5, "schemas_created": 1}),
               trigger="schedule", at_ms=1)
    log.record(run_over(tom={"conflicts_resolved": 3}), trigger="schedule", at_ms=2)
    store_wide = log.runs()
    assert [r["counts"]["merged"] for r in store_wide] == [0, 7] and store_wide[1]["scope_keys"] == 2
    mine = log.runs(visible=["maya"])
    assert len(mine) == 1, "a run that counted nothing in maya's scopes is not hers to see"
    assert mine[0]["counts"]["merged"] == 2 and mine[0]["counts"]["schemas_created"] == 0
    assert set(mine[0]) == {"at", "trigger", "counts"}, "nothing of the run's other scopes, not even its duration"
    assert log.runs(visible=["nobody"]) == []


def test_an_erased_users_scope_keys_leave_every_run_and_the_totals_stay(tmp_path: Path) -> None:
    log = ConsolidationLog(tmp_path)
    log.record(run_over(**{"user:acme/zoe": {"merged": 2}, "user:acme/sam": {"merged": 1}}),
               trigger="schedule", at_ms=1)
    log.record(run_over(**{"user:acme/sam": {"dormant": 4}}), trigger="schedule", at_ms=2)
    assert log.forget_scopes(["user:acme/zoe", "thread:acme/zoe/t1"]) == 1
    assert "zoe" not in log.path.read_text()
    assert log.runs(visible=["user:acme/zoe"]) == []
    assert [r["counts"]["merged"] for r in log.runs()] == [0, 3], "store-wide totals name nobody and stay"
    assert log.runs(visible=["user:acme/sam"])[1]["counts"]["merged"] == 1
    assert stat.S_IMODE(os.stat(log.path).st_mode) == 0o600
    assert log.forget_scopes(["user:acme/zoe"]) == 0
