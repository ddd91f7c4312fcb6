"""One retry policy for every remote provider (OpenAI, Cohere).

Only transient faults are retried: timeouts, dropped connections, HTTP 408,
429 (rate limit, not exhausted quota) and 5xx. Anything else (401 bad key,
400 bad request, 404 unknown model) is a mistake retries cannot fix, so it is
raised at once. Every message that leaves this module has the API key scrubbed
out, and the provider's exception is not chained, because its request object
carries the key in the Authorization header.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from cogmem_graph.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderUnavailable,
)
from cogmem_graph.errors import (
    ProviderResponseError as ProviderResponseError,  # re-exported: its old home
)
from cogmem_graph.redact import redact_url, redact_urls

if TYPE_CHECKING:
    from tenacity import RetryCallState

log = logging.getLogger(__name__)

T = TypeVar("T")

_TRANSIENT_STATUS = frozenset({408, 425, 429})
_DETAIL_LIMIT = 300
# Key shapes that must never be echoed even if they are not the configured key.
_KEY_PATTERNS = re.compile(r"(sk-[A-Za-z0-9_\-*]{6,}|Bearer\s+[A-Za-z0-9_\-.=*]{6,})")


class RetryConfig(BaseModel):
    """How hard to try a remote provider before giving up."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_assignment=True)

    attempts: int = Field(4, ge=1, le=20, description="tries in total for transient faults")
    initial_wait_s: float = Field(0.5, ge=0.0, description="first backoff; doubles per retry")
    max_wait_s: float = Field(20.0, ge=0.0, description="cap on one backoff (also on Retry-After)")
    timeout_s: float = Field(60.0, gt=0.0, description="per-request timeout given to the client")


# ---------------------------------------------------------------- classification


def status_code_of(exc: BaseException) -> int | None:
    """HTTP status of an openai/cohere/httpx error, None for transport-level faults."""
    for attr in ("status_code", "http_status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def _openai_error_code(exc: BaseException) -> str | None:
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        return code
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("code"), str):
            return inner["code"]
    return None


def _is_transport_fault(exc: BaseException) -> bool:
    # openai and httpx not imported yet (a command that calls no provider): the error cannot be one of theirs
    openai = sys.modules.get("openai")
    if openai is not None and isinstance(exc, openai.APIConnectionError):  # incl. APITimeoutError
        return True
    httpx = sys.modules.get("httpx")
    if httpx is not None and isinstance(exc, httpx.TimeoutException | httpx.TransportError):
        return True
    return isinstance(exc, TimeoutError | ConnectionError)


def is_transient(exc: BaseException) -> bool:
    """True for faults a later attempt may not hit: timeouts, connection errors, 408/429/5xx."""
    if isinstance(exc, ProviderError):
        return False
    if _is_transport_fault(exc):
        return True
    status = status_code_of(exc)
    if status is None:
        return False
    if status == 429 and _openai_error_code(exc) == "insufficient_quota":
        return False  # billing, not rate: waiting will not refill the account
    return status in _TRANSIENT_STATUS or status >= 500


def _retry_after_s(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None)
    if not headers:
        return None
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000.0
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except (TypeError, ValueError):
        return None
    return None


class _Backoff:
    """Exponential backoff that honours the server's Retry-After, both capped."""

    def __init__(self, config: RetryConfig) -> None:
        self.config = config

    def __call__(self, state: RetryCallState) -> float:
        cfg = self.config
        wait = cfg.initial_wait_s * (2 ** max(state.attempt_number - 1, 0))
        exc = state.outcome.exception() if state.outcome is not None else None
        hinted = _retry_after_s(exc)
        if hinted is not None:
            wait = max(wait, hinted)
        return max(0.0, min(wait, cfg.max_wait_s))


# ---------------------------------------------------------------- redaction


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Scrub configured secrets, anything shaped like an API key and URL credentials out of a message."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return redact_urls(_KEY_PATTERNS.sub("***", text))


def _detail(exc: BaseException, secrets: Iterable[str | None]) -> str:
    message = getattr(exc, "message", None)
    if not isinstance(message, str) or not message:
        body = getattr(exc, "body", None)
        message = str(body) if body is not None else str(exc)
    message = redact(" ".join(message.split()), secrets)
    if len(message) > _DETAIL_LIMIT:
        message = message[: _DETAIL_LIMIT - 3] + "..."
    return message or type(exc).__name__


# ---------------------------------------------------------------- the call


def call_with_retry(
    fn: Callable[[], T],
    *,
    provider: str,
    operation: str,
    url: str | None,
    config: RetryConfig,
    secrets: Iterable[str | None] = (),
    key_hint: str = "the API key",
) -> T:
    """Run `fn` under the shared policy; translate failures into ProviderError subclasses.

    The provider's own exception is neither chained nor kept as context: its request
    holds the key. The translated error keeps provider, operation and HTTP status.
    """
    from tenacity import Retrying, retry_if_exception, stop_after_attempt

    present = [s for s in secrets if s]

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        status = status_code_of(exc) if exc is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        log.warning(
            "%s %s: transient %s%s; retry %d/%d in %.2fs",
            provider,
            operation,
            type(exc).__name__,
            f" (HTTP {status})" if status else "",
            state.attempt_number,
            config.attempts - 1,
            wait,
        )

    retrying = Retrying(
        stop=stop_after_attempt(config.attempts),
        wait=_Backoff(config),
        retry=retry_if_exception(is_transient),
        before_sleep=before_sleep,
        reraise=True,
    )
    try:
        for attempt in retrying:
            with attempt:
                return fn()
    except ProviderError:
        raise
    except Exception as exc:
        error = _translate(exc, provider, operation, url, config, present, key_hint)
    else:  # pragma: no cover - the loop either returns or raises
        raise AssertionError("unreachable")
    # Raised outside the except block so the original (whose request carries the key) is
    # neither the cause nor the context of what the caller sees.
    error.__suppress_context__ = True
    raise error


def _translate(
    exc: Exception,
    provider: str,
    operation: str,
    url: str | None,
    config: RetryConfig,
    secrets: list[str],
    key_hint: str,
) -> ProviderError:
    status = status_code_of(exc)
    detail = _detail(exc, secrets)
    where = f" at {url}" if url else ""
    if is_transient(exc):
        what = f"HTTP {status}" if status else type(exc).__name__
        return ProviderUnavailable(
            f"{provider} {operation}{where} still failing after {config.attempts} attempts "
            f"({what}: {detail}). Check the network or the service status, or raise retry.attempts.",
            provider=provider,
            operation=operation,
            url=url,
            status_code=status,
        )
    if status in (401, 403):
        return ProviderAuthError(
            f"{provider} rejected the credentials for {operation}{where} (HTTP {status}: {detail}). "
            f"Set {key_hint} to a valid key.",
            provider=provider,
            operation=operation,
            status_code=status,
        )
    if status is not None:
        hint = {
            404: " Check the model name and the base URL.",
            429: " The account's quota is exhausted.",
        }.get(status, "")
        return ProviderRequestError(
            f"{provider} rejected the {operation} request{where} (HTTP {status}: {detail}).{hint}",
            provider=provider,
            operation=operation,
            status_code=status,
        )
    return ProviderError(
        f"{provider} {operation}{where} failed: {type(exc).__name__}: {detail}",
        provider=provider,
        operation=operation,
    )


def clean_base_url(url: str | None) -> str | None:
    """A base URL fit for messages: redacted, and without the trailing slash a client adds."""
    if not url:
        return url
    return str(redact_url(str(url))).rstrip("/")


def env_first(*names: str) -> str | None:
    """The first non-empty environment variable among `names`."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def secret_value(value: Any) -> str | None:
    """Plain text of a str or SecretStr (None stays None)."""
    if value is None:
        return None
    getter = getattr(value, "get_secret_value", None)
    return getter() if callable(getter) else str(value)
