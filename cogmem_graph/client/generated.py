"""The `RemoteAgent` methods made from the operations table: one per entry naming `client`.

Written by `tools/generate_client.py` from `cogmem_graph/operations.py`: do not edit it; change
the table (or the generator's `METHODS`) and run `python tools/generate_client.py`.
`tests/unit/test_client_generated.py` fails when this file is not what the generator writes.

Each method is a plan (`client/plans.py`), run by `RemoteAgent` and `AsyncRemoteAgent`: its
parameters are its operation's argument fields, each converted by `client/arguments.py` as the
field's type says, and its result is the answer's JSON or what a reader of `client/wire.py`
makes of it. Written by hand in `client/agent.py`, as they are not one request and one result:
- `whoami`: keeps the answer, which `visible_scope_keys` reads.
- `encode_many`: sends its items in batches, one `remember_many` request each.
- `export`: writes the streamed JSON Lines to a file as they arrive and returns the footer's counts.
- `export_user`: writes the streamed JSON Lines to a file as they arrive and returns the footer's counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogmem_graph.client import arguments
from cogmem_graph.client.plans import Send, remote
from cogmem_graph.client.wire import (
    context_from_json,
    erase_receipt_from_json,
    forget_receipt_from_json,
    intention_from_json,
    page_from_json,
    record_from_json,
    retrieval_from_json,
    trace_from_json,
)

if TYPE_CHECKING:
    import builtins
    from collections.abc import Mapping, Sequence
    from datetime import datetime, timedelta
    from typing import Any

    from cogmem_graph.api.governance import EraseReceipt, ForgetReceipt, MemoryPage, MemoryRecord
    from cogmem_graph.client.plans import Plan
    from cogmem_graph.cognition.prospective import Intention
    from cogmem_graph.filters import MemoryFilter
    from cogmem_graph.model import MemoryTrace, MemoryType
    from cogmem_graph.results import AssembledContext, RetrievalResult

__all__ = ["OperationMethods"]


class OperationMethods:
    """The methods of the table's entries, in its order; `RemoteMethods` adds those written by hand."""

    @remote
    def encode(self, /, content: str, **fields: Any) -> Plan[MemoryTrace]:
        """Store one memory for later. Use for facts about the user or the world (type 'semantic'), things that
        happened (type 'episodic', the default), how-tos ('procedural'). scope: 'user' (default when the key has a
        user: only this user sees it), 'organization' (every agent of the organization sees it: shared knowledge),
        'thread', 'agent', 'persona'. Returns the stored memory with its id; a near-duplicate reinforces the existing
        one instead."""
        answer = yield Send("remember", {"content": content, **arguments.converted("remember", fields)})
        return trace_from_json(answer)

    @remote
    def neighbourhood(self, trace_id: str, limit: int = 25) -> Plan[dict[str, Any]]:
        """One memory and its graph neighbourhood: associative edges and the memories at their ends."""
        answer: dict[str, Any] = yield Send("memory", {"trace_id": trace_id, "limit": limit})
        return answer

    @remote
    def get(self, trace_id: str) -> Plan[MemoryRecord]:
        """One memory by id with where it is in its life: state (active, dormant, superseded, inactive), version,
        superseded_by, updated_by, whether an archived original exists. A memory outside the key's scopes is not
        found (404)."""
        answer = yield Send("get", {"trace_id": trace_id})
        return record_from_json(answer)

    @remote
    def list(
        self,
        where: MemoryFilter | Mapping[str, Any] | None = None,
        *,
        order: str = "newest",
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Plan[MemoryPage]:
        """Browse the memories this key can see, newest (or oldest) first, a page at a time: pass the answer's
        `cursor` back for the next page (null: the last page). Narrow with a filter: type, scope, tags_any, tags_all,
        metadata, source_type, state, created/valid time windows, entity. Use to review or audit what is remembered,
        or to find ids to update or forget; use recall instead to find what answers a question."""
        answer = yield Send("list", {
            "where": arguments.filter_json(where, "where"),
            "order": arguments.enum_value(order, "order"),
            "limit": limit,
            "cursor": cursor,
        })
        return page_from_json(answer)

    @remote
    def update(
        self,
        trace_id: str,
        *,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        pinned: bool | None = None,
        type: MemoryType | str | None = None,
    ) -> Plan[MemoryRecord]:
        """Correct a memory the user says is wrong or out of date. New `content` makes a new version that supersedes
        the old one (the old one stays in its history, and is what as_of and timeline questions about the past see);
        tags, metadata, pinned and type change in place. Returns the current version (with its new id when the
        content changed)."""
        answer = yield Send("update", {
            "trace_id": trace_id,
            "content": content,
            "tags": arguments.listed(tags, "tags"),
            "metadata": arguments.plain_dict(metadata, "metadata"),
            "pinned": pinned,
            "type": arguments.enum_value(type, "type"),
        })
        return record_from_json(answer)

    @remote
    def history(self, trace_id: str) -> Plan[builtins.list[MemoryRecord]]:
        """Every version of a memory, oldest first: what it said, its state, and which agent changed it. Use to
        answer how a memory changed, or who corrected it."""
        answer = yield Send("history", {"trace_id": trace_id})
        return [record_from_json(item) for item in answer]

    @remote
    def forget(
        self,
        ids: str | Sequence[str] | None = None,
        *,
        where: MemoryFilter | Mapping[str, Any] | None = None,
        force: bool = False,
        compact: bool = False,
    ) -> Plan[ForgetReceipt]:
        """Delete memories permanently, by `ids` or every memory matching a filter (`where`), never both. There is no
        undo: the memory, its earlier versions, its graph edges and what was derived from it are deleted. Use only
        when the user asks to delete or forget something ("forget my old address", "delete what you know about my
        divorce"); to correct a memory use update_memory, and do not forget a memory merely because it seems
        unimportant (unused memories fade by themselves). Find the ids with recall or list_memories first. Pinned
        memories are skipped unless force is true. Returns a receipt: forgotten ids, not_found, skipped_pinned,
        counts."""
        answer = yield Send("forget", {
            "ids": arguments.one_or_many(ids, "ids"),
            "where": arguments.filter_json(where, "where"),
            "force": force,
            "compact": compact,
        })
        return forget_receipt_from_json(answer)

    @remote
    def pin(self, trace_ids: str | Sequence[str]) -> Plan[builtins.list[str]]:
        """Pin memories by id: truth anchors that are never forgotten, merged or superseded. Use when the user states
        something as permanently true."""
        answer = yield Send("pin", {"ids": arguments.one_or_many(trace_ids, "trace_ids")})
        return [str(item) for item in answer["pinned"]]

    @remote
    def unpin(self, trace_ids: str | Sequence[str]) -> Plan[builtins.list[str]]:
        """Unpin memories by id: they may fade like any other again."""
        answer = yield Send("unpin", {"ids": arguments.one_or_many(trace_ids, "trace_ids")})
        return [str(item) for item in answer["unpinned"]]

    @remote
    def retrieve(
        self,
        query: str,
        top_k: int | None = None,
        *,
        strategy: str = "full",
        record_access: bool = True,
        as_of: int | datetime | str | None = None,
        timeline: bool = False,
        where: MemoryFilter | Mapping[str, Any] | None = None,
    ) -> Plan[RetrievalResult]:
        """Search memory for what answers a question or relates to a topic. Returns ranked memories, each with its
        score, the signals behind it (relevance, recency, importance, ...) and `sources`: how it was found ('dense'
        meaning, 'lexical' words, 'activation' association through the memory graph). Use before answering questions
        about the user or past work."""
        answer = yield Send("recall", {
            "query": query,
            "top_k": top_k,
            "strategy": arguments.enum_value(strategy, "strategy"),
            "record_access": record_access,
            "as_of": arguments.epoch_ms(as_of, "as_of"),
            "timeline": timeline,
            "where": arguments.filter_json(where, "where"),
        })
        return retrieval_from_json(answer)

    @remote
    def assemble_for_prompt(
        self,
        query: str,
        token_budget: int | None = None,
        *,
        top_k: int = 20,
        events: str | Sequence[str] = (),
        where: MemoryFilter | Mapping[str, Any] | None = None,
        debug: bool = False,
    ) -> Plan[AssembledContext]:
        """Build the memory context to put in front of a reply: relevant facts, recent events, graph associations,
        working memory and reminders that this turn triggers, laid out in sections within a token budget. Use once
        per user turn with the user's message as query."""
        answer = yield Send("context", {
            "query": query,
            "token_budget": token_budget,
            "top_k": top_k,
            "events": arguments.one_or_many(events, "events"),
            "where": arguments.filter_json(where, "where"),
            "debug": debug,
        })
        return context_from_json(answer)

    @remote
    def multi_hop(
        self,
        query: str,
        hops: int | None = None,
        top_k: int | None = None,
        where: MemoryFilter | Mapping[str, Any] | None = None,
    ) -> Plan[dict[str, Any]]:
        """Answer a question that connects several things ("where does the company Alice joined have its office?") by
        walking the memory graph: entities the question names, memories that mention them, entities those mention.
        Each result has its evidence path from the question."""
        answer: dict[str, Any] = yield Send("multi_hop", {
            "query": query,
            "hops": hops,
            "top_k": top_k,
            "where": arguments.filter_json(where, "where"),
        })
        return answer

    @remote
    def observe(self, role: str, text: str, *, created_at: int | datetime | str | None = None) -> Plan[dict[str, Any]]:
        """Feed one conversation turn to the observer, which distils buffered turns into notes and later into
        long-term memories on its own. Use to log a conversation without deciding yourself what is worth remembering."""
        answer: dict[str, Any] = yield Send("observe", {
            "role": arguments.enum_value(role, "role"),
            "text": text,
            "created_at": arguments.epoch_ms(created_at, "created_at"),
        })
        return answer

    @remote
    def remind(
        self,
        content: str,
        *,
        at: int | datetime | str | None = None,
        every: int | timedelta | None = None,
        on_keywords: str | Sequence[str] | None = None,
        on_context: str | None = None,
        recurring: bool | None = None,
        cooldown: int | timedelta | None = None,
        threshold: float | None = None,
        importance: float | None = None,
        scope: str | None = None,
    ) -> Plan[Intention]:
        """Set a reminder to bring something up later: at a time (`at`, epoch ms), every interval (`every`, ms), when
        a turn mentions words (`on_keywords`) or resembles a situation (`on_context`). Fired reminders appear in
        build_context's Reminders section."""
        answer = yield Send("remind", {
            "content": content,
            "at": arguments.epoch_ms(at, "at"),
            "every": arguments.milliseconds(every, "every"),
            "on_keywords": arguments.one_or_many(on_keywords, "on_keywords"),
            "on_context": on_context,
            "recurring": recurring,
            "cooldown": arguments.milliseconds(cooldown, "cooldown"),
            "threshold": threshold,
            "importance": importance,
            "scope": arguments.enum_value(scope, "scope"),
        })
        return intention_from_json(answer)

    @remote
    def reminders(self, *, include_inactive: bool = False, limit: int = 100) -> Plan[builtins.list[Intention]]:
        """List the pending reminders this agent can see (with their ids, to cancel one)."""
        answer = yield Send("reminders", {"include_inactive": include_inactive, "limit": limit})
        return [intention_from_json(item) for item in answer]

    @remote
    def cancel_reminder(self, reminder_id: str) -> Plan[bool]:
        """Cancel a pending reminder by its id."""
        answer = yield Send("cancel_reminder", {"reminder_id": reminder_id})
        return bool(answer["cancelled"])

    @remote
    def consolidation_report(
        self,
        runs: int = 20,
        schemas: int = 20,
        members: int = 10,
        contradictions: int = 50,
    ) -> Plan[dict[str, Any]]:
        """The last consolidation runs that counted something in this key's scopes (those scopes' counts only: made
        dormant, merged, schemas, contradictions settled), the schemas it abstracted with their members, and the
        contradictions it settled: which side won and both sides' time and confidence. An owner key without an
        identity gets the runs' store-wide counts only, no content."""
        answer: dict[str, Any] = yield Send("consolidation_report", {
            "runs": runs,
            "schemas": schemas,
            "members": members,
            "contradictions": contradictions,
        })
        return answer

    @remote
    def memory_stats(self) -> Plan[dict[str, Any]]:
        """Counts of the memories this key can see: by type, active, dormant and inactive, the entities they mention
        and the edges between them by type."""
        answer: dict[str, Any] = yield Send("memory_stats")
        return answer

    @remote
    def consolidate(self) -> Plan[dict[str, Any]]:
        """Owner only: run memory consolidation now (decay, merge, schemas, contradictions)."""
        answer: dict[str, Any] = yield Send("consolidate")
        return answer

    @remote
    def stats(self) -> Plan[dict[str, Any]]:
        """Owner only: counts of the whole store and the last scheduled consolidation."""
        answer: dict[str, Any] = yield Send("stats")
        return answer

    @remote
    def repair(self, reembed: bool = False) -> Plan[dict[str, Any]]:
        """Owner only: reconcile the vector index with the graph after a crash; with reembed, embed every memory
        again."""
        answer: dict[str, Any] = yield Send("repair", {"reembed": reembed})
        return answer

    @remote
    def erase(
        self,
        user_id: str,
        *,
        organization_id: str | None = None,
        include_shared: bool = False,
        compact: bool = True,
    ) -> Plan[EraseReceipt]:
        """Owner only: delete every memory of one user (their user and thread scopes: memories, reminders, notes,
        buffered turns, archive, vectors) and compact the files. What they wrote into shared scopes stays without its
        author, unless include_shared. Run twice, the second run finds nothing. Returns a receipt with the counts."""
        answer = yield Send("erase", {
            "user_id": user_id,
            "organization_id": organization_id,
            "include_shared": include_shared,
            "compact": compact,
        })
        return erase_receipt_from_json(answer)

    @remote
    def users(self, *, organization_id: str | None = None) -> Plan[builtins.list[str]]:
        """Owner only: the ids of the users who hold memories (in their user scope or one of their threads) in one
        organization, or outside every organization without organization_id; sorted. The ids `erase` and
        `export_user` take."""
        answer = yield Send("users", {"organization_id": organization_id})
        return [str(item) for item in answer["users"]]
