"""`cg.connect_async(url, key)`: `RemoteAgent`'s methods as awaitables, over `httpx.AsyncClient`.

Each method runs the same plan as the sync one (`client/plans.py`), so the two build the
same requests and return the same results and errors; only `call`, the transport, is
written here. An export's lines are written to `out` as they arrive, by the event loop's
thread: give it a file object whose writes do not block for long (a local file, a
buffer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from cogmem_graph.client.agent import RemoteMethods
from cogmem_graph.client.plans import awaitable, plans_of
from cogmem_graph.client.wire import (
    DEFAULT_TIMEOUT_S,
    LastLine,
    answer_json,
    check_lines,
    client_options,
    prepare,
    refusal,
    unreachable,
)
from cogmem_graph.redact import redact_url

__all__ = ["AsyncRemoteAgent", "connect_async"]


class AsyncRemoteAgent:
    """One key's agent handle on a server, for asyncio: every `RemoteAgent` method, awaitable.
    Use it with `async with`, or `await agent.close()` at the end."""

    def __init__(self, url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        import httpx

        options = client_options(url, key, timeout)
        self.url = options["base_url"]
        self._http = httpx.AsyncClient(**options)
        self._whoami: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"AsyncRemoteAgent(url={redact_url(self.url)!r})"

    async def close(self) -> None:
        """Close the connections (`async with` does it at the end of the block)."""
        await self._http.aclose()

    aclose = close

    async def __aenter__(self) -> AsyncRemoteAgent:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    @property
    def visible_scope_keys(self) -> list[str]:
        """The scope keys the key sees, as the last `await whoami()` said (a property cannot
        await: call `whoami()` once first)."""
        if self._whoami is None:
            raise RuntimeError("the visible scope keys are not known yet: await agent.whoami() first")
        return list(self._whoami["visible_scope_keys"])

    async def call(self, op: str, args: Mapping[str, Any] | None = None, *, out: TextIO | None = None) -> Any:
        """As `RemoteAgent.call`: one server operation by name, its answer's JSON (or, for JSON
        Lines, the text, or with `out` the last record after writing the lines to `out`)."""
        import httpx

        prepared = prepare(op, args)
        request = self._http.build_request(prepared.method, prepared.path, **prepared.options)
        try:
            response = await self._http.send(request, stream=prepared.streams)
            try:
                if response.status_code >= 400:
                    await response.aread()
                    raise refusal(response)
                if not prepared.streams:
                    return answer_json(response)
                check_lines(response)
                if out is None:
                    return (await response.aread()).decode("utf-8")
                sink = LastLine(out)
                async for text in response.aiter_text():
                    sink.write(text)
                return sink.record()
            finally:
                await response.aclose()
        except httpx.HTTPError as exc:
            raise unreachable(self.url, exc) from None


for _name, _plan in plans_of(RemoteMethods).items():
    _method = awaitable(_plan)
    _method.__qualname__ = f"AsyncRemoteAgent.{_name}"
    setattr(AsyncRemoteAgent, _name, _method)
del _name, _plan, _method


def connect_async(url: str, key: str | None, *, timeout: float = DEFAULT_TIMEOUT_S) -> AsyncRemoteAgent:
    """An async agent handle on the `cogmem serve` server at `url`, acting as `key`'s identity:
    `async with cg.connect_async(url, key) as agent: await agent.retrieve(...)`."""
    return AsyncRemoteAgent(url, key, timeout=timeout)
