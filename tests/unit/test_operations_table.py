"""The operations table (`cogmem_graph.operations`) and the surfaces that follow from it.

Each entry must show on every surface it names: a REST route (in the app's routes and its
OpenAPI schema, with the argument model as the body), a `MemoryService` handler and role
check, a `cg.connect` method that calls it (or none: call-only), an MCP tool or resource
that serves it, and a CLI command that goes through --server. A surface missing an entry,
or serving one the table does not declare, fails here. No store is opened: the service,
the MCP server and the REST app run on recording fakes.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import typer
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel

from cogmem_graph.cli import app as cli_app
from cogmem_graph.cli.invocation import LOCAL_ONLY
from cogmem_graph.client import RemoteAgent
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.operations import (
    IDENTITY_ARGUMENTS,
    OPERATIONS,
    BatchArgs,
    MultiHopArgs,
    NoArgs,
    Operation,
    _table,
    tool_args,
)
from cogmem_graph.server import rest
from cogmem_graph.server.guards import Guard
from cogmem_graph.server.keys import KeyRing, Principal
from cogmem_graph.server.mcp_tools import build_mcp, served
from cogmem_graph.server.service import MemoryService, ServiceError

# The operations as the server offered them before the table: each keeps its route and MCP name.
EXISTING = {
    "whoami": ("GET", "/v1/whoami", "whoami"),
    "remember": ("POST", "/v1/memories", "remember"),
    "remember_many": ("POST", "/v1/memories/batch", None),
    # `GET /v1/memories/{trace_id}` is now `get` (the record with its state and version); the
    # neighbourhood moved one segment down, the client's `neighbourhood` and the resource kept.
    "memory": ("GET", "/v1/memories/{trace_id}/neighbourhood", "memory"),
    "pin": ("POST", "/v1/memories/pin", "pin"),
    "unpin": ("POST", "/v1/memories/unpin", "unpin"),
    "recall": ("POST", "/v1/recall", "recall"),
    "context": ("POST", "/v1/context", "build_context"),
    "multi_hop": ("POST", "/v1/multi-hop", "multi_hop"),
    "observe": ("POST", "/v1/observe", "observe"),
    "remind": ("POST", "/v1/reminders", "remind"),
    "reminders": ("GET", "/v1/reminders", "list_reminders"),
    "cancel_reminder": ("DELETE", "/v1/reminders/{reminder_id}", "cancel_reminder"),
    "consolidate": ("POST", "/v1/admin/consolidate", "consolidate"),
    "stats": ("GET", "/v1/admin/stats", "stats"),
    "repair": ("POST", "/v1/admin/repair", "repair"),
}
ENTRIES = list(OPERATIONS.values())


def by_name(entries: list[Operation]) -> list[Any]:
    return [pytest.param(op, id=op.name) for op in entries]


# ---------------------------------------------------------------- sample arguments


def sample(annotation: Any) -> Any:
    """A valid value of `annotation`: what a caller of the operation would send at least."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)))
    if origin is list:
        return [sample(args[0])]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return sample_args(annotation)
    return {str: "x1", int: 1, float: 0.5, bool: True}[annotation]


def sample_args(model: type[BaseModel]) -> dict[str, Any]:
    return {name: sample(field.annotation) for name, field in model.model_fields.items() if field.is_required()}


def sample_from_schema(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return sample_from_schema(next(s for s in schema["anyOf"] if s.get("type") != "null"))
    kind = schema.get("type")
    if kind == "array":
        return [sample_from_schema(schema.get("items", {"type": "string"}))]
    return {"string": "x1", "integer": 1, "number": 0.5, "boolean": True}[kind]


# ---------------------------------------------------------------- the table itself


def test_the_existing_operations_keep_their_routes_and_mcp_names() -> None:
    for name, (method, path, mcp) in EXISTING.items():
        op = OPERATIONS[name]
        assert (op.method, op.path, op.mcp) == (method, path, mcp), name
    assert OPERATIONS["memory"].mcp_resource == "memory://{trace_id}"
    assert {op.name for op in ENTRIES if op.role == "owner"} == {"consolidate", "stats", "repair", "erase",
                                                                "export_user", "users"}


@pytest.mark.parametrize("op", by_name(ENTRIES))
def test_argument_models_refuse_unknown_fields_and_name_no_identity(op: Operation) -> None:
    assert op.args.model_config.get("extra") == "forbid"
    names = set(op.args.model_fields)
    for field in op.args.model_fields.values():
        for nested in typing.get_args(field.annotation):
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                names |= set(nested.model_fields)
    if op.role == "owner":  # an owner operation may name its subject (the user an erase erases)
        assert names & IDENTITY_ARGUMENTS == op.identity_fields
    else:
        assert not names & IDENTITY_ARGUMENTS and not op.identity_fields
    assert set(op.path_params) <= set(op.args.model_fields)
    assert op.summary and len(op.description) > 30, "a description a model can choose by"


def test_a_bad_entry_fails_when_the_table_is_built() -> None:
    from pydantic import ConfigDict

    class Loose(BaseModel):
        query: str

    class WithIdentity(BaseModel):
        model_config = ConfigDict(extra="forbid")
        query: str
        user_id: str | None = None

    with pytest.raises(ValueError, match="extra='forbid'"):
        Operation("loose", Loose, "read", "POST", "/v1/loose", summary="s", description="d")
    with pytest.raises(ValueError, match="identity"):
        Operation("who", WithIdentity, "read", "POST", "/v1/who", summary="s", description="d")
    with pytest.raises(ValueError, match="path parameter"):
        Operation("get", NoArgs, "read", "GET", "/v1/x/{trace_id}", summary="s", description="d")
    with pytest.raises(ValueError, match="query string"):
        Operation("find", BatchArgs, "read", "GET", "/v1/find", summary="s", description="d")
    with pytest.raises(ValueError, match="share route"):
        _table(Operation("a", NoArgs, "read", "GET", "/v1/x", summary="s", description="d"),
               Operation("b", NoArgs, "read", "GET", "/v1/x", summary="s", description="d"))


# ---------------------------------------------------------------- the service


def test_every_entry_has_a_service_handler_and_every_handler_an_entry() -> None:
    handlers = {name.removeprefix("_op_") for name in dir(MemoryService) if name.startswith("_op_")}
    assert handlers == set(OPERATIONS)
    assert MemoryService(store=None).operations == list(OPERATIONS)  # type: ignore[arg-type]


def test_the_service_checks_the_role_the_table_gives() -> None:
    service = MemoryService(store=None)  # type: ignore[arg-type]
    agent = Principal("a", "agent", None)
    owner = Principal("o", "owner", None)
    for op in ENTRIES:
        assert agent.may(op.role) is (op.role != "owner") and owner.may(op.role), op.name
    with pytest.raises(ServiceError) as refused:
        service.call(agent, "consolidate")
    assert refused.value.status == 403
    assert "consolidate is an owner operation; this key is an agent key" in str(refused.value)
    assert service.call(agent, "whoami")["role"] == "agent"
    with pytest.raises(ServiceError) as no_identity:  # the role allows it; the key names no agent
        service.call(owner, "recall", {"query": "x"})
    assert no_identity.value.status == 403 and "names no agent identity" in no_identity.value.message


def test_the_service_validates_by_the_entry_s_model_after_refusing_identities() -> None:
    service = MemoryService(store=None)  # type: ignore[arg-type]
    agent = Principal("a", "agent", None)
    for args, status, words in (({"query": "x", "bogus": 1}, 400, "bogus"), ({"query": ""}, 400, "query"),
                                ({"query": "x", "user_id": "bob"}, 403, "identity comes from the API key")):
        with pytest.raises(ServiceError) as refused:
            service.call(agent, "recall", args)
        assert refused.value.status == status and words in refused.value.message
    with pytest.raises(ServiceError) as batch:
        service.call(agent, "remember_many", {"items": [{"content": "x", "organization_id": "globex"}]})
    assert batch.value.status == 403
    with pytest.raises(ServiceError) as unknown:
        service.call(agent, "forget_everything")
    assert unknown.value.status == 404


# ---------------------------------------------------------------- REST


class RecordingService:
    """Stands in for MemoryService behind the REST routes: records each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        self.calls.append((op, dict(args or {})))
        if OPERATIONS[op].streams:
            return iter(['{"record": "footer", "counts": {}}\n'])
        return [] if OPERATIONS[op].result is list else {"op": op}


@pytest.fixture
def recording() -> RecordingService:
    return RecordingService()


@pytest.fixture
def rest_app(recording: RecordingService) -> FastAPI:
    app = FastAPI()
    rest.install(app, recording, ready=lambda: True)  # type: ignore[arg-type]
    return app


@pytest.mark.parametrize("op", by_name(ENTRIES))
def test_every_entry_has_its_rest_route_and_schema(rest_app: FastAPI, op: Operation) -> None:
    routes = {(m, r.path): r for r in rest_app.routes if isinstance(r, APIRoute) for m in r.methods}
    assert (op.method, op.path) in routes, f"{op.name}: no {op.method} {op.path} route"
    assert routes[(op.method, op.path)].name == op.name
    described = rest_app.openapi()["paths"][op.path][op.method.lower()]
    assert described["summary"] == op.summary
    parameters = {(p["name"], p["in"]) for p in described.get("parameters", [])}
    assert {(name, "path") for name in op.path_params} <= parameters
    others = [name for name in op.args.model_fields if name not in op.path_params]
    if op.in_query:
        assert {(name, "query") for name in others} <= parameters
        assert "requestBody" not in described
    elif others:
        schema = described["requestBody"]["content"]["application/json"]["schema"]
        model = rest.body_model(op)
        assert model is not None and schema == {"$ref": f"#/components/schemas/{model.__name__}"}
    else:
        assert "requestBody" not in described


def test_no_route_under_v1_serves_an_undeclared_operation(rest_app: FastAPI) -> None:
    declared = {(op.method, op.path) for op in ENTRIES}
    served_routes = {(m, r.path) for r in rest_app.routes if isinstance(r, APIRoute) and r.path.startswith("/v1/")
                     for m in r.methods}
    assert served_routes == declared


# ---------------------------------------------------------------- cg.connect, through the REST routes


@pytest.fixture
def remote(tmp_path: Path, rest_app: FastAPI,
           recording: RecordingService) -> Iterator[tuple[RemoteAgent, RecordingService]]:
    """A RemoteAgent whose HTTP client is the guarded REST app in process, with a real key."""
    keys = KeyRing(tmp_path / "keys.json")
    key, _ = keys.add(agent_id="a1", user_id="u1")
    agent = RemoteAgent("http://testserver", key)
    agent._http.close()
    agent._http = TestClient(Guard(rest_app, keys), base_url="http://testserver",  # type: ignore[assignment]
                             headers={"Authorization": f"Bearer {key}"})
    yield agent, recording
    agent.close()


@pytest.mark.parametrize("op", by_name(ENTRIES))
def test_the_client_reaches_each_entry_through_its_route(remote, op: Operation) -> None:
    agent, service = remote
    args = sample_args(op.args)
    answer = agent.call(op.name, args)
    name, received = service.calls[-1]
    assert name == op.name
    assert op.args.model_validate(received) == op.args.model_validate(args), "the arguments arrive as sent"
    assert set(args) <= set(received), "(a query route adds its defaults)"
    if op.streams:
        assert answer == '{"record": "footer", "counts": {}}\n'
    else:
        assert answer == ([] if op.result is list else {"op": op.name})


class _Called(Exception):  # noqa: N818 - a signal, not an error
    pass


class SpyAgent(RemoteAgent):
    """A RemoteAgent whose transport records the operation a method calls and stops there."""

    def __init__(self) -> None:  # no HTTP client: nothing is sent
        self.ops: list[str] = []
        self._whoami = None

    def call(self, op: str, args: Any = None, **options: Any) -> Any:
        self.ops.append(op)
        raise _Called


PARAMETER_SAMPLES = {"trace_ids": ["x1"], "items": [{"content": "x1"}], "ids": ["x1"]}


@pytest.mark.parametrize("op", by_name(ENTRIES))
def test_every_entry_has_a_remote_agent_method_that_calls_it(op: Operation) -> None:
    if op.client is None:
        pytest.skip(f"{op.name} is call-only: RemoteAgent.call({op.name!r}, ...)")
    method = getattr(RemoteAgent, op.client, None)
    assert callable(method), f"{op.name}: RemoteAgent has no method {op.client}"
    spy = SpyAgent()
    required = [p for p in inspect.signature(method).parameters.values()
                if p.name != "self" and p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    with pytest.raises(_Called):
        getattr(spy, op.client)(*(PARAMETER_SAMPLES.get(p.name, "x1") for p in required))
    assert spy.ops == [op.name]


def test_the_client_refuses_an_undeclared_operation_before_sending() -> None:
    with RemoteAgent("http://127.0.0.1:9", "cgm_x") as agent, pytest.raises(ValueError, match="unknown operation"):
        agent.call("forget_everything")
    with RemoteAgent("http://127.0.0.1:9", "cgm_x") as agent, pytest.raises(ValueError, match="trace_id is required"):
        agent.call("memory", {})


# ---------------------------------------------------------------- MCP


class _Refused(Exception):  # noqa: N818 - stands in for a ServiceError
    status = 400
    message = "recorded"


def test_every_mcp_entry_has_its_tool_or_resource_and_every_tool_serves_an_entry() -> None:
    calls: list[str] = []

    def caller(_headers: Any, op: str, _args: dict[str, Any]) -> Any:
        calls.append(op)
        raise _Refused

    mcp = build_mcp(caller)
    serving = served(mcp)

    async def surface() -> tuple[dict[str, Any], set[str]]:
        tools = {t.name: t for t in await mcp.list_tools()}
        resources = {t.name for t in await mcp.list_resource_templates()} | {r.name for r in await mcp.list_resources()}
        return tools, resources

    tools, resources = anyio.run(surface)
    assert set(tools) | resources == set(serving), "a tool or resource registered without its table entry"
    assert set(tools) == {op.mcp_tool for op in ENTRIES if op.mcp_tool}, "an entry names an MCP tool that is missing"
    assert resources == {op.mcp for op in ENTRIES if op.mcp_resource}
    for name, op_name in serving.items():
        entry = OPERATIONS[op_name]
        assert entry.mcp == name
        if entry.mcp_resource:
            continue
        assert tools[name].description == entry.description
        schema = tools[name].input_schema
        arguments = {p: sample_from_schema(schema["properties"][p]) for p in schema.get("required", [])}

        async def call_tool(tool: str = name, arguments: dict[str, Any] = arguments) -> None:
            with pytest.raises(Exception, match="recorded"):  # noqa: B017 - the SDK's error type
                result = await mcp.call_tool(tool, arguments)
                raise AssertionError(f"no refusal: {result}")

        anyio.run(call_tool)
        assert calls[-1] == op_name, f"tool {name} declares {op_name} but runs {calls[-1]}"

    async def read() -> None:
        with pytest.raises(Exception, match="recorded"):  # noqa: B017
            await mcp.read_resource("memory://x1")

    anyio.run(read)
    assert calls[-1] == "memory"


# ---------------------------------------------------------------- CLI


def _cli_commands() -> set[str]:
    root = typer.main.get_command(cli_app)
    names = set()
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        names.add(name)
        names |= {f"{name} {sub}" for sub in getattr(command, "commands", {})}
    return names


@pytest.mark.parametrize("op", by_name([op for op in ENTRIES if op.cli]))
def test_every_entry_naming_a_cli_command_has_it_and_it_goes_through_server(op: Operation) -> None:
    assert op.cli in _cli_commands(), f"{op.name}: no `cogmem {op.cli}` command"
    assert op.cli not in LOCAL_ONLY, f"`cogmem {op.cli}` runs {op.name} but refuses --server"


def test_local_only_names_real_commands() -> None:
    assert set(LOCAL_ONLY) <= _cli_commands()


def test_the_openapi_schema_of_the_real_app_has_every_entry(tmp_path: Path) -> None:
    """The whole app (guard, REST, MCP mount) as `cogmem serve` builds it, on a store never used."""
    from cogmem_graph.server.app import ServerSettings, create_app

    class Unused:
        closed = False

    guarded = create_app(Unused(), KeyRing(tmp_path / "keys.json"),  # type: ignore[arg-type]
                         ServerSettings(consolidate_every_s=0))
    paths = guarded.app.openapi()["paths"]
    for op in ENTRIES:
        assert op.method.lower() in paths.get(op.path, {}), f"{op.name}: {op.method} {op.path} not in the schema"


BOUND_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
              "minItems", "maxItems")


def _bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """The numeric, length and size bounds of one property's JSON schema (an optional value's too)."""
    found = {k: schema[k] for k in BOUND_KEYS if k in schema}
    for option in schema.get("anyOf", []):
        found.update({k: option[k] for k in BOUND_KEYS if k in option})
    return found


def _default(schema: dict[str, Any]) -> Any:
    return schema.get("default", "(required)")


def test_mcp_tools_take_the_table_s_arguments_with_its_limits() -> None:
    """Each tool's parameters are its entry's `mcp_arguments`, and each keeps the bounds of the
    operation's own field (or, for a flat filter argument, the filter's): one limit per argument,
    on MCP as on REST, so no tool advertises a value the server refuses or refuses one it takes."""
    mcp = build_mcp(lambda *_: None)
    tools = {t.name: t for t in anyio.run(mcp.list_tools)}
    filter_schema = MemoryFilter.model_json_schema()["properties"]
    problems, checked = [], 0
    for op in ENTRIES:
        if op.mcp_tool is None:
            continue
        schema = tools[op.mcp_tool].input_schema
        properties = schema.get("properties", {})
        assert set(properties) == set(op.mcp_arguments.model_fields), op.name
        assert set(schema.get("required", [])) == {n for n, f in op.mcp_arguments.model_fields.items()
                                                   if f.is_required()}, op.name
        table = op.args.model_json_schema()["properties"]
        for field, tool_schema in properties.items():
            own = table.get(field, filter_schema.get(field))
            assert own is not None, f"{op.mcp_tool}.{field} is neither {op.args.__name__}'s nor a filter field"
            if _bounds(tool_schema) != _bounds(own):
                problems.append(f"{op.mcp_tool}.{field}: {_bounds(tool_schema)} (table {_bounds(own)})")
            checked += 1
    assert not problems
    assert checked > 40


def test_a_tool_shows_the_table_s_defaults_unless_its_variant_gives_one() -> None:
    tools = {t.name: t for t in anyio.run(build_mcp(lambda *_: None).list_tools)}
    properties = {name: tool.input_schema.get("properties", {}) for name, tool in tools.items()}
    assert _default(properties["recall"]["timeline"]) is False
    assert _default(properties["recall"]["query"]) == "(required)"
    assert _default(properties["list_memories"]["limit"]) == 20  # the tool's own: a page a model reads
    assert _default(properties["consolidation_report"]["runs"]) == 20
    assert properties["recall"]["top_k"]["anyOf"][0]["maximum"] == 1000


def test_a_tool_variant_naming_what_its_operation_does_not_take_fails_when_the_table_is_built() -> None:
    with pytest.raises(ValueError, match="neither fields"):
        Operation("find", NoArgs, "read", "POST", "/v1/find", summary="s", description="d", mcp="find",
                  mcp_args=tool_args(MultiHopArgs, "query"))
    with pytest.raises(ValueError, match="needs an MCP tool"):
        Operation("find", MultiHopArgs, "read", "POST", "/v1/find", summary="s", description="d",
                  mcp_args=tool_args(MultiHopArgs, "query"))
