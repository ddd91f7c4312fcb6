"""`cogmem demo` / `make demo`: a built-in conversation of several sessions whose later
session recalls what was said only in an earlier one, on the embedded default
(FalkorDB started by the library, Qdrant local mode) with the hash embedder."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, ManualClock
from cogmem_graph.demo import (
    RECALL,
    RECALL_TOP_K,
    SESSIONS,
    RecallQuestion,
    encode_session,
    recalled,
    run_demo,
)


@pytest.fixture
def replayed(tmp_path: Path) -> Iterator[tuple[cg.MemoryStore, dict[str, list[cg.MemoryTrace]]]]:
    clock = ManualClock(SESSIONS[0].started_ms)
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        yield store, {s.thread_id: encode_session(store, clock, s) for s in SESSIONS}


def test_the_built_in_conversation_spans_sessions_days_apart_for_one_user() -> None:
    assert len(SESSIONS) >= 2
    assert len({s.thread_id for s in SESSIONS}) == len(SESSIONS), "one thread per session"
    gaps = [b.started_ms - a.started_ms for a, b in zip(SESSIONS, SESSIONS[1:], strict=False)]
    assert all(gap >= MS_PER_DAY for gap in gaps), "sessions are days apart"
    later_text = " ".join(text for s in SESSIONS[1:] for text, _ in s.turns).lower()
    for question in RECALL:
        # The answer was said only in the earlier session: recall cannot come from the current one.
        assert question.session == SESSIONS[0].thread_id
        assert not all(word.lower() in later_text for word in question.answer_words), question.question


def test_each_session_is_its_own_thread_with_its_own_dates(replayed) -> None:
    store, by_session = replayed
    for session in SESSIONS:
        traces = by_session[session.thread_id]
        assert len(traces) == len(session.turns)
        assert {t.metadata["session"] for t in traces} == {session.thread_id}
        assert all(session.started_ms <= t.created_at < session.started_ms + MS_PER_DAY for t in traces)
        # Stored for the user, not the thread: the next conversation can see them.
        assert {t.scope_key for t in traces} == {"user:acme/maya"}
    assert store.stats().active_traces == sum(len(s.turns) for s in SESSIONS)


def test_a_later_session_recalls_what_was_said_only_in_the_first(replayed) -> None:
    store, by_session = replayed
    first_ids = {t.id for t in by_session[SESSIONS[0].thread_id]}
    later = store.agent("helper", user_id="maya", thread_id=SESSIONS[-1].thread_id, organization_id="acme")
    for question in RECALL:
        result = later.retrieve(question.question, top_k=RECALL_TOP_K)
        found = recalled(result, question)
        assert found is not None, f"{question.question!r} not answered from the first session: {result.ids}"
        assert found.trace.id in first_ids
        assert found.trace.created_at <= SESSIONS[-1].started_ms - MS_PER_DAY


def test_another_user_of_the_organisation_recalls_none_of_it(replayed) -> None:
    store, _ = replayed
    colleague = store.agent("helper", user_id="sam", thread_id=SESSIONS[-1].thread_id, organization_id="acme")
    for question in RECALL:
        assert recalled(colleague.retrieve(question.question, top_k=RECALL_TOP_K), question) is None


def test_the_recall_check_fails_when_the_answer_came_from_another_session(replayed) -> None:
    store, _ = replayed
    later = store.agent("helper", user_id="maya", thread_id=SESSIONS[-1].thread_id, organization_id="acme")
    result = later.retrieve("Where is the database now?", top_k=RECALL_TOP_K)
    assert any("Postgres" in item.trace.content for item in result.traces)
    assert recalled(result, RecallQuestion("Where is the database now?", ("Postgres",), SESSIONS[0].thread_id)) is None


def test_run_demo_shows_recall_prompt_context_and_statistics(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run_demo(home=tmp_path / "home", embedder="hash", console=Console(file=out, width=200))
    text = out.getvalue()
    assert code == 0, text
    assert text.count("recalled from the first session") == len(RECALL)
    for session in SESSIONS:
        assert f"session {session.thread_id!r}" in text
    assert "assemble_for_prompt:" in text and "Docker Compose" in text
    assert "store statistics:" in text and f"{sum(len(s.turns) for s in SESSIONS) + 1} active traces" in text
    assert "sees 0 of Maya's memories" in text


def test_cogmem_demo_command_exits_zero(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    env["COLUMNS"] = "200"
    done = subprocess.run(
        [sys.executable, "-m", "cogmem_graph.cli", "--embedder", "hash", "demo", "--home", str(tmp_path / "h")],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert "questions recalled across sessions" in done.stdout and "Traceback" not in done.stderr
