"""`cg.connect(url, key)`: an agent handle on a `cogmem serve` server.

It has the methods of the embedded handle (`encode`, `encode_many`, `retrieve`,
`assemble_for_prompt`, `multi_hop`, `observe`, `remind`, `reminders`,
`cancel_reminder`, `pin`, `unpin`, `consolidate`, and the governance ones: `get`,
`list`, `update`, `history`, `forget`, `export`) plus the store owner's `erase` and
`export_user`, and returns the same result types where they carry a memory
(`MemoryTrace`, `RetrievalResult`, `AssembledContext`, `Intention`, `MemoryRecord`,
`MemoryPage`, `ForgetReceipt`, `EraseReceipt`, `PortableCounts`, rebuilt from the JSON by
the `*_from_json` functions here); the rest come back as the server's JSON. The record
and receipt types are imported when the first one comes back (they load the facade).
Filters (`where=`) are a `MemoryFilter` or a dict of its fields. Each method runs one entry of
`cogmem_graph.operations` (the entry's `client` names it) through `call(name, args)`,
which reaches any entry and finds its route in that table. Who it acts as is the key's
identity: there is no way to pass one. Errors: `ServerError` with the HTTP status;
4xx refusals of the request are also `ValueError`s; an unreachable server is
`BackendUnavailable` naming the URL (credentials redacted). A value no request can carry
(a number that is not finite, text with lone surrogates) is a `ValueError` naming the
field before anything is sent, as the in-process facade refuses it, not the JSON
encoder's error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from cogmem_graph.errors import BackendUnavailable, CogmemError
from cogmem_graph.filters import MemoryFilter, as_filter
from cogmem_graph.model import MemoryTrace, MemoryType
from cogmem_graph.operations import MAX_BATCH, OPERATIONS, value_problems
from cogmem_graph.redact import redact_url
from cogmem_graph.results import AssembledContext, RetrievalResult, ScoredTrace

if TYPE_CHECKING:
    from cogmem_graph.api.governance import EraseReceipt, ForgetReceipt, MemoryPage, MemoryRecord
    from cogmem_graph.cognition.prospective import Intention
    from cogmem_graph.portable import PortableCounts

DEFAULT_TIMEOUT_S = 60.0
BATCH = MAX_BATCH

# The REST route of each operation, read from the one table (kept for callers that used it).
OPERATION_ROUTES: dict[str, tuple[str, str]] = {op.name: (op.method, op.path) for op in OPERATIONS.values()}


class ServerError(CogmemError):
    """The server answered with an error status; `status` and `message` say which."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"server answered {status}: {message}")
        self.status = status
        self.message = message


class RequestRejected(ServerError, ValueError):
    """The server refused this request as it was (400, 403, 404, 409, 413, 422): fix the request."""


REJECTED = (400, 403, 404, 409, 413, 422)


class UnsendableArgument(ValueError):
    """An argument no request can carry (a number that is not finite, text with lone surrogates),
    refused before anything is sent; `status` (400) and `message` as a server refusal has them,
    so a bridge reports it the same way."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _ms(value: int | datetime | timedelta | None) -> int | None:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("datetimes must be timezone-aware")
        return int(value.timestamp() * 1000)
    if isinstance(value, timedelta):
        return int(value.total_seconds() * 1000)
    return value


def _trace(data: Mapping[str, Any]) -> MemoryTrace:
    return MemoryTrace.model_validate(data)


def _scored(data: Mapping[str, Any]) -> ScoredTrace:
    return ScoredTrace(_trace(data["trace"]), data["score"], dict(data["signals"]), tuple(data["sources"]))


def where_json(where: MemoryFilter | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A filter as the server takes it: checked here (a ValueError names the bad field) and as JSON."""
    checked = as_filter(where)
    return None if checked is None else checked.model_dump(mode="json", exclude_none=True)


def record_from_json(data: Mapping[str, Any]) -> MemoryRecord:
    """A `MemoryRecord` from the JSON of `get`, `update`, `history` and `list` items."""
    from cogmem_graph.api.governance import MemoryRecord
    from cogmem_graph.filters import MemoryState

    return MemoryRecord(_trace(data["trace"]), MemoryState(data["state"]), archived=bool(data.get("archived")),
                        version=int(data.get("version") or 1), superseded_by=tuple(data.get("superseded_by") or ()),
                        updated_by=data.get("updated_by"))


def page_from_json(data: Mapping[str, Any]) -> MemoryPage:
    from cogmem_graph.api.governance import MemoryPage

    return MemoryPage([record_from_json(r) for r in data["items"]], data.get("cursor"))


def forget_receipt_from_json(data: Mapping[str, Any]) -> ForgetReceipt:
    from cogmem_graph.api.governance import ForgetReceipt

    return ForgetReceipt(forgotten=list(data["forgotten"]), not_found=list(data["not_found"]),
                         skipped_pinned=list(data["skipped_pinned"]), counts=dict(data["counts"]),
                         compacted=bool(data["compacted"]))


def erase_receipt_from_json(data: Mapping[str, Any]) -> EraseReceipt:
    from cogmem_graph.api.governance import EraseReceipt

    return EraseReceipt(user=data["user"], scope_keys=list(data["scope_keys"]), counts=dict(data["counts"]),
                        compacted=bool(data["compacted"]))


def footer_counts(last: Mapping[str, Any] | None) -> dict[str, Any]:
    """The counts of an export's footer (its last record); ServerError when the stream ended
    without one: the export is incomplete (the server failed while writing it)."""
    if not isinstance(last, Mapping) or last.get("record") != "footer" or not isinstance(last.get("counts"), dict):
        raise ServerError(500, "the export ended before its footer: it is incomplete (see the server's log)")
    return dict(last["counts"])


def counts_from_json(counts: Mapping[str, Any]) -> PortableCounts:
    from cogmem_graph.portable import PortableCounts

    known = set(PortableCounts.__dataclass_fields__)
    return PortableCounts(**{k: v for k, v in counts.items() if k in known})


class _LastLine:
    """Writes through to `out`, keeping the last complete line (an export's footer)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tail = ""
        self.last = ""

    def write(self, text: str) -> None:
        self.out.write(text)
        lines = (self.tail + text).split("\n")
        self.tail = lines.pop()
        for line in reversed(lines):
            if line.strip():
                self.last = line
                break

    def record(self) -> Any:
        line = self.tail if self.tail.strip() else self.last
        try:
            return json.loads(line) if line else None
        except ValueError:
            return None


def _intention(data: Mapping[str, Any]) -> Intention:
    # Imported here, when reminders come back: a recall need not load the cognition modules.
    from cogmem_graph.cognition.prospective import Intention, TriggerKind

    fields = dict(data)
    fields["kind"] = TriggerKind(fields["kind"])
    fields["keywords"] = tuple(fields.get("keywords") or ())
    return Intention(**fields)


class RemoteAgent:
    """One key's agent handle on a server: thread-safe, keeps its connections alive."""

    def __init__(self, url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        import httpx

        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be an http:// or https:// URL, not {redact_url(str(url))!r}")
        if not key:
            raise ValueError("key is required: the API key the server's owner made for this agent")
        self.url = url.rstrip("/")
        # TLS verification is on for https://; for http:// there is no TLS to verify, and not
        # building an SSL context (the CA bundle load) saves a short-lived CLI a third of a second.
        # Redirects are never followed, so a plain-HTTP client cannot end up on an https:// host.
        self._http = httpx.Client(base_url=self.url, timeout=timeout, verify=self.url.startswith("https://"),
                                  follow_redirects=False, headers={"Authorization": f"Bearer {key}"})
        self._whoami: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"RemoteAgent(url={redact_url(self.url)!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RemoteAgent:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------ transport

    def call(self, op: str, args: Mapping[str, Any] | None = None, *, out: Any = None) -> Any:
        """Run one server operation by name (as `cogmem_graph.operations` declares it), with
        its arguments as a mapping: path parameters go in the path, the rest in the query
        (GET, DELETE) or the JSON body. Returns the answer's JSON; for an operation answering
        JSON Lines (an export), the text, or with `out` (a text file object) writes the lines
        to it as they arrive and returns the last record (an export's footer), None if none."""
        import httpx

        entry = OPERATIONS.get(op)
        if entry is None:
            raise ValueError(f"unknown operation {op!r}")
        method, path = entry.method, entry.path
        args = {k: v for k, v in (args or {}).items() if v is not None}
        problems = value_problems(args)
        if problems:  # as the facade refuses them; the JSON encoder's own error names no field
            raise UnsendableArgument(f"{op}: {'; '.join(problems)}")
        for name in entry.path_params:
            if name not in args:
                raise ValueError(f"{op}: {name} is required")
            path = path.replace("{" + name + "}", quote(str(args.pop(name)), safe=""))
        request = self._http.build_request(method, path, **({"params": args} if entry.in_query else {"json": args}))
        try:
            response = self._http.send(request, stream=entry.streams)
            try:
                if response.status_code >= 400:
                    response.read()
                    raise self._refusal(response)
                if not entry.streams:
                    return response.json()
                if out is None:
                    return response.read().decode("utf-8")
                sink = _LastLine(out)
                for text in response.iter_text():
                    sink.write(text)
                return sink.record()
            finally:
                response.close()
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"cogmem server at {redact_url(self.url)} is unreachable: "
                                     f"{type(exc).__name__}") from None

    @staticmethod
    def _refusal(response: Any) -> ServerError:
        try:
            data = response.json()
        except ValueError:
            data = None
        if isinstance(data, dict) and (data.get("error") or data.get("detail")):
            message = data.get("error") or data.get("detail")
        else:
            message = response.text[:500]
        cls = RequestRejected if response.status_code in REJECTED else ServerError
        return cls(response.status_code, str(message))

    # ------------------------------------------------------------ who

    def whoami(self) -> dict[str, Any]:
        self._whoami = self.call("whoami")
        return self._whoami

    @property
    def visible_scope_keys(self) -> list[str]:
        return list((self._whoami or self.whoami())["visible_scope_keys"])

    # ------------------------------------------------------------ the agent handle's methods

    def encode(self, content: str, **fields: Any) -> MemoryTrace:
        return _trace(self.call("remember", {"content": content, **fields}))

    def encode_many(self, items: Iterable[Mapping[str, Any]], *, batch_size: int = BATCH) -> list[MemoryTrace]:
        items = [dict(i) for i in items]
        size = max(1, min(batch_size, BATCH))
        out: list[MemoryTrace] = []
        for start in range(0, len(items), size):
            out += [_trace(t) for t in self.call("remember_many", {"items": items[start:start + size]})]
        return out

    def retrieve(self, query: str, top_k: int | None = None, *, strategy: str = "full",
                 record_access: bool = True, as_of: int | datetime | None = None,
                 timeline: bool = False, where: MemoryFilter | Mapping[str, Any] | None = None) -> RetrievalResult:
        if isinstance(as_of, datetime):
            if as_of.tzinfo is None:
                raise ValueError("as_of must be an aware datetime (with a time zone) or epoch milliseconds")
            as_of = int(as_of.timestamp() * 1000)
        data = self.call("recall", {"query": query, "top_k": top_k, "strategy": strategy,
                                    "record_access": record_access, "as_of": as_of, "timeline": timeline,
                                    "where": where_json(where)})
        return RetrievalResult(query=data["query"], traces=[_scored(t) for t in data["traces"]],
                               partial=[_scored(t) for t in data["partial"]], strategy=data["strategy"],
                               intent=data.get("intent"), parts=tuple(data.get("parts") or ()),
                               as_of=data.get("as_of"), timeline=bool(data.get("timeline")),
                               gated=bool(data.get("gated")))

    def assemble_for_prompt(self, query: str, token_budget: int | None = None, *, top_k: int = 20,
                            events: Sequence[str] = (),
                            where: MemoryFilter | Mapping[str, Any] | None = None,
                            debug: bool = False) -> AssembledContext:
        data = self.call("context", {"query": query, "token_budget": token_budget, "top_k": top_k,
                                     "events": list(events), "where": where_json(where), "debug": debug})
        from cogmem_graph.cognition.prospective import FiredReminder

        reminders = tuple(FiredReminder(_intention(r["intention"]), r["fired_at"], tuple(r["matched_keywords"]),
                                        r.get("similarity")) for r in data.get("reminders", ()))
        return AssembledContext(text=data["text"], tokens_used=data["tokens_used"], token_budget=data["token_budget"],
                                sections=dict(data["sections"]), trace_ids=tuple(data["trace_ids"]),
                                reminders=reminders, abbreviated=tuple(data.get("abbreviated", ())),
                                left_out=tuple(data.get("left_out", ())), outdated=tuple(data.get("outdated", ())))

    def multi_hop(self, query: str, hops: int | None = None, top_k: int | None = None, *,
                  where: MemoryFilter | Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The multi-hop result as JSON: traces with `path` (the evidence steps) and `evidence` (as text)."""
        return self.call("multi_hop", {"query": query, "hops": hops, "top_k": top_k, "where": where_json(where)})

    def observe(self, role: str, text: str, *, created_at: int | None = None) -> dict[str, Any]:
        return self.call("observe", {"role": role, "text": text, "created_at": created_at})

    def remind(self, content: str, *, at: int | datetime | None = None, every: int | timedelta | None = None,
               on_keywords: str | Sequence[str] | None = None, on_context: str | None = None,
               recurring: bool | None = None, cooldown: int | timedelta | None = None,
               threshold: float | None = None, importance: float | None = None,
               scope: str | None = None) -> Intention:
        keywords = [on_keywords] if isinstance(on_keywords, str) else (list(on_keywords) if on_keywords else None)
        return _intention(self.call("remind", {
            "content": content, "at": _ms(at), "every": _ms(every), "on_keywords": keywords,
            "on_context": on_context, "recurring": recurring, "cooldown": _ms(cooldown), "threshold": threshold,
            "importance": importance, "scope": getattr(scope, "value", scope)}))

    def reminders(self, *, include_inactive: bool = False, limit: int = 100) -> list[Intention]:
        return [_intention(i) for i in self.call("reminders", {"include_inactive": include_inactive, "limit": limit})]

    def cancel_reminder(self, reminder_id: str) -> bool:
        return bool(self.call("cancel_reminder", {"reminder_id": reminder_id})["cancelled"])

    def pin(self, trace_ids: str | Sequence[str]) -> list[str]:
        ids = [trace_ids] if isinstance(trace_ids, str) else list(trace_ids)
        return list(self.call("pin", {"ids": ids})["pinned"])

    def unpin(self, trace_ids: str | Sequence[str]) -> list[str]:
        ids = [trace_ids] if isinstance(trace_ids, str) else list(trace_ids)
        return list(self.call("unpin", {"ids": ids})["unpinned"])

    def neighbourhood(self, trace_id: str, *, limit: int = 25) -> dict[str, Any]:
        """One memory with its edges and neighbours (JSON); RequestRejected (404) when out of sight."""
        return self.call("memory", {"trace_id": trace_id, "limit": limit})

    # ------------------------------------------------------------ what the memory holds

    def get(self, trace_id: str) -> MemoryRecord:
        """One memory with its state and version; RequestRejected (404) when the key cannot see it."""
        return record_from_json(self.call("get", {"trace_id": trace_id}))

    def list(self, where: MemoryFilter | Mapping[str, Any] | None = None, *, order: str = "newest",
             limit: int | None = None, cursor: str | None = None) -> MemoryPage:
        """A page of the key's memories passing `where`; pass the page's `cursor` for the next one."""
        return page_from_json(self.call("list", {"where": where_json(where), "order": order, "limit": limit,
                                                 "cursor": cursor}))

    def update(self, trace_id: str, *, content: str | None = None, tags: Sequence[str] | None = None,
               metadata: Mapping[str, Any] | None = None, pinned: bool | None = None,
               type: MemoryType | str | None = None) -> MemoryRecord:  # noqa: A002 - the field's name
        """Correct a memory: new `content` is a new version; the rest change in place."""
        return record_from_json(self.call("update", {
            "trace_id": trace_id, "content": content, "tags": None if tags is None else list(tags),
            "metadata": None if metadata is None else dict(metadata), "pinned": pinned,
            "type": getattr(type, "value", type)}))

    def history(self, trace_id: str) -> list[MemoryRecord]:
        """Every version of a memory, oldest first."""
        return [record_from_json(r) for r in self.call("history", {"trace_id": trace_id})]

    def forget(self, ids: str | Sequence[str] | None = None, *, where: MemoryFilter | Mapping[str, Any] | None = None,
               force: bool = False, compact: bool = False) -> ForgetReceipt:
        """Delete memories for good, by id or by filter (not both); see `AgentMemory.forget`."""
        listed = [ids] if isinstance(ids, str) else (None if ids is None else list(ids))
        return forget_receipt_from_json(self.call("forget", {"ids": listed, "where": where_json(where),
                                                             "force": force, "compact": compact}))

    def export(self, out: TextIO) -> PortableCounts:
        """Write the key's user's memories to `out` as JSON Lines (`cogmem import` reads them), as
        they arrive; ServerError when the stream ends before its footer."""
        return counts_from_json(footer_counts(self.call("export", out=out)))

    # ------------------------------------------------------------ owner keys

    def erase(self, user_id: str, *, organization_id: str | None = None, include_shared: bool = False,
              compact: bool = True) -> EraseReceipt:
        """Erase everything of one user (owner key): see `MemoryStore.erase`."""
        return erase_receipt_from_json(self.call("erase", {
            "user_id": user_id, "organization_id": organization_id, "include_shared": include_shared,
            "compact": compact}))

    def export_user(self, out: TextIO, user_id: str, organization_id: str | None = None) -> PortableCounts:
        """Write one user's memories to `out` as JSON Lines (owner key): `MemoryStore.export(user_id=...)`."""
        return counts_from_json(footer_counts(self.call(
            "export_user", {"user_id": user_id, "organization_id": organization_id}, out=out)))

    def consolidate(self) -> dict[str, Any]:
        return self.call("consolidate")

    def stats(self) -> dict[str, Any]:
        return self.call("stats")

    def repair(self) -> dict[str, Any]:
        return self.call("repair")


def connect(url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> RemoteAgent:
    """An agent handle on the `cogmem serve` server at `url`, acting as `key`'s identity."""
    return RemoteAgent(url, key, timeout=timeout)
