"""Consolidation on an interval inside the server, on a real embedded store."""

from __future__ import annotations

import time

import pytest

from cogmem_graph.server.scheduler import ConsolidationScheduler

pytestmark = pytest.mark.timeout(120)


def test_scheduled_runs_keep_their_last_result_and_stop_cleanly(store) -> None:
    agent = store.agent("a1", user_id="u1")
    agent.encode("The standup moved to 9:30")
    scheduler = ConsolidationScheduler(store, interval_s=0.2)
    assert scheduler.status()["runs"] == 0 and scheduler.status()["last"] is None
    scheduler.start()
    try:
        deadline = time.monotonic() + 60
        while scheduler.status()["runs"] < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        scheduler.stop()
    status = scheduler.status()
    assert status["runs"] >= 2 and status["last"]["trigger"] == "schedule"
    assert status["last"]["result"]["total_processed"] == 1 and status["last"]["result"]["skipped"] is False
    assert not scheduler._thread.is_alive()
    runs = status["runs"]
    time.sleep(0.5)
    assert scheduler.status()["runs"] == runs, "no run after stop"


def test_zero_turns_scheduling_off_and_a_negative_interval_is_refused(store) -> None:
    off = ConsolidationScheduler(store, interval_s=0)
    off.start()
    assert off._thread is None
    off.stop()
    with pytest.raises(ValueError, match="interval_s"):
        ConsolidationScheduler(store, interval_s=-1)


def test_a_failed_run_is_shown_and_the_schedule_goes_on(store) -> None:
    scheduler = ConsolidationScheduler(store, interval_s=0.1)
    store.close()  # every run now fails: StoreClosed
    scheduler.run_once()
    last = scheduler.status()["last"]
    assert last["trigger"] == "schedule" and "StoreClosed" in last["error"]
    assert scheduler.status()["runs"] == 0
