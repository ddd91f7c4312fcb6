"""`cogmem serve` through real clients: httpx for the REST API, `cg.connect` in separate
client processes, and the `cogmem --server` CLI. One server process for the module, on
the embedded backends with the hash embedder; identities come only from API keys."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import cogmem_graph as cg
from cogmem_graph.client import OPERATION_ROUTES, RequestRejected, ServerError
from cogmem_graph.home import EDGE_DIR

from .server_harness import REPO, Server, add_key, auth, child_env, cogmem, free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

MAX_BODY = 8192
CLIENT = REPO / "tests" / "e2e" / "_server_client.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("server") / "home"
    keys = {
        "alice": add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme", "--name", "alice"),
        "bob": add_key(home, "--agent", "a2", "--user", "bob", "--org", "acme"),
        "carol": add_key(home, "--agent", "a3", "--user", "carol", "--org", "globex"),
        "owner": add_key(home, "--owner", "--name", "operator"),
        "slow": add_key(home, "--agent", "a4", "--user", "slow", "--rate", "1"),
    }
    srv = Server(home, free_port(), ("--max-body-bytes", str(MAX_BODY), "--consolidate-every", "1"))
    srv.start()
    try:
        yield srv, keys
    finally:
        srv.stop()
    assert srv.proc is not None and srv.proc.returncode is not None


def client_process(url: str, key: str, *args: str, stdin: str = "") -> list | dict:
    done = subprocess.run([sys.executable, str(CLIENT), url, *args], input=stdin, capture_output=True, text=True,
                          env=child_env(COGMEM_API_KEY=key), cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_health_and_readiness_need_no_key_and_everything_else_does(server) -> None:
    srv, keys = server
    assert httpx.get(f"{srv.url}/health").json() == {"status": "ok"}
    assert httpx.get(f"{srv.url}/ready").json() == {"ready": True, "graph": "ok", "vectors": "ok"}
    # Ready means every vector partition is made: no user's first write stops the server to make one.
    collections = [c for c in (srv.home / EDGE_DIR).iterdir() if c.is_dir()]
    assert collections and all(sorted(p.name for p in c.iterdir() if p.is_dir()) == [f"p{i}" for i in range(8)]
                               for c in collections)
    missing = httpx.get(f"{srv.url}/v1/whoami")
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
    assert "API key" in missing.json()["error"]
    wrong = keys["alice"][:-4] + ("AAAA" if not keys["alice"].endswith("AAAA") else "BBBB")
    for headers in (auth(wrong), auth("not-a-key"), {"Authorization": f"Basic {keys['alice']}"}):
        assert httpx.get(f"{srv.url}/v1/whoami", headers=headers).status_code == 401
    assert httpx.post(f"{srv.url}/v1/recall", json={"query": "x"}, headers=auth(wrong)).status_code == 401
    assert httpx.post(f"{srv.url}/mcp", json={}, headers=auth(wrong)).status_code == 401
    with pytest.raises(ServerError) as refused:
        cg.connect(srv.url, wrong).whoami()
    assert refused.value.status == 401
    me = httpx.get(f"{srv.url}/v1/whoami", headers={"X-API-Key": keys["alice"]}).json()
    assert me["identity"] == {"agent_id": "a1", "user_id": "alice", "organization_id": "acme"}
    assert me["visible_scope_keys"] == ["agent:acme/a1", "user:acme/alice", "organization:acme"]


def test_two_client_processes_of_one_organization_share_its_memories_and_not_their_users(server) -> None:
    srv, keys = server
    alice_wrote = client_process(srv.url, keys["alice"], "write", stdin=json.dumps([
        {"content": "The Acme deploy window is Thursday at 14:00 UTC", "scope": "organization", "type": "semantic"},
        {"content": "Alice is allergic to peanuts and keeps it private", "scope": "user", "type": "semantic"},
    ]))
    bob_wrote = client_process(srv.url, keys["bob"], "write", stdin=json.dumps([
        {"content": "Bob's salary review is due in October", "type": "semantic"},
    ]))
    org_id, alice_private = alice_wrote[0]["id"], alice_wrote[1]["id"]
    assert [w["scope_key"] for w in alice_wrote] == ["organization:acme", "user:acme/alice"]
    assert bob_wrote[0]["scope_key"] == "user:acme/bob"

    bob_sees = client_process(srv.url, keys["bob"], "recall", "When is the Acme deploy window?")
    assert org_id in [m["id"] for m in bob_sees], "an organization memory is shared with its other agents"
    for query in ("Alice is allergic to peanuts", "peanuts allergy private"):
        seen = client_process(srv.url, keys["bob"], "recall", query)
        assert alice_private not in [m["id"] for m in seen]
        assert all(m["scope_key"] in ("organization:acme", "user:acme/bob", "agent:acme/a2") for m in seen)
    alice_sees = client_process(srv.url, keys["alice"], "recall", "Bob's salary review")
    assert bob_wrote[0]["id"] not in [m["id"] for m in alice_sees]
    assert client_process(srv.url, keys["bob"], "get", alice_private) == {"status": 404}
    assert client_process(srv.url, keys["alice"], "get", alice_private) == {"found": alice_private}
    carol_sees = client_process(srv.url, keys["carol"], "recall", "When is the Acme deploy window?")
    assert org_id not in [m["id"] for m in carol_sees], "another organization sees nothing of acme"


def test_a_request_cannot_choose_another_identity(server) -> None:
    srv, keys = server
    bob = cg.connect(srv.url, keys["bob"])
    private = bob.encode("Bob's locker code is 4471", type="semantic")
    alice = {"headers": auth(keys["alice"]), "timeout": 30}
    for body in ({"query": "locker code", "user_id": "bob"}, {"query": "locker code", "agent_id": "a2"},
                 {"query": "locker code", "scope_keys": ["user:acme/bob"]}):
        refused = httpx.post(f"{srv.url}/v1/recall", json=body, **alice)
        assert refused.status_code == 403, refused.text
        assert "identity comes from the API key" in refused.json()["error"]
    refused = httpx.post(f"{srv.url}/v1/memories/batch", **alice,
                         json={"items": [{"content": "x", "organization_id": "globex"}]})
    assert refused.status_code == 403
    assert httpx.get(f"{srv.url}/v1/reminders?user_id=bob", **alice).status_code == 403
    assert httpx.get(f"{srv.url}/v1/memories/{private.id}", **alice).status_code == 404
    pinned = httpx.post(f"{srv.url}/v1/memories/pin", json={"ids": [private.id]}, **alice).json()
    assert pinned == {"pinned": []}, "another user's memory is out of reach, even by id"
    assert bob.neighbourhood(private.id)["trace"]["pinned"] is False
    with pytest.raises(TypeError):
        cg.connect(srv.url, keys["alice"]).retrieve("locker code", user_id="bob")  # type: ignore[call-arg]
    assert private.id not in cg.connect(srv.url, keys["alice"]).retrieve("Bob's locker code").ids


def test_remote_agent_has_the_agent_handle_methods(server) -> None:
    srv, keys = server
    with cg.connect(srv.url, keys["alice"]) as alice:
        trace = alice.encode("Dana joined Initech as head of research", type="semantic")
        alice.encode("Initech moved its headquarters to Lisbon", type="semantic")
        assert isinstance(trace, cg.MemoryTrace) and trace.scope_key == "user:acme/alice"
        result = alice.retrieve("Dana Initech")
        assert isinstance(result, cg.RetrievalResult) and trace.id in result.ids
        top = next(t for t in result.traces if t.trace.id == trace.id)
        assert top.sources and set(top.signals) and top.score > 0
        assert alice.pin(trace.id) == [trace.id] and alice.unpin([trace.id]) == [trace.id]
        reminder = alice.remind("ask Dana about the Lisbon office", on_keywords=["lisbon"])
        assert reminder.id in [r.id for r in alice.reminders()]
        assembled = alice.assemble_for_prompt("what about Lisbon?", token_budget=400)
        assert isinstance(assembled, cg.AssembledContext) and assembled.tokens_used <= 400
        assert [r.intention.id for r in assembled.reminders] == [reminder.id]
        other = alice.remind("call Initech", on_keywords=["invoice"])
        assert alice.cancel_reminder(other.id) is True and alice.cancel_reminder(other.id) is False
        hop = alice.multi_hop("Where is the company Dana joined?")
        assert hop["traces"] and all(t["evidence"].startswith("query") for t in hop["traces"])
        assert alice.observe("user", "I usually work from the Lisbon office on Fridays")["buffered_turns"] >= 1
        near = alice.neighbourhood(trace.id)
        assert near["trace"]["id"] == trace.id and isinstance(near["edges"], list)
        with pytest.raises(RequestRejected) as bad:
            alice.retrieve("x", top_k=0)
        assert bad.value.status == 422
        with pytest.raises(RequestRejected) as blank:
            alice.encode("   ")
        assert blank.value.status in (400, 422) and "content" in blank.value.message


def test_remote_agent_asks_about_now_a_point_in_time_or_the_timeline(server) -> None:
    srv, keys = server
    with cg.connect(srv.url, keys["bob"]) as bob:
        now = int(time.time() * 1000)
        old = bob.encode("The team wifi password is hunter-2", created_at=now - 30 * 86_400_000,
                         valid_until=now - 10 * 86_400_000)
        new = bob.encode("The team wifi password is tulip-7", created_at=now - 10 * 86_400_000)
        current = bob.retrieve("team wifi password", top_k=5, record_access=False)
        assert current.ids[0] == new.id, "now: the current password first (the old one, replaced, below it)"
        then = bob.retrieve("team wifi password", top_k=5, record_access=False, as_of=now - 20 * 86_400_000)
        assert then.ids[0] == old.id and new.id not in then.ids and then.as_of == now - 20 * 86_400_000
        story = bob.retrieve("team wifi password", top_k=5, record_access=False, timeline=True)
        assert story.timeline and story.ids.index(old.id) < story.ids.index(new.id)
        assert bob.retrieve("thanks!").gated


def test_owner_operations_need_an_owner_key_and_stats_show_the_scheduled_consolidation(server) -> None:
    srv, keys = server
    with pytest.raises(RequestRejected) as refused:
        cg.connect(srv.url, keys["alice"]).consolidate()
    assert refused.value.status == 403 and "owner" in refused.value.message
    owner = cg.connect(srv.url, keys["owner"])
    deadline = time.monotonic() + 30
    while (status := owner.stats()["consolidation"])["runs"] < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status["interval_s"] == 1.0 and status["runs"] >= 1
    assert status["last"]["trigger"] == "schedule" and "result" in status["last"]
    assert owner.stats()["store"]["active_traces"] >= 1
    run = owner.consolidate()
    assert "total_processed" in run
    assert owner.repair()["reindexed"] == 0
    counts = owner.stats()["store"]
    assert owner.repair(reembed=True)["reembedded"] == counts["active_traces"] + counts["inactive_traces"]
    with pytest.raises(RequestRejected) as no_identity:
        owner.retrieve("anything")
    assert no_identity.value.status == 403


def test_body_size_and_rate_limits_answer_clearly(server) -> None:
    srv, keys = server
    big = httpx.post(f"{srv.url}/v1/memories", json={"content": "x" * (MAX_BODY + 10)},
                     headers=auth(keys["alice"]), timeout=30)
    assert big.status_code == 413 and f"{MAX_BODY} bytes" in big.json()["error"]

    def chunks():
        for _ in range(4):
            yield b"x" * (MAX_BODY // 2)

    streamed = httpx.post(f"{srv.url}/v1/memories", content=chunks(), headers=auth(keys["alice"]), timeout=30)
    assert streamed.status_code == 413, "a body without Content-Length is counted as it arrives"
    # A second's refill may land between any two of these on a loaded machine: read the
    # first refusal among them rather than expecting the next request to be one.
    answers = [httpx.get(f"{srv.url}/v1/whoami", headers=auth(keys["slow"])) for _ in range(6)]
    assert [a.status_code for a in answers[:2]] == [200, 200]
    limited = next((a for a in answers if a.status_code == 429), None)
    assert limited is not None, [a.status_code for a in answers]
    assert int(limited.headers["retry-after"]) >= 1
    assert "rate limit" in limited.json()["error"]
    assert httpx.get(f"{srv.url}/v1/whoami", headers=auth(keys["alice"])).status_code == 200, "per key"


def test_openapi_schema_has_every_client_operation(server) -> None:
    srv, _ = server
    schema = httpx.get(f"{srv.url}/openapi.json").json()
    for op, (method, path) in OPERATION_ROUTES.items():
        assert method.lower() in schema["paths"].get(path, {}), f"{op}: {method} {path} not in the schema"


def test_cli_with_server_answers_as_the_key(server, tmp_path) -> None:
    srv, keys = server
    notes = tmp_path / "notes.txt"
    notes.write_text("The Acme wiki moved to wiki.acme.example.\n\nCarol's team owns the billing service.\n")
    ingested = cogmem("--server", srv.url, "--key", keys["alice"], "ingest", str(notes), "--scope", "organization")
    assert ingested.returncode == 0 and "2 stored or merged, 0 skipped" in ingested.stdout, ingested.stderr
    wiki = cg.connect(srv.url, keys["bob"]).retrieve("Where is the Acme wiki?")
    assert "wiki.acme.example" in wiki.traces[0].trace.content and wiki.traces[0].trace.agent_id == "a1"
    cg.connect(srv.url, keys["bob"]).encode("The Acme printer on floor 2 needs a blue badge", scope="organization")
    done = cogmem("--server", srv.url, "recall", "printer floor 2", "--json", COGMEM_API_KEY=keys["alice"])
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["traces"]
    assert any("printer" in t["content"] for t in found)
    refused = cogmem("--server", srv.url, "--key", keys["alice"], "--user", "bob", "recall", "printer")
    assert refused.returncode == 2 and "API key decides the identity" in refused.stderr
    wrong = cogmem("--server", srv.url, "--key", "cgm_nope", "recall", "printer")
    assert wrong.returncode == 1 and "401" in wrong.stderr
    owner = cogmem("--server", srv.url, "stats", COGMEM_API_KEY=keys["owner"])
    assert owner.returncode == 0 and json.loads(owner.stdout)["store"]["active_traces"] >= 1


def test_keys_are_stored_hashed_and_revocation_counts_at_once(server) -> None:
    srv, keys = server
    stored = (srv.home / "server-keys.json").read_text()
    log = Path(srv.log).read_text()
    for key in keys.values():
        secret = key.split("_", 2)[2]  # (the secret itself may contain "_")
        assert key not in stored and secret not in stored
        assert secret not in log
    extra = add_key(srv.home, "--agent", "temp", "--user", "temp")
    assert httpx.get(f"{srv.url}/v1/whoami", headers=auth(extra)).status_code == 200
    key_id = extra.split("_")[1]
    assert cogmem("--home", str(srv.home), "keys", "revoke", key_id).returncode == 0
    assert httpx.get(f"{srv.url}/v1/whoami", headers=auth(extra)).status_code == 401
