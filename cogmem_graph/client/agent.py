"""`RemoteAgent`: one key's agent handle on a server, over a sync HTTP client.

Each handle method is a plan (`client/plans.py`): the requests it sends and how the
answers become its result, shared with `AsyncRemoteAgent`. Most are made from the
operations table (`client/generated.py`); the few that are not one request and one result
are written here. `call` is the transport.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from cogmem_graph.client.arguments import converted
from cogmem_graph.client.generated import OperationMethods
from cogmem_graph.client.plans import Plan, Send, remote
from cogmem_graph.client.wire import (
    BATCH,
    DEFAULT_TIMEOUT_S,
    LastLine,
    answer_json,
    check_lines,
    client_options,
    counts_from_json,
    footer_counts,
    prepare,
    refusal,
    trace_from_json,
    unreachable,
)
from cogmem_graph.model import MemoryTrace
from cogmem_graph.redact import redact_url

if TYPE_CHECKING:
    from cogmem_graph.portable import PortableCounts

__all__ = ["RemoteAgent", "RemoteMethods", "connect"]


class RemoteMethods(OperationMethods):
    """The handle's methods, as plans: `RemoteAgent` runs them over `httpx.Client`,
    `AsyncRemoteAgent` over `httpx.AsyncClient`. Those of `OperationMethods` are generated
    from the table; these are not one request and one result."""

    _whoami: dict[str, Any] | None = None

    @remote
    def whoami(self) -> Plan[dict[str, Any]]:
        """Who this connection acts as; kept for `visible_scope_keys`."""
        self._whoami = yield Send("whoami")
        return self._whoami

    @remote
    def encode_many(self, items: Iterable[Mapping[str, Any]], *, batch_size: int = BATCH) -> Plan[list[MemoryTrace]]:
        """Store many memories, each with `encode`'s fields, in batches of `remember_many` (at most `BATCH`)."""
        items = [converted("remember", item) for item in items]
        size = max(1, min(batch_size, BATCH))
        out: list[MemoryTrace] = []
        for start in range(0, len(items), size):
            out += [trace_from_json(t) for t in (yield Send("remember_many", {"items": items[start:start + size]}))]
        return out

    @remote
    def export(self, out: TextIO) -> Plan[PortableCounts]:
        """Write the key's user's memories to `out` as JSON Lines (`cogmem import` reads them), as
        they arrive; ServerError when the stream ends before its footer."""
        return counts_from_json(footer_counts((yield Send("export", out=out))))

    @remote
    def export_user(self, out: TextIO, user_id: str, organization_id: str | None = None) -> Plan[PortableCounts]:
        """Write one user's memories to `out` as JSON Lines (owner key): `MemoryStore.export(user_id=...)`."""
        last = yield Send("export_user", {"user_id": user_id, "organization_id": organization_id}, out=out)
        return counts_from_json(footer_counts(last))


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
