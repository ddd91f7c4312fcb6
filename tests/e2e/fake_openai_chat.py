"""A local HTTP server speaking OpenAI's chat completions API, for the LLM-backed steps.

The real `openai` client (through `OpenAIChat`) talks to it by base URL, so the
request shapes are the ones production sends. Each answer comes from a
`responder(system, user)` the test sets; it returns the assistant message text.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cogmem_graph.providers import OpenAIChat, RetryConfig

KEY = "sk-test-fake-0123456789"
FAST = RetryConfig(attempts=2, initial_wait_s=0.001, max_wait_s=0.01, timeout_s=10.0)

Responder = Callable[[str, str], str]


class FakeOpenAIChat:
    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda system, user: "{}")
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                fake.requests.append(body)
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                messages = {m["role"]: m["content"] for m in body["messages"]}
                try:
                    content = fake.responder(messages.get("system", ""), messages.get("user", ""))
                except Exception as exc:  # a bug in a responder shows up as a server error
                    self._send(500, {"error": {"message": repr(exc)}})
                    return
                self._send(200, {
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def chat(self) -> OpenAIChat:
        """The library's OpenAI chat provider pointed at this server."""
        return OpenAIChat("gpt-4o-mini", api_key=KEY, base_url=self.url, retry=FAST)

    def __enter__(self) -> FakeOpenAIChat:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
