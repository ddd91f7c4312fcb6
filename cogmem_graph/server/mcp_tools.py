"""The MCP surface: tools an LLM calls to use its memory, and a resource per memory.

Built on the official SDK's `MCPServer`. Every tool forwards to one `Caller`, given the
request's headers (None on stdio) and the operation: in the HTTP server it authenticates
the key in the headers and runs the service; on stdio it runs the service for the key
the process was started with, or forwards to a remote server.

The tools are generated from `cogmem_graph.operations`: each entry naming an MCP tool
becomes one, named and described by the entry (the description says when to use the tool,
because the model reads it to choose), its parameters the entry's `mcp_arguments` (the
operation's own argument model, or the `tool_args` variant beside the entry: fewer fields,
a flat filter in place of `where`, the words a model reads), so a type, default or limit
is declared once. `SHAPES` says what a tool answers where it is less than REST's answer.
`served(mcp)` lists which tool serves which entry.

Three rules the SDK does not keep by itself, kept by `MemoryMCP`:
- a tool call's arguments are the tool's parameters and nothing else: the SDK would drop
  an unknown one silently, so an argument naming an identity (`user_id`, `scope_keys`,
  ... as `operations.identity_name` reads it) is refused "403: ...", like REST's 403,
  and any other unknown one "400: ...", like REST's refusal of unknown fields;
- an invalid argument is "400: <tool>: ..." naming each argument at fault and never quoting
  its value (the SDK's own text quotes it, and reads a NaN as out of range);
- over streamable HTTP, a session belongs to the key that opened it (`KeyBoundSessions`):
  the SDK's session manager binds a session to the authenticated user of the request
  that created it and answers 404 to a request of any other for that `mcp-session-id`,
  so the middleware makes that user the guard's key (its id, never the secret). It also
  answers 401 "key expired" for an expired key, and a 404 in the server's error format
  for a path that is not the MCP endpoint.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo
from starlette.applications import Starlette

from cogmem_graph._version import VERSION
from cogmem_graph.operations import OPERATIONS, Operation, identity_arguments
from cogmem_graph.server.guards import send_error
from cogmem_graph.server.service import KEY_EXPIRED

Caller = Callable[[Mapping[str, str] | None, str, dict[str, Any]], Any]

INSTRUCTIONS = (
    "Long-term memory for this agent, shared with the other agents of its organization. "
    "Call `recall` (or `build_context` before answering a user) to bring back what is known; call "
    "`remember` for facts, preferences, decisions and events worth keeping beyond this conversation. "
    "Memories decay unless used, so recall rather than re-ask. When the user corrects something, "
    "`update_memory`; when the user asks to delete or forget something, `forget` (permanent). "
    "Your identity is fixed by your API key."
)

def _headers(ctx: Context | None) -> Mapping[str, str] | None:
    if ctx is None:
        return None
    try:
        return ctx.headers
    except ValueError:
        return None


SLIM_FIELDS = ("id", "content", "type", "scope_key", "created_at", "entities", "pinned")


def slim_trace(trace: Mapping[str, Any]) -> dict[str, Any]:
    """What a model needs of a memory; the full envelope stays on the REST API."""
    return {k: trace[k] for k in SLIM_FIELDS if k in trace}


def slim_recall(data: Mapping[str, Any]) -> dict[str, Any]:
    def item(scored: Mapping[str, Any]) -> dict[str, Any]:
        return {**slim_trace(scored["trace"]), "score": round(scored["score"], 4),
                "sources": scored["sources"], "signals": {k: round(v, 4) for k, v in scored["signals"].items()}}

    return {"query": data["query"], "intent": data.get("intent"), "memories": [item(s) for s in data["traces"]],
            "tip_of_the_tongue": [item(s) for s in data["partial"]]}


def slim_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A memory as `list_memories`, `update_memory` and `memory_history` show it: the slim trace,
    its tags, state and version (and what replaced it, who changed it, when there is)."""
    trace = record["trace"]
    slim = {**slim_trace(trace), "tags": trace.get("tags", []), "state": record["state"], "version": record["version"]}
    if record.get("superseded_by"):
        slim["superseded_by"] = record["superseded_by"]
    if record.get("updated_by"):
        slim["updated_by"] = record["updated_by"]
    return slim


def slim_multi_hop(data: Mapping[str, Any]) -> dict[str, Any]:
    return {"query": data["query"], "mode": data["mode"], "memories": [
        {**slim_trace(t["trace"]), "score": round(t["score"], 4), "evidence": t["evidence"],
         "hops": sum(1 for step in t["path"]["steps"] if step["kind"] == "entity")} for t in data["traces"]]}


SERVED_ATTRIBUTE = "cogmem_served"
MCP_PATH = "/mcp"


def refuse_tool_arguments(tool: str, arguments: Mapping[str, Any], accepted: frozenset[str]) -> None:
    """ToolError "403: ..." when `arguments` name an identity, "400: ..." when they name anything
    else `accepted` (the tool's parameters) does not hold; the SDK would drop either silently."""
    chosen = identity_arguments(arguments, accepted)
    if chosen:
        raise ToolError(f"403: {', '.join(chosen)}: the identity comes from the API key; a request cannot "
                        "choose whose memory it reads or writes")
    unknown = sorted(str(name).encode("utf-8", "backslashreplace").decode("utf-8")
                     for name in arguments if name not in accepted)
    if unknown:
        raise ToolError(f"400: {tool}: unknown argument(s) {', '.join(unknown)}; this tool takes "
                        f"{', '.join(sorted(accepted)) or 'none'}")


def argument_problems(exc: ValidationError) -> str:
    """A tool call's invalid arguments on one line, each naming its argument and never quoting
    the value (the SDK's text quotes it, and says "less than or equal to 1" of a NaN)."""
    problems = []
    for error in exc.errors():
        name = ".".join(str(part) for part in error["loc"]) or "arguments"
        value = error.get("input")
        if error["type"] != "value_error" and isinstance(value, float) and not math.isfinite(value):
            problems.append(f"{name} must be a finite number")
            continue
        message = error["msg"].removeprefix("Value error, ")
        problems.append(message if message.startswith(f"{name} ") else f"{name}: {message}")
    return "; ".join(problems)


class MemoryMCP(MCPServer):
    """The SDK's `MCPServer` with the tool-argument rule, one-line argument errors and key-bound
    HTTP sessions (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tool_arguments: dict[str, frozenset[str]] = {}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        accepted = self.tool_arguments.get(name)
        if accepted is not None:
            refuse_tool_arguments(name, arguments or {}, accepted)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(f"400: {name}: {argument_problems(exc.__cause__)}") from exc.__cause__
            raise

    def streamable_http_app(self, **kwargs: Any) -> Starlette:
        app = super().streamable_http_app(**kwargs)
        app.add_middleware(KeyBoundSessions, path=kwargs.get("streamable_http_path", MCP_PATH))
        return app


ASGIApp = Callable[[dict[str, Any], Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]]


class KeyBoundSessions:
    """ASGI middleware of the streamable HTTP app, behind the guard: the guard's principal becomes
    the request's authenticated user (`AccessToken.client_id` is the key's id), which the SDK's
    session manager binds a new session to and compares on every later request of it (another
    key using the session id: 404 "Session not found"). An expired key is 401; a path other
    than the MCP endpoint a 404, both in the server's error format."""

    def __init__(self, app: ASGIApp, path: str = MCP_PATH) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        root = scope.get("root_path", "")
        path = scope["path"][len(root):] if root and scope["path"].startswith(root) else scope["path"]
        if path.rstrip("/") != self.path:
            await send_error(send, 404, f"no route {scope.get('method', '')} {path}".strip())
            return
        principal = scope.get("state", {}).get("principal")
        if principal is None or principal.expired:  # the guard sets it; never serve nobody
            await send_error(send, 401, KEY_EXPIRED if principal is not None else "missing or unknown API key",
                             {"WWW-Authenticate": 'Bearer realm="cogmem"'})
            return
        token = AccessToken(token=f"cogmem-key:{principal.key_id}", client_id=principal.key_id, scopes=[])
        await self.app({**scope, "user": AuthenticatedUser(token)}, receive, send)


Shape = Callable[[Any], dict[str, Any]]
SHAPES: dict[str, Shape] = {
    "remember": slim_trace, "recall": slim_recall, "multi_hop": slim_multi_hop, "update": slim_record,
    "list": lambda page: {"memories": [slim_record(r) for r in page["items"]], "cursor": page["cursor"]},
    "history": lambda records: {"versions": [slim_record(r) for r in records]},
    "forget": lambda receipt: {k: receipt[k] for k in ("forgotten", "not_found", "skipped_pinned")},
}
"""What a tool answers of its operation's answer, where it is less than REST's (a model reads it)."""


def _parameter(name: str, field: FieldInfo) -> inspect.Parameter:
    """A tool function's parameter for `field`: the SDK builds the tool's schema and validator from it."""
    annotation: Any = field.annotation
    if field.metadata or field.description:
        annotation = Annotated[(annotation, *field.metadata, Field(description=field.description))]
    default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def _signed(fn: Callable[..., Any], name: str, parameters: list[inspect.Parameter], returns: Any) -> None:
    """Give `fn` the signature (and annotations, which the SDK reads to find the `Context`) of a tool."""
    parameters = [*parameters, inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
    fn.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    fn.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": returns}
    fn.__name__ = fn.__qualname__ = name


def tool_function(entry: Operation, run: Callable[..., Any]) -> Callable[..., Any]:
    """The MCP tool of `entry`, its parameters the entry's `mcp_arguments`: it gathers the flat filter
    arguments into `where`, runs the operation and shapes the answer (`SHAPES`)."""
    own = entry.args.model_fields
    shape = SHAPES.get(entry.name)

    def tool(ctx: Context, **arguments: Any) -> Any:
        values = {k: v.model_dump(mode="json", exclude_none=True) if isinstance(v, BaseModel) else v
                  for k, v in arguments.items() if v is not None}
        where = {k: v for k, v in values.items() if k not in own}
        answer = run(ctx, entry.name, **{k: v for k, v in values.items() if k in own}, **(
            {"where": where} if where else {}))
        return shape(answer) if shape else answer

    returns = dict[str, Any] if shape or entry.result is dict else list[dict[str, Any]]
    _signed(tool, entry.mcp or entry.name, [_parameter(n, f) for n, f in entry.mcp_arguments.model_fields.items()],
            returns)
    return tool


def resource_function(entry: Operation, run: Callable[..., Any]) -> Callable[..., Any]:
    """The MCP resource of `entry`: the URI's parameters are the operation's arguments; JSON text."""

    def resource(ctx: Context, **arguments: Any) -> str:
        return json.dumps(run(ctx, entry.name, **arguments))

    parameters = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=str) for n in entry.path_params]
    _signed(resource, entry.mcp or entry.name, parameters, str)
    return resource


def served(mcp: MCPServer) -> dict[str, str]:
    """The MCP name (tool or resource) of each function `build_mcp` registered, mapped to the
    operation it serves."""
    return dict(getattr(mcp, SERVED_ATTRIBUTE, {}))


def build_mcp(call: Caller, *, name: str = "cogmem") -> MemoryMCP:
    """The MCP server: a tool (or resource) for each table entry naming one, generated from it."""
    mcp = MemoryMCP(name=name, instructions=INSTRUCTIONS, version=VERSION, log_level="WARNING")
    registered: dict[str, str] = {}
    setattr(mcp, SERVED_ATTRIBUTE, registered)

    def run(ctx: Context | None, op: str, **args: Any) -> Any:
        try:
            return call(_headers(ctx), op, {k: v for k, v in args.items() if v is not None})
        except Exception as exc:
            status = getattr(exc, "status", None)
            if status is None:
                raise
            # A refusal or bad input is the model's to read and correct: its message goes back.
            error = ResourceError if OPERATIONS[op].mcp_resource else ToolError
            raise error(f"{status}: {getattr(exc, 'message', exc)}") from None

    for entry in OPERATIONS.values():
        if entry.mcp is None:
            continue
        registered[entry.mcp] = entry.name
        if entry.mcp_resource is not None:
            mcp.resource(entry.mcp_resource, name=entry.mcp, mime_type="application/json",
                         description=entry.description)(resource_function(entry, run))
        else:
            mcp.tool_arguments[entry.mcp] = frozenset(entry.mcp_arguments.model_fields)
            mcp.tool(name=entry.mcp, description=entry.description)(tool_function(entry, run))
    return mcp
