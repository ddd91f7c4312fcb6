"""The MCP surface: tools an LLM calls to use its memory, and a resource per memory.

Built on the official SDK's `MCPServer`. Every tool forwards to one `Caller`, given the
request's headers (None on stdio) and the operation: in the HTTP server it authenticates
the key in the headers and runs the service; on stdio it runs the service for the key
the process was started with, or forwards to a remote server. Descriptions say when to
use a tool, because the model reads them to choose.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import Field

Caller = Callable[[Mapping[str, str] | None, str, dict[str, Any]], Any]

INSTRUCTIONS = (
    "Long-term memory for this agent, shared with the other agents of its organization. "
    "Call `recall` (or `build_context` before answering a user) to bring back what is known; call "
    "`remember` for facts, preferences, decisions and events worth keeping beyond this conversation. "
    "Memories decay unless used, so recall rather than re-ask. Your identity is fixed by your API key."
)

Scope = Literal["agent", "thread", "user", "persona", "organization"]
MemoryKind = Literal["episodic", "semantic", "procedural", "prospective", "relational"]


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


def slim_multi_hop(data: Mapping[str, Any]) -> dict[str, Any]:
    return {"query": data["query"], "mode": data["mode"], "memories": [
        {**slim_trace(t["trace"]), "score": round(t["score"], 4), "evidence": t["evidence"],
         "hops": sum(1 for step in t["path"]["steps"] if step["kind"] == "entity")} for t in data["traces"]]}


def build_mcp(call: Caller, *, name: str = "cogmem") -> MCPServer:
    mcp = MCPServer(name=name, instructions=INSTRUCTIONS, version="0.1.0", log_level="WARNING")

    def run(ctx: Context | None, op: str, **args: Any) -> Any:
        try:
            return call(_headers(ctx), op, {k: v for k, v in args.items() if v is not None})
        except Exception as exc:
            status = getattr(exc, "status", None)
            if status is None:
                raise
            # A refusal or bad input is the model's to read and correct: its message goes back.
            error = ResourceError if op == "memory" else ToolError
            raise error(f"{status}: {getattr(exc, 'message', exc)}") from None

    @mcp.tool(description=(
        "Store one memory for later. Use for facts about the user or the world (type 'semantic'), "
        "things that happened (type 'episodic', the default), how-tos ('procedural'). "
        "scope: 'user' (default when the key has a user: only this user sees it), 'organization' "
        "(every agent of the organization sees it: shared knowledge), 'thread', 'agent', 'persona'. "
        "Returns the stored memory with its id; a near-duplicate reinforces the existing one instead."))
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

    @mcp.tool(description=(
        "Search memory for what answers a question or relates to a topic. Returns ranked memories, "
        "each with its score, the signals behind it (relevance, recency, importance, ...) and "
        "`sources`: how it was found ('dense' meaning, 'lexical' words, 'activation' association "
        "through the memory graph). Use before answering questions about the user or past work."))
    def recall(
        query: Annotated[str, Field(description="a question or a few keywords")],
        ctx: Context,
        top_k: Annotated[int | None, Field(ge=1, le=100, description="how many memories")] = None,
        as_of: Annotated[int | None, Field(ge=0, description=(
            "epoch milliseconds: answer as of that moment (what was known then and true then) instead of now"))] = None,
        timeline: Annotated[bool, Field(description=(
            "true: every version of what matches, including replaced and expired ones, in the order it "
            "happened (for 'how did this change?' questions)"))] = False,
    ) -> dict[str, Any]:
        return slim_recall(run(ctx, "recall", query=query, top_k=top_k, as_of=as_of, timeline=timeline))

    @mcp.tool(description=(
        "Build the memory context to put in front of a reply: relevant facts, recent events, "
        "graph associations, working memory and reminders that this turn triggers, laid out in "
        "sections within a token budget. Use once per user turn with the user's message as query."))
    def build_context(
        query: Annotated[str, Field(description="the user's message or the task at hand")],
        ctx: Context,
        token_budget: Annotated[int | None, Field(ge=50, le=200_000)] = None,
    ) -> dict[str, Any]:
        return run(ctx, "context", query=query, token_budget=token_budget)

    @mcp.tool(description=(
        "Answer a question that connects several things (\"where does the company Alice joined have "
        "its office?\") by walking the memory graph: entities the question names, memories that "
        "mention them, entities those mention. Each result has its evidence path from the question."))
    def multi_hop(
        query: str, ctx: Context,
        hops: Annotated[int | None, Field(ge=1, le=4, description="entity crossings, default 2")] = None,
        top_k: Annotated[int | None, Field(ge=1, le=100)] = None,
    ) -> dict[str, Any]:
        return slim_multi_hop(run(ctx, "multi_hop", query=query, hops=hops, top_k=top_k))

    @mcp.tool(description=(
        "Feed one conversation turn to the observer, which distils buffered turns into notes and "
        "later into long-term memories on its own. Use to log a conversation without deciding "
        "yourself what is worth remembering."))
    def observe(role: Literal["user", "assistant", "system", "tool"], text: str, ctx: Context) -> dict[str, Any]:
        return run(ctx, "observe", role=role, text=text)

    @mcp.tool(description=(
        "Set a reminder to bring something up later: at a time (`at`, epoch ms), every interval "
        "(`every`, ms), when a turn mentions words (`on_keywords`) or resembles a situation "
        "(`on_context`). Fired reminders appear in build_context's Reminders section."))
    def remind(
        content: str, ctx: Context, at: int | None = None, every: int | None = None,
        on_keywords: list[str] | None = None, on_context: str | None = None,
        scope: Scope | None = None,
    ) -> dict[str, Any]:
        return run(ctx, "remind", content=content, at=at, every=every, on_keywords=on_keywords,
                   on_context=on_context, scope=scope)

    @mcp.tool(description="List the pending reminders this agent can see (with their ids, to cancel one).")
    def list_reminders(ctx: Context, include_inactive: bool = False) -> list[dict[str, Any]]:
        return run(ctx, "reminders", include_inactive=include_inactive)

    @mcp.tool(description="Cancel a pending reminder by its id.")
    def cancel_reminder(reminder_id: str, ctx: Context) -> dict[str, Any]:
        return run(ctx, "cancel_reminder", reminder_id=reminder_id)

    @mcp.tool(description=(
        "Pin memories by id: truth anchors that are never forgotten, merged or superseded. Use when "
        "the user states something as permanently true."))
    def pin(ids: list[str], ctx: Context) -> dict[str, Any]:
        return run(ctx, "pin", ids=ids)

    @mcp.tool(description="Unpin memories by id: they may fade like any other again.")
    def unpin(ids: list[str], ctx: Context) -> dict[str, Any]:
        return run(ctx, "unpin", ids=ids)

    @mcp.tool(description="Who this memory connection acts as: the key's agent, user, organization and visible scopes.")
    def whoami(ctx: Context) -> dict[str, Any]:
        return run(ctx, "whoami")

    @mcp.tool(description="Owner only: run memory consolidation now (decay, merge, schemas, contradictions).")
    def consolidate(ctx: Context) -> dict[str, Any]:
        return run(ctx, "consolidate")

    @mcp.tool(description="Owner only: counts of the whole store and the last scheduled consolidation.")
    def stats(ctx: Context) -> dict[str, Any]:
        return run(ctx, "stats")

    @mcp.tool(description="Owner only: reconcile the vector index with the graph after a crash.")
    def repair(ctx: Context) -> dict[str, Any]:
        return run(ctx, "repair")

    @mcp.resource("memory://{trace_id}", name="memory", mime_type="application/json",
                  description="One memory and its graph neighbourhood: associative edges and the memories at their ends.")
    def memory(trace_id: str, ctx: Context) -> str:
        return json.dumps(run(ctx, "memory", trace_id=trace_id))

    return mcp
