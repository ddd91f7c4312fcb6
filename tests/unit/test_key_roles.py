"""Read-only and expiring keys, and the checks every surface shares, without a store: the key
file (old files load), the roles the service grants, the values no request may carry, the
identity names read leniently, the MCP tool-argument rule, and the REST error format of
bad bodies and queries (through the guard and the generated routes, the service recorded)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp.server.mcpserver.exceptions import ToolError

from cogmem_graph.operations import OPERATIONS, identity_arguments, identity_name, value_problems
from cogmem_graph.server import rest
from cogmem_graph.server.guards import MAX_JSON_DEPTH, Guard
from cogmem_graph.server.keys import KeyRing, Principal, expiry_text, now_ms, parse_expiry
from cogmem_graph.server.mcp_tools import build_mcp, refuse_tool_arguments
from cogmem_graph.server.service import MemoryService, ServiceError

DAY_MS = 86_400_000

# ---------------------------------------------------------------- the key file


def test_a_read_only_key_and_an_expiring_key_are_made_stored_and_listed(tmp_path: Path) -> None:
    ring = KeyRing(tmp_path / "keys.json")
    key, entry = ring.add(role="read", agent_id="a1", user_id="u1", expires_at=parse_expiry("30d"))
    assert entry.role == "read" and abs(entry.expires_at - (now_ms() + 30 * DAY_MS)) < 60_000
    principal = KeyRing(tmp_path / "keys.json").authenticate(key)
    assert principal is not None and principal.read_only and not principal.expired
    assert principal.describe()["role"] == "read" and principal.describe()["expires_at"] == entry.expires_at
    saved = json.loads((tmp_path / "keys.json").read_text())["keys"][0]
    assert saved["role"] == "read" and saved["expires_at"] == entry.expires_at
    with pytest.raises(ValueError, match="agent_id is required for a read-only key"):
        ring.add(role="read")
    with pytest.raises(ValueError, match="expires_at must be a future time"):
        ring.add(agent_id="a1", expires_at=now_ms() - 1)


def test_a_key_file_written_before_roles_and_expiry_loads(tmp_path: Path) -> None:
    ring = KeyRing(tmp_path / "keys.json")
    agent_key, agent = ring.add(agent_id="a1", user_id="u1")
    owner_key, owner = ring.add(role="owner")
    data = json.loads((tmp_path / "keys.json").read_text())
    for raw in data["keys"]:  # the format of the previous release: no expires_at
        del raw["expires_at"]
    (tmp_path / "keys.json").write_text(json.dumps(data))
    old = KeyRing(tmp_path / "keys.json")
    assert {e.key_id: e.expires_at for e in old.entries()} == {agent.key_id: None, owner.key_id: None}
    assert old.authenticate(agent_key).may("agent") and old.authenticate(owner_key).may("owner")


@pytest.mark.parametrize(("text", "offset_ms"), [
    ("30d", 30 * DAY_MS), ("12h", 12 * 3_600_000), ("90m", 90 * 60_000), ("2w", 14 * DAY_MS), ("45s", 45_000),
    (" 7D ", 7 * DAY_MS)])
def test_expires_takes_a_duration(text: str, offset_ms: int) -> None:
    assert parse_expiry(text, now=1_000) == 1_000 + offset_ms


def test_expires_takes_an_iso_date_or_date_time_in_utc_unless_it_names_a_zone() -> None:
    assert expiry_text(parse_expiry("2099-01-31")) == "2099-01-31T00:00:00Z"
    assert expiry_text(parse_expiry("2099-01-31T18:00")) == "2099-01-31T18:00:00Z"
    assert expiry_text(parse_expiry("2099-01-31T18:00:00+01:00")) == "2099-01-31T17:00:00Z"
    assert expiry_text(None) == "-"


@pytest.mark.parametrize(("text", "words"), [
    ("0d", "must be positive"), ("2001-01-01", "not in the future"), ("tomorrow", "neither a duration"),
    ("30x", "neither a duration"), ("", "neither a duration")])
def test_a_bad_expiry_is_refused_naming_expires(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=f"expires: .*{words}"):
        parse_expiry(text)


def test_an_expired_key_authenticates_as_expired_and_may_call_nothing(tmp_path: Path) -> None:
    ring = KeyRing(tmp_path / "keys.json")
    key, entry = ring.add(agent_id="a1", role="owner", expires_at=now_ms() + 60_000)
    data = json.loads((tmp_path / "keys.json").read_text())
    data["keys"][0]["expires_at"] = now_ms() - 1
    time.sleep(0.01)
    (tmp_path / "keys.json").write_text(json.dumps(data))
    principal = ring.authenticate(key)
    assert principal is not None and principal.expired
    assert not any(principal.may(role) for role in ("read", "agent", "owner"))
    service = MemoryService(store=None)  # type: ignore[arg-type]
    for op in ("whoami", "stats", "recall"):
        with pytest.raises(ServiceError) as refused:
            service.call(principal, op, {"query": "x"} if op == "recall" else {})
        assert refused.value.status == 401 and "key expired" in refused.value.message


# ---------------------------------------------------------------- what a read-only key may call


def test_a_read_only_key_may_call_the_read_operations_only() -> None:
    reader = Principal("r", "read", None)
    agent = Principal("a", "agent", None)
    reads = {op.name for op in OPERATIONS.values() if op.role == "read"}
    assert {"whoami", "recall", "multi_hop", "list", "list_query", "get", "history", "memory", "reminders",
            "export"} <= reads
    assert "context" not in reads, "context fires reminders and moves the working memory"
    for op in OPERATIONS.values():
        assert reader.may(op.role) is (op.role == "read"), op.name
        assert agent.may(op.role) is (op.role != "owner"), op.name
    service = MemoryService(store=None)  # type: ignore[arg-type]
    for op, args in (("remember", {"content": "x"}), ("update", {"trace_id": "t", "pinned": True}),
                     ("forget", {"ids": ["t"]}), ("pin", {"ids": ["t"]}), ("context", {"query": "x"}),
                     ("remind", {"content": "x"}), ("observe", {"role": "user", "text": "x"}),
                     ("consolidate", {})):
        with pytest.raises(ServiceError) as refused:
            service.call(reader, op, args)
        assert refused.value.status == 403 and "this key is read-only" in refused.value.message, op
    assert service.call(reader, "whoami")["role"] == "read"


# ---------------------------------------------------------------- values and names no request may use


def test_value_problems_name_non_finite_numbers_and_lone_surrogates_by_their_path() -> None:
    deep: dict[str, Any] = {}
    cursor = deep
    for _ in range(5000):
        cursor["a"] = {}
        cursor = cursor["a"]
    assert value_problems({"query": "fine", "top_k": 3, "metadata": {"x": 1.5, "y": [1, "é"]}, "deep": deep}) == []
    problems = value_problems({"content": "x\ud800", "confidence": float("nan"), "metadata": {"k": [1, float("inf")]},
                               "items": [{"ok": 1}, {"at": float("-inf")}]})
    assert problems == [
        "content: contains characters that are not valid UTF-8 (lone surrogates)",
        "confidence: not a finite number (NaN, Infinity and numbers beyond ±1.8e308 are not JSON numbers)",
        "metadata.k[1]: not a finite number (NaN, Infinity and numbers beyond ±1.8e308 are not JSON numbers)",
        "items[1].at: not a finite number (NaN, Infinity and numbers beyond ±1.8e308 are not JSON numbers)"]
    assert all(p.encode("utf-8") for p in value_problems({"\udc00": 1}))  # a bad key is named, encodable


@pytest.mark.parametrize("name", ["user_id", "USER_ID", "User-Id", "user_id[]", "user_id[0]", " agent_id ",
                                  "ｏｒｇａｎｉｚａｔｉｏｎ_ｉｄ", "Scope_Keys"])
def test_identity_names_are_read_as_a_lenient_reader_would(name: str) -> None:
    assert identity_name(name) is not None
    assert identity_arguments({name: "x", "query": "q"}) == [name]


def test_names_that_are_not_identities_are_not_refused() -> None:
    for name in ("query", "users", "user_ids", "scope", "tags_any", "identity", "content"):
        assert identity_name(name) is None, name
    assert identity_arguments({"USER_ID": "bob"}, {"user_id"}) == [], "an owner operation's subject, however spelt"


def test_a_service_call_refuses_values_no_store_keeps_naming_the_field() -> None:
    service = MemoryService(store=None)  # type: ignore[arg-type]
    agent = Principal("a", "agent", None)
    for op, args, field in (("remember", {"content": "x", "metadata": {"k": float("nan")}}, "metadata.k"),
                            ("update", {"trace_id": "t", "content": "a\udfffb"}, "content"),
                            ("recall", {"query": "x", "as_of": float("inf")}, "as_of")):
        with pytest.raises(ServiceError) as refused:
            service.call(agent, op, args)
        assert refused.value.status == 400 and f"{op}: {field}:" in refused.value.message
        refused.value.message.encode("utf-8")


# ---------------------------------------------------------------- MCP tool arguments


def test_mcp_tool_arguments_naming_an_identity_are_403_and_unknown_ones_400() -> None:
    refuse_tool_arguments("recall", {"query": "x", "top_k": 3}, frozenset({"query", "top_k"}))
    for name in ("user_id", "organization_id", "agent_id", "scope_keys", "USER_ID", "thread_id[]"):
        with pytest.raises(ToolError, match=r"^403: .*identity comes from the API key"):
            refuse_tool_arguments("recall", {"query": "x", name: "bob"}, frozenset({"query"}))
    with pytest.raises(ToolError, match=r"^400: recall: unknown argument\(s\) tag; this tool takes query, top_k"):
        refuse_tool_arguments("recall", {"query": "x", "tag": "billing"}, frozenset({"query", "top_k"}))


def test_every_mcp_tool_knows_its_arguments_and_calls_with_others_never_reach_the_service() -> None:
    import anyio

    calls: list[tuple[str, dict[str, Any]]] = []
    mcp = build_mcp(lambda headers, op, args: calls.append((op, args)) or {"text": ""})
    tools = {t.name: t for t in anyio.run(mcp.list_tools)}
    assert set(mcp.tool_arguments) == set(tools)
    for name, tool in tools.items():
        assert mcp.tool_arguments[name] == set(tool.input_schema.get("properties", {})), name

    async def call(arguments: dict[str, Any]) -> Any:
        return await mcp.call_tool("build_context", arguments)

    with pytest.raises(ToolError, match="^403: user_id"):
        anyio.run(call, {"query": "x", "user_id": "bob"})
    with pytest.raises(ToolError, match="^400: build_context: unknown argument"):
        anyio.run(call, {"query": "x", "top_k": 3})
    assert calls == []
    anyio.run(call, {"query": "x"})
    assert calls == [("context", {"query": "x", "debug": False})]


# ---------------------------------------------------------------- REST: the error format of bad input


class Recording:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        self.calls.append((op, dict(args or {})))
        return [] if OPERATIONS[op].result is list else {"op": op}


@pytest.fixture
def client(tmp_path: Path) -> tuple[TestClient, Recording, dict[str, str]]:
    recording = Recording()
    app = FastAPI()
    rest.install(app, recording, ready=lambda: True)  # type: ignore[arg-type]
    keys = KeyRing(tmp_path / "keys.json")
    key, _ = keys.add(agent_id="a1", user_id="u1")
    test_client = TestClient(Guard(app, keys), base_url="http://testserver", raise_server_exceptions=False)
    return test_client, recording, {"Authorization": f"Bearer {key}", "content-type": "application/json"}


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


BAD_BODIES = [
    ("/v1/memories", '{"content": "x\\ud800y"}', 422, "remember: content: "),
    ("/v1/recall", '{"query": "\\udc00"}', 422, "recall: query: "),
    ("/v1/context", '{"query": "a\\ud800"}', 422, "context: query: "),
    ("/v1/multi-hop", '{"query": "a\\ud800"}', 422, "multi_hop: query: "),
    ("/v1/memories", '{"content": "x", "confidence": NaN}', 422, "remember: confidence: "),
    ("/v1/memories", '{"content": "x", "confidence": Infinity}', 422, "remember: confidence: "),
    ("/v1/memories", '{"content": "x", "confidence": -Infinity}', 422, "remember: confidence: "),
    ("/v1/memories", '{"content": "x", "confidence": 1e400}', 422, "remember: confidence: "),
    ("/v1/recall", '{"query": "x", "top_k": 1e400}', 422, "recall: top_k: "),
    ("/v1/recall", '{"query": "x", "as_of": NaN}', 422, "recall: as_of: "),
    ("/v1/reminders", '{"content": "x", "threshold": NaN}', 422, "remind: threshold: "),
    ("/v1/memories", '{"content": "x", "metadata": {"k": NaN}}', 400, "remember: metadata.k: not a finite number"),
    ("/v1/memories", '{"content": "x", "metadata": {"k": "\\udfff"}}', 400, "remember: metadata.k: contains"),
    ("/v1/memories/batch", '{"items": [{"content": "a"}, {"content": "b", "confidence": NaN}]}', 422,
     "remember_many: items.1.confidence: "),
    ("/v1/recall", '{"query": "x", "top_k": "zillions"}', 422, "recall: top_k: "),
    ("/v1/recall", "not json", 422, "recall: body: not valid JSON"),
    ("/v1/recall", '{"query": "x", "where": ' + _nested(1000) + "}", 400, "body: JSON nested deeper than"),
    ("/v1/memories/list", _nested(1000), 400, "body: JSON nested deeper than"),
    ("/v1/memories/list", '{"where": {"metadata": ' + '{"a": ' * 100 + "1" + "}" * 100 + "}}", 400,
     "body: JSON nested deeper than"),
]


@pytest.mark.parametrize(("path", "body", "status", "words"), BAD_BODIES)
def test_a_bad_body_is_a_4xx_in_the_error_format_naming_the_field(client, caplog, path, body, status, words) -> None:
    test_client, recording, headers = client
    with caplog.at_level(logging.INFO):
        response = test_client.post(path, content=body, headers=headers)
    assert response.status_code == status, response.text
    assert response.json() == {"error": response.json()["error"], "status": status}
    assert words in response.json()["error"]
    for echoed in ("1e400", "zillions", "ud800", "udc00", "udfff", "input"):
        assert echoed not in response.json()["error"], "the bad value is named by its field, not quoted"
    assert recording.calls == []
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], "no traceback logged"


def test_a_json_body_at_the_depth_limit_passes_the_guard(client) -> None:
    test_client, recording, headers = client
    structured = "[" * (MAX_JSON_DEPTH - 3) + "]" * (MAX_JSON_DEPTH - 3)
    body = '{"content": "x", "structured_data": {"a": ' + structured + "}}"
    assert test_client.post("/v1/memories", content=body, headers=headers).status_code == 200
    assert recording.calls[-1][0] == "remember"


@pytest.mark.parametrize(("path", "status", "words"), [
    ("/v1/memories?limit=NaN", 422, "list_query: limit: "),
    ("/v1/memories?created_after=1e400", 422, "list_query: created_after: "),
    ("/v1/memories/mt_1/neighbourhood?limit=-1", 422, "memory: limit: "),
    ("/v1/memories?tag=billing", 400, "unknown query parameter(s) tag"),
])
def test_a_bad_query_is_a_4xx_in_the_error_format_naming_the_field(client, path, status, words) -> None:
    test_client, _, headers = client
    response = test_client.get(path, headers=headers)
    assert response.status_code == status and response.json()["status"] == status
    assert words in response.json()["error"]


@pytest.mark.parametrize("query", ["USER_ID=bob", "user%5Fid=bob", "user%255Fid=bob", "user_id[]=bob",
                                   "User-Id=bob", "ORGANIZATION_ID=globex", "scope_keys%5B%5D=user:bob"])
@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/memories"), ("POST", "/v1/recall"),
                                              ("GET", "/v1/reminders")])
def test_query_names_naming_an_identity_are_refused_however_spelt(client, method, path, query) -> None:
    test_client, recording, headers = client
    body = {"content": '{"query": "x"}'} if method == "POST" else {}
    response = test_client.request(method, f"{path}?{query}", headers=headers, **body)
    assert response.status_code == 403, response.text
    assert "identity comes from the API key" in response.json()["error"]
    assert recording.calls == []
