"""The MCP surface: tools an LLM calls to use its memory, and a resource per memory.

Built on the official SDK's `MCPServer`. Every tool forwards to one `Caller`, given the
request's headers (None on stdio) and the operation: in the HTTP server it authenticates
the key in the headers and runs the service; on stdio it runs the service for the key
the process was started with, or forwards to a remote server.

The tools are written by hand, because their signatures are what the model sees, but each
declares the entry of `cogmem_graph.operations` it serves: `@tool("recall")` registers the
function under that entry's MCP name with its description (which says when to use the
tool, because the model reads it to choose). `served(mcp)` lists which tool serves which
entry, and the operations-table test fails when an entry with an MCP name has no tool or
a tool serves no entry.

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
from typing import Annotated, Any, Literal

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from pydantic import Field, ValidationError
from starlette.applications import Starlette

from cogmem_graph._version import VERSION
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import Moment
from cogmem_graph.operations import OPERATIONS, Operation, identity_arguments, operation
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

Scope = Literal["agent", "thread", "user", "persona", "organization"]
MemoryKind = Literal["episodic", "semantic", "procedural", "prospective", "relational"]
State = Literal["active", "dormant", "superseded", "inactive"]


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


def _where(**fields: Any) -> dict[str, Any] | None:
    """The filter of a tool's flat arguments (None when none is given)."""
    where = {k: v for k, v in fields.items() if v is not None}
    return where or None


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


def _parameters(fn: Callable[..., Any]) -> frozenset[str]:
    """A tool function's argument names (what a call may pass), less its `Context`."""
    return frozenset(name for name, p in inspect.signature(fn).parameters.items()
                     if name != "ctx" and p.annotation not in (Context, "Context"))


def served(mcp: MCPServer) -> dict[str, str]:
    """The MCP name (tool or resource) of each function `build_mcp` registered, mapped to the
    operation it serves."""
    return dict(getattr(mcp, SERVED_ATTRIBUTE, {}))


def build_mcp(call: Caller, *, name: str = "cogmem") -> MemoryMCP:
    mcp = MemoryMCP(name=name, instructions=INSTRUCTIONS, version=VERSION, log_level="WARNING")
    registered: dict[str, str] = {}
    setattr(mcp, SERVED_ATTRIBUTE, registered)

    def serving(op_name: str, kind: str) -> Operation:
        entry = operation(op_name)
        if entry.mcp is None or (kind == "resource") != (entry.mcp_resource is not None):
            raise ValueError(f"operation {op_name!r} declares no MCP {kind} (see cogmem_graph.operations)")
        registered[entry.mcp] = op_name
        return entry

    def tool(op_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the function as the MCP tool of operation `op_name`, named and described by its entry."""
        entry = serving(op_name, "tool")
        register = mcp.tool(name=entry.mcp, description=entry.description)

        def registered_tool(fn: Callable[..., Any]) -> Callable[..., Any]:
            mcp.tool_arguments[entry.mcp or op_name] = _parameters(fn)
            return register(fn)

        return registered_tool

    def resource(op_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the function as the MCP resource of operation `op_name`."""
        entry = serving(op_name, "resource")
        return mcp.resource(entry.mcp_resource or "", name=entry.mcp, mime_type="application/json",
                            description=entry.description)

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

    @tool("remember")
    def remember(
        content: Annotated[str, Field(description="the memory, one self-contained statement")],
        ctx: Context,
        type: MemoryKind | None = None,  # noqa: A002 - the encode field's name
        scope: Scope | None = None,
        tags: list[str] | None = None,
        entities: list[str] | None = None,
        confidence: Annotated[float | None, Field(ge=0, le=1)] = None,
        pinned: Annotated[bool | None, Field(description="a truth anchor that is never forgotten")] = None,
    ) -> dict[str, Any]:
        return slim_trace(run(ctx, "remember", content=content, type=type, scope=scope, tags=tags,
                              entities=entities, confidence=confidence, pinned=pinned))

    @tool("recall")
    def recall(
        query: Annotated[str, Field(min_length=1, description="a question or a few keywords")],
        ctx: Context,
        top_k: Annotated[int | None, Field(ge=1, le=100, description="how many memories")] = None,
        as_of: Annotated[Moment | None, Field(description=(
            "a moment (ISO-8601 date or date-time, or epoch milliseconds): answer as of then (what was known "
            "then and true then) instead of now"))] = None,
        timeline: Annotated[bool, Field(description=(
            "true: every version of what matches, including replaced and expired ones, in the order it "
            "happened (for 'how did this change?' questions)"))] = False,
        tags_any: Annotated[list[str] | None, Field(
            description="only memories with at least one of these tags")] = None,
        type: Annotated[list[MemoryKind] | None, Field(  # noqa: A002 - the filter field's name
            description="only memories of these types")] = None,
    ) -> dict[str, Any]:
        return slim_recall(run(ctx, "recall", query=query, top_k=top_k, as_of=as_of, timeline=timeline,
                               where=_where(tags_any=tags_any, type=type)))

    @tool("context")
    def build_context(
        query: Annotated[str, Field(min_length=1, description="the user's message or the task at hand")],
        ctx: Context,
        token_budget: Annotated[int | None, Field(ge=50, le=200_000)] = None,
        debug: Annotated[bool, Field(description=(
            "true: the text also shows each memory's id and score, for inspecting the memory; "
            "leave it false for a context to answer from"))] = False,
    ) -> dict[str, Any]:
        return run(ctx, "context", query=query, token_budget=token_budget, debug=debug)

    @tool("multi_hop")
    def multi_hop(
        query: Annotated[str, Field(min_length=1)], ctx: Context,
        hops: Annotated[int | None, Field(ge=1, le=4, description="entity crossings, default 2")] = None,
        top_k: Annotated[int | None, Field(ge=1, le=100)] = None,
    ) -> dict[str, Any]:
        return slim_multi_hop(run(ctx, "multi_hop", query=query, hops=hops, top_k=top_k))

    @tool("observe")
    def observe(role: Literal["user", "assistant", "system", "tool"], text: Annotated[str, Field(min_length=1)],
                ctx: Context) -> dict[str, Any]:
        return run(ctx, "observe", role=role, text=text)

    @tool("remind")
    def remind(
        content: Annotated[str, Field(min_length=1)], ctx: Context,
        at: Annotated[Moment | None, Field(description=(
            "when it is due: an ISO-8601 date-time or epoch milliseconds"))] = None,
        every: Annotated[int | None, Field(gt=0, description="milliseconds between occurrences")] = None,
        on_keywords: list[str] | None = None, on_context: str | None = None,
        scope: Scope | None = None,
    ) -> dict[str, Any]:
        return run(ctx, "remind", content=content, at=at, every=every, on_keywords=on_keywords,
                   on_context=on_context, scope=scope)

    @tool("reminders")
    def list_reminders(ctx: Context, include_inactive: bool = False) -> list[dict[str, Any]]:
        return run(ctx, "reminders", include_inactive=include_inactive)

    @tool("consolidation_report")
    def consolidation_report(
        ctx: Context, runs: Annotated[int, Field(ge=1, le=100)] = 20, schemas: Annotated[int, Field(ge=0, le=200)] = 20,
        members: Annotated[int, Field(ge=0, le=100)] = 10, contradictions: Annotated[int, Field(ge=0, le=500)] = 50,
    ) -> dict[str, Any]:
        return run(ctx, "consolidation_report", runs=runs, schemas=schemas, members=members,
                   contradictions=contradictions)

    @tool("memory_stats")
    def memory_stats(ctx: Context) -> dict[str, Any]:
        return run(ctx, "memory_stats")

    @tool("cancel_reminder")
    def cancel_reminder(reminder_id: Annotated[str, Field(min_length=1)], ctx: Context) -> dict[str, Any]:
        return run(ctx, "cancel_reminder", reminder_id=reminder_id)

    @tool("pin")
    def pin(ids: list[str], ctx: Context) -> dict[str, Any]:
        return run(ctx, "pin", ids=ids)

    @tool("unpin")
    def unpin(ids: list[str], ctx: Context) -> dict[str, Any]:
        return run(ctx, "unpin", ids=ids)

    @tool("list")
    def list_memories(
        ctx: Context,
        type: Annotated[list[MemoryKind] | None, Field(description="memory types, any of")] = None,  # noqa: A002
        tags_any: Annotated[list[str] | None, Field(description="at least one of these tags")] = None,
        tags_all: Annotated[list[str] | None, Field(description="every one of these tags")] = None,
        scope: Annotated[list[Scope] | None, Field(description="scopes, any of")] = None,
        state: Annotated[list[State] | None, Field(description=(
            "any of: active, dormant (faded), superseded (replaced by a newer version), inactive (merged or "
            "pruned); default: every state"))] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description=(
            "dotted key -> value, list of values, or {eq, in, gte, gt, lte, lt}"))] = None,
        entity: Annotated[list[str] | None, Field(description="mentions one of these names")] = None,
        created_after: Annotated[Moment | None, Field(description=(
            "event time at or after (ISO-8601 or epoch ms)"))] = None,
        created_before: Annotated[Moment | None, Field(description="event time before (ISO-8601 or epoch ms)")] = None,
        order: Literal["newest", "oldest"] = "newest",
        limit: Annotated[int, Field(ge=1, le=100, description="memories per page")] = 20,
        cursor: Annotated[str | None, Field(min_length=1, description="the `cursor` of the previous page")] = None,
    ) -> dict[str, Any]:
        where = _where(type=type, tags_any=tags_any, tags_all=tags_all, scope=scope, state=state, metadata=metadata,
                       entity=entity, created_after=created_after, created_before=created_before)
        page = run(ctx, "list", where=where, order=order, limit=limit, cursor=cursor)
        return {"memories": [slim_record(r) for r in page["items"]], "cursor": page["cursor"]}

    @tool("update")
    def update_memory(
        trace_id: Annotated[str, Field(min_length=1, description="the id of the memory to correct")],
        ctx: Context,
        content: Annotated[str | None, Field(min_length=1, description=(
            "the corrected statement: a new version replaces the old one (kept in its history)"))] = None,
        tags: Annotated[list[str] | None, Field(description="the new tags (replace the old ones)")] = None,
        metadata: Annotated[dict[str, Any] | None, Field(description="the new metadata (replaces the old)")] = None,
        pinned: Annotated[bool | None, Field(description="pin (never forgotten) or unpin")] = None,
        type: MemoryKind | None = None,  # noqa: A002 - the field's name
    ) -> dict[str, Any]:
        return slim_record(run(ctx, "update", trace_id=trace_id, content=content, tags=tags, metadata=metadata,
                               pinned=pinned, type=type))

    @tool("forget")
    def forget(
        ctx: Context,
        ids: Annotated[list[str] | None, Field(description="the ids of the memories to delete")] = None,
        where: Annotated[MemoryFilter | None, Field(description=(
            "instead of ids: delete every memory matching this filter (tags_any, type, metadata, ...)"))] = None,
        force: Annotated[bool, Field(description="also delete pinned memories")] = False,
    ) -> dict[str, Any]:
        receipt = run(ctx, "forget", ids=ids, force=force,
                      where=where.model_dump(mode="json", exclude_none=True) if where is not None else None)
        return {k: receipt[k] for k in ("forgotten", "not_found", "skipped_pinned")}

    @tool("history")
    def memory_history(
        trace_id: Annotated[str, Field(min_length=1, description="the id of any version of the memory")], ctx: Context,
    ) -> dict[str, Any]:
        return {"versions": [slim_record(r) for r in run(ctx, "history", trace_id=trace_id)]}

    @tool("whoami")
    def whoami(ctx: Context) -> dict[str, Any]:
        return run(ctx, "whoami")

    @tool("consolidate")
    def consolidate(ctx: Context) -> dict[str, Any]:
        return run(ctx, "consolidate")

    @tool("stats")
    def stats(ctx: Context) -> dict[str, Any]:
        return run(ctx, "stats")

    @tool("repair")
    def repair(ctx: Context, reembed: bool = False) -> dict[str, Any]:
        return run(ctx, "repair", reembed=reembed)

    @resource("memory")
    def memory(trace_id: str, ctx: Context) -> str:
        return json.dumps(run(ctx, "memory", trace_id=trace_id))

    return mcp
