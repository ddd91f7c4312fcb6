"""How the embedded FalkorDB is started and stopped: in a process group of its own, with the
parent-death signal asked for (and never started once its parent is gone), and stopped with the SHUTDOWN command (the
clean shutdown SIGTERM starts, without waiting for the server's timer), or with SIGTERM when
the command cannot be sent; either way the writes it acknowledged are kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cogmem_graph.graph.falkordb.launcher import LOG_FILE, _parent_death_signal
from cogmem_graph.graph.falkordb.store import FalkorGraphStore
from cogmem_graph.model import MemoryTrace

KEYS = ["user:u1"]


def _store_with_one_trace(data_dir: Path) -> tuple[FalkorGraphStore, MemoryTrace]:
    store = FalkorGraphStore(data_dir=data_dir)
    store.setup_schema()
    trace = MemoryTrace(content="acknowledged before the stop", scope_id="u1", agent_id="a", created_at=1)
    store.upsert_traces([trace])
    return store, trace


def _kept(data_dir: Path, trace: MemoryTrace) -> bool:
    reopened = FalkorGraphStore(data_dir=data_dir)
    try:
        return reopened.get_traces([trace.id], KEYS) == [trace]
    finally:
        reopened.close()


def test_the_server_is_shut_down_on_request_and_keeps_what_it_acknowledged(tmp_path: Path) -> None:
    store, trace = _store_with_one_trace(tmp_path / "graph")
    server = store.embedded_server
    assert server is not None and server.process is not None
    assert os.getpgid(server.process.pid) == server.process.pid  # Ctrl-C in a terminal does not reach it
    store.close()
    assert server.process.returncode == 0
    log = (tmp_path / "graph" / LOG_FILE).read_text()
    assert "User requested shutdown" in log and "Received SIGTERM" not in log
    assert _kept(tmp_path / "graph", trace)


def test_a_server_that_cannot_be_asked_is_stopped_with_sigterm(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store, trace = _store_with_one_trace(tmp_path / "graph")
    server = store.embedded_server
    assert server is not None and server.process is not None
    monkeypatch.setattr(server, "password", "not-the-password")  # the SHUTDOWN client is refused at AUTH
    store.close()
    assert server.process.returncode == 0
    assert "Received SIGTERM" in (tmp_path / "graph" / LOG_FILE).read_text()
    assert _kept(tmp_path / "graph", trace)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_child_whose_parent_is_already_gone_ends_before_it_becomes_the_server() -> None:
    """A parent that dies between the fork and the child's request would never signal it: the
    child sees it has another parent than the one that started it and ends at once."""
    as_if_orphaned = subprocess.run(["sleep", "30"], preexec_fn=_parent_death_signal(os.getppid()), timeout=10)
    assert as_if_orphaned.returncode == 1
    with_its_parent = subprocess.run(["true"], preexec_fn=_parent_death_signal(os.getpid()), timeout=10)
    assert with_its_parent.returncode == 0
