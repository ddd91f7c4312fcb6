"""The governance entries of the operations table without a store: the identity-argument
rule (an identity field is refused unless the operation's own model declares it, and only
owner operations may), the guard finding a request's entry by its route, the REST route
refusing unknown query parameters, and the streaming of JSON Lines answers."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ConfigDict

from cogmem_graph.operations import (
    OPERATIONS,
    Args,
    EraseArgs,
    Operation,
    identity_arguments,
    route_operation,
)
from cogmem_graph.server import rest
from cogmem_graph.server.guards import Guard
from cogmem_graph.server.keys import KeyRing, Principal
from cogmem_graph.server.service import MemoryService, ServiceError
from cogmem_graph.server.streams import stream_text

# ---------------------------------------------------------------- the identity rule


class NamesAUser(Args):
    model_config = ConfigDict(extra="forbid")
    user_id: str


def test_only_owner_operations_may_declare_an_identity_field() -> None:
    owner = Operation("wipe", NamesAUser, "owner", "POST", "/v1/admin/wipe", summary="s", description="d")
    assert owner.identity_fields == {"user_id"}
    for role in ("agent", "read"):
        with pytest.raises(ValueError, match="only an owner operation may name the user"):
            Operation("wipe", NamesAUser, role, "POST", "/v1/wipe", summary="s", description="d")  # type: ignore[arg-type]
    assert OPERATIONS["erase"].identity_fields == {"user_id", "organization_id"}
    assert OPERATIONS["export_user"].identity_fields == {"user_id", "organization_id"}
    assert all(not op.identity_fields for op in OPERATIONS.values() if op.role != "owner")


def test_identity_arguments_are_refused_unless_declared() -> None:
    assert identity_arguments({"user_id": "u", "include_shared": True}, {"user_id", "organization_id"}) == []
    assert identity_arguments({"user_id": "u", "agent_id": "a"}, {"user_id"}) == ["agent_id"]
    assert identity_arguments({"query": "x", "user_id": "u"}) == ["user_id"]
    assert identity_arguments({"items": [{"content": "x", "thread_id": "t"}]}) == ["thread_id"]


def test_the_service_allows_an_owner_operation_its_subject_and_nothing_else() -> None:
    service = MemoryService(store=None)  # type: ignore[arg-type]
    agent = Principal("a", "agent", None)
    owner = Principal("o", "owner", None)
    with pytest.raises(ServiceError) as role:  # declared, so not an identity refusal: the role decides
        service.call(agent, "erase", {"user_id": "bob"})
    assert role.value.status == 403 and "erase is an owner operation" in role.value.message
    with pytest.raises(ServiceError) as chosen:
        service.call(owner, "erase", {"user_id": "bob", "agent_id": "a2"})
    assert chosen.value.status == 403 and "agent_id" in chosen.value.message
    for op, args in (("list", {"user_id": "bob"}), ("get", {"trace_id": "t", "organization_id": "globex"}),
                     ("forget", {"ids": ["t"], "scope_keys": ["user:bob"]})):
        with pytest.raises(ServiceError) as refused:
            service.call(agent, op, args)
        assert refused.value.status == 403 and "identity comes from the API key" in refused.value.message


def test_erase_names_the_user_it_erases() -> None:
    assert EraseArgs.model_validate({"user_id": "bob"}).compact is True
    with pytest.raises(ValueError, match="user_id"):
        EraseArgs.model_validate({})


# ---------------------------------------------------------------- the guard finds the route's entry


@pytest.mark.parametrize(("method", "path", "name"), [
    ("GET", "/v1/memories", "list_query"),
    ("POST", "/v1/memories", "remember"),
    ("POST", "/v1/memories/list", "list"),
    ("POST", "/v1/memories/forget", "forget"),
    ("POST", "/v1/memories/pin", "pin"),
    ("GET", "/v1/memories/mt_1", "get"),
    ("PATCH", "/v1/memories/mt_1", "update"),
    ("DELETE", "/v1/memories/mt_1", "forget_one"),
    ("GET", "/v1/memories/mt_1/history", "history"),
    ("GET", "/v1/memories/mt_1/neighbourhood", "memory"),
    ("GET", "/v1/export", "export"),
    ("POST", "/v1/admin/erase", "erase"),
    ("GET", "/v1/admin/export", "export_user"),
    ("GET", "/v1/nothing", None),
    ("PUT", "/v1/memories/mt_1", None),
])
def test_route_operation_matches_the_rest_routes(method: str, path: str, name: str | None) -> None:
    op = route_operation(method, path)
    assert (op.name if op else None) == name


class Recording:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        self.calls.append((op, dict(args or {})))
        if OPERATIONS[op].streams:
            return iter(["{}\n"])
        return [] if OPERATIONS[op].result is list else {"op": op}


@pytest.fixture
def guarded(tmp_path: Path) -> tuple[TestClient, Recording, dict[str, str], dict[str, str]]:
    recording = Recording()
    app = FastAPI()
    rest.install(app, recording, ready=lambda: True)  # type: ignore[arg-type]
    keys = KeyRing(tmp_path / "keys.json")
    agent, _ = keys.add(agent_id="a1", user_id="u1")
    owner, _ = keys.add(role="owner")
    client = TestClient(Guard(app, keys), base_url="http://testserver")
    return client, recording, {"Authorization": f"Bearer {agent}"}, {"Authorization": f"Bearer {owner}"}


def test_the_guard_lets_an_owner_route_name_its_subject_and_refuses_identities_elsewhere(guarded) -> None:
    client, recording, agent, owner = guarded
    erased = client.post("/v1/admin/erase", json={"user_id": "bob", "organization_id": "acme"}, headers=owner)
    assert erased.status_code == 200 and recording.calls[-1] == ("erase", {"user_id": "bob", "organization_id": "acme"})
    exported = client.get("/v1/admin/export", params={"user_id": "bob"}, headers=owner)
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/x-ndjson")
    for response in (client.get("/v1/memories", params={"user_id": "bob"}, headers=agent),
                     client.get("/v1/memories?user%5Fid=bob", headers=agent),
                     client.post("/v1/memories/list", json={"organization_id": "x"}, headers=agent),
                     client.post("/v1/admin/erase", json={"user_id": "bob", "agent_id": "a2"}, headers=owner),
                     client.request("DELETE", "/v1/memories/mt_1", params={"thread_id": "t"}, headers=agent)):
        assert response.status_code == 403, response.text
        assert "identity comes from the API key" in response.json()["error"]


def test_a_query_route_refuses_an_unknown_parameter_instead_of_ignoring_it(guarded) -> None:
    client, recording, agent, _ = guarded
    listed = client.get("/v1/memories", params={"tags_any": ["a", "b"], "type": "semantic", "limit": 5},
                        headers=agent)
    assert listed.status_code == 200
    op, args = recording.calls[-1]
    assert op == "list_query"
    assert {k: v for k, v in args.items() if v is not None} == {"tags_any": ["a", "b"], "type": ["semantic"],
                                                               "limit": 5, "order": "newest"}
    misspelt = client.get("/v1/memories", params={"tag": "billing"}, headers=agent)
    assert misspelt.status_code == 400 and "unknown query parameter(s) tag" in misspelt.json()["error"]
    assert "tags_any" in misspelt.json()["error"], "it says what the route takes"


# ---------------------------------------------------------------- streamed answers


def test_a_stream_yields_what_is_written_in_chunks() -> None:
    def write(out: io.TextIOBase) -> None:
        for i in range(1000):
            out.write(f'{{"n": {i}}}\n')

    text = "".join(stream_text(write, chunk_chars=1000))
    assert text.splitlines() == [f'{{"n": {i}}}' for i in range(1000)]


def test_an_error_before_the_first_chunk_is_raised_and_a_later_one_ends_the_stream() -> None:
    def refuses(out: io.TextIOBase) -> None:
        raise ValueError("user_id must be a non-empty id")

    with pytest.raises(ValueError, match="user_id"):
        stream_text(refuses)

    def fails_late(out: io.TextIOBase) -> None:
        out.write("header\n" * 10)
        out.flush()
        raise RuntimeError("the graph went away")

    assert "".join(stream_text(fails_late, chunk_chars=10)) == "header\n" * 10  # no footer: incomplete


def test_a_reader_that_goes_away_stops_the_writer() -> None:
    stopped = threading.Event()

    def endless(out: io.TextIOBase) -> None:
        try:
            while True:
                out.write("x" * 100)
        finally:
            stopped.set()

    chunks = stream_text(endless, chunk_chars=100, queue_chunks=2)
    assert next(chunks) == "x" * 100
    chunks.close()  # type: ignore[attr-defined]
    deadline = time.monotonic() + 5
    while not stopped.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stopped.is_set()
