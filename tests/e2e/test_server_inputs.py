"""`cogmem serve` given bad input and the wrong key, through real clients (httpx, the official
MCP client, `cg.connect`, the `cogmem` CLI) against one server process:

- bad input (lone surrogates, NaN / Infinity / 1e400, JSON nested 1,000 deep, values of the
  wrong type) is a 4xx `{"error", "status"}` naming the field, and no traceback reaches the
  server's log; `cg.connect` raises the error type the in-process facade raises;
- an MCP session belongs to the key that opened it; MCP tool arguments naming an identity
  are refused like REST's 403, and REST query names naming one however they are spelt;
- a read-only key reads (recall without reinforcing) and is refused every write; an expired
  key is 401 "key expired" on every surface; `cogmem keys list` shows role and expiry.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession

import cogmem_graph as cg
from cogmem_graph.client import RequestRejected, ServerError

from .server_harness import Server, add_key, auth, cogmem, free_port, mcp_session

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

CALL_TIMEOUT_S = 60
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "content-type": "application/json",
               "mcp-protocol-version": "2025-06-18"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("inputs") / "home"
    keys = {
        "alice": add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme", "--name", "alice"),
        "bob": add_key(home, "--agent", "a2", "--user", "bob", "--org", "acme"),
        "reader": add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme", "--read-only",
                          "--name", "alice-reader", "--expires", "30d"),
        "doomed": add_key(home, "--agent", "a9", "--user", "dora", "--expires", "2099-01-01", "--name", "doomed"),
    }
    srv = Server(home, free_port(), ("--consolidate-every", "0", "--rate", "0")).start()
    try:
        yield srv, keys
    finally:
        srv.stop()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _server_log(srv: Server) -> str:
    return srv.log.read_text(errors="replace")


# ---------------------------------------------------------------- bad input: 4xx, the error format, no traceback


BAD_INPUT = [
    ("POST", "/v1/memories", '{"content": "lone \\ud800 surrogate"}', 422, "content"),
    ("POST", "/v1/recall", '{"query": "lone \\udc00 surrogate"}', 422, "query"),
    ("POST", "/v1/context", '{"query": "\\ud83d"}', 422, "query"),
    ("POST", "/v1/memories", '{"content": "x", "tags": ["\\udfff"]}', 400, "tags[0]"),
    ("POST", "/v1/memories", '{"content": "x", "metadata": {"note": "\\ud800"}}', 400, "metadata.note"),
    ("POST", "/v1/memories", '{"content": "x", "confidence": NaN}', 422, "confidence"),
    ("POST", "/v1/memories", '{"content": "x", "confidence": Infinity}', 422, "confidence"),
    ("POST", "/v1/memories", '{"content": "x", "confidence": 1e400}', 422, "confidence"),
    ("POST", "/v1/memories", '{"content": "x", "metadata": {"price": NaN}}', 400, "metadata.price"),
    ("POST", "/v1/memories/batch", '{"items": [{"content": "x", "created_at": -Infinity}]}', 422,
     "items.0.created_at"),
    ("POST", "/v1/recall", '{"query": "x", "top_k": 1e400}', 422, "top_k"),
    ("POST", "/v1/recall", '{"query": "x", "as_of": NaN}', 422, "as_of"),
    ("POST", "/v1/recall", '{"query": "x", "top_k": "zillions"}', 422, "top_k"),
    ("POST", "/v1/reminders", '{"content": "x", "on_context": "y", "threshold": NaN}', 422, "threshold"),
    ("POST", "/v1/recall", '{"query": "x", "where": ' + _nested(1000) + "}", 400, "body"),
    ("POST", "/v1/memories", _nested(1000), 400, "body"),
    ("POST", "/v1/recall", "{not json", 422, "body"),
    ("GET", "/v1/memories?limit=NaN", None, 422, "limit"),
    ("GET", "/v1/memories?created_after=1e400", None, 422, "created_after"),
]


def test_bad_input_is_a_4xx_in_the_error_format_naming_the_field_and_no_traceback(server) -> None:
    srv, keys = server
    headers = {**auth(keys["alice"]), "content-type": "application/json"}
    with httpx.Client(base_url=srv.url, headers=headers, timeout=30) as http:
        for method, path, body, status, field in BAD_INPUT:
            response = http.request(method, path, content=body)
            assert response.status_code == status, (path, body and body[:80], response.text)
            answer = response.json()
            assert set(answer) == {"error", "status"} and answer["status"] == status, answer
            assert f"{field}:" in answer["error"], (body and body[:80], answer)
            for echoed in ("zillions", "1e400", "ud800", "udc00", "udfff", "ud83d"):
                assert echoed not in answer["error"], "the field is named; the bad value is not echoed"
        assert http.get("/v1/whoami").status_code == 200, "the server is still up"
    log = _server_log(srv)
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def test_connect_raises_the_facade_s_error_type_for_the_same_bad_input(server, store: cg.MemoryStore) -> None:
    srv, keys = server
    local = store.agent(agent_id="a1", user_id="alice", organization_id="acme")
    nan, inf = math.nan, math.inf
    cases: list[tuple[str, str, tuple, dict[str, Any]]] = [
        ("confidence", "encode", ("x",), {"confidence": nan}),
        ("confidence", "encode", ("x",), {"confidence": inf}),
        ("content", "encode", ("lone \ud800 surrogate",), {}),
        ("tags", "encode", ("x",), {"tags": ["\udc00"]}),
        ("metadata", "encode", ("x",), {"metadata": {"price": nan}}),
        ("threshold", "remind", ("x",), {"on_context": "deploys", "threshold": nan}),
        ("as_of", "retrieve", ("x",), {"as_of": nan}),
        ("created_after", "retrieve", ("x",), {"where": {"created_after": nan}}),
    ]
    with cg.connect(srv.url, keys["alice"]) as remote:
        for field, method, args, kwargs in cases:
            with pytest.raises(ValueError) as in_process:
                getattr(local, method)(*args, **kwargs)
            with pytest.raises(ValueError) as connected:
                getattr(remote, method)(*args, **kwargs)
            assert field in str(in_process.value) and field in str(connected.value), (field, connected.value)
            assert "JSON compliant" not in str(connected.value) and "codec" not in str(connected.value)
        with pytest.raises(RequestRejected) as refused:  # a refusal by the server is a ValueError as well
            remote.encode("x", type="no-such-type")
        assert isinstance(refused.value, ValueError) and refused.value.status == 422


# ---------------------------------------------------------------- MCP: sessions and arguments


def _rpc(method: str, params: dict | None = None, id_: int | None = 1) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if id_ is not None:
        message["id"] = id_
    return json.dumps(message)


def _result(response: httpx.Response) -> dict:
    """The JSON-RPC answer of a POST, sent as JSON or as one server-sent event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_an_mcp_session_belongs_to_the_key_that_opened_it(server) -> None:
    srv, keys = server
    with httpx.Client(base_url=srv.url, timeout=CALL_TIMEOUT_S) as http:
        alice = {**MCP_HEADERS, **auth(keys["alice"])}
        opened = http.post("/mcp", headers=alice, content=_rpc("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}))
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        alice["mcp-session-id"] = session
        assert http.post("/mcp", headers=alice, content=_rpc("notifications/initialized", id_=None)).status_code == 202

        bob = {**MCP_HEADERS, **auth(keys["bob"]), "mcp-session-id": session}
        taken = http.post("/mcp", headers=bob, content=_rpc("tools/call", {"name": "whoami", "arguments": {}}, 2))
        assert taken.status_code == 404, taken.text
        assert "a2" not in taken.text and "bob" not in taken.text
        assert http.get("/mcp", headers=bob).status_code == 404
        assert http.delete("/mcp", headers=bob).status_code == 404, "another key cannot end the session either"

        mine = http.post("/mcp", headers=alice, content=_rpc("tools/call", {"name": "whoami", "arguments": {}}, 3))
        assert mine.status_code == 200
        assert _result(mine)["result"]["structuredContent"]["identity"]["user_id"] == "alice"
        assert http.delete("/mcp", headers=alice).status_code in (200, 204)




def test_mcp_tool_arguments_with_nan_are_refused_naming_the_argument_without_the_value(server) -> None:
    """JSON-RPC allows NaN where the MCP SDK's own client sends null: the refusal names the
    argument, says it is not a finite number (not "less than or equal to 1") and quotes nothing."""
    srv, keys = server
    with httpx.Client(base_url=srv.url, timeout=CALL_TIMEOUT_S) as http:
        alice = {**MCP_HEADERS, **auth(keys["alice"])}
        opened = http.post("/mcp", headers=alice, content=_rpc("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}))
        alice["mcp-session-id"] = opened.headers["mcp-session-id"]
        assert http.post("/mcp", headers=alice, content=_rpc("notifications/initialized", id_=None)).status_code == 202
        for call_id, (tool, arguments, expected) in enumerate((
                ("remember", {"content": "x", "confidence": math.nan}, "confidence must be a finite number"),
                ("recall", {"query": "x", "top_k": math.inf}, "top_k must be a finite number"),
                ("recall", {"query": "x", "as_of": math.nan}, "as_of must be an aware datetime, an ISO-8601 "
                                                             "string or epoch milliseconds (an int), not NaN")),
                start=10):
            answer = _result(http.post("/mcp", headers=alice, content=_rpc(
                "tools/call", {"name": tool, "arguments": arguments}, call_id)))["result"]
            text = answer["content"][0]["text"]
            assert answer["isError"] and text == f"400: {tool}: {expected}", text
        http.delete("/mcp", headers=alice)


async def _tool(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str, Any]:
    with anyio.fail_after(CALL_TIMEOUT_S):
        result = await session.call_tool(tool, arguments)
    return result.is_error, result.content[0].text if result.content else "", result.structured_content


def test_mcp_tool_arguments_naming_an_identity_are_refused_like_rest(server) -> None:
    srv, keys = server
    bobs = cg.connect(srv.url, keys["bob"]).encode("Bob's parking spot is P-17", type="semantic")

    async def scenario() -> None:
        async with mcp_session(srv.url, keys["alice"]) as alice:
            for tool, arguments in (("recall", {"query": "parking spot", "user_id": "bob"}),
                                    ("recall", {"query": "parking spot", "USER_ID": "bob"}),
                                    ("recall", {"query": "parking spot", "scope_keys": ["user:acme/bob"]}),
                                    ("remember", {"content": "x", "organization_id": "globex"}),
                                    ("list_memories", {"agent_id": "a2"}),
                                    ("memory_history", {"trace_id": bobs.id, "thread_id": "t"})):
                is_error, text, _ = await _tool(alice, tool, **arguments)
                assert is_error and text.startswith("403: ") and "identity comes from the API key" in text, text
            is_error, text, _ = await _tool(alice, "list_memories", tag="billing")
            assert is_error and text.startswith("400: list_memories: unknown argument(s) tag"), text
            is_error, text, found = await _tool(alice, "recall", query="parking spot")
            assert not is_error and bobs.id not in [m["id"] for m in found["memories"]]

    anyio.run(scenario)
    with httpx.Client(base_url=srv.url, headers=auth(keys["alice"]), timeout=30) as http:
        for query in ("USER_ID=bob", "user%5Fid=bob", "user_id[]=bob", "Organization-Id=acme"):
            assert http.post(f"/v1/recall?{query}", json={"query": "parking"}).status_code == 403, query
            assert http.get(f"/v1/memories?{query}").status_code == 403, query


# ---------------------------------------------------------------- read-only and expired keys


def test_a_read_only_key_reads_without_reinforcing_and_is_refused_every_write(server) -> None:
    srv, keys = server
    alice = cg.connect(srv.url, keys["alice"])
    reader = cg.connect(srv.url, keys["reader"])
    memory = alice.encode("The staging database password rotates every Friday", type="semantic")
    reminder = alice.remind("check the staging rotation", on_keywords=["rotation"])
    me = reader.whoami()
    assert me["role"] == "read" and me["identity"]["user_id"] == "alice" and me["expires_at"]

    count = alice.get(memory.id).trace.retrieval_count
    for _ in range(3):
        found = reader.retrieve("staging database password")
        assert memory.id in [t.trace.id for t in found.traces]
    assert reader.get(memory.id).trace.retrieval_count == count, "a read-only key's recall does not reinforce"
    assert memory.id in [r.id for r in reader.list().items]
    assert [r.id for r in reader.history(memory.id)] == [memory.id]
    assert reader.multi_hop("staging database")["traces"] is not None
    assert reminder.id in [r.id for r in reader.reminders()]
    assert memory.id in reader.call("export")

    writes = [("remember", {"content": "x"}), ("remember_many", {"items": [{"content": "x"}]}),
              ("update", {"trace_id": memory.id, "pinned": True}), ("forget", {"ids": [memory.id]}),
              ("forget_one", {"trace_id": memory.id}), ("pin", {"ids": [memory.id]}),
              ("unpin", {"ids": [memory.id]}), ("observe", {"role": "user", "text": "hello"}),
              ("remind", {"content": "x", "on_keywords": ["x"]}),
              ("cancel_reminder", {"reminder_id": reminder.id}), ("context", {"query": "staging rotation"})]
    for op, args in writes:
        with pytest.raises(RequestRejected) as refused:
            reader.call(op, args)
        assert refused.value.status == 403 and "read-only" in refused.value.message, op
    after = alice.get(memory.id)
    assert after.trace.retrieval_count == count and not after.trace.pinned and after.version == 1
    assert reminder.id in [r.id for r in alice.reminders()], "nothing the reader tried changed anything"

    alice.retrieve("staging database password")  # an agent key's recall does reinforce
    reinforced = alice.get(memory.id).trace.retrieval_count
    assert reinforced > count

    async def over_mcp() -> None:
        async with mcp_session(srv.url, keys["reader"]) as session:
            is_error, text, _ = await _tool(session, "remember", content="x")
            assert is_error and text.startswith("Error executing tool remember: 403: ") and "read-only" in text
            is_error, _, found = await _tool(session, "recall", query="staging database password")
            assert not is_error and memory.id in [m["id"] for m in found["memories"]]

    anyio.run(over_mcp)
    assert alice.get(memory.id).trace.retrieval_count == reinforced


def test_an_expired_key_is_401_key_expired_on_every_surface(server) -> None:
    srv, keys = server
    doomed = cg.connect(srv.url, keys["doomed"])
    assert doomed.whoami()["expires_at"] > time.time() * 1000
    path = srv.home / "server-keys.json"
    data = json.loads(path.read_text())
    for entry in data["keys"]:
        if entry["name"] == "doomed":
            entry["expires_at"] = int(time.time() * 1000) - 1000
    time.sleep(0.05)  # a distinct modification time: the server re-reads the file when it changes
    path.write_text(json.dumps(data))

    with httpx.Client(base_url=srv.url, headers=auth(keys["doomed"]), timeout=30) as http:
        for response in (http.get("/v1/whoami"), http.post("/v1/recall", json={"query": "x"}),
                         http.post("/mcp", headers=MCP_HEADERS, content=_rpc("initialize", {
                             "protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test", "version": "1"}}))):
            assert response.status_code == 401, response.text
            assert response.json()["status"] == 401 and "key expired" in response.json()["error"]
            assert response.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(ServerError) as refused:
        doomed.whoami()
    assert refused.value.status == 401 and "key expired" in refused.value.message

    listed = cogmem("--home", str(srv.home), "keys", "list", COLUMNS="200")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split("│")[3].strip(): line for line in listed.stdout.splitlines() if line.count("│") > 6}
    assert " read " in rows["alice-reader"] and " agent " in rows["alice"]
    assert "(expired)" in rows["doomed"] and "(expired)" not in rows["alice-reader"]
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rows["alice-reader"])
    assert rows["alice"].rstrip(" │").endswith("-"), "a key without expiry"
