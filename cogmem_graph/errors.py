"""Errors a caller can act on. Each message says what failed and what to do."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cogmem_graph.redact import redact_url, redact_urls


def field_problems(errors: Iterable[Mapping[str, Any]], prefix: str = "") -> str:
    """A validation error's problems on one line, each naming its field ("top_k: Input should
    be greater than 0"); `prefix` goes before each field path (e.g. "items[3].")."""
    return "; ".join(f"{prefix}{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in errors)


def model_from(model: Any, data: Mapping[str, Any], what: str, prefix: str = "") -> Any:
    """`data` (a dict of the model's fields) validated into `model`, or a ValueError saying
    `what` it is not and naming each bad field (`prefix` before each field path)."""
    from pydantic import ValidationError

    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise ValueError(f"{what}: {field_problems(exc.errors(), prefix)}") from None


class CogmemError(Exception):
    """Base of every error raised by cogmem-graph."""


class BackendUnavailable(CogmemError):
    """A store could not be reached. The message names the URL and what to start; both the
    message and `.url` are redacted here, so no caller can leak a URL's credentials."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(redact_urls(message))
        self.url = redact_url(url)


class GraphStoreUnavailable(BackendUnavailable):
    pass


class EmbeddedServerError(GraphStoreUnavailable):
    """The embedded FalkorDB could not be started (missing binaries, port, locked home)."""


class HomeLocked(EmbeddedServerError):
    """Another process already runs the embedded graph server on this memory home."""


class GraphQueryError(CogmemError):
    """The database rejected a statement; names the statement."""


class VectorStoreUnavailable(BackendUnavailable):
    """Qdrant could not be reached (server) or opened (local path)."""


class UnconfirmedWriteFailed(GraphQueryError):
    """A write an earlier call sent without waiting for its reply (a retrieval's access
    bookkeeping) failed; raised by the next statement on the store, `__cause__` says why."""


class StoreClosed(CogmemError):
    """The store was closed; open a new one."""
