"""`RemoteAgent`: one key's agent handle on a server, over a sync HTTP client.

Each handle method is a plan (`client/plans.py`): the requests it sends and how the
answers become its result, shared with `AsyncRemoteAgent`. `call` is the transport.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TextIO

from cogmem_graph.client.plans import Plan, Send, remote, table_plan
from cogmem_graph.client.wire import (
    BATCH,
    DEFAULT_TIMEOUT_S,
    LastLine,
    answer_json,
    check_lines,
    client_options,
    counts_from_json,
    erase_receipt_from_json,
    footer_counts,
    forget_receipt_from_json,
    intention_from_json,
    page_from_json,
    prepare,
    record_from_json,
    refusal,
    scored_from_json,
    trace_from_json,
    unreachable,
    where_json,
)
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import MemoryTrace, MemoryType, duration_ms, epoch_ms_of
from cogmem_graph.redact import redact_url
from cogmem_graph.results import AssembledContext, RetrievalResult

if TYPE_CHECKING:
    from cogmem_graph.api.governance import EraseReceipt, ForgetReceipt, MemoryPage, MemoryRecord
    from cogmem_graph.cognition.prospective import Intention
    from cogmem_graph.portable import PortableCounts

__all__ = ["RemoteAgent", "RemoteMethods", "connect"]



ENCODE_MOMENTS = ("created_at", "valid_from", "valid_until")


def _moment(value: Any, field: str) -> int | None:
    """A time argument as epoch ms, read by the facade's parser: a datetime has no JSON form,
    and a bad value fails here as it fails in process."""
    return None if value is None else epoch_ms_of(value, field)


def _encode_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _moment(v, k) if k in ENCODE_MOMENTS else v for k, v in fields.items()}


def _ids(trace_ids: str | Sequence[str]) -> list[str]:
    return [trace_ids] if isinstance(trace_ids, str) else list(trace_ids)


class RemoteMethods:
    """The handle's methods, as plans: `RemoteAgent` runs them over `httpx.Client`,
    `AsyncRemoteAgent` over `httpx.AsyncClient`."""

    _whoami: dict[str, Any] | None = None

    # ------------------------------------------------------------ who

    @remote
    def whoami(self) -> Plan[dict[str, Any]]:
        self._whoami = yield Send("whoami")
        return self._whoami

    # ------------------------------------------------------------ the agent handle's methods

    @remote
    def encode(self, /, content: str, **fields: Any) -> Plan[MemoryTrace]:
        return trace_from_json((yield Send("remember", {"content": content, **_encode_fields(fields)})))

    @remote
    def encode_many(self, items: Iterable[Mapping[str, Any]], *, batch_size: int = BATCH) -> Plan[list[MemoryTrace]]:
        items = [_encode_fields(dict(i)) for i in items]
        size = max(1, min(batch_size, BATCH))
        out: list[MemoryTrace] = []
        for start in range(0, len(items), size):
            out += [trace_from_json(t) for t in (yield Send("remember_many", {"items": items[start:start + size]}))]
        return out

    @remote
    def retrieve(self, query: str, top_k: int | None = None, *, strategy: str = "full",
                 record_access: bool = True, as_of: int | datetime | str | None = None,
                 timeline: bool = False,
                 where: MemoryFilter | Mapping[str, Any] | None = None) -> Plan[RetrievalResult]:
        data = yield Send("recall", {"query": query, "top_k": top_k, "strategy": strategy,
                                     "record_access": record_access, "as_of": _moment(as_of, "as_of"),
                                     "timeline": timeline,
                                     "where": where_json(where)})
        return RetrievalResult(query=data["query"], traces=[scored_from_json(t) for t in data["traces"]],
                               partial=[scored_from_json(t) for t in data["partial"]], strategy=data["strategy"],
                               intent=data.get("intent"), parts=tuple(data.get("parts") or ()),
                               as_of=data.get("as_of"), timeline=bool(data.get("timeline")),
                               gated=bool(data.get("gated")))

    @remote
    def assemble_for_prompt(self, query: str, token_budget: int | None = None, *, top_k: int = 20,
                            events: Sequence[str] = (),
                            where: MemoryFilter | Mapping[str, Any] | None = None,
                            debug: bool = False) -> Plan[AssembledContext]:
        data = yield Send("context", {"query": query, "token_budget": token_budget, "top_k": top_k,
                                      "events": list(events), "where": where_json(where), "debug": debug})
        from cogmem_graph.cognition.prospective import FiredReminder

        reminders = tuple(FiredReminder(intention_from_json(r["intention"]), r["fired_at"],
                                        tuple(r["matched_keywords"]), r.get("similarity"))
                          for r in data.get("reminders", ()))
        return AssembledContext(text=data["text"], tokens_used=data["tokens_used"], token_budget=data["token_budget"],
                                sections=dict(data["sections"]), trace_ids=tuple(data["trace_ids"]),
                                reminders=reminders, abbreviated=tuple(data.get("abbreviated", ())),
                                left_out=tuple(data.get("left_out", ())), outdated=tuple(data.get("outdated", ())))

    @remote
    def observe(self, role: str, text: str, *,
                created_at: int | datetime | str | None = None) -> Plan[dict[str, Any]]:
        answer: dict[str, Any] = yield Send("observe", {"role": role, "text": text,
                                                        "created_at": _moment(created_at, "created_at")})
        return answer

    @remote
    def remind(self, content: str, *, at: int | datetime | str | None = None, every: int | timedelta | None = None,
               on_keywords: str | Sequence[str] | None = None, on_context: str | None = None,
               recurring: bool | None = None, cooldown: int | timedelta | None = None,
               threshold: float | None = None, importance: float | None = None,
               scope: str | None = None) -> Plan[Intention]:
        keywords = [on_keywords] if isinstance(on_keywords, str) else (list(on_keywords) if on_keywords else None)
        return intention_from_json((yield Send("remind", {
            "content": content, "at": _moment(at, "at"), "every": duration_ms(every), "on_keywords": keywords,
            "on_context": on_context, "recurring": recurring, "cooldown": duration_ms(cooldown), "threshold": threshold,
            "importance": importance, "scope": getattr(scope, "value", scope)})))

    @remote
    def reminders(self, *, include_inactive: bool = False, limit: int = 100) -> Plan[list[Intention]]:
        data = yield Send("reminders", {"include_inactive": include_inactive, "limit": limit})
        return [intention_from_json(i) for i in data]

    @remote
    def cancel_reminder(self, reminder_id: str) -> Plan[bool]:
        return bool((yield Send("cancel_reminder", {"reminder_id": reminder_id}))["cancelled"])

    @remote
    def pin(self, trace_ids: str | Sequence[str]) -> Plan[list[str]]:
        return list((yield Send("pin", {"ids": _ids(trace_ids)}))["pinned"])

    @remote
    def unpin(self, trace_ids: str | Sequence[str]) -> Plan[list[str]]:
        return list((yield Send("unpin", {"ids": _ids(trace_ids)}))["unpinned"])

    # ------------------------------------------------------------ what the memory holds

    @remote
    def get(self, trace_id: str) -> Plan[MemoryRecord]:
        """One memory with its state and version; RequestRejected (404) when the key cannot see it."""
        return record_from_json((yield Send("get", {"trace_id": trace_id})))

    @remote
    def list(self, where: MemoryFilter | Mapping[str, Any] | None = None, *, order: str = "newest",
             limit: int | None = None, cursor: str | None = None) -> Plan[MemoryPage]:
        """A page of the key's memories passing `where`; pass the page's `cursor` for the next one."""
        return page_from_json((yield Send("list", {"where": where_json(where), "order": order, "limit": limit,
                                                   "cursor": cursor})))

    @remote
    def update(self, trace_id: str, *, content: str | None = None, tags: Sequence[str] | None = None,
               metadata: Mapping[str, Any] | None = None, pinned: bool | None = None,
               type: MemoryType | str | None = None) -> Plan[MemoryRecord]:  # noqa: A002 - the field's name
        """Correct a memory: new `content` is a new version; the rest change in place."""
        return record_from_json((yield Send("update", {
            "trace_id": trace_id, "content": content, "tags": None if tags is None else list(tags),
            "metadata": None if metadata is None else dict(metadata), "pinned": pinned,
            "type": getattr(type, "value", type)})))

    @remote
    def history(self, trace_id: str) -> Plan[builtins.list[MemoryRecord]]:
        """Every version of a memory, oldest first."""
        return [record_from_json(r) for r in (yield Send("history", {"trace_id": trace_id}))]

    @remote
    def forget(self, ids: str | Sequence[str] | None = None, *, where: MemoryFilter | Mapping[str, Any] | None = None,
               force: bool = False, compact: bool = False) -> Plan[ForgetReceipt]:
        """Delete memories for good, by id or by filter (not both); see `AgentMemory.forget`."""
        listed = None if ids is None else _ids(ids)
        return forget_receipt_from_json((yield Send("forget", {"ids": listed, "where": where_json(where),
                                                               "force": force, "compact": compact})))

    @remote
    def export(self, out: TextIO) -> Plan[PortableCounts]:
        """Write the key's user's memories to `out` as JSON Lines (`cogmem import` reads them), as
        they arrive; ServerError when the stream ends before its footer."""
        return counts_from_json(footer_counts((yield Send("export", out=out))))

    # ------------------------------------------------------------ owner keys

    @remote
    def erase(self, user_id: str, *, organization_id: str | None = None, include_shared: bool = False,
              compact: bool = True) -> Plan[EraseReceipt]:
        """Erase everything of one user (owner key): see `MemoryStore.erase`."""
        return erase_receipt_from_json((yield Send("erase", {
            "user_id": user_id, "organization_id": organization_id, "include_shared": include_shared,
            "compact": compact})))

    @remote
    def users(self, *, organization_id: str | None = None) -> Plan[builtins.list[str]]:
        """The users who hold memories, in one organization or outside every one (owner key):
        `MemoryStore.users`."""
        answer = yield Send("users", {"organization_id": organization_id})
        return list(answer["users"])

    @remote
    def export_user(self, out: TextIO, user_id: str, organization_id: str | None = None) -> Plan[PortableCounts]:
        """Write one user's memories to `out` as JSON Lines (owner key): `MemoryStore.export(user_id=...)`."""
        last = yield Send("export_user", {"user_id": user_id, "organization_id": organization_id}, out=out)
        return counts_from_json(footer_counts(last))

    # ------------------------------------------------------------ made from the table alone

    # Operations whose arguments need no conversion and whose answer is their result: each
    # method's parameters, defaults and docstring are its table entry's (`table_plan`).
    multi_hop = remote(table_plan("multi_hop"))
    neighbourhood = remote(table_plan("memory"))
    consolidation_report = remote(table_plan("consolidation_report"))
    memory_stats = remote(table_plan("memory_stats"))
    consolidate = remote(table_plan("consolidate"))
    stats = remote(table_plan("stats"))
    repair = remote(table_plan("repair"))


class RemoteAgent(RemoteMethods):
    """One key's agent handle on a server: thread-safe, keeps its connections alive."""

    def __init__(self, url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        import httpx

        options = client_options(url, key, timeout)
        self.url = options["base_url"]
        self._http = httpx.Client(**options)
        self._whoami: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"RemoteAgent(url={redact_url(self.url)!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RemoteAgent:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def visible_scope_keys(self) -> list[str]:
        return list((self._whoami or self.whoami())["visible_scope_keys"])

    def call(self, op: str, args: Mapping[str, Any] | None = None, *, out: TextIO | None = None) -> Any:
        """Run one server operation by name (as `cogmem_graph.operations` declares it), with
        its arguments as a mapping: path parameters go in the path, the rest in the query
        (GET, DELETE) or the JSON body. Returns the answer's JSON; for an operation answering
        JSON Lines (an export), the text, or with `out` (a text file object) writes the lines
        to it as they arrive and returns the last record (an export's footer), None if none."""
        import httpx

        prepared = prepare(op, args)
        request = self._http.build_request(prepared.method, prepared.path, **prepared.options)
        try:
            response = self._http.send(request, stream=prepared.streams)
            try:
                if response.status_code >= 400:
                    response.read()
                    raise refusal(response)
                if not prepared.streams:
                    return answer_json(response)
                check_lines(response)
                if out is None:
                    return response.read().decode("utf-8")
                sink = LastLine(out)
                for text in response.iter_text():
                    sink.write(text)
                return sink.record()
            finally:
                response.close()
        except httpx.HTTPError as exc:
            raise unreachable(self.url, exc) from None


def connect(url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> RemoteAgent:
    """An agent handle on the `cogmem serve` server at `url`, acting as `key`'s identity.
    Nothing is sent until the first call. Its calls raise `RequestRejected` (a `ValueError`)
    when the server refuses a request, `ServerError` for another error status,
    `BackendUnavailable` naming the URL when the server cannot be reached, and
    `UnsendableArgument` for a value no request can carry.

    Args:
        url: the server, an http:// or https:// URL.
        key: the API key the server's owner made for this agent (`cogmem keys add`).
        timeout: seconds per request.

    Returns:
        A `RemoteAgent`; close it, or use it in a `with` block.

    Raises:
        ValueError: `url` is not an http(s) URL, or `key` is missing.
    """
    return RemoteAgent(url, key, timeout=timeout)
