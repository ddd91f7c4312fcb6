"""The graph's write lane: a write left unconfirmed is read by whoever comes next, and a caller
on an event loop reads it in place only when that waits for nothing."""

from __future__ import annotations

import threading

import pytest

from cogmem_graph.graph.falkordb.write_lane import WriteLane


def test_confirm_reads_the_write_left_unconfirmed_once() -> None:
    lane, read = WriteLane(), []
    lane.leave_unconfirmed(lambda: read.append("reply"))
    assert lane.has_unconfirmed()
    lane.confirm()
    lane.confirm()
    assert read == ["reply"] and not lane.has_unconfirmed()


def test_a_reply_not_yet_arrived_is_left_for_a_thread_to_wait_for() -> None:
    lane, read, arrived = WriteLane(), [], [False]
    lane.leave_unconfirmed(lambda: read.append("reply"), arrived=lambda: arrived[0])
    assert not lane.confirm_if_arrived() and read == [] and lane.has_unconfirmed()
    arrived[0] = True
    assert lane.confirm_if_arrived() and read == ["reply"] and not lane.has_unconfirmed()
    assert lane.confirm_if_arrived(), "nothing left: nothing to wait for"


def test_without_a_way_to_tell_the_reply_is_never_read_in_place() -> None:
    lane = WriteLane()
    lane.leave_unconfirmed(lambda: None)
    assert not lane.confirm_if_arrived() and lane.has_unconfirmed()


def test_while_another_thread_reads_the_reply_the_caller_does_not_wait_in_place() -> None:
    lane, reading, release = WriteLane(), threading.Event(), threading.Event()

    def slow_reply() -> None:
        reading.set()
        release.wait(10)

    lane.leave_unconfirmed(slow_reply, arrived=lambda: True)
    reader = threading.Thread(target=lane.confirm)
    reader.start()
    assert reading.wait(10)
    assert lane.has_unconfirmed(), "a reply being read still counts as unconfirmed"
    assert not lane.confirm_if_arrived()
    release.set()
    reader.join(10)
    assert lane.confirm_if_arrived()


def test_a_rejected_write_raises_where_it_is_confirmed() -> None:
    lane = WriteLane()

    def rejected() -> None:
        raise RuntimeError("rejected")

    lane.leave_unconfirmed(rejected, arrived=lambda: True)
    with pytest.raises(RuntimeError, match="rejected"):
        lane.confirm_if_arrived()
    assert not lane.has_unconfirmed()
