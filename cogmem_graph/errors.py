"""Every error cogmem-graph raises, in one tree under `CogmemError`. Each message says what
failed and what to do. An error that is also a builtin's kind keeps that base, so
`except ValueError` or `except LookupError` catches it too.

    CogmemError
    ├── BackendUnavailable                a store or provider could not be reached (names the URL)
    │   ├── GraphStoreUnavailable
    │   │   └── EmbeddedServerError       the embedded FalkorDB could not start
    │   │       └── HomeLocked            another process runs this home's graph server
    │   ├── VectorStoreUnavailable
    │   └── ProviderUnavailable           (also a ProviderError) transient faults outlasted the retries
    ├── GraphQueryError                   the database rejected a statement
    │   └── UnconfirmedWriteFailed        a write sent without waiting for its reply failed
    ├── CypherNotFound (LookupError)      no statement of that name, or no cypher/ folder
    ├── InvalidArgument (ValueError)      a caller's argument is not acceptable (`.argument` names it)
    ├── StoreClosed                       the store was closed
    ├── HomeNotAccessible (PermissionError)  the memory home cannot be read or written (names the path)
    ├── StoreVersionTooNew                a newer cogmem-graph wrote the home or graph (names which)
    ├── MemoryNotFound (LookupError)      no memory of that id visible to the caller
    ├── ArchiveError
    │   ├── ArchiveWriteError             the verbatim original could not be archived
    │   └── ArchiveNotFound (LookupError)
    ├── PortableFormatError (ValueError)  not a cogmem-graph backup, or a malformed record
    ├── NamespaceScanTooLarge (ValueError)  the LangGraph store's namespace listing is over its limit
    ├── ProviderError                     an embedder, reranker or LLM call failed
    │   ├── ProviderAuthError
    │   ├── ProviderRequestError
    │   ├── ProviderResponseError
    │   └── ProviderUnavailable
    ├── ServerError                       `cg.connect`: the server answered with an error status
    │   └── RequestRejected (ValueError)  ... refusing the request as it was (400, 403, 404, ...)
    ├── UnsendableArgument (ValueError)   `cg.connect`: a value no request can carry, refused before sending
    ├── ServiceError                      `cogmem serve`: an operation refused or failed, with its HTTP status
    ├── ServerStartError                  `cogmem serve` could not start
    └── ServingFailed                     `cogmem serve` stopped for a reason other than a signal

The modules that raise them import them from here (and re-export them, so
`cogmem_graph.api.governance.MemoryNotFound` is this module's class); `cogmem_graph`
exports every one at its root.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from cogmem_graph.redact import redact_url, redact_urls

if TYPE_CHECKING:
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


def field_problems(errors: Iterable[Mapping[str, Any]], prefix: str = "") -> str:
    """A validation error's problems on one line, each naming its field ("top_k: Input should
    be greater than 0"); `prefix` goes before each field path (e.g. "items[3].")."""
    return "; ".join(f"{prefix}{'.'.join(str(p) for p in e['loc']) or 'value'}: "
                     f"{e['msg'].removeprefix('Value error, ')}" for e in errors)


def first_field(errors: Iterable[Mapping[str, Any]], prefix: str = "", default: str = "value") -> str:
    """The path of the first field a validation error names (`prefix` before it), or `default`."""
    for e in errors:
        path = ".".join(str(p) for p in e.get("loc") or ())
        return f"{prefix}{path}" if path else default
    return default


def model_from(model: type[ModelT], data: Mapping[str, Any], what: str, prefix: str = "", *,
               argument: str) -> ModelT:
    """`data` (a dict of the model's fields, the caller's `argument`) validated into `model`, or
    an `InvalidArgument` saying `what` it is not and naming each bad field (`prefix` before each
    field path)."""
    from pydantic import ValidationError

    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        raise InvalidArgument(f"{what}: {field_problems(exc.errors(), prefix)}",
                              argument=first_field(exc.errors(), prefix or f"{argument}.", argument)) from None


class CogmemError(Exception):
    """Base of every error raised by cogmem-graph."""


# ---------------------------------------------------------------- backends


class BackendUnavailable(CogmemError):
    """A store could not be reached. The message names the URL and what to start; both the
    message and `.url` are redacted here, so no caller can leak a URL's credentials."""

    def __init__(self, message: str, *, url: str | None = None, retry_after_s: float | None = None) -> None:
        super().__init__(redact_urls(message))
        self.url = redact_url(url)
        self.retry_after_s = retry_after_s
        """When the backend may be back, where known (a restart held back until then)."""


class GraphStoreUnavailable(BackendUnavailable):
    """The graph database could not be reached (a server) or started (embedded)."""


class EmbeddedServerError(GraphStoreUnavailable):
    """The embedded FalkorDB could not be started (missing binaries, port, locked home)."""


class HomeLocked(EmbeddedServerError):
    """Another process already runs the embedded graph server on this memory home."""


class VectorStoreUnavailable(BackendUnavailable):
    """Qdrant could not be reached (server) or opened (local path)."""


class GraphQueryError(CogmemError):
    """The database rejected a statement; names the statement."""


class UnconfirmedWriteFailed(GraphQueryError):
    """A write an earlier call sent without waiting for its reply (a retrieval's access
    bookkeeping) failed; raised by the next statement on the store, `__cause__` says why."""


class CypherNotFound(CogmemError, LookupError):
    """No statement of that name (or its file holds none), or no `cypher/` folder (set COGMEM_CYPHER_DIR)."""


class InvalidArgument(CogmemError, ValueError):
    """A caller's argument is not acceptable. `.argument` names it (a path for a field inside
    one: `where.created_after`, `items[3].confidence`) and the message always names it too.
    A ValueError, so `except ValueError` still catches it; the server answers it 400. A plain
    ValueError out of the package is a fault of the package (the server answers it 500)."""

    def __init__(self, message: str, *, argument: str) -> None:
        message = str(message)
        if argument not in message:
            message = f"{argument}: {message}"
        super().__init__(message)
        self.argument = argument
        self.message = message


class StoreClosed(CogmemError):
    """The store was closed; open a new one."""


class HomeNotAccessible(CogmemError, PermissionError):
    """This process may not read or write the memory home: names the path refused and what to do."""

    def __init__(self, home: object, path: object, reason: str) -> None:
        super().__init__(
            f"memory home {home}: {path} cannot be opened or written ({reason}); run as the user who owns "
            "the home, give this user read and write access to it, or choose another home (--home, "
            "COGMEM_HOME, cg.open(home=...))")
        self.home = home
        self.path = path


# ---------------------------------------------------------------- memories, archive, backups


class StoreVersionTooNew(CogmemError):
    """The home or graph was written by a newer version of cogmem-graph than this one: an older
    library must not rewrite what it cannot read (`cogmem_graph.api.upgrade`)."""

    def __init__(self, where: str, found: int, release: str, *, reads: int, version: str) -> None:
        by = f" (written by cogmem-graph {release})" if release else ""
        super().__init__(f"{where} holds data layout version {found}{by}; this cogmem-graph {version} reads "
                         f"up to version {reads}: upgrade cogmem-graph (pip install -U cogmem-graph) to open it")
        self.found = found


class MemoryNotFound(CogmemError, LookupError):
    """No memory with that id is visible to the caller (it may not exist, or be another tenant's)."""


class ArchiveError(CogmemError):
    """The archive could not do what was asked."""


class ArchiveWriteError(ArchiveError):
    """The verbatim original could not be archived (or not verified): nothing was overwritten."""


class ArchiveNotFound(ArchiveError, LookupError):
    """No archived original (and no trace to fall back on) for this id."""


class PortableFormatError(CogmemError, ValueError):
    """The file is not a cogmem-graph backup, or a record in it is malformed (names the line)."""


class NamespaceScanTooLarge(CogmemError, ValueError):
    """`list_namespaces` would read more memories than the store's `namespace_scan_limit`."""


# ---------------------------------------------------------------- providers


class ProviderError(CogmemError):
    """A provider call failed. Carries the provider, operation and HTTP status, never the key."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        operation: str,
        status_code: int | None = None,
    ) -> None:
        super().__init__(redact_urls(message))
        self.provider = provider
        self.operation = operation
        self.status_code = status_code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class ProviderAuthError(ProviderError):
    """The provider rejected the credentials (HTTP 401/403): fix the key, retrying will not help."""


class ProviderRequestError(ProviderError):
    """The provider rejected the request itself (HTTP 400/404/422, exhausted quota)."""


class ProviderResponseError(ProviderError):
    """The provider answered, but not with what we asked for (empty, malformed, not JSON)."""


class ProviderUnavailable(ProviderError, BackendUnavailable):
    """Transient faults persisted through every attempt. Names the URL."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        operation: str,
        url: str | None,
        status_code: int | None = None,
    ) -> None:
        ProviderError.__init__(
            self, message, provider=provider, operation=operation, status_code=status_code
        )
        self.url = redact_url(url)


# ---------------------------------------------------------------- client and server


class ServerError(CogmemError):
    """The server answered with an error status; `status` and `message` say which."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"server answered {status}: {message}")
        self.status = status
        self.message = message


class RequestRejected(ServerError, ValueError):
    """The server refused this request as it was (400, 403, 404, 409, 413, 422): fix the request."""


class UnsendableArgument(CogmemError, ValueError):
    """An argument no request can carry (a number that is not finite, text with lone surrogates),
    refused before anything is sent; `status` (400) and `message` as a server refusal has them,
    so a bridge reports it the same way."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ServiceError(CogmemError):
    """An operation refused or failed, with the HTTP status that says why. The message is
    made valid UTF-8 (a lone surrogate quoted from the input becomes its `\\udXXX` escape), so
    every surface can encode it. `retry_after_s`: when asking again may succeed (a 503's
    `Retry-After`), so a client can tell a passing outage from a refusal."""

    def __init__(self, status: int, message: str, *, retry_after_s: float | None = None) -> None:
        message = str(message).encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after_s = retry_after_s


class ServerStartError(CogmemError):
    """The server could not start (the port is taken, the file-descriptor limit is too low)."""


class ServingFailed(CogmemError):
    """The server stopped serving for a reason other than a signal (the store was closed
    under it, its event loop failed)."""
