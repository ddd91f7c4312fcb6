"""Control over what the memory holds, through the facade: get, list, filters, update,
history, forget, erase, export, the audit file, and what stays on disk after an erasure.

Everything runs on the embedded FalkorDB and Qdrant Edge with the hash embedder and a
manual clock; tenancy is checked with handles of other users and organizations.
"""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.audit import AuditLog
from cogmem_graph.clock import MS_PER_DAY, ManualClock
from cogmem_graph.portable import import_store

DAY = 86_400_000


def _files_holding(home: Path, marker: str) -> list[str]:
    needle = marker.encode()
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and needle in p.read_bytes())


# ---------------------------------------------------------------- reading


def test_get_shows_state_and_version_and_hides_other_tenants(store: cg.MemoryStore) -> None:
    mine = store.agent("helper", user_id="rosa", organization_id="acme")
    theirs = store.agent("helper", user_id="rosa", organization_id="globex")
    stranger = store.agent("helper", user_id="ivan", organization_id="acme")
    note = mine.encode("Rosa's locker code is 4417", type="semantic")

    record = mine.get(note.id)
    assert record.trace.content == "Rosa's locker code is 4417"
    assert record.state is cg.MemoryState.ACTIVE and record.version == 1 and not record.trace.pinned
    for outsider in (theirs, stranger):
        with pytest.raises(cg.MemoryNotFound):
            outsider.get(note.id)
        assert outsider.list().items == []
        assert note.id not in {h.trace.id for h in outsider.retrieve("locker code").traces}


def test_list_pages_are_stable_while_memories_are_written(store: cg.MemoryStore, clock: ManualClock) -> None:
    agent = store.agent("scribe", user_id="noor")
    first = [agent.encode(f"Journal entry number {i}: the tide was {i} metres", created_at=clock.now_ms() + i)
             for i in range(23)]
    seen: list[str] = []
    page = agent.list(limit=10)
    while True:
        seen += [r.id for r in page.items]
        # Written between pages, newer than anything listed: never shows up in a later page.
        agent.encode(f"Late note written while paging ({len(seen)})", created_at=clock.now_ms() + 10_000 + len(seen))
        if page.cursor is None:
            break
        page = agent.list(limit=10, cursor=page.cursor)
    assert len(seen) == len(set(seen)) == 23
    assert set(seen) == {t.id for t in first}
    oldest = agent.list(order="oldest", limit=3).items
    assert [r.trace.content for r in oldest][0].startswith("Journal entry number 0")
    with pytest.raises(ValueError, match="cursor"):
        agent.list(cursor="not-a-cursor")
    with pytest.raises(ValueError, match="order"):
        agent.list(order="sideways")


def test_one_filter_model_for_list(store: cg.MemoryStore, clock: ManualClock) -> None:
    agent = store.agent("crm", user_id="lena", organization_id="acme")
    t0 = clock.now_ms()
    agent.encode("Invoice 88 was paid in full", tags=["billing", "paid"], created_at=t0,
                 metadata={"amount": 120.5, "account": {"tier": "gold"}, "due": "2026-03-01"})
    agent.encode("Invoice 91 is overdue", tags=["billing"], created_at=t0 + DAY,
                 metadata={"amount": 40, "account": {"tier": "silver"}, "due": "2026-05-01"})
    agent.encode("Lena prefers calls after lunch", type="semantic", tags=["preference"], created_at=t0 + 2 * DAY,
                 source_type="agent_inference", metadata={"account": {"tier": "gold"}})
    agent.encode("Team handbook lives in Confluence", scope="organization", created_at=t0 + 3 * DAY)

    def contents(where: dict) -> set[str]:
        return {r.trace.content.split(" ")[0] + " " + r.trace.content.split(" ")[1] for r in agent.list(where).items}

    assert contents({"tags_any": ["paid", "preference"]}) == {"Invoice 88", "Lena prefers"}
    assert contents({"tags_all": ["billing", "paid"]}) == {"Invoice 88"}
    assert contents({"metadata": {"account.tier": "gold"}}) == {"Invoice 88", "Lena prefers"}
    assert contents({"metadata": {"account.tier": ["silver", "bronze"]}}) == {"Invoice 91"}
    assert contents({"metadata": {"amount": {"gte": 50}}}) == {"Invoice 88"}
    assert contents({"metadata": {"due": {"lt": "2026-04-01"}}}) == {"Invoice 88"}
    assert contents({"type": "semantic"}) == {"Lena prefers"}
    assert contents({"source_type": ["agent_inference"]}) == {"Lena prefers"}
    assert contents({"scope": "organization"}) == {"Team handbook"}
    assert contents({"created_after": t0 + DAY, "created_before": t0 + 3 * DAY}) == {"Invoice 91", "Lena prefers"}
    assert contents({"entity": ["Confluence"]}) == {"Team handbook"}
    assert contents({"state": ["dormant"]}) == set()
    with pytest.raises(ValueError, match="where.metadata"):
        agent.list({"metadata": {"amount": {"between": [1, 2]}}})
    with pytest.raises(ValueError, match="where"):
        agent.list({"colour": "red"})


def test_a_filtered_retrieve_returns_top_k_matching_memories(store: cg.MemoryStore) -> None:
    agent = store.agent("ops", user_id="kai")
    agent.encode_many([{"content": f"Deploy note {i}: the deploy of service {i} went fine", "tags": ["staging"]}
                       for i in range(120)])
    agent.encode_many([{"content": f"Deploy note P{i}: production deploy {i} needed a rollback",
                        "tags": ["production"], "metadata": {"region": "eu" if i % 2 else "us"}}
                       for i in range(6)])
    plain = agent.retrieve("deploy note", top_k=5, record_access=False)
    assert sum("production" in h.trace.tags for h in plain.traces) < 5  # 6 of 126 match: the filter decides
    filtered = agent.retrieve("deploy note", top_k=5, record_access=False, where={"tags_any": ["production"]})
    assert len(filtered.traces) == 5 and all("production" in h.trace.tags for h in filtered.traces)
    eu = agent.retrieve("deploy", top_k=10, record_access=False,
                        where={"tags_any": ["production"], "metadata": {"region": "eu"}})
    assert len(eu.traces) == 3 and all(h.trace.metadata["region"] == "eu" for h in eu.traces)
    hop = agent.multi_hop("deploy rollback", top_k=5, where={"tags_any": ["production"]})
    assert hop.traces and all("production" in t.trace.tags for t in hop.traces)
    prompt = agent.assemble_for_prompt("deploy note", where={"tags_any": ["production"]})
    assert prompt.trace_ids and set(prompt.trace_ids) <= {h.trace.id for h in agent.list(
        {"tags_any": ["production"]}).items}


# ---------------------------------------------------------------- changing


def test_update_makes_a_version_and_history_tells_it(store: cg.MemoryStore, clock: ManualClock) -> None:
    agent = store.agent("concierge", user_id="mia")
    before = clock.now_ms()
    original = agent.encode("Mia's dentist appointment is on Tuesday at 9", tags=["health"])
    clock.advance(DAY)
    corrected = agent.update(original.id, content="Mia's dentist appointment moved to Thursday at 11")
    assert corrected.version == 2 and corrected.id != original.id and corrected.updated_by == "concierge"
    assert corrected.trace.tags == ["health"]
    old = agent.get(original.id)
    assert old.state is cg.MemoryState.SUPERSEDED and old.superseded_by == (corrected.id,)
    assert old.trace.valid_until is not None

    versions = agent.history(corrected.id)
    assert [v.trace.content for v in versions] == [original.content, corrected.trace.content]
    assert [v.id for v in agent.history(original.id)] == [v.id for v in versions]

    now_answer = agent.retrieve("When is the dentist appointment?", record_access=False).traces
    assert now_answer[0].trace.id == corrected.id
    then = agent.retrieve("When is the dentist appointment?", as_of=before + 1000, record_access=False).traces
    assert then and then[0].trace.id == original.id
    story = agent.retrieve("dentist appointment", timeline=True, record_access=False).traces
    assert [h.trace.id for h in story][:2] == [original.id, corrected.id]
    with pytest.raises(ValueError, match="replaced"):
        agent.update(original.id, content="Tuesday after all")


def test_update_in_place_changes_tags_metadata_and_what_filters_find(store: cg.MemoryStore) -> None:
    agent = store.agent("librarian", user_id="ola")
    book = agent.encode("Ola borrowed 'Dune' from the library", tags=["books"], metadata={"due": "2026-12-01"})
    edited = agent.update(book.id, tags=["books", "overdue"], metadata={"due": "2026-11-01", "fine": 2})
    assert edited.id == book.id and edited.version == 1
    assert edited.trace.tags == ["books", "overdue"] and edited.trace.metadata == {"due": "2026-11-01", "fine": 2}
    found = agent.retrieve("borrowed Dune", record_access=False, where={"tags_all": ["overdue"]}).traces
    assert [h.trace.id for h in found] == [book.id]
    assert agent.list({"metadata": {"fine": {"gt": 1}}}).items[0].id == book.id
    pinned = agent.update(book.id, pinned=True)
    assert pinned.trace.pinned
    with pytest.raises(ValueError, match="at least one"):
        agent.update(book.id)
    with pytest.raises(cg.MemoryNotFound):
        store.agent("librarian", user_id="someone-else").update(book.id, tags=["x"])


def test_encode_importance_says_what_to_use_instead(store: cg.MemoryStore) -> None:
    agent = store.agent("a", user_id="u")
    with pytest.raises(ValueError) as info:
        agent.encode("The server room code is 2231", importance=0.9)
    assert "pinned=" in str(info.value) and "confidence=" in str(info.value)


# ---------------------------------------------------------------- forgetting


def test_a_forgotten_memory_never_comes_back_and_the_rest_rank_as_before(
        store: cg.MemoryStore, clock: ManualClock) -> None:
    agent = store.agent("guide", user_id="yuki")
    keep = agent.encode_many([
        {"content": "Yuki hikes in the Alps every August"},
        {"content": "Yuki's favourite trail is the Eiger Trail"},
        {"content": "Yuki packs a red rain jacket for hikes"},
    ])
    secret = agent.encode("Yuki's passport number is X1234567 and she hikes with it")
    again = agent.encode("Yuki's passport number is X1234567 and she hikes with it")  # reinforces it
    assert again.id == secret.id
    rank_before = [h.trace.id for h in agent.retrieve("hikes trail jacket", record_access=False).traces
                   if h.trace.id != secret.id]

    receipt = agent.forget(secret.id)
    assert secret.id in receipt.forgotten and receipt.counts["traces"] >= 1 and receipt.counts["vectors"] >= 1
    assert not receipt.not_found and not receipt.skipped_pinned
    with pytest.raises(cg.MemoryNotFound):
        agent.get(secret.id)
    for result in (agent.retrieve("passport number", record_access=False),
                   agent.retrieve("passport number", timeline=True, record_access=False),
                   agent.retrieve("passport number", as_of=clock.now_ms(), record_access=False)):
        assert all("passport" not in h.trace.content for h in result.traces + result.partial)
    assert all("passport" not in t.trace.content for t in agent.multi_hop("Yuki passport").traces)
    assert "X1234567" not in agent.assemble_for_prompt("What is Yuki's passport number?").text
    rank_after = [h.trace.id for h in agent.retrieve("hikes trail jacket", record_access=False).traces]
    assert rank_after == rank_before and {t.id for t in keep} <= set(rank_after)
    assert agent.forget(secret.id).not_found == [secret.id]  # run again: nothing left to do


def test_forget_spares_pinned_memories_unless_forced_and_takes_filters(store: cg.MemoryStore) -> None:
    agent = store.agent("nurse", user_id="abe")
    anchor = agent.encode("Abe is allergic to penicillin", pinned=True)
    notes = agent.encode_many([{"content": f"Ward round note {i}", "tags": ["round"]} for i in range(4)])
    kept = agent.forget(anchor.id)
    assert kept.skipped_pinned == [anchor.id] and agent.get(anchor.id)
    assert agent.forget(anchor.id, force=True).forgotten == [anchor.id]
    by_filter = agent.forget(where={"tags_any": ["round"]})
    assert sorted(by_filter.forgotten) == sorted(t.id for t in notes)
    assert agent.list().items == []
    with pytest.raises(ValueError, match="not both"):
        agent.forget()
    with pytest.raises(ValueError, match="erase"):
        agent.forget(where={})


def test_forget_with_compact_leaves_no_trace_in_any_file(tmp_path: Path, clock: ManualClock) -> None:
    marker = "QUOKKA-7731-FORGET"
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        agent = store.agent("a", user_id="u")
        doomed = agent.encode(f"My bank PIN is {marker}", tags=[marker], metadata={"note": marker})
        agent.encode("I like walking by the river")
        assert _files_holding(store.home, marker)  # written: it is on disk somewhere
        agent.forget(doomed.id, compact=True)
        assert _files_holding(store.home, marker) == []
        assert agent.retrieve("walking by the river").traces
    assert _files_holding(tmp_path / "home", marker) == []


# ---------------------------------------------------------------- a whole user


def test_erase_removes_a_user_from_every_file_and_keeps_the_organizations(
        tmp_path: Path, clock: ManualClock) -> None:
    marker = "PANGOLIN-5521-ERASE"
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        leaving = store.agent("assistant", user_id="zoe", thread_id="t1", organization_id="acme")
        staying = store.agent("assistant", user_id="sam", thread_id="t9", organization_id="acme")
        leaving.encode(f"Zoe's home address is 12 {marker} Road")
        leaving.encode(f"Zoe mentioned {marker} in this thread", scope="thread")
        leaving.remind(f"Ask Zoe about {marker}", on_keywords=["garden"])
        shared = leaving.encode("The office wifi password rotates monthly", scope="organization")
        sam_fact = staying.encode("Sam drinks oat milk")
        clock.advance(120 * MS_PER_DAY)  # her passing remark fades: the run counts it in her thread's scope
        assert store.consolidate().dormant >= 1
        assert "acme/zoe" in (home / "consolidation_runs.jsonl").read_text()

        receipt = store.erase("zoe", organization_id="acme")
        assert "zoe" not in (home / "consolidation_runs.jsonl").read_text(), "the runs kept name her no more"
        assert receipt.counts["traces"] == 2 and receipt.counts["other_nodes"] >= 1
        assert receipt.counts["shared_kept_without_author"] == 1 and receipt.compacted
        assert _files_holding(home, marker) == []
        assert staying.get(sam_fact.id)
        org_copy = staying.get(shared.id)
        assert org_copy.trace.author is None
        assert leaving.list({"scope": ["user", "thread"]}).items == []
        assert leaving.reminders() == []

        again = store.erase("zoe", organization_id="acme")
        assert again.counts["traces"] == 0 and again.counts["other_nodes"] == 0

        with_shared = store.agent("assistant", user_id="kim", organization_id="acme")
        org_note = with_shared.encode("Kim set up the shared calendar", scope="organization")
        assert store.erase("kim", organization_id="acme", include_shared=True).counts["shared_deleted"] == 1
        with pytest.raises(cg.MemoryNotFound):
            staying.get(org_note.id)

        lines = [json.loads(line) for line in (home / "audit.jsonl").read_text().splitlines()]
        assert [line["operation"] for line in lines].count("erase") == 3
        assert marker not in (home / "audit.jsonl").read_text()
        assert stat.S_IMODE((home / "audit.jsonl").stat().st_mode) == 0o600
    assert _files_holding(home, marker) == []


def test_erase_without_organization_names_the_organizations_instead_of_erasing_nothing(
        store: cg.MemoryStore) -> None:
    acme = store.agent("assistant", user_id="u1", thread_id="t1", organization_id="acme")
    globex = store.agent("assistant", user_id="u1", organization_id="globex")
    lookalike = store.agent("assistant", user_id="acme", thread_id="u1")  # thread:acme/u1, no organization
    acme.encode("U1 of Acme parks on level 3", scope="thread")
    globex.encode("U1 of Globex cycles to work")
    lookalike.encode("A user called acme has a thread called u1", scope="thread")

    for call in (lambda: store.erase("u1"), lambda: store.export(io.StringIO(), user_id="u1")):
        with pytest.raises(ValueError, match="organization_id") as refused:
            call()
        assert "'acme', 'globex'" in str(refused.value) and "no memories outside an organization" in str(refused.value)
    assert len(acme.list().items) == 1 and len(globex.list().items) == 1, "a refusal erases nothing"

    solo = store.agent("assistant", user_id="u1")  # the user without an organization, once they have memories
    solo.encode("U1 without an organization reads on the train")
    receipt = store.erase("u1")
    assert receipt.user == "u1" and receipt.scope_keys == ["user:u1"] and receipt.counts["traces"] == 1
    assert solo.list().items == [] and len(acme.list().items) == 1 and len(globex.list().items) == 1
    assert store.erase("nobody").counts["traces"] == 0, "a user found nowhere: nothing to erase, no refusal"
    assert store.erase("u1", organization_id="acme").counts["traces"] == 1
    with pytest.raises(ValueError, match="organization 'globex': pass organization_id"):
        store.erase("u1")


def test_forgetting_what_a_key_cannot_see_is_summarised_in_the_audit_file(tmp_path: Path, clock: ManualClock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        owner = store.agent("assistant", user_id="ana", organization_id="acme")
        prober = store.agent("assistant", user_id="mal", organization_id="globex")
        secret = owner.encode("Ana's safe code is 9911")
        for _ in range(200):
            assert prober.forget(secret.id).not_found == [secret.id]
        assert owner.get(secret.id)
        owner.forget(secret.id)
        before_close = [line["operation"] for line in AuditLog(home).lines()]
        assert before_close == ["refused", "forget"], "one line at once for 200 refusals, not 200 lines"
    lines = AuditLog(home).lines()
    summary = lines[-1]
    assert summary["operation"] == "refused" and summary["counts"] == {"refused": 199}
    assert summary["refused"]["operation"] == "forget" and summary["refused"]["reason"] == "not_found"
    assert summary["actor"]["user_id"] == "mal", "closing the store wrote the repeats' summary"


def test_one_users_export_imports_into_another_store(tmp_path: Path, clock: ManualClock) -> None:
    with cg.open(home=tmp_path / "a", embedder="hash", clock=clock) as source:
        owner = source.agent("helper", user_id="ines", thread_id="t", organization_id="acme")
        owner.encode("Ines studies marine biology", tags=["study"])
        owner.encode("Ines is in Lisbon this week", scope="thread")
        source.agent("helper", user_id="other", organization_id="acme").encode("Not Ines's memory")
        owner.encode("Shared org fact", scope="organization")
        by_agent, by_owner = io.StringIO(), io.StringIO()
        owner.export(by_agent)
        source.export(by_owner, user_id="ines", organization_id="acme")
    for text in (by_agent.getvalue(), by_owner.getvalue()):
        assert "Not Ines" not in text and "Shared org fact" not in text
    with cg.open(home=tmp_path / "b", embedder="hash", clock=clock) as target:
        counts = import_store(target, by_owner.getvalue().splitlines())
        assert counts.traces == 2
        ines = target.agent("helper", user_id="ines", thread_id="t", organization_id="acme")
        assert {r.trace.content for r in ines.list().items} == {"Ines studies marine biology",
                                                                 "Ines is in Lisbon this week"}
        assert ines.retrieve("marine biology").traces[0].trace.content == "Ines studies marine biology"


def test_forget_takes_the_archived_original_and_the_notes_it_came_from(store: cg.MemoryStore) -> None:
    from cogmem_graph.between_turns.archive import ArchiveNotFound, MemoryArchive

    agent = store.agent("listener", user_id="eli", thread_id="s1")
    agent.observe("user", "My sister Ana is getting married in Lisbon on 4 October, I am her witness.")
    agent.observe("assistant", "Congratulations to Ana! I will remember the date.")
    flushed = agent.flush_observations()
    reflected = flushed.reflection.traces if flushed.reflection else []
    assert reflected, "the offline observer and reflector turn the conversation into memories"
    target = reflected[0]
    notes_before = agent.observations(limit=50)
    assert any(target.id in (n.trace_ids or ()) for n in notes_before)
    MemoryArchive(store.graph, store.clock).store([target], reason="test_gist")  # as a gist would
    assert agent.rehydrate(target.id) == target.content

    receipt = agent.forget(target.id, force=True)
    assert receipt.counts["archived"] == 1 and receipt.counts["observation_notes"] >= 1
    assert not any(target.id in (n.trace_ids or ()) for n in agent.observations(limit=50))
    with pytest.raises(ArchiveNotFound):
        agent.rehydrate(target.id)


def test_forget_leaves_the_files_at_the_next_consolidation(tmp_path: Path, clock: ManualClock) -> None:
    marker = "NUMBAT-2290-LATER"
    with cg.open(home=tmp_path / "home", embedder="hash", clock=clock) as store:
        agent = store.agent("a", user_id="u")
        doomed = agent.encode(f"The safe combination is {marker}")
        agent.encode("Lunch is at noon on Fridays")
        agent.forget(doomed.id)
        assert (store.home / "compaction.due").exists()
        assert _files_holding(store.home, marker), "deleted, not yet compacted: still in the log"
        clock.advance(DAY)
        store.consolidate()
        assert not (store.home / "compaction.due").exists()
        assert _files_holding(store.home, marker) == []
