"""What the sync and the async client share: a call as an HTTP request, an answer as a result.

`prepare` turns an operation and its arguments into the request (route from
`cogmem_graph.operations`, path parameters, query or JSON body), refusing before anything
is sent what no request can carry. `refusal` turns an error answer into `ServerError`
or `RequestRejected`, `unreachable` a transport failure into `BackendUnavailable`. The
`*_from_json` functions rebuild the result types from the server's JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from cogmem_graph.errors import BackendUnavailable, InvalidArgument, RequestRejected, ServerError, UnsendableArgument
from cogmem_graph.filters import MemoryFilter, as_filter
from cogmem_graph.model import MemoryTrace
from cogmem_graph.operations import MAX_BATCH, OPERATIONS, value_problems
from cogmem_graph.redact import redact_url
from cogmem_graph.results import AssembledContext, RetrievalResult, ScoreComposition, ScoredTrace

if TYPE_CHECKING:
    from cogmem_graph.api.governance import EraseReceipt, ForgetReceipt, MemoryPage, MemoryRecord
    from cogmem_graph.cognition.prospective import Intention
    from cogmem_graph.portable import PortableCounts

DEFAULT_TIMEOUT_S = 60.0
BATCH = MAX_BATCH

# The REST route of each operation, read from the one table (kept for callers that used it).
OPERATION_ROUTES: dict[str, tuple[str, str]] = {op.name: (op.method, op.path) for op in OPERATIONS.values()}


REJECTED = (400, 403, 404, 409, 413, 422)


# ---------------------------------------------------------------- requests and answers


def client_options(url: str, key: str | None, timeout: float) -> dict[str, Any]:
    """The HTTP client's settings (`httpx.Client` and `httpx.AsyncClient` take the same) for
    the server at `url` with `key`; ValueError naming a bad `url` or a missing `key`."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise InvalidArgument(f"url must be an http:// or https:// URL, not {redact_url(str(url))!r}", argument="url")
    if not key:
        raise InvalidArgument("key is required: the API key the server's owner made for this agent", argument="key")
    base = url.rstrip("/")
    # TLS verification is on for https://; for http:// there is no TLS to verify, and not
    # building an SSL context (the CA bundle load) saves a short-lived CLI a third of a second.
    # Redirects are never followed, so a plain-HTTP client cannot end up on an https:// host.
    return {"base_url": base, "timeout": timeout, "verify": base.startswith("https://"), "follow_redirects": False,
            "headers": {"Authorization": f"Bearer {key}"}}


@dataclass(frozen=True)
class Prepared:
    """One operation as an HTTP request: `options` are `params` (GET, DELETE) or `json`; an
    answer that `streams` is JSON Lines."""

    method: str
    path: str
    options: dict[str, Any]
    streams: bool


def prepare(op: str, args: Mapping[str, Any] | None) -> Prepared:
    """The request running `op` with `args` (None values left out): path parameters in the
    path, the rest in the query or the JSON body. ValueError for an unknown operation or a
    missing path parameter, `UnsendableArgument` naming a value no request can carry."""
    entry = OPERATIONS.get(op)
    if entry is None:
        raise InvalidArgument(f"unknown operation {op!r}", argument="op")
    path = entry.path
    sent = {k: v for k, v in (args or {}).items() if v is not None}
    problems = value_problems(sent)
    if problems:  # as the facade refuses them; the JSON encoder's own error names no field
        raise UnsendableArgument(f"{op}: {'; '.join(problems)}")
    for name in entry.path_params:
        if name not in sent:
            raise InvalidArgument(f"{op}: {name} is required", argument=name)
        path = path.replace("{" + name + "}", quote(str(sent.pop(name)), safe=""))
    return Prepared(entry.method, path, {"params": sent} if entry.in_query else {"json": sent}, entry.streams)


def refusal(response: Any) -> ServerError:
    """The error an answer with an error status (its body read) stands for; an answer not in
    the server's error format (a web server that is no cogmem server) in one line, never its body."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if not (isinstance(data, dict) and (data.get("error") or data.get("detail"))):
        return not_cogmem(response)
    cls = RequestRejected if response.status_code in REJECTED else ServerError
    return cls(response.status_code, str(data.get("error") or data.get("detail")))


def not_cogmem(response: Any) -> ServerError:
    """The one-line error for an answer no cogmem server gives: its status, the URL (without
    credentials or query) and what it sent instead of JSON."""
    url = redact_url(str(response.url).split("?", 1)[0])
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip()
    what = "an HTML page" if "html" in kind else f"{kind} content" if kind else "an answer without a content type"
    return ServerError(response.status_code, f"{url} sent {what}, not cogmem's JSON: is this a cogmem server?")


def answer_json(response: Any) -> Any:
    """A success answer's JSON; `not_cogmem` when it holds none."""
    try:
        return response.json()
    except ValueError:
        raise not_cogmem(response) from None


def check_lines(response: Any) -> None:
    """A streamed success answer must be JSON Lines: `not_cogmem` otherwise, before a line is read."""
    if "json" not in response.headers.get("content-type", ""):
        raise not_cogmem(response)


def unreachable(url: str, exc: BaseException) -> BackendUnavailable:
    """What a transport failure (`httpx.HTTPError`) is raised as: the URL redacted, no body."""
    return BackendUnavailable(f"cogmem server at {redact_url(url)} is unreachable: {type(exc).__name__}")


class LastLine:
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


# ---------------------------------------------------------------- results from JSON


def trace_from_json(data: Mapping[str, Any]) -> MemoryTrace:
    return MemoryTrace.model_validate(data)


def scored_from_json(data: Mapping[str, Any]) -> ScoredTrace:
    return ScoredTrace(trace_from_json(data["trace"]), data["score"], dict(data["signals"]), tuple(data["sources"]),
                       composition_from_json(data.get("composition")))


def retrieval_from_json(data: Mapping[str, Any]) -> RetrievalResult:
    """A `RetrievalResult` from the JSON of `recall`."""
    return RetrievalResult(query=data["query"], traces=[scored_from_json(t) for t in data["traces"]],
                           partial=[scored_from_json(t) for t in data["partial"]], strategy=data["strategy"],
                           intent=data.get("intent"), parts=tuple(data.get("parts") or ()),
                           as_of=data.get("as_of"), timeline=bool(data.get("timeline")),
                           gated=bool(data.get("gated")))


def context_from_json(data: Mapping[str, Any]) -> AssembledContext:
    """An `AssembledContext` from the JSON of `context`, its fired reminders with their `Intention`."""
    from cogmem_graph.cognition.prospective import FiredReminder

    reminders = tuple(FiredReminder(intention_from_json(r["intention"]), r["fired_at"],
                                    tuple(r["matched_keywords"]), r.get("similarity"))
                      for r in data.get("reminders", ()))
    return AssembledContext(text=data["text"], tokens_used=data["tokens_used"], token_budget=data["token_budget"],
                            sections=dict(data["sections"]), trace_ids=tuple(data["trace_ids"]),
                            reminders=reminders, abbreviated=tuple(data.get("abbreviated", ())),
                            left_out=tuple(data.get("left_out", ())), outdated=tuple(data.get("outdated", ())))


def composition_from_json(data: Mapping[str, Any] | None) -> ScoreComposition | None:
    """How a hit's score was composed, with the types the in-process `ScoredTrace.composition`
    has (floats, a 1-based int rank or None); None where the strategy composes none. A number
    the server sent as null (it was not finite, which JSON cannot carry) comes back as nan."""
    if data is None:
        return None
    rank = data.get("fused_rank")
    return ScoreComposition(scoring=str(data["scoring"]), weights=_floats(data["weights"]),
                            contributions=_floats(data["contributions"]), base=_float(data["base"]),
                            fused_rank=None if rank is None else int(rank),
                            prior_weight=_float(data.get("prior_weight", 0.0)))


def _floats(values: Mapping[str, Any]) -> dict[str, float]:
    return {str(k): _float(v) for k, v in values.items()}


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def where_json(where: MemoryFilter | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A filter as the server takes it: checked here (a ValueError names the bad field) and as JSON."""
    checked = as_filter(where)
    return None if checked is None else checked.model_dump(mode="json", exclude_none=True)


def record_from_json(data: Mapping[str, Any]) -> MemoryRecord:
    """A `MemoryRecord` from the JSON of `get`, `update`, `history` and `list` items."""
    from cogmem_graph.api.governance import MemoryRecord
    from cogmem_graph.filters import MemoryState

    return MemoryRecord(trace_from_json(data["trace"]), MemoryState(data["state"]),
                        archived=bool(data.get("archived")), version=int(data.get("version") or 1),
                        superseded_by=tuple(data.get("superseded_by") or ()), updated_by=data.get("updated_by"))


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


def intention_from_json(data: Mapping[str, Any]) -> Intention:
    # Imported here, when reminders come back: a recall need not load the cognition modules.
    from cogmem_graph.cognition.prospective import Intention, TriggerKind

    fields = dict(data)
    fields["kind"] = TriggerKind(fields["kind"])
    fields["keywords"] = tuple(fields.get("keywords") or ())
    return Intention(**fields)
