"""The audit file stays bounded on disk: it rotates by size, keeps a fixed number of files,
summarises repeated refusals, and never loses the lines an operator relies on (erasures,
key changes, refusal summaries), whatever the umask. Real files in a temporary home."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cogmem_graph.audit import AUDIT_FILE, KEPT_FILE, AuditLog
from cogmem_graph.config.audit import AuditConfig
from cogmem_graph.server.keys import KeyRing

SMALL = AuditConfig(max_file_bytes=4096, rotated_files=2, refusal_window_s=60)
AGENT = {"agent_id": "a1", "user_id": "u1", "organization_id": "acme"}


def _forget(log: AuditLog, at: int) -> None:
    log.record("forget", at_ms=at, actor=AGENT, scope_keys=["user:acme/u1"], counts={"traces": 1, "vectors": 1})


def test_rotation_caps_the_files_and_keeps_the_newest_lines(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, SMALL)
    for at in range(1000):  # about 150 bytes a line: 150 kB, far over the 3 files x 4 kB allowed
        _forget(log, at)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [AUDIT_FILE, f"{AUDIT_FILE}.1", f"{AUDIT_FILE}.2"]
    assert all((tmp_path / n).stat().st_size <= SMALL.max_file_bytes for n in names)
    held = [line["at"] for line in log.lines()]
    assert held == sorted(held) and held[-1] == 999, "oldest first, the newest line kept"
    assert 3 * 20 < len(held) < 1000, "the oldest routine lines are gone"


def test_erasures_and_key_changes_outlive_the_rotation(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, SMALL)
    log.record("erase", at_ms=0, actor={"owner": True, "user": "acme/zoe"}, scope_keys=["user:acme/zoe"],
               counts={"traces": 2})
    KeyRing(tmp_path / "server-keys.json").add(agent_id="a1", user_id="u1", name="laptop")
    log.refused("get", "404", at_ms=1, actor={"key_id": "k1"})
    for at in range(2, 1000):
        _forget(log, at)
    assert len([line for line in log.lines() if line["operation"] == "forget"]) < 100
    kept = [json.loads(line) for line in (tmp_path / KEPT_FILE).read_text().splitlines()]
    assert [line["operation"] for line in kept] == ["erase", "key_add", "refused"]
    assert kept[0]["actor"] == {"owner": True, "user": "acme/zoe"} and kept[1]["key"]["name"] == "laptop"
    assert [line["operation"] for line in log.lines()][:3] == ["erase", "key_add", "refused"], "read first"


def test_repeated_refusals_are_one_line_per_key_operation_and_reason_per_window(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, SMALL)
    for i in range(500):
        log.refused("forget", "not_found", at_ms=1000 + i, actor={"key_id": "k1"})
    log.refused("forget", "403", at_ms=2000, actor={"key_id": "k1"})
    log.refused("forget", "not_found", at_ms=2000, actor={"key_id": "k2"})
    first = [(line["actor"]["key_id"], line["refused"]["reason"], line["counts"]["refused"]) for line in log.lines()]
    assert first == [("k1", "not_found", 1), ("k1", "403", 1), ("k2", "not_found", 1)], "the first of each at once"

    log.refused("forget", "not_found", at_ms=1000 + 60_000, actor={"key_id": "k1"})  # the next window
    summary = [line for line in log.lines() if line["counts"]["refused"] == 499]
    assert len(summary) == 1 and summary[0]["refused"] == {"operation": "forget", "reason": "not_found",
                                                            "first_at": 1000}
    assert summary[0]["at"] == 1499, "stamped with the last refusal it counts"
    log.refused("forget", "not_found", at_ms=1000 + 60_001, actor={"key_id": "k1"})
    log.flush(at_ms=70_000)  # a store closing writes what it counted
    assert [line["counts"]["refused"] for line in log.lines()][-2:] == [1, 1]
    assert len(log.lines()) == 6


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old = os.umask(0o002)
    try:
        log = AuditLog(home, SMALL)
        log.record("erase", at_ms=0, actor={"owner": True}, scope_keys=[], counts={})
        for at in range(1, 300):
            _forget(log, at)
    finally:
        os.umask(old)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    files = list(home.iterdir())
    assert {p.name for p in files} >= {AUDIT_FILE, f"{AUDIT_FILE}.1", KEPT_FILE}
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


WRITER = """
import sys
from pathlib import Path
from cogmem_graph.audit import AuditLog
from cogmem_graph.config.audit import AuditConfig
log = AuditLog(Path(sys.argv[1]), AuditConfig(max_file_bytes=4096, rotated_files=1000))
for i in range(300):
    log.record("forget", at_ms=i, actor={"agent_id": sys.argv[2]}, scope_keys=[], counts={"traces": i})
"""


@pytest.mark.timeout(120)
def test_two_processes_rotating_one_file_lose_and_tear_no_line(tmp_path: Path) -> None:
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name]) for name in ("p1", "p2")]
    assert [w.wait(timeout=100) for w in writers] == [0, 0]
    log = AuditLog(tmp_path, AuditConfig(max_file_bytes=4096, rotated_files=1000))
    lines = log.lines()  # each parses: no line was torn
    for name in ("p1", "p2"):
        assert sorted(line["counts"]["traces"] for line in lines if line["actor"]["agent_id"] == name) == list(
            range(300))
    assert len(log.files()) > 10 and all(p.stat().st_size <= 4096 for p in log.files())
