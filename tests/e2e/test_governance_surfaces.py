"""Get, list, update, history, forget, export, users and erase on every surface of `cogmem serve`,
each through a real client: httpx for REST, the official MCP client over streamable HTTP,
`cg.connect`, and the `cogmem` CLI both through `--server` and on a local home.

One server process for the module (embedded backends, hash embedder). Tenancy: a key of
another user or organization gets 404 for a memory that is not its own (never 403), and its
lists and exports do not hold it; an agent key gets 403 for the owner's erase.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession

import cogmem_graph as cg
from cogmem_graph.audit import AuditLog
from cogmem_graph.client import RequestRejected

from .server_harness import Server, add_key, auth, cogmem, free_port, mcp_session
from .server_harness import mcp_tool as tool

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

CALL_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("governance") / "home"
    keys = {
        "alice": add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme"),
        "bob": add_key(home, "--agent", "a2", "--user", "bob", "--org", "acme"),
        "carol": add_key(home, "--agent", "a3", "--user", "carol", "--org", "globex"),
        "eve": add_key(home, "--agent", "a5", "--user", "eve", "--org", "acme"),
        "dan": add_key(home, "--agent", "a6", "--user", "dan", "--org", "initech"),
        "solo": add_key(home, "--agent", "a7", "--user", "solo"),
        "owner": add_key(home, "--owner", "--name", "operator"),
    }
    srv = Server(home, free_port(), ("--consolidate-every", "0", "--rate", "0")).start()
    try:
        yield srv, keys
    finally:
        srv.stop()


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def trace_ids_in(export: str) -> set[str]:
    return {r["props"]["id"] for r in lines(export) if r["record"] == "trace"}


# ---------------------------------------------------------------- REST


def test_rest_get_list_update_history_forget_and_export(server) -> None:
    srv, keys = server
    a = {"headers": auth(keys["alice"]), "timeout": 60}
    v1 = f"{srv.url}/v1"
    paid = httpx.post(f"{v1}/memories", json={"content": "Invoice 88 was paid by card", "tags": ["billing"],
                                              "metadata": {"plan": "pro"}}, **a).json()
    due = httpx.post(f"{v1}/memories", json={"content": "Invoice 91 is due on Friday", "tags": ["billing"],
                                             "metadata": {"plan": "free"}}, **a).json()
    tea = httpx.post(f"{v1}/memories", json={"content": "Alice drinks green tea", "tags": ["preference"],
                                             "type": "semantic"}, **a).json()

    record = httpx.get(f"{v1}/memories/{paid['id']}", **a).json()
    assert record["trace"]["id"] == paid["id"] and record["state"] == "active" and record["version"] == 1
    near = httpx.get(f"{v1}/memories/{paid['id']}/neighbourhood", **a).json()
    assert near["trace"]["id"] == paid["id"] and isinstance(near["edges"], list)

    by_query = httpx.get(f"{v1}/memories", params={"tags_any": "billing"}, **a).json()
    assert {r["trace"]["id"] for r in by_query["items"]} == {paid["id"], due["id"]}
    typed = httpx.get(f"{v1}/memories", params={"type": "semantic"}, **a).json()
    assert [r["trace"]["id"] for r in typed["items"]] == [tea["id"]]
    by_body = httpx.post(f"{v1}/memories/list", json={"where": {"metadata": {"plan": "pro"}}}, **a).json()
    assert [r["trace"]["id"] for r in by_body["items"]] == [paid["id"]]
    first = httpx.post(f"{v1}/memories/list", json={"limit": 2, "order": "oldest"}, **a).json()
    rest_of = httpx.post(f"{v1}/memories/list", json={"limit": 2, "order": "oldest", "cursor": first["cursor"]},
                         **a).json()
    assert [r["trace"]["id"] for r in first["items"] + rest_of["items"]] == [paid["id"], due["id"], tea["id"]]
    misspelt = httpx.get(f"{v1}/memories", params={"tag": "billing"}, **a)
    assert misspelt.status_code == 400 and "tag" in misspelt.json()["error"]

    updated = httpx.patch(f"{v1}/memories/{due['id']}", json={"content": "Invoice 91 is due on Monday"}, **a).json()
    assert updated["version"] == 2 and updated["trace"]["id"] != due["id"]
    retagged = httpx.patch(f"{v1}/memories/{paid['id']}", json={"tags": ["billing", "closed"]}, **a).json()
    assert retagged["trace"]["id"] == paid["id"] and retagged["trace"]["tags"] == ["billing", "closed"]
    versions = httpx.get(f"{v1}/memories/{updated['trace']['id']}/history", **a).json()
    assert [(v["version"], v["state"]) for v in versions] == [(1, "superseded"), (2, "active")]
    assert [v["trace"]["content"] for v in versions] == ["Invoice 91 is due on Friday", "Invoice 91 is due on Monday"]

    recalled = httpx.post(f"{v1}/recall", json={"query": "invoice", "where": {"tags_any": ["closed"]}}, **a).json()
    assert [t["trace"]["id"] for t in recalled["traces"]] == [paid["id"]]
    context = httpx.post(f"{v1}/context", json={"query": "invoice", "where": {"tags_any": ["closed"]}}, **a).json()
    assert context["trace_ids"] == [paid["id"]]
    hop = httpx.post(f"{v1}/multi-hop", json={"query": "invoice", "where": {"type": ["semantic"]}}, **a).json()
    assert all(t["trace"]["type"] == "semantic" for t in hop["traces"])

    exported = httpx.get(f"{v1}/export", **a)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    records = lines(exported.text)
    assert records[0]["record"] == "header" and records[-1]["record"] == "footer"
    assert {paid["id"], tea["id"], updated["trace"]["id"]} <= trace_ids_in(exported.text)

    httpx.post(f"{v1}/memories/pin", json={"ids": [tea["id"]]}, **a)
    pinned = httpx.delete(f"{v1}/memories/{tea['id']}", **a)
    assert pinned.status_code == 409 and "force" in pinned.json()["error"]
    gone = httpx.delete(f"{v1}/memories/{tea['id']}", params={"force": True}, **a).json()
    assert gone["forgotten"] == [tea["id"]]
    assert httpx.get(f"{v1}/memories/{tea['id']}", **a).status_code == 404
    assert httpx.delete(f"{v1}/memories/{tea['id']}", **a).status_code == 404
    by_filter = httpx.post(f"{v1}/memories/forget", json={"where": {"tags_any": ["billing"]}}, **a).json()
    assert {paid["id"], due["id"], updated["trace"]["id"]} <= set(by_filter["forgotten"])
    assert httpx.post(f"{v1}/memories/list", json={}, **a).json()["items"] == []


def test_rest_tenancy_is_404_and_lists_and_exports_leave_others_out(server) -> None:
    srv, keys = server
    v1 = f"{srv.url}/v1"
    alice = {"headers": auth(keys["alice"]), "timeout": 60}
    private = httpx.post(f"{v1}/memories", json={"content": "Alice's passport number is X1234567"}, **alice).json()
    shared = httpx.post(f"{v1}/memories", json={"content": "Acme's office wifi is acme-guest",
                                                "scope": "organization"}, **alice).json()
    for stranger, hidden in (("bob", [private]), ("carol", [private, shared])):
        other = {"headers": auth(keys[stranger]), "timeout": 60}
        for memory in hidden:
            tid = memory["id"]
            for response in (httpx.get(f"{v1}/memories/{tid}", **other),
                             httpx.patch(f"{v1}/memories/{tid}", json={"content": "overwritten"}, **other),
                             httpx.get(f"{v1}/memories/{tid}/history", **other),
                             httpx.get(f"{v1}/memories/{tid}/neighbourhood", **other),
                             httpx.delete(f"{v1}/memories/{tid}", params={"force": True}, **other)):
                assert response.status_code == 404, (stranger, response.request.method, response.text)
            receipt = httpx.post(f"{v1}/memories/forget", json={"ids": [tid]}, **other).json()
            assert receipt["forgotten"] == [] and receipt["not_found"] == [tid]
        listed = {r["trace"]["id"] for r in httpx.get(f"{v1}/memories", **other).json()["items"]}
        listed |= {r["trace"]["id"] for r in httpx.post(f"{v1}/memories/list", json={}, **other).json()["items"]}
        exported = trace_ids_in(httpx.get(f"{v1}/export", **other).text)
        for memory in hidden:
            assert memory["id"] not in listed and memory["id"] not in exported
    bob = {"headers": auth(keys["bob"]), "timeout": 60}
    assert httpx.get(f"{v1}/memories/{shared['id']}", **bob).json()["trace"]["id"] == shared["id"], \
        "an organization memory is its other users' too"
    own = httpx.get(f"{v1}/memories/{private['id']}", **alice).json()["trace"]
    assert own["content"].startswith("Alice's passport")


def test_rest_erase_is_the_owner_s_and_removes_the_user(server) -> None:
    srv, keys = server
    v1 = f"{srv.url}/v1"
    eve = {"headers": auth(keys["eve"]), "timeout": 60}
    owner = {"headers": auth(keys["owner"]), "timeout": 60}
    private = httpx.post(f"{v1}/memories", json={"content": "Eve's home address is 5 Elm Row"}, **eve).json()
    shared = httpx.post(f"{v1}/memories", json={"content": "Eve set up the Acme build cache",
                                                "scope": "organization"}, **eve).json()
    for agent_key in ("eve", "alice"):
        refused = httpx.post(f"{v1}/admin/erase", json={"user_id": "eve", "organization_id": "acme"},
                             headers=auth(keys[agent_key]), timeout=60)
        assert refused.status_code == 403 and "owner operation" in refused.json()["error"]
        assert httpx.get(f"{v1}/admin/export", params={"user_id": "eve", "organization_id": "acme"},
                         headers=auth(keys[agent_key]), timeout=60).status_code == 403
    chosen = httpx.post(f"{v1}/admin/erase", json={"user_id": "eve", "organization_id": "acme", "agent_id": "a5"},
                        **owner)
    assert chosen.status_code == 403 and "agent_id" in chosen.json()["error"]
    copy = httpx.get(f"{v1}/admin/export", params={"user_id": "eve", "organization_id": "acme"}, **owner)
    assert copy.status_code == 200 and private["id"] in trace_ids_in(copy.text)

    receipt = httpx.post(f"{v1}/admin/erase", json={"user_id": "eve", "organization_id": "acme"}, **owner).json()
    assert receipt["user"] == "acme/eve" and receipt["counts"]["traces"] >= 1 and receipt["compacted"]
    assert receipt["counts"]["shared_kept_without_author"] >= 1
    assert httpx.get(f"{v1}/memories/{private['id']}", **eve).status_code == 404
    left = {r["trace"]["id"]: r["trace"] for r in httpx.get(f"{v1}/memories", **eve).json()["items"]}
    assert private["id"] not in left and shared["id"] in left, "what eve shared stays"
    assert left[shared["id"]]["author"] is None, "without its author"
    again = httpx.post(f"{v1}/admin/erase", json={"user_id": "eve", "organization_id": "acme"}, **owner).json()
    assert again["counts"]["traces"] == 0


def test_erase_without_organization_is_refused_on_every_surface_when_the_user_is_under_one(server) -> None:
    """`erase` of a user id without organization_id erases that user outside every organization;
    when only users of that id under organizations have memories it is refused (400) naming
    them and organization_id on REST, cg.connect and the CLI. MCP offers no erase tool."""
    srv, keys = server
    v1 = f"{srv.url}/v1"
    owner = {"headers": auth(keys["owner"]), "timeout": 60}
    dan = httpx.post(f"{v1}/memories", json={"content": "Dan's desk is by the window"},
                     headers=auth(keys["dan"]), timeout=60).json()
    solo = httpx.post(f"{v1}/memories", json={"content": "Solo keeps a paper diary"},
                      headers=auth(keys["solo"]), timeout=60).json()

    refused = httpx.post(f"{v1}/admin/erase", json={"user_id": "dan"}, **owner)
    assert refused.status_code == 400, refused.text
    assert "organization_id" in refused.json()["error"] and "'initech'" in refused.json()["error"]
    assert httpx.get(f"{v1}/admin/export", params={"user_id": "dan"}, **owner).status_code == 400
    with cg.connect(srv.url, keys["owner"]) as by_client, pytest.raises(RequestRejected) as rejected:
        by_client.erase("dan")
    assert rejected.value.status == 400 and "initech" in str(rejected.value)
    by_cli = cogmem("--server", srv.url, "erase", "--user", "dan", COGMEM_API_KEY=keys["owner"])
    assert by_cli.returncode == 2 and "--org" in by_cli.stderr and "initech" in by_cli.stderr, by_cli.stderr
    assert httpx.get(f"{v1}/memories/{dan['id']}", headers=auth(keys["dan"]), timeout=60).status_code == 200
    for _ in range(3):  # an agent key trying the owner's erase: refused, and one audit line says so
        assert httpx.post(f"{v1}/admin/erase", json={"user_id": "dan", "organization_id": "initech"},
                          headers=auth(keys["dan"]), timeout=60).status_code == 403
    dan_key_id = keys["dan"].split("_")[1]
    refusals = [line for line in AuditLog(srv.home).lines()
                if line["operation"] == "refused" and line["actor"] == {"key_id": dan_key_id}]
    assert [(r["refused"]["operation"], r["refused"]["reason"], r["counts"]["refused"]) for r in refusals] == [
        ("erase", "403", 1)], "the repeats wait for the window's summary"

    async def no_mcp_erase() -> None:
        async with mcp_session(srv.url, keys["owner"]) as session:
            assert not {"erase", "export_user"} & {t.name for t in (await session.list_tools()).tools}

    anyio.run(no_mcp_erase)

    receipt = httpx.post(f"{v1}/admin/erase", json={"user_id": "solo"}, **owner).json()
    assert receipt["user"] == "solo" and receipt["counts"]["traces"] == 1
    assert httpx.get(f"{v1}/memories/{solo['id']}", headers=auth(keys["solo"]), timeout=60).status_code == 404
    with cg.connect(srv.url, keys["owner"]) as by_client:
        assert by_client.erase("dan", organization_id="initech").counts["traces"] == 1
    again = cogmem("--server", srv.url, "erase", "--user", "solo", "--json", COGMEM_API_KEY=keys["owner"])
    assert again.returncode == 0 and json.loads(again.stdout)["counts"]["traces"] == 0, again.stderr


def test_users_lists_who_holds_memories_in_one_organization_on_every_surface(server) -> None:
    """The owner's list of users, the ids `erase` takes: one organization's, or those outside
    every organization; an agent key is refused (403)."""
    srv, keys = server
    v1 = f"{srv.url}/v1"
    for who in ("alice", "bob", "carol", "solo"):
        assert httpx.post(f"{v1}/memories", json={"content": f"{who} likes quiet mornings"},
                          headers=auth(keys[who]), timeout=60).status_code == 200
    owner = {"headers": auth(keys["owner"]), "timeout": 60}
    acme = httpx.get(f"{v1}/admin/users", params={"organization_id": "acme"}, **owner).json()
    assert acme["organization_id"] == "acme" and {"alice", "bob"} <= set(acme["users"])
    assert "carol" not in acme["users"] and acme["users"] == sorted(acme["users"])
    outside = httpx.get(f"{v1}/admin/users", **owner).json()["users"]
    assert "solo" in outside and not {"alice", "bob", "carol"} & set(outside)
    refused = httpx.get(f"{v1}/admin/users", params={"organization_id": "acme"}, headers=auth(keys["alice"]),
                        timeout=60)
    assert refused.status_code == 403 and "owner operation" in refused.json()["error"]

    with cg.connect(srv.url, keys["owner"]) as by_client:
        assert "carol" in by_client.users(organization_id="globex")
        assert "alice" not in by_client.users(organization_id="globex")

    async def by_mcp() -> list[str]:
        async with mcp_session(srv.url, keys["owner"]) as session:
            return (await tool(session, "users", organization_id="acme"))["users"]

    assert {"alice", "bob"} <= set(anyio.run(by_mcp))
    by_cli = cogmem("--server", srv.url, "users", "--org", "acme", COGMEM_API_KEY=keys["owner"])
    assert by_cli.returncode == 0 and {"alice", "bob"} <= set(by_cli.stdout.split()), by_cli.stderr
    assert "carol" not in by_cli.stdout.split()


# ---------------------------------------------------------------- cg.connect


def test_connect_has_the_governance_methods_with_the_facade_s_types(server) -> None:
    srv, keys = server
    with cg.connect(srv.url, keys["bob"]) as bob, cg.connect(srv.url, keys["carol"]) as carol:
        note = bob.encode("Bob's parking spot is B-12", tags=["parking"], metadata={"level": 2})
        other = bob.encode("Bob's gym is open until 22:00", tags=["gym"])
        record = bob.get(note.id)
        assert isinstance(record, cg.MemoryRecord) and record.state is cg.MemoryState.ACTIVE and record.version == 1
        page = bob.list({"tags_any": ["parking"]})
        assert isinstance(page, cg.MemoryPage) and [r.id for r in page.items] == [note.id] and page.cursor is None
        assert [r.id for r in bob.list(cg.MemoryFilter(metadata={"level": {"gte": 2}})).items] == [note.id]
        with pytest.raises(ValueError, match="where"):
            bob.list({"colour": "red"})  # checked before it is sent
        moved = bob.update(note.id, content="Bob's parking spot is C-3")
        assert moved.version == 2 and moved.id != note.id and moved.trace.tags == ["parking"]
        assert [r.trace.content for r in bob.history(moved.id)] == ["Bob's parking spot is B-12",
                                                                    "Bob's parking spot is C-3"]
        assert bob.retrieve("When is Bob's gym open?", where={"tags_any": ["gym"]}).ids == [other.id]
        prompt = bob.assemble_for_prompt("Where does Bob park?", where={"tags_any": ["parking"]})
        assert moved.id in prompt.trace_ids and other.id not in prompt.trace_ids
        assert all("gym" in t["trace"]["tags"] for t in bob.multi_hop("gym", where={"tags_any": ["gym"]})["traces"])
        out = io.StringIO()
        counts = bob.export(out)
        assert counts.traces >= 3 and {moved.id, other.id} <= trace_ids_in(out.getvalue())

        for call in (lambda: carol.get(moved.id), lambda: carol.history(moved.id),
                     lambda: carol.update(moved.id, tags=["stolen"])):
            with pytest.raises(RequestRejected) as hidden:
                call()
            assert hidden.value.status == 404
        assert carol.forget(moved.id).not_found == [moved.id]
        assert moved.id not in {r.id for r in carol.list().items}
        theirs = io.StringIO()
        carol.export(theirs)
        assert moved.id not in trace_ids_in(theirs.getvalue())

        receipt = bob.forget(where={"tags_any": ["parking"]})
        assert isinstance(receipt, cg.ForgetReceipt) and {note.id, moved.id} <= set(receipt.forgotten)
        with pytest.raises(RequestRejected) as gone:
            bob.get(moved.id)
        assert gone.value.status == 404
        with pytest.raises(RequestRejected) as not_owner:
            bob.erase("carol", organization_id="globex")
        assert not_owner.value.status == 403

    with cg.connect(srv.url, keys["owner"]) as owner:
        copy = io.StringIO()
        assert owner.export_user(copy, "bob", "acme").traces >= 1 and other.id in trace_ids_in(copy.getvalue())
        erased = owner.erase("carol", organization_id="globex")
        assert isinstance(erased, cg.EraseReceipt) and erased.user == "globex/carol"


# ---------------------------------------------------------------- MCP




async def tool_error(session: ClientSession, name: str, **arguments) -> str:
    with anyio.fail_after(CALL_TIMEOUT_S):
        result = await session.call_tool(name, arguments)
    assert result.is_error
    return result.content[0].text


def test_mcp_list_update_history_forget_and_filtered_recall(server) -> None:
    srv, keys = server

    async def scenario() -> None:
        async with mcp_session(srv.url, keys["alice"]) as alice, mcp_session(srv.url, keys["bob"]) as bob:
            tools = {t.name: t for t in (await alice.list_tools()).tools}
            assert {"forget", "update_memory", "list_memories", "memory_history"} <= set(tools)
            assert "permanent" in tools["forget"].description and "delete or forget" in tools["forget"].description
            assert "new version" in tools["update_memory"].description
            assert "cursor" in tools["list_memories"].description
            assert {"tags_any", "type"} <= set(tools["recall"].input_schema["properties"])
            for name in ("forget", "update_memory", "list_memories", "memory_history"):
                assert not {"user_id", "agent_id", "organization_id"} & set(tools[name].input_schema["properties"])

            dentist = await tool(alice, "remember", content="Alice's dentist is Dr. Okafor", tags=["health"])
            await tool(alice, "remember", content="Alice's dentist appointment is in March", tags=["calendar"])
            listed = await tool(alice, "list_memories", tags_any=["health"])
            assert [m["id"] for m in listed["memories"]] == [dentist["id"]] and listed["cursor"] is None
            assert listed["memories"][0]["state"] == "active" and listed["memories"][0]["version"] == 1
            found = await tool(alice, "recall", query="dentist", tags_any=["health"])
            assert [m["id"] for m in found["memories"]] == [dentist["id"]]

            corrected = await tool(alice, "update_memory", trace_id=dentist["id"], content="Alice's dentist is Dr. Ito")
            assert corrected["version"] == 2 and corrected["id"] != dentist["id"]
            story = await tool(alice, "memory_history", trace_id=corrected["id"])
            assert [v["content"] for v in story["versions"]] == ["Alice's dentist is Dr. Okafor",
                                                                 "Alice's dentist is Dr. Ito"]

            assert "404" in await tool_error(bob, "update_memory", trace_id=corrected["id"], content="x")
            assert "404" in await tool_error(bob, "memory_history", trace_id=corrected["id"])
            assert (await tool(bob, "forget", ids=[corrected["id"]]))["not_found"] == [corrected["id"]]
            assert corrected["id"] not in [m["id"] for m in (await tool(bob, "list_memories"))["memories"]]

            assert "400" in await tool_error(alice, "forget")  # neither ids nor a filter
            receipt = await tool(alice, "forget", where={"tags_any": ["health"]})
            assert {dentist["id"], corrected["id"]} <= set(receipt["forgotten"])
            assert (await tool(alice, "list_memories", tags_any=["health"]))["memories"] == []

    anyio.run(scenario)


# ---------------------------------------------------------------- the CLI through --server


def test_cli_through_the_server(server, tmp_path: Path) -> None:
    srv, keys = server
    note = cg.connect(srv.url, keys["bob"]).encode("Bob's locker is number 31", tags=["office"])

    def bob(*args: str):
        return cogmem("--server", srv.url, *args, COGMEM_API_KEY=keys["bob"])

    listed = bob("list", "--tag", "office", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [r["trace"]["id"] for r in json.loads(listed.stdout)["items"]] == [note.id]
    assert json.loads(bob("get", note.id, "--json").stdout)["state"] == "active"
    updated = bob("update", note.id, "--content", "Bob's locker is number 44", "--json")
    assert updated.returncode == 0, updated.stderr
    new_id = json.loads(updated.stdout)["trace"]["id"]
    versions = json.loads(bob("history", new_id, "--json").stdout)
    assert [v["version"] for v in versions] == [1, 2]
    target = tmp_path / "bob.jsonl"
    exported = bob("export", str(target))
    assert exported.returncode == 0, exported.stderr
    assert new_id in trace_ids_in(target.read_text()) and lines(target.read_text())[-1]["record"] == "footer"

    stranger = cogmem("--server", srv.url, "get", new_id, COGMEM_API_KEY=keys["alice"])
    assert stranger.returncode == 2 and "404" in stranger.stderr
    not_owner = bob("erase", "--user", "alice", "--org", "acme")
    assert not_owner.returncode == 2 and "403" in not_owner.stderr and "owner operation" in not_owner.stderr
    whole = cogmem("--server", srv.url, "export", str(tmp_path / "all.jsonl"), COGMEM_API_KEY=keys["owner"])
    assert whole.returncode == 2 and "whole-store backup" in whole.stderr
    assert not (tmp_path / "all.jsonl").exists()

    forgot = bob("forget", new_id)
    assert forgot.returncode == 0 and "forgot" in forgot.stdout, forgot.stderr
    missing = bob("forget", new_id)
    assert missing.returncode == 2 and new_id in missing.stderr

    owner_copy = cogmem("--server", srv.url, "export", "-", "--user", "bob", "--org", "acme",
                        COGMEM_API_KEY=keys["owner"])
    assert owner_copy.returncode == 0 and lines(owner_copy.stdout)[-1]["record"] == "footer", owner_copy.stderr
    erased = cogmem("--server", srv.url, "erase", "--user", "bob", "--org", "acme", "--json",
                    COGMEM_API_KEY=keys["owner"])
    assert erased.returncode == 0 and json.loads(erased.stdout)["user"] == "acme/bob", erased.stderr


# ---------------------------------------------------------------- the CLI on a local home


def test_cli_on_a_local_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    notes = tmp_path / "notes.txt"
    notes.write_text("Maya's standing desk is set to 112 cm.\n\nMaya's badge number is 5531.\n")
    store = ["--home", str(home), "--embedder", "hash"]

    def maya(*args: str):
        done = cogmem(*store, "--user", "maya", *args, COLUMNS="200")
        assert "Traceback" not in done.stderr
        return done

    assert maya("ingest", str(notes)).returncode == 0
    assert cogmem(*store, "users").stdout.split() == ["maya"]
    items = json.loads(maya("list", "--json").stdout)["items"]
    desk = next(r["trace"]["id"] for r in items if "desk" in r["trace"]["content"])
    updated = maya("update", desk, "--content", "Maya's standing desk is set to 118 cm.", "--json")
    assert updated.returncode == 0, updated.stderr
    new_id = json.loads(updated.stdout)["trace"]["id"]
    shown = maya("history", new_id)
    assert shown.returncode == 0 and "112 cm" in shown.stdout and "118 cm" in shown.stdout
    assert "superseded" in maya("get", desk).stdout
    assert cogmem(*store, "--user", "someone-else", "get", new_id).returncode == 2
    backup = tmp_path / "maya.jsonl"
    exported = cogmem(*store, "export", str(backup), "--user", "maya")
    assert exported.returncode == 0 and new_id in trace_ids_in(backup.read_text()), exported.stderr
    forgot = maya("forget", "--where", '{"type": ["semantic"]}', "--json")
    assert forgot.returncode == 0 and new_id in json.loads(forgot.stdout)["forgotten"], forgot.stderr
    erased = cogmem(*store, "erase", "--user", "maya")
    assert erased.returncode == 0 and "erased user maya" in erased.stdout, erased.stderr
    assert json.loads(cogmem(*store, "users", "--json").stdout) == {"organization_id": None, "users": []}
    assert json.loads(maya("list", "--json").stdout)["items"] == []


def test_cli_erase_without_org_names_the_organization_on_a_local_home(tmp_path: Path) -> None:
    store = ["--home", str(tmp_path / "home"), "--embedder", "hash"]
    notes = tmp_path / "notes.txt"
    notes.write_text("Lena's locker is 17.\n")
    assert cogmem(*store, "--user", "lena", "--org", "acme", "ingest", str(notes)).returncode == 0
    refused = cogmem(*store, "erase", "--user", "lena")
    assert refused.returncode == 2 and "'acme'" in refused.stderr and "--org" in refused.stderr, refused.stderr
    assert len(json.loads(cogmem(*store, "--user", "lena", "--org", "acme", "list", "--json").stdout)["items"]) == 1
    erased = cogmem(*store, "erase", "--user", "lena", "--org", "acme")
    assert erased.returncode == 0 and "erased user acme/lena: 1 memories" in erased.stdout, erased.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["forget"], "ids or --where"),
    (["forget", "t1", "--where", '{"tags_any": ["x"]}'], "not both"),
    (["update", "t1"], "nothing to update"),
    (["list", "--where", "[1]"], "--where must be a JSON object"),
    (["list", "--where", "{nope"], "--where is not JSON"),
    (["list", "--tag", "a", "--where", '{"tags_any": ["b"]}'], "--tag and the 'tags_any' of --where"),
    (["update", "t1", "--metadata", "3"], "--metadata must be a JSON object"),
    (["export", "out.jsonl", "--org", "acme"], "give --user too"),
    (["--user", "maya", "erase", "--user", "maya"], "goes after it"),
    (["--org", "acme", "users"], "goes after it"),
])
def test_cli_usage_errors_name_the_argument(tmp_path: Path, args: list[str], words: str) -> None:
    done = cogmem("--home", str(tmp_path / "home"), *args)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert not (tmp_path / "home").exists(), "a usage error opens no store"
