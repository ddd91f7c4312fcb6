"""The write path pauses Python's cyclic collector for a batch: it must always come back
as the application left it, whatever happens in the batch or in other threads."""

from __future__ import annotations

import gc
import threading

import pytest

from cogmem_graph.gc_pause import collector_paused


@pytest.fixture(autouse=True)
def _collector_as_found():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_inside_and_back_after() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_failing_batch_still_brings_the_collector_back() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("batch failed")
    assert gc.isenabled()


def test_a_collector_the_application_disabled_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_switched_off_by_config_it_touches_nothing() -> None:
    gc.enable()
    with collector_paused(enabled=False):
        assert gc.isenabled()
    assert gc.isenabled()


def test_overlapping_batches_in_two_threads_resume_only_when_the_last_ends() -> None:
    gc.enable()
    first_in, second_in, first_may_end, first_out = (threading.Event() for _ in range(4))
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            first_may_end.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with collector_paused():
        second_in.set()
        first_may_end.set()
        first_out.wait(5)
        seen.append(gc.isenabled())  # the first batch ended, this one has not
    thread.join(5)
    assert seen == [False]
    assert gc.isenabled()
