"""`cg.connect(url, key)`: an agent handle on a `cogmem serve` server.

It has the methods of the embedded handle (`encode`, `encode_many`, `retrieve`,
`assemble_for_prompt`, `multi_hop`, `observe`, `remind`, `reminders`,
`cancel_reminder`, `pin`, `unpin`, `consolidate`) and returns the same result types
where they carry a memory (`MemoryTrace`, `RetrievalResult`, `AssembledContext`,
`Intention`); the rest come back as the server's JSON. Each method runs one entry of
`cogmem_graph.operations` (the entry's `client` names it) through `call(name, args)`,
which reaches any entry and finds its route in that table. Who it acts as is the key's
identity: there is no way to pass one. Errors: `ServerError` with the HTTP status;
4xx refusals of the request are also `ValueError`s; an unreachable server is
`BackendUnavailable` naming the URL (credentials redacted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from cogmem_graph.errors import BackendUnavailable, CogmemError
from cogmem_graph.model import MemoryTrace
from cogmem_graph.operations import MAX_BATCH, OPERATIONS
from cogmem_graph.redact import redact_url
from cogmem_graph.results import AssembledContext, RetrievalResult, ScoredTrace

if TYPE_CHECKING:
    from cogmem_graph.cognition.prospective import Intention

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
    """The server refused this request as it was (400, 403, 404, 413, 422): fix the request."""


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

    def call(self, op: str, args: Mapping[str, Any] | None = None) -> Any:
        """Run one server operation by name (as `cogmem_graph.operations` declares it), with
        its arguments as a mapping: path parameters go in the path, the rest in the query
        (GET, DELETE) or the JSON body."""
        import httpx

        entry = OPERATIONS.get(op)
        if entry is None:
            raise ValueError(f"unknown operation {op!r}")
        method, path = entry.method, entry.path
        args = {k: v for k, v in (args or {}).items() if v is not None}
        for name in entry.path_params:
            if name not in args:
                raise ValueError(f"{op}: {name} is required")
            path = path.replace("{" + name + "}", quote(str(args.pop(name)), safe=""))
        try:
            if entry.in_query:
                response = self._http.request(method, path, params=args)
            else:
                response = self._http.request(method, path, json=args)
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"cogmem server at {redact_url(self.url)} is unreachable: "
                                     f"{type(exc).__name__}") from None
        if response.status_code >= 400:
            try:
                message = response.json().get("error") or response.json().get("detail")
            except ValueError:
                message = response.text[:500]
            cls = RequestRejected if response.status_code in (400, 403, 404, 413, 422) else ServerError
            raise cls(response.status_code, str(message))
        return response.json()

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
                 timeline: bool = False) -> RetrievalResult:
        if isinstance(as_of, datetime):
            if as_of.tzinfo is None:
                raise ValueError("as_of must be an aware datetime (with a time zone) or epoch milliseconds")
            as_of = int(as_of.timestamp() * 1000)
        data = self.call("recall", {"query": query, "top_k": top_k, "strategy": strategy,
                                    "record_access": record_access, "as_of": as_of, "timeline": timeline})
        return RetrievalResult(query=data["query"], traces=[_scored(t) for t in data["traces"]],
                               partial=[_scored(t) for t in data["partial"]], strategy=data["strategy"],
                               intent=data.get("intent"), parts=tuple(data.get("parts") or ()),
                               as_of=data.get("as_of"), timeline=bool(data.get("timeline")),
                               gated=bool(data.get("gated")))

    def assemble_for_prompt(self, query: str, token_budget: int | None = None, *, top_k: int = 20,
                            events: Sequence[str] = ()) -> AssembledContext:
        data = self.call("context", {"query": query, "token_budget": token_budget, "top_k": top_k,
                                     "events": list(events)})
        from cogmem_graph.cognition.prospective import FiredReminder

        reminders = tuple(FiredReminder(_intention(r["intention"]), r["fired_at"], tuple(r["matched_keywords"]),
                                        r.get("similarity")) for r in data.get("reminders", ()))
        return AssembledContext(text=data["text"], tokens_used=data["tokens_used"], token_budget=data["token_budget"],
                                sections=dict(data["sections"]), trace_ids=tuple(data["trace_ids"]),
                                reminders=reminders)

    def multi_hop(self, query: str, hops: int | None = None, top_k: int | None = None) -> dict[str, Any]:
        """The multi-hop result as JSON: traces with `path` (the evidence steps) and `evidence` (as text)."""
        return self.call("multi_hop", {"query": query, "hops": hops, "top_k": top_k})

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

    # ------------------------------------------------------------ owner keys

    def consolidate(self) -> dict[str, Any]:
        return self.call("consolidate")

    def stats(self) -> dict[str, Any]:
        return self.call("stats")

    def repair(self) -> dict[str, Any]:
        return self.call("repair")


def connect(url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> RemoteAgent:
    """An agent handle on the `cogmem serve` server at `url`, acting as `key`'s identity."""
    return RemoteAgent(url, key, timeout=timeout)
