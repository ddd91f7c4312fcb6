"""`cg.connect(url, key)`: an agent handle on a `cogmem serve` server; `cg.connect_async`
is the same handle for asyncio.

It has the methods of the embedded handle (`encode`, `encode_many`, `retrieve`,
`assemble_for_prompt`, `multi_hop`, `observe`, `remind`, `reminders`,
`cancel_reminder`, `pin`, `unpin`, `consolidate`, and the governance ones: `get`,
`list`, `update`, `history`, `forget`, `export`) plus the store owner's `erase` and
`export_user`, and returns the same result types where they carry a memory
(`MemoryTrace`, `RetrievalResult`, `AssembledContext`, `Intention`, `MemoryRecord`,
`MemoryPage`, `ForgetReceipt`, `EraseReceipt`, `PortableCounts`, rebuilt from the JSON by
the `*_from_json` functions of `client/wire.py`); the rest come back as the server's
JSON. The record and receipt types are imported when the first one comes back (they
load the facade). Filters (`where=`) are a `MemoryFilter` or a dict of its fields.

Each method is a plan (`client/plans.py`) running one entry of `cogmem_graph.operations`
(the entry's `client` names it) through `call(name, args)`, which reaches any entry and
finds its route in that table; most are generated from the table (`client/generated.py`).
`RemoteAgent` (`client/agent.py`) runs the plans over `httpx.Client`, `AsyncRemoteAgent`
(`client/aio.py`, imported on first use) over `httpx.AsyncClient`. Who it acts as is the
key's identity: there is no way to pass one.
Errors: `ServerError` with the HTTP status; 4xx refusals of the request are also
`ValueError`s; an unreachable server is `BackendUnavailable` naming the URL (credentials
redacted). A value no request can carry (a number that is not finite, text with lone
surrogates) is a `ValueError` naming the field before anything is sent, as the
in-process facade refuses it, not the JSON encoder's error.

It imports the operations table and the public types it rebuilds (from the facade and
`cognition/prospective.py`), never the adapters or the layers between them and the facade
(import-linter contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogmem_graph.client.agent import RemoteAgent, connect
from cogmem_graph.client.wire import (
    BATCH,
    DEFAULT_TIMEOUT_S,
    OPERATION_ROUTES,
    REJECTED,
    counts_from_json,
    erase_receipt_from_json,
    footer_counts,
    forget_receipt_from_json,
    page_from_json,
    record_from_json,
    where_json,
)
from cogmem_graph.errors import RequestRejected, ServerError, UnsendableArgument

if TYPE_CHECKING:
    from cogmem_graph.client.aio import AsyncRemoteAgent, connect_async

__all__ = [
    "BATCH", "DEFAULT_TIMEOUT_S", "OPERATION_ROUTES", "REJECTED", "AsyncRemoteAgent", "RemoteAgent",
    "RequestRejected", "ServerError", "UnsendableArgument", "connect", "connect_async", "counts_from_json",
    "erase_receipt_from_json", "footer_counts", "forget_receipt_from_json", "page_from_json", "record_from_json",
    "where_json",
]


def __getattr__(name: str) -> Any:
    if name in ("AsyncRemoteAgent", "connect_async"):
        from cogmem_graph.client import aio

        return getattr(aio, name)
    raise AttributeError(f"module 'cogmem_graph.client' has no attribute {name!r}")
