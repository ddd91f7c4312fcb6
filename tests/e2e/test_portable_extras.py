"""A portable backup carries more than the trace graph: pending reminders (with a context
trigger's cue vector), the observer's notes and the turns still buffered for it. Run on the
embedded default (FalkorDB started by the library, the embedded vector index, the hash
embedder) with a controlled clock: export, import into a fresh home, compare."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, ManualClock
from cogmem_graph.config import CogmemConfig
from cogmem_graph.portable import PortableFormatError, export_store, import_store

START = 1_700_000_000_000
PRICING_CUE = "we discuss the pricing of the enterprise plan"
PRICING_TURN = "What should the pricing of the enterprise plan be?"
SESSION = (
    "Actually, I moved to Berlin last month. I prefer dark mode in every editor. "
    "I need to ship the quarterly report by Friday. The demo made me nervous. "
    "What if we built a tiny robot that waters the plants? Alice works at Google since 2019."
)
TEA = "I prefer tea over coffee in the morning."
NEW_KINDS = {"prospective", "observation_note", "conversation_turn"}


def _config() -> CogmemConfig:
    """The observer writes notes past 40 tokens; the reflector never runs on its own, so the
    notes stay pending (what a backup taken mid-conversation holds)."""
    cfg = CogmemConfig()
    cfg.observer.activation_threshold_tokens = 40
    cfg.reflector.activation_threshold_tokens = 1_000_000
    return cfg


def _open(home: Path) -> cg.MemoryStore:
    return cg.open(home=home, embedder="hash", clock=ManualClock(START), config=_config())


def _u1(store: cg.MemoryStore) -> cg.AgentMemory:
    return store.agent("helper", user_id="u1", thread_id="t1")


def _u2(store: cg.MemoryStore) -> cg.AgentMemory:
    return store.agent("helper", user_id="u2")


def _export(store: cg.MemoryStore) -> str:
    out = io.StringIO()
    export_store(store, out, batch_size=2)  # small pages: the id cursor is exercised
    return out.getvalue()


def _records(text: str) -> list[dict]:
    return [r for r in (json.loads(line) for line in text.splitlines()) if r["record"] != "header"]


def _of(text: str, kind: str) -> list[dict]:
    return [r["props"] for r in _records(text) if r["record"] == kind]


@pytest.fixture
def source(tmp_path: Path) -> Iterator[cg.MemoryStore]:
    """Two tenants' memories: traces, a time, a context and a cancelled keyword reminder,
    pending observation notes, and turns still in the observer's buffer."""
    with _open(tmp_path / "source") as store:
        agent = _u1(store)
        agent.encode("The PR for the billing service is open")
        agent.encode("The enterprise plan costs 40 euros per seat")
        agent.remind("Ask whether the PR review is done", at=START + MS_PER_HOUR, importance=0.8)
        agent.remind("Mention the volume discount", on_context=PRICING_CUE)
        spent = agent.remind("Send the invoice", on_keywords=["invoice"])
        assert agent.cancel_reminder(spent.id)
        assert agent.observe("user", SESSION).notes, "the observer wrote notes"
        assert agent.observe("user", TEA).buffered_turns == 1
        assert agent.observe("assistant", "Noted, tea it is.").buffered_turns == 2
        other = _u2(store)
        other.remind("Water the plants", on_keywords=["garden"])
        assert other.observe("user", "Hello there, good morning!").buffered_turns == 1
        yield store


def test_export_writes_reminders_notes_and_buffered_turns_with_every_property(source) -> None:
    out = io.StringIO()
    counts = export_store(source, out)
    text = out.getvalue()
    agent = _u1(source)
    notes = agent.observations(limit=50)
    assert (counts.reminders, counts.observation_notes, counts.conversation_turns) == (4, len(notes), 3)
    assert json.loads(text.splitlines()[-1])["counts"]["reminders"] == 4

    reminders = {p["content"]: p for p in _of(text, "prospective")}
    assert set(reminders) == {"Ask whether the PR review is done", "Mention the volume discount",
                              "Send the invoice", "Water the plants"}
    context = reminders["Mention the volume discount"]
    assert context["cue"] == PRICING_CUE and context["embedModel"] == source.embedder.name
    assert isinstance(context["cueEmbedding"], str) and context["cueEmbedding"]
    assert reminders["Send the invoice"]["active"] is False and reminders["Send the invoice"]["cancelledAt"]
    assert {p["id"] for p in _of(text, "observation_note")} == {n.id for n in notes}
    turns = sorted((p["scopeKey"], p["seq"], p["role"], p["content"]) for p in _of(text, "conversation_turn"))
    assert turns == [("user:u1", 1, "user", TEA), ("user:u1", 2, "assistant", "Noted, tea it is."),
                     ("user:u2", 1, "user", "Hello there, good morning!")]


def test_a_fresh_home_gets_the_same_reminders_notes_and_buffer(source, tmp_path) -> None:
    backup = tmp_path / "backup.jsonl"
    backup.write_text(_export(source))
    with _open(tmp_path / "target") as target, backup.open() as fh:
        counts = import_store(target, fh, batch_size=2)
        assert (counts.reminders, counts.observation_notes, counts.conversation_turns) == (
            4, len(_u1(source).observations(limit=50)), 3)
        assert _records(_export(target)) == _records(backup.read_text()), "property for property"

        for handle in (_u1, _u2):
            assert handle(target).reminders(include_inactive=True) == handle(source).reminders(include_inactive=True)
            assert handle(target).observations(limit=50) == handle(source).observations(limit=50)
        assert [r.content for r in _u2(target).reminders()] == ["Water the plants"], "scopes kept"

        # the context reminder fires on the same context, in both homes alike
        fired_there = _u1(source).check_reminders(PRICING_TURN)
        fired_here = _u1(target).check_reminders(PRICING_TURN)
        assert [f.intention.content for f in fired_here] == ["Mention the volume discount"]
        assert fired_here[0].similarity == pytest.approx(fired_there[0].similarity)
        target.clock.advance(hours=1)
        assert [f.intention.content for f in _u1(target).check_reminders()] == ["Ask whether the PR review is done"]

        # the buffer goes on where it stopped, and the observer reads the restored turns
        assert _u1(target).observe("user", "Thanks.").buffered_turns == 3
        written = _u1(target).flush_observations().notes
        assert TEA in {n.content for n in written}


def test_importing_twice_changes_nothing(source, tmp_path) -> None:
    text = _export(source)
    with _open(tmp_path / "target") as target:
        first = import_store(target, io.StringIO(text))
        once = _export(target)
        second = import_store(target, io.StringIO(text))
        assert second == first
        assert _records(_export(target)) == _records(once)
        assert len(_u1(target).reminders(include_inactive=True)) == 3

        # a restored node takes the backup's state, not a blend with what changed since
        _u1(target).check_reminders(PRICING_TURN)
        assert _u1(target).reminders() != _u1(source).reminders()
        import_store(target, io.StringIO(text))
        assert _u1(target).reminders(include_inactive=True) == _u1(source).reminders(include_inactive=True)


def test_a_backup_without_the_new_records_still_imports(source, tmp_path) -> None:
    """A file written before reminders, notes and turns were exported: no such records and a
    footer that does not count them."""
    old = []
    for line in _export(source).splitlines():
        record = json.loads(line)
        if record["record"] in NEW_KINDS:
            continue
        if record["record"] == "footer":
            for key in ("reminders", "observation_notes", "conversation_turns"):
                del record["counts"][key]
        old.append(json.dumps(record))
    with _open(tmp_path / "target") as target:
        counts = import_store(target, old)
        assert counts.traces == source.stats().total_traces == 2
        assert (counts.reminders, counts.observation_notes, counts.conversation_turns) == (0, 0, 0)
        agent = _u1(target)
        assert agent.reminders(include_inactive=True) == [] and agent.observations() == []
        assert [t.trace.content for t in agent.retrieve("billing service PR", top_k=1).traces] == [
            "The PR for the billing service is open"]


def test_a_broken_reminder_record_names_the_line_and_the_field(source, tmp_path) -> None:
    lines = _export(source).splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["record"] == "prospective")
    broken = json.loads(lines[at])
    del broken["props"]["scopeKey"]
    lines[at] = json.dumps(broken)
    with _open(tmp_path / "target") as target, pytest.raises(PortableFormatError, match=rf"line {at + 1}: .*scopeKey"):
        import_store(target, lines)

    turn = json.loads(next(line for line in lines if json.loads(line)["record"] == "conversation_turn"))
    turn["props"]["seq"] = "first"
    with _open(tmp_path / "target2") as target, pytest.raises(PortableFormatError, match=r"props\.seq"):
        import_store(target, [lines[0], json.dumps(turn)])


def test_clearing_the_graph_leaves_no_reminder_note_or_turn(source) -> None:
    source.graph.clear()
    source.graph.setup_schema()  # an emptied FalkorDB graph has lost its indexes too
    counts = export_store(source, io.StringIO())
    assert (counts.traces, counts.reminders, counts.observation_notes, counts.conversation_turns) == (0, 0, 0, 0)
    assert _u1(source).reminders(include_inactive=True) == [] and _u1(source).observations() == []
