"""The operations the server offers, each run for the identity of the caller's key.

REST routes and MCP tools both call `MemoryService.call(principal, op, args)`, so the
two surfaces cannot drift apart and every operation is checked in one place, by its
entry in `cogmem_graph.operations`: an expired key is 401, the identity comes from the key
(arguments naming one are refused, unless the entry's own model declares it: an owner
operation's subject), the key's role must be allowed the entry's role (a read-only key: the
"read" entries, and its recall never reinforces), values no store keeps (non-finite numbers,
lone surrogates) are 400 naming the field, the arguments are validated by the entry's
model (400 naming each field), and an argument the facade refuses (`InvalidArgument`, a
malformed backup) comes back as 400 with the facade's message naming it; a memory the key
cannot see is 404 (`MemoryNotFound`), never 403; an unreachable backend or a closed store
503. Only the package's own errors say the caller is at fault: any other failure, a plain
ValueError included, is the server's, a 500 whose body carries an error id and nothing
else of it, the traceback logged under that id. Each entry is run by the `_op_<name>`
method here, given the validated model. An entry answering JSON Lines returns an iterator
of text (`server.streams.stream_text`), whose first chunk is ready before `call` returns,
so a refusal still comes back as a status.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from cogmem_graph.audit import AuditLog
from cogmem_graph.errors import (
    BackendUnavailable,
    InvalidArgument,
    MemoryNotFound,
    PortableFormatError,
    ServiceError,
    StoreClosed,
    UnsendableArgument,
    field_problems,
)
from cogmem_graph.operations import (
    IDENTITY_ARGUMENTS,
    MAX_BATCH,
    OPERATIONS,
    QUERY_FILTER_FIELDS,
    BatchArgs,
    CancelReminderArgs,
    ConsolidationReportArgs,
    ContextArgs,
    EraseArgs,
    ForgetArgs,
    ForgetOneArgs,
    IdsArgs,
    ListArgs,
    MemoryArgs,
    MultiHopArgs,
    ObserveArgs,
    OrganizationArgs,
    PageArgs,
    RecallArgs,
    RemindArgs,
    RemindersArgs,
    RepairArgs,
    TraceArgs,
    UpdateArgs,
    UserArgs,
    identity_arguments,
    value_problems,
)
from cogmem_graph.server.keys import Principal
from cogmem_graph.server.streams import stream_text
from cogmem_graph.server.wire import multi_hop_json, page_json, retrieval_json, to_jsonable

if TYPE_CHECKING:
    from cogmem_graph.api import EncodeRequest
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.server.scheduler import ConsolidationScheduler

__all__ = ["IDENTITY_ARGUMENTS", "KEY_EXPIRED", "MAX_BATCH", "MemoryService", "ServiceError",
           "internal_error", "refuse_identity_arguments", "refuse_role", "refuse_unrepresentable"]


RETRY_AFTER_S = 1.0
"""A 503's `Retry-After` when the backend says nothing sooner or later: a restarted embedded
graph server is back in well under a second, a restarted `cogmem serve` in a few."""

log = logging.getLogger("cogmem.server")

AUDITED_REFUSALS = frozenset({401, 403, 404})
"""Statuses that refuse a key what it asked (expired, not its role or identity, not visible to it)."""


@dataclass
class _Handle:
    agent: AgentMemory
    lock: threading.Lock


def refuse_identity_arguments(args: dict[str, Any], allowed: AbstractSet[str] = frozenset()) -> None:
    """403 when `args` (or its batch items) name an identity other than the `allowed` ones
    (the entry's own `identity_fields`)."""
    chosen = identity_arguments(args, allowed)
    if chosen:
        raise ServiceError(403, f"{', '.join(chosen)}: the identity comes from the API key; "
                                "a request cannot choose whose memory it reads or writes")


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


KEY_EXPIRED = "key expired (make a new one with `cogmem keys add`)"


def refuse_role(principal: Principal, op: str, role: str) -> None:
    """401 for an expired key; 403 when the key's role may not call an operation of `role`."""
    if principal.expired:
        raise ServiceError(401, KEY_EXPIRED)
    if not principal.may(role):
        kind = "read-only" if principal.role == "read" else _a(principal.role) + " key"
        raise ServiceError(403, f"{op} is {_a(role)} operation; this key is {kind}")


def internal_error(op: str, exc: BaseException) -> ServiceError:
    """A 500 for a failure that is not the caller's: the traceback goes to the server log under
    a fresh error id, and only the id goes back, so an operator can find it and no caller
    reads the package's internals (paths, queries, values of other tenants)."""
    error_id = uuid.uuid4().hex[:12]
    log.error("error id %s: %s failed with %s", error_id, op, type(exc).__name__,
              exc_info=(type(exc), exc, exc.__traceback__))
    return ServiceError(500, f"{op}: internal error (error id {error_id}); the server log has the details")


def refuse_unrepresentable(op: str, args: Any) -> None:
    """400 naming the fields whose values no request may carry (`operations.value_problems`)."""
    problems = value_problems(args)
    if problems:
        raise ServiceError(400, f"{op}: {'; '.join(problems)}")


class MemoryService:
    """One store, many keys: an agent handle per key (its working memory lives across
    requests), calls of one handle serialised where they change its working memory."""

    def __init__(self, store: MemoryStore, scheduler: ConsolidationScheduler | None = None) -> None:
        self.store = store
        self.scheduler = scheduler
        self.started_at = time.time()
        self._handles: dict[tuple[str, str], _Handle] = {}
        self._lock = threading.Lock()
        self._ops: dict[str, Callable[[Principal, Any], Any]] = {
            name: getattr(self, f"_op_{name}") for name in OPERATIONS}

    @property
    def operations(self) -> list[str]:
        return list(self._ops)

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        """Run `op` for `principal`; ServiceError on refusal or bad input. A refusal of who
        asked (401, 403, 404) is counted in the audit file, summarised per key, operation and
        status (`cogmem_graph.audit`)."""
        try:
            return self._call(principal, op, args)
        except ServiceError as exc:
            if exc.status in AUDITED_REFUSALS and self.store is not None:
                with contextlib.suppress(OSError):  # the refusal is answered even if the disk is full
                    AuditLog(self.store.home, self.store.config.audit).refused(
                        op, str(exc.status), at_ms=self.store.clock.now_ms(), actor={"key_id": principal.key_id})
            raise

    def _call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        if principal.expired:
            raise ServiceError(401, KEY_EXPIRED)
        args = {k: v for k, v in (args or {}).items() if v is not None}
        entry = OPERATIONS.get(op)
        if entry is None:
            refuse_identity_arguments(args)
            raise ServiceError(404, f"unknown operation {op!r}")
        refuse_identity_arguments(args, entry.identity_fields)
        refuse_role(principal, op, entry.role)
        refuse_unrepresentable(op, args)
        try:
            validated = entry.args.model_validate(args)
        except ValidationError as exc:
            raise ServiceError(400, f"{op}: {field_problems(exc.errors())}") from None
        try:
            return self._ops[op](principal, validated)
        except ServiceError:
            raise
        except MemoryNotFound as exc:
            raise ServiceError(404, str(exc)) from None
        except (InvalidArgument, UnsendableArgument, PortableFormatError) as exc:
            raise ServiceError(400, f"{op}: {exc}") from None
        except (BackendUnavailable, StoreClosed) as exc:
            wait = getattr(exc, "retry_after_s", None)
            raise ServiceError(503, f"{op}: {exc}", retry_after_s=RETRY_AFTER_S if wait is None else wait) from None
        except Exception as exc:  # the package's own fault, whatever its kind: never the caller's
            raise internal_error(op, exc) from None

    # ------------------------------------------------------------ handles

    def _handle(self, principal: Principal) -> _Handle:
        if principal.identity is None:
            raise ServiceError(403, "this owner key names no agent identity; memory operations need one "
                                    "(make the key with --agent)")
        cache_key = (principal.key_id, principal.identity.model_dump_json())
        with self._lock:
            handle = self._handles.get(cache_key)
            if handle is None:
                agent = self.store.agent(**principal.identity.model_dump())
                handle = self._handles[cache_key] = _Handle(agent, threading.Lock())
            return handle

    def _agent(self, principal: Principal) -> AgentMemory:
        return self._handle(principal).agent

    def replacements(self, principal: Principal, ids: Sequence[str], question: str = "") -> dict[str, dict[str, Any]]:
        """For the dashboard: the memory that replaced each of `ids` (`AgentMemory.replacements`),
        read for the key's identity and scopes like `recall`, so a page marks outdated what a
        prompt would, and never names a memory the key cannot see."""
        refuse_role(principal, "recall", OPERATIONS["recall"].role)
        found = self._agent(principal).replacements(ids, question=question)
        return {old: to_jsonable(new) for old, new in found.items()}

    # ------------------------------------------------------------ operations (one per table entry)

    def _op_whoami(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        return p.describe()

    def _op_remember(self, p: Principal, a: EncodeRequest) -> dict[str, Any]:
        return to_jsonable(self._agent(p).encode(**a.model_dump(mode="json", exclude_unset=True)))

    def _op_remember_many(self, p: Principal, a: BatchArgs) -> list[dict[str, Any]]:
        return [to_jsonable(t) for t in self._agent(p).encode_many(a.items)]

    def _op_recall(self, p: Principal, a: RecallArgs) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:  # a read-only key looks without reinforcing, whatever it asks
            result = handle.agent.retrieve(a.query, top_k=a.top_k, strategy=a.strategy,
                                           record_access=a.record_access and not p.read_only, as_of=a.as_of,
                                           timeline=a.timeline, where=a.where)
        return retrieval_json(result)

    def _op_context(self, p: Principal, a: ContextArgs) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            assembled = handle.agent.assemble_for_prompt(a.query, a.token_budget, top_k=a.top_k, events=a.events,
                                                         where=a.where, debug=a.debug)
        return to_jsonable(assembled)

    def _op_multi_hop(self, p: Principal, a: MultiHopArgs) -> dict[str, Any]:
        return multi_hop_json(self._agent(p).multi_hop(a.query, hops=a.hops, top_k=a.top_k, where=a.where))

    def _op_observe(self, p: Principal, a: ObserveArgs) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            return to_jsonable(handle.agent.observe(a.role, a.text, created_at=a.created_at))

    def _op_remind(self, p: Principal, a: RemindArgs) -> dict[str, Any]:
        return to_jsonable(self._agent(p).remind(**a.model_dump(exclude_unset=True)))

    def _op_reminders(self, p: Principal, a: RemindersArgs) -> list[dict[str, Any]]:
        return to_jsonable(self._agent(p).reminders(include_inactive=a.include_inactive, limit=a.limit))

    def _op_cancel_reminder(self, p: Principal, a: CancelReminderArgs) -> dict[str, Any]:
        return {"cancelled": self._agent(p).cancel_reminder(a.reminder_id)}

    def _op_pin(self, p: Principal, a: IdsArgs) -> dict[str, Any]:
        return {"pinned": self._agent(p).pin(a.ids)}

    def _op_unpin(self, p: Principal, a: IdsArgs) -> dict[str, Any]:
        return {"unpinned": self._agent(p).unpin(a.ids)}

    def _op_memory(self, p: Principal, a: MemoryArgs) -> dict[str, Any]:
        trace, edges, neighbours = self._agent(p).neighbourhood(a.trace_id, limit=a.limit)
        if trace is None:
            raise ServiceError(404, f"no memory visible to this key with id {a.trace_id!r}")
        return {"trace": to_jsonable(trace),
                "edges": [{"src": e.src, "dst": e.dst, "type": to_jsonable(e.type), "weight": e.weight}
                          for e in edges],
                "neighbours": [to_jsonable(t) for t in neighbours]}

    # ------------------------------------------------------------ what the memory holds

    def _op_get(self, p: Principal, a: TraceArgs) -> dict[str, Any]:
        return to_jsonable(self._agent(p).get(a.trace_id))

    def _page(self, p: Principal, where: Any, a: PageArgs) -> dict[str, Any]:
        limit = {} if a.limit is None else {"limit": a.limit}  # None: the facade's default page
        return page_json(self._agent(p).list(where, order=a.order, cursor=a.cursor, **limit))

    def _op_list(self, p: Principal, a: ListArgs) -> dict[str, Any]:
        return self._page(p, a.where, a)

    def _op_list_query(self, p: Principal, a: PageArgs) -> dict[str, Any]:
        where = {name: getattr(a, name) for name in QUERY_FILTER_FIELDS if getattr(a, name) is not None}
        return self._page(p, where or None, a)

    def _op_update(self, p: Principal, a: UpdateArgs) -> dict[str, Any]:
        changes = a.model_dump(exclude={"trace_id"}, exclude_none=True)
        return to_jsonable(self._agent(p).update(a.trace_id, **changes))

    def _op_history(self, p: Principal, a: TraceArgs) -> list[dict[str, Any]]:
        return [to_jsonable(r) for r in self._agent(p).history(a.trace_id)]

    def _forget(self, p: Principal, ids: Sequence[str] | None, where: Any, force: bool, compact: bool) -> Any:
        handle = self._handle(p)
        with handle.lock:  # it clears the handle's working memory of what it deletes
            receipt = handle.agent.forget(ids, where=where, force=force, compact=compact)
        self._drop_from_working_memories(receipt.forgotten)
        return receipt

    def _op_forget(self, p: Principal, a: ForgetArgs) -> dict[str, Any]:
        return self._forget(p, a.ids, a.where, a.force, a.compact).as_dict()

    def _op_forget_one(self, p: Principal, a: ForgetOneArgs) -> dict[str, Any]:
        receipt = self._forget(p, [a.trace_id], None, a.force, a.compact)
        if a.trace_id in receipt.not_found:
            raise ServiceError(404, f"no memory visible to this key with id {a.trace_id!r}")
        if a.trace_id in receipt.skipped_pinned:
            raise ServiceError(409, f"memory {a.trace_id!r} is pinned (a truth anchor); unpin it first, or "
                                    "pass force=true to delete it anyway")
        return receipt.as_dict()

    def _op_export(self, p: Principal, a: BaseModel) -> Iterator[str]:
        if p.identity is None:
            raise ServiceError(403, "export writes the key's user's memories, and this owner key names no "
                                    "identity: one user's memories come from GET /v1/admin/export?user_id=...; "
                                    "a whole-store backup is written on the server's host "
                                    "(`cogmem --home HOME export FILE`)")
        agent = self._agent(p)
        return stream_text(agent.export, name="export")

    def _op_users(self, p: Principal, a: OrganizationArgs) -> dict[str, Any]:
        return {"organization_id": a.organization_id,
                "users": self.store.users(organization_id=a.organization_id)}

    def _op_export_user(self, p: Principal, a: UserArgs) -> Iterator[str]:
        def write(out: Any) -> Any:
            return self.store.export(out, user_id=a.user_id, organization_id=a.organization_id)

        return stream_text(write, name="export_user")

    def _op_erase(self, p: Principal, a: EraseArgs) -> dict[str, Any]:
        receipt = self.store.erase(a.user_id, organization_id=a.organization_id, include_shared=a.include_shared,
                                   compact=a.compact)
        with self._lock:  # the handles of that user hold nothing of theirs any more: their working memory neither
            for cache_key in [k for k, h in self._handles.items()
                              if (h.agent.identity.user_id, h.agent.identity.organization_id)
                              == (a.user_id, a.organization_id)]:
                del self._handles[cache_key]
        return receipt.as_dict()

    def _drop_from_working_memories(self, trace_ids: Sequence[str]) -> None:
        """Deleted memories leave every handle's working memory, not only the caller's."""
        if not trace_ids:
            return
        with self._lock:
            handles = list(self._handles.values())
        for handle in handles:
            with handle.lock:
                handle.agent.working_memory_forget(trace_ids)

    # ------------------------------------------------------------ owner

    def _op_consolidate(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        result = self.store.consolidate(trigger="request")
        if self.scheduler is not None:
            self.scheduler.record(result, trigger="request")
        return to_jsonable(result)

    def _op_consolidation_report(self, p: Principal, a: ConsolidationReportArgs) -> dict[str, Any]:
        if p.identity is None:  # an owner without an identity: counts of the whole store, no content
            return {"runs": self.store.consolidation_log.runs(a.runs), "schemas": [], "contradictions": [],
                    "open_contradictions": [],
                    "store_wide": True}
        report = self._agent(p).consolidation_report(runs=a.runs, schemas=a.schemas, members=a.members,
                                                     contradictions=a.contradictions)
        return {**to_jsonable(report), "store_wide": False}

    def _op_memory_stats(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        return self._agent(p).stats().as_dict()

    def _op_stats(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        stats = to_jsonable(self.store.stats())
        return {"store": stats, "uptime_s": round(time.time() - self.started_at, 1),
                "agent_handles": len(self._handles),
                "consolidation": self.scheduler.status() if self.scheduler else None}

    def _op_repair(self, p: Principal, a: RepairArgs) -> dict[str, Any]:
        return to_jsonable(self.store.repair(reembed=a.reembed))
