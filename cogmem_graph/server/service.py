"""The operations the server offers, each run for the identity of the caller's key.

REST routes and MCP tools both call `MemoryService.call(principal, op, args)`, so the
two surfaces cannot drift apart and every operation is checked in one place: the
identity comes from the key (arguments naming one are refused), owner operations need
an owner key, and bad arguments come back as 400 with the facade's message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cogmem_graph.errors import field_problems
from cogmem_graph.server.keys import IDENTITY_FIELDS, Principal
from cogmem_graph.server.wire import multi_hop_json, retrieval_json, to_jsonable

if TYPE_CHECKING:
    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.server.scheduler import ConsolidationScheduler

MAX_BATCH = 500
IDENTITY_ARGUMENTS = frozenset(IDENTITY_FIELDS) | {"agent", "user", "thread", "persona", "organization",
                                                  "org", "scope_key", "scope_keys", "scope_id"}


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
    chosen = sorted(IDENTITY_ARGUMENTS & set(args))
    if chosen:
        raise ServiceError(403, f"{', '.join(chosen)}: the identity comes from the API key; "
                                "a request cannot choose whose memory it reads or writes")


class MemoryService:
    """One store, many keys: an agent handle per key (its working memory lives across
    requests), calls of one handle serialised where they change its working memory."""

    OWNER_OPS = frozenset({"consolidate", "stats", "repair"})

    def __init__(self, store: MemoryStore, scheduler: ConsolidationScheduler | None = None) -> None:
        self.store = store
        self.scheduler = scheduler
        self.started_at = time.time()
        self._handles: dict[tuple[str, str], _Handle] = {}
        self._lock = threading.Lock()
        self._ops: dict[str, Callable[..., Any]] = {
            name: getattr(self, f"_op_{name}") for name in (
                "whoami", "remember", "remember_many", "recall", "context", "multi_hop", "observe",
                "remind", "reminders", "cancel_reminder", "pin", "unpin", "memory",
                "consolidate", "stats", "repair")}

    @property
    def operations(self) -> list[str]:
        return list(self._ops)

    def call(self, principal: Principal, op: str, args: dict[str, Any] | None = None) -> Any:
        """Run `op` for `principal`; ServiceError on refusal or bad input."""
        from cogmem_graph.errors import BackendUnavailable, StoreClosed

        args = {k: v for k, v in (args or {}).items() if v is not None}
        refuse_identity_arguments(args)
        fn = self._ops.get(op)
        if fn is None:
            raise ServiceError(404, f"unknown operation {op!r}")
        if op in self.OWNER_OPS and not principal.is_owner:
            raise ServiceError(403, f"{op} is an owner operation; this key is an agent key")
        try:
            return fn(principal, **args)
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

    # ------------------------------------------------------------ operations

    def _op_whoami(self, p: Principal) -> dict[str, Any]:
        return p.describe()

    def _op_remember(self, p: Principal, content: str, **fields: Any) -> dict[str, Any]:
        return to_jsonable(self._agent(p).encode(content, **fields))

    def _op_remember_many(self, p: Principal, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not isinstance(items, list) or not items:
            raise ValueError("items must be a non-empty list of memories")
        if len(items) > MAX_BATCH:
            raise ValueError(f"items: at most {MAX_BATCH} memories per call, got {len(items)}")
        for item in items:
            if isinstance(item, dict):
                refuse_identity_arguments(item)
        return [to_jsonable(t) for t in self._agent(p).encode_many(items)]

    def _op_recall(self, p: Principal, query: str, top_k: int | None = None, strategy: str = "full",
                   record_access: bool = True, as_of: int | None = None, timeline: bool = False) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            result = handle.agent.retrieve(query, top_k=top_k, strategy=strategy, record_access=record_access,
                                           as_of=as_of, timeline=timeline)
        return retrieval_json(result)

    def _op_context(self, p: Principal, query: str, token_budget: int | None = None, top_k: int = 20,
                    events: list[str] | None = None) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            assembled = handle.agent.assemble_for_prompt(query, token_budget, top_k=top_k, events=events or ())
        return to_jsonable(assembled)

    def _op_multi_hop(self, p: Principal, query: str, hops: int | None = None,
                      top_k: int | None = None) -> dict[str, Any]:
        return multi_hop_json(self._agent(p).multi_hop(query, hops=hops, top_k=top_k))

    def _op_observe(self, p: Principal, role: str, text: str, created_at: int | None = None) -> dict[str, Any]:
        handle = self._handle(p)
        with handle.lock:
            return to_jsonable(handle.agent.observe(role, text, created_at=created_at))

    def _op_remind(self, p: Principal, content: str, **fields: Any) -> dict[str, Any]:
        return to_jsonable(self._agent(p).remind(content, **fields))

    def _op_reminders(self, p: Principal, include_inactive: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        return to_jsonable(self._agent(p).reminders(include_inactive=include_inactive, limit=limit))

    def _op_cancel_reminder(self, p: Principal, reminder_id: str) -> dict[str, Any]:
        return {"cancelled": self._agent(p).cancel_reminder(reminder_id)}

    def _op_pin(self, p: Principal, ids: list[str]) -> dict[str, Any]:
        return {"pinned": self._agent(p).pin(ids)}

    def _op_unpin(self, p: Principal, ids: list[str]) -> dict[str, Any]:
        return {"unpinned": self._agent(p).unpin(ids)}

    def _op_memory(self, p: Principal, trace_id: str, limit: int = 25) -> dict[str, Any]:
        trace, edges, neighbours = self._agent(p).neighbourhood(trace_id, limit=limit)
        if trace is None:
            raise ServiceError(404, f"no memory visible to this key with id {trace_id!r}")
        return {"trace": to_jsonable(trace),
                "edges": [{"src": e.src, "dst": e.dst, "type": to_jsonable(e.type), "weight": e.weight}
                          for e in edges],
                "neighbours": [to_jsonable(t) for t in neighbours]}

    def _op_consolidate(self, p: Principal) -> dict[str, Any]:
        result = self.store.consolidate()
        if self.scheduler is not None:
            self.scheduler.record(result, trigger="request")
        return to_jsonable(result)

    def _op_stats(self, p: Principal) -> dict[str, Any]:
        stats = to_jsonable(self.store.stats())
        return {"store": stats, "uptime_s": round(time.time() - self.started_at, 1),
                "agent_handles": len(self._handles),
                "consolidation": self.scheduler.status() if self.scheduler else None}

    def _op_repair(self, p: Principal) -> dict[str, Any]:
        return to_jsonable(self.store.repair())
