"""OpenTelemetry spans around each operation the server runs, when `opentelemetry` is
importable (it is not a dependency): without it, or without a tracer provider set up in the
process, a span costs nothing. A span is named `cogmem.<operation>` and carries the
operation's name and the status it answered; never its arguments, its answer or the error's
message (they may hold what a tenant wrote)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

try:
    from opentelemetry import trace as _trace
    from opentelemetry.trace import Status, StatusCode
except ImportError:  # pragma: no cover - exercised where opentelemetry is not installed
    _trace = None  # type: ignore[assignment]

TRACER_NAME = "cogmem_graph.server"


class OperationSpan:
    """What the caller tells the span once the operation has answered."""

    def __init__(self, span: Any = None) -> None:
        self.span = span

    def answered(self, status: int, error: BaseException | None = None) -> None:
        if self.span is None:
            return
        self.span.set_attribute("cogmem.status", status)
        if status >= 500:
            self.span.set_status(Status(StatusCode.ERROR, type(error).__name__ if error else str(status)))


@contextlib.contextmanager
def operation_span(op: str) -> Iterator[OperationSpan]:
    """A span around one operation (a no-op without opentelemetry)."""
    if _trace is None:
        yield OperationSpan()
        return
    tracer = _trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(f"cogmem.{op}", attributes={"cogmem.operation": op},
                                      record_exception=False, set_status_on_exception=False) as span:
        yield OperationSpan(span if span.is_recording() else None)
