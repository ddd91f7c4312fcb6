"""`cogmem ... serve ...` with an OpenTelemetry tracer provider that writes each finished span
as one JSON line to a file, as a deployment's exporter would send it on.

    python tests/e2e/_serve_with_spans.py SPANS_FILE --home H ... serve --port P
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from cogmem_graph.cli import main


class JsonLines(SpanExporter):
    def __init__(self, path: Path) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.path.open("a") as out:
            for span in spans:
                out.write(json.dumps({"name": span.name, "attributes": dict(span.attributes or {}),
                                      "status": span.status.status_code.name}) + "\n")
        return SpanExportResult.SUCCESS


if __name__ == "__main__":
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLines(Path(sys.argv.pop(1)))))
    trace.set_tracer_provider(provider)
    main()
