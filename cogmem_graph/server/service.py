"""The operations the server offers, each run for the identity of the caller's key.

REST routes and MCP tools both call `MemoryService.call(principal, op, args)`, so the
two surfaces cannot drift apart and every operation is checked in one place, by its
entry in `cogmem_graph.operations`: the identity comes from the key (arguments naming
one are refused), the key's role must be allowed the entry's role, the arguments are
validated by the entry's model, and bad arguments come back as 400 with the facade's
message. Each entry is run by the `_op_<name>` method here, given the validated model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from cogmem_graph.errors import field_problems
from cogmem_graph.operations import (
    IDENTITY_ARGUMENTS,
    MAX_BATCH,
    OPERATIONS,
    BatchArgs,
    CancelReminderArgs,
    ContextArgs,
    IdsArgs,
    MemoryArgs,
    MultiHopArgs,
    ObserveArgs,
    RecallArgs,
    RemindArgs,
    RemindersArgs,
    identity_arguments,
)
from cogmem_graph.server.keys import Principal
from cogmem_graph.server.wire import multi_hop_json, retrieval_json, to_jsonable

if TYPE_CHECKING:
    from cogmem_graph.api import EncodeRequest
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.server.scheduler import ConsolidationScheduler

__all__ = ["IDENTITY_ARGUMENTS", "MAX_BATCH", "MemoryService", "ServiceError", "refuse_identity_arguments"]


class ServiceError(Exception):
    """An operation refused or failed, with the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class _Handle:
    agent: AgentMemory
    lock: threading.Lock


def refuse_identity_arguments(args: dict[str, Any]) -> None:
    """403 when `args` (or its batch items) name an identity."""
    chosen = identity_arguments(args)
    if chosen:
        raise ServiceError(403, f"{', '.join(chosen)}: the identity comes from the API key; "
                                "a request cannot choose whose memory it reads or writes")


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


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
        """Run `op` for `principal`; ServiceError on refusal or bad input."""
        from cogmem_graph.errors import BackendUnavailable, StoreClosed

        args = {k: v for k, v in (args or {}).items() if v is not None}
        refuse_identity_arguments(args)
        entry = OPERATIONS.get(op)
        if entry is None:
            raise ServiceError(404, f"unknown operation {op!r}")
        if not principal.may(entry.role):
            raise ServiceError(403, f"{op} is {_a(entry.role)} operation; this key is {_a(principal.role)} key")
        try:
            return self._ops[op](principal, entry.args.model_validate(args))
        except ServiceError:
            raise
        except TypeError as exc:
            raise ServiceError(400, f"{op}: {exc}") from None
        except ValidationError as exc:
            raise ServiceError(400, f"{op}: {field_problems(exc.errors())}") from None
        except ValueError as exc:
            raise ServiceError(400, f"{op}: {exc}") from None
        except (BackendUnavailable, StoreClosed) as exc:
            raise ServiceError(503, f"{op}: {exc}") from None

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

    # ------------------------------------------------------------ operations (one per table entry)

    def _op_whoami(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        return p.describe()

    def _op_remember(self, p: Principal, a: EncodeRequest) -> dict[str, Any]:
        return to_jsonable(self._agent(p).encode(**a.model_dump(mode="json", exclude_unset=True)))

    def _op_remember_many(self, p: Principal, a: BatchArgs) -> list[dict[str, Any]]:
        return [to_jsonable(t) for t in self._agent(p).encode_many(a.items)]

    def _op_recall(self, p: Principal, a: RecallArgs) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            result = handle.agent.retrieve(a.query, top_k=a.top_k, strategy=a.strategy,
                                           record_access=a.record_access, as_of=a.as_of, timeline=a.timeline)
        return retrieval_json(result)

    def _op_context(self, p: Principal, a: ContextArgs) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            assembled = handle.agent.assemble_for_prompt(a.query, a.token_budget, top_k=a.top_k, events=a.events)
        return to_jsonable(assembled)

    def _op_multi_hop(self, p: Principal, a: MultiHopArgs) -> dict[str, Any]:
        return multi_hop_json(self._agent(p).multi_hop(a.query, hops=a.hops, top_k=a.top_k))

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

    def _op_consolidate(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        result = self.store.consolidate()
        if self.scheduler is not None:
            self.scheduler.record(result, trigger="request")
        return to_jsonable(result)

    def _op_stats(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        stats = to_jsonable(self.store.stats())
        return {"store": stats, "uptime_s": round(time.time() - self.started_at, 1),
                "agent_handles": len(self._handles),
                "consolidation": self.scheduler.status() if self.scheduler else None}

    def _op_repair(self, p: Principal, a: BaseModel) -> dict[str, Any]:
        return to_jsonable(self.store.repair())
