"""Providers against a local HTTP server that speaks the OpenAI and Cohere APIs.

The real `openai` and `cohere` client libraries are used, pointed at the fake
server by base URL, so request shapes, error classes and retries are the ones
production sees. Retry waits are configured to milliseconds.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from cogmem_graph.providers import (
    CachedEmbedder,
    CohereReranker,
    Embedder,
    HashEmbedder,
    OpenAIChat,
    OpenAIEmbedder,
    ProviderAuthError,
    ProviderRequestError,
    ProviderResponseError,
    ProviderUnavailable,
    RetryConfig,
    best_local_embedder,
    make_embedder,
    parse_json_object,
)
from cogmem_graph.providers import embedders as embedders_module

KEY = "sk-test-SECRET-0123456789abcdef"
COHERE_KEY = "co-test-SECRET-fedcba9876543210"
FAST = RetryConfig(attempts=4, initial_wait_s=0.001, max_wait_s=0.01, timeout_s=5.0)


# ---------------------------------------------------------------- fake API server


@dataclass
class Scripted:
    """One canned answer: an HTTP status with a JSON body, or a delay before the normal answer."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeAPI:
    """Speaks /v1/embeddings, /v1/chat/completions (OpenAI) and /v2/rerank (Cohere)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.script: list[Scripted] = []
        self.chat_content: str = "hello from the fake model"
        self.lock = threading.Lock()
        self._embedders: dict[int, HashEmbedder] = {}
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                with fake.lock:
                    fake.requests.append(
                        Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    scripted = fake.script.pop(0) if fake.script else None
                if scripted is not None and scripted.delay_s:
                    time.sleep(scripted.delay_s)
                if scripted is not None and scripted.status != 200:
                    self._send(scripted.status, scripted.body, scripted.headers)
                    return
                try:
                    status, payload = fake.route(self.path, body)
                except Exception as exc:  # a bug in the fake must show up as a test failure
                    status, payload = 599, {"error": {"message": repr(exc)}}
                self._send(status, payload, {})

            def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def cohere_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def hash_embedder(self, dim: int) -> HashEmbedder:
        if dim not in self._embedders:
            self._embedders[dim] = HashEmbedder(dim)
        return self._embedders[dim]

    def route(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/v1/embeddings":
            return 200, self._embeddings(body)
        if path == "/v1/chat/completions":
            return 200, {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.chat_content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        if path == "/v2/rerank":
            return 200, self._rerank(body)
        return 404, {"error": {"message": f"no route {path}"}}

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"]
        dim = body.get("dimensions") or (48 if body["model"] == "custom-model" else 1536)
        vectors = self.hash_embedder(dim).embed(texts)
        data = []
        for index, vector in enumerate(vectors):
            if body.get("encoding_format") == "base64":
                encoded: Any = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        data.reverse()  # the client must order by index, not by position
        return {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
        }

    @staticmethod
    def _rerank(body: dict[str, Any]) -> dict[str, Any]:
        query = set(body["query"].lower().split())
        scored = [
            (i, len(query & set(doc.lower().split())) / (len(query) or 1))
            for i, doc in enumerate(body["documents"])
        ]
        scored.sort(key=lambda p: p[1], reverse=True)
        top = scored[: body.get("top_n") or len(scored)]
        return {
            "id": "rerank-1",
            "results": [{"index": i, "relevance_score": s} for i, s in top],
            "meta": {"api_version": {"version": "2"}, "billed_units": {"search_units": 1}},
        }


@pytest.fixture
def api() -> Iterator[FakeAPI]:
    fake = FakeAPI()
    fake.thread.start()
    try:
        yield fake
    finally:
        fake.server.shutdown()
        fake.server.server_close()


def openai_error(status: int, message: str, code: str | None = None) -> Scripted:
    return Scripted(status, {"error": {"message": message, "type": "error", "code": code, "param": None}})


def assert_no_key(exc: BaseException, *keys: str) -> None:
    rendered = [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    for key in keys or (KEY,):
        for text in rendered:
            assert key not in text


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------- OpenAI embeddings


def test_openai_embeddings_batches_and_keeps_order(api: FakeAPI) -> None:
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, batch_size=256, retry=FAST)
    texts = [f"note {i} about topic {i % 7}" for i in range(600)]
    vectors = emb.embed(texts)

    assert [len(r.body["input"]) for r in api.requests] == [256, 256, 88]
    assert all(r.path == "/v1/embeddings" for r in api.requests)
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in api.requests)
    assert [t for r in api.requests for t in r.body["input"]] == texts
    assert "dimensions" not in api.requests[0].body
    assert emb.dim == 1536 and len(vectors) == 600
    expected = api.hash_embedder(1536).embed(texts)
    assert np.allclose(np.asarray(vectors), np.asarray(expected), atol=1e-6)
    assert emb.embed_query(texts[5]) == pytest.approx(expected[5], abs=1e-6)
    assert emb.embed([]) == []


def test_openai_embeddings_dimensions_parameter(api: FakeAPI) -> None:
    emb = OpenAIEmbedder("text-embedding-3-large", dimensions=64, api_key=KEY, base_url=api.openai_url, retry=FAST)
    vectors = emb.embed(["alpha", "beta", ""])
    assert api.requests[0].body["dimensions"] == 64
    assert api.requests[0].body["model"] == "text-embedding-3-large"
    assert api.requests[0].body["input"][2] == " "  # the API rejects empty strings
    assert emb.dim == 64 and all(len(v) == 64 for v in vectors)
    assert all(math.isclose(cosine(v, v), 1.0, rel_tol=1e-6) for v in vectors)


def test_openai_embeddings_unknown_model_probes_dimension(api: FakeAPI) -> None:
    emb = OpenAIEmbedder("custom-model", api_key=KEY, base_url=api.openai_url, retry=FAST)
    assert emb.dim == 48
    assert len(api.requests) == 1


def test_openai_embeddings_split_by_characters(api: FakeAPI) -> None:
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, max_batch_chars=100, retry=FAST)
    emb.embed(["x" * 60, "y" * 60, "z" * 30])
    assert [len(r.body["input"]) for r in api.requests] == [1, 2]


def test_429_then_success_is_retried(api: FakeAPI, caplog: pytest.LogCaptureFixture) -> None:
    api.script = [
        Scripted(429, {"error": {"message": f"Rate limit reached for key {KEY}", "code": "rate_limit_exceeded"}},
                 {"retry-after-ms": "1"}),
    ]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    with caplog.at_level(logging.DEBUG):
        vectors = emb.embed(["hello world"])
    assert len(vectors) == 1 and len(api.requests) == 2
    assert "retry 1/3" in caplog.text
    assert KEY not in caplog.text


def test_retry_after_is_capped_by_max_wait(api: FakeAPI) -> None:
    # A 30 s Retry-After must not stall the caller past max_wait_s (0.01 s here).
    api.script = [Scripted(429, {"error": {"message": "slow down"}}, {"retry-after": "30"})]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    thread = threading.Thread(target=emb.embed, args=(["x"],), daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert len(api.requests) == 2


def test_500_is_retried(api: FakeAPI) -> None:
    api.script = [openai_error(500, "boom"), openai_error(503, "overloaded")]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    assert len(emb.embed(["a", "b"])) == 2
    assert len(api.requests) == 3


def test_persistent_5xx_gives_up_after_bounded_attempts(api: FakeAPI) -> None:
    api.script = [openai_error(502, f"bad gateway {KEY}") for _ in range(10)]
    retry = RetryConfig(attempts=3, initial_wait_s=0.001, max_wait_s=0.01)
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=retry)
    with pytest.raises(ProviderUnavailable) as info:
        emb.embed(["a"])
    assert len(api.requests) == 3
    assert info.value.url == api.openai_url and api.openai_url in str(info.value)
    assert info.value.status_code == 502 and "3 attempts" in str(info.value)
    assert_no_key(info.value)


def test_timeout_is_retried(api: FakeAPI) -> None:
    api.script = [Scripted(200, delay_s=1.0)]
    retry = RetryConfig(attempts=3, initial_wait_s=0.001, max_wait_s=0.01, timeout_s=0.2)
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=retry)
    assert len(emb.embed(["slow"])) == 1
    assert len(api.requests) == 2


def test_connection_refused_names_the_url() -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as probe:
        port = probe.server_address[1]  # closed when the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    retry = RetryConfig(attempts=2, initial_wait_s=0.001, max_wait_s=0.01, timeout_s=2.0)
    emb = OpenAIEmbedder(api_key=KEY, base_url=url, retry=retry)
    with pytest.raises(ProviderUnavailable) as info:
        emb.embed(["a"])
    assert info.value.url == url and url in str(info.value)
    assert_no_key(info.value)


def test_401_raises_at_once_without_leaking_the_key(api: FakeAPI) -> None:
    # The fake server echoes the key back, as a careless proxy might.
    api.script = [openai_error(401, f"Incorrect API key provided: {KEY}", "invalid_api_key")]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    with pytest.raises(ProviderAuthError) as info:
        emb.embed(["a"])
    assert len(api.requests) == 1
    assert info.value.status_code == 401
    assert "OPENAI_API_KEY" in str(info.value) and "401" in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert_no_key(info.value)
    assert KEY not in repr(emb)


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_raise_at_once(api: FakeAPI, status: int) -> None:
    api.script = [openai_error(status, "model not found" if status == 404 else "bad input")]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    with pytest.raises(ProviderRequestError) as info:
        emb.embed(["a"])
    assert len(api.requests) == 1
    assert info.value.status_code == status
    if status == 404:
        assert "model name" in str(info.value)


def test_exhausted_quota_429_is_not_retried(api: FakeAPI) -> None:
    api.script = [openai_error(429, "You exceeded your current quota", "insufficient_quota")]
    emb = OpenAIEmbedder(api_key=KEY, base_url=api.openai_url, retry=FAST)
    with pytest.raises(ProviderRequestError, match="quota"):
        emb.embed(["a"])
    assert len(api.requests) == 1


def test_openai_key_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="api_key"):
        OpenAIEmbedder()
    with pytest.raises(ValueError, match="api_key"):
        OpenAIChat()


def test_openai_env_key_and_base_url(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", api.openai_url)
    emb = OpenAIEmbedder(retry=FAST)
    emb.embed(["from the environment"])
    assert api.requests[0].headers["authorization"] == f"Bearer {KEY}"


# ---------------------------------------------------------------- Cohere rerank


def test_cohere_rerank_parses_results(api: FakeAPI) -> None:
    rr = CohereReranker(api_key=COHERE_KEY, base_url=api.cohere_url, retry=FAST)
    docs = ["the cat sat", "deploy with docker compose", "docker images are layers", "nothing here"]
    ranked = rr.rerank("deploy docker compose", docs, top_n=2)

    assert ranked == [(1, pytest.approx(1.0)), (2, pytest.approx(1 / 3))]
    req = api.requests[0]
    assert req.path == "/v2/rerank"
    assert req.body["model"] == "rerank-v3.5" and req.body["top_n"] == 2
    assert req.body["documents"] == docs and req.body["query"] == "deploy docker compose"
    assert req.headers["authorization"] == f"Bearer {COHERE_KEY}"
    assert rr.rerank("anything", []) == []
    assert len(rr.rerank("docker", docs)) == len(docs)
    with pytest.raises(ValueError, match="top_n"):
        rr.rerank("docker", docs, top_n=0)


def test_cohere_key_from_either_env_var(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with pytest.raises(ValueError, match="api_key"):
        CohereReranker(base_url=api.cohere_url)
    monkeypatch.setenv("COHERE_API_KEY", COHERE_KEY)
    CohereReranker(base_url=api.cohere_url, retry=FAST).rerank("q", ["q"])
    assert api.requests[-1].headers["authorization"] == f"Bearer {COHERE_KEY}"


def test_cohere_429_and_5xx_are_retried(api: FakeAPI) -> None:
    api.script = [Scripted(429, {"message": "too many requests"}), Scripted(500, {"message": "oops"})]
    rr = CohereReranker(api_key=COHERE_KEY, base_url=api.cohere_url, retry=FAST)
    assert rr.rerank("a", ["a", "b"], top_n=1) == [(0, pytest.approx(1.0))]
    assert len(api.requests) == 3


def test_cohere_401_raises_at_once_without_the_key(api: FakeAPI) -> None:
    api.script = [Scripted(401, {"message": f"invalid api token {COHERE_KEY}"})]
    rr = CohereReranker(api_key=COHERE_KEY, base_url=api.cohere_url, retry=FAST)
    with pytest.raises(ProviderAuthError) as info:
        rr.rerank("a", ["a"])
    assert len(api.requests) == 1
    assert "CO_API_KEY" in str(info.value)
    assert_no_key(info.value, COHERE_KEY)


# ---------------------------------------------------------------- OpenAI chat


def test_chat_complete(api: FakeAPI) -> None:
    chat = OpenAIChat(api_key=KEY, base_url=api.openai_url, retry=FAST)
    assert chat.complete("be brief", "say hi", max_tokens=20, temperature=0.3) == "hello from the fake model"
    body = api.requests[0].body
    assert api.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert body["max_tokens"] == 20 and body["temperature"] == 0.3
    assert "response_format" not in body


def test_chat_complete_json(api: FakeAPI) -> None:
    chat = OpenAIChat(api_key=KEY, base_url=api.openai_url, retry=FAST)
    api.chat_content = '{"facts": ["a", "b"], "importance": 0.7}'
    assert chat.complete_json("extract facts", "text") == {"facts": ["a", "b"], "importance": 0.7}
    body = api.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert "json" in body["messages"][0]["content"].lower()  # JSON mode needs the word

    api.chat_content = '```json\n{"ok": true}\n```'
    assert chat.complete_json("Answer in JSON", "x") == {"ok": True}

    api.chat_content = "I cannot do that."
    with pytest.raises(ProviderResponseError, match="JSON object"):
        chat.complete_json("Answer in JSON", "x")


def test_chat_retries_and_then_raises(api: FakeAPI) -> None:
    api.script = [openai_error(500, "boom")]
    chat = OpenAIChat(api_key=KEY, base_url=api.openai_url, retry=FAST)
    assert chat.complete("s", "u") == "hello from the fake model"
    assert len(api.requests) == 2

    api.chat_content = ""
    with pytest.raises(ProviderResponseError, match="no text"):
        chat.complete("s", "u")


def test_chat_rejects_bad_arguments(api: FakeAPI) -> None:
    chat = OpenAIChat(api_key=KEY, base_url=api.openai_url, retry=FAST)
    with pytest.raises(ValueError, match="max_tokens"):
        chat.complete("s", "u", max_tokens=0)
    with pytest.raises(ValueError, match="temperature"):
        chat.complete("s", "u", temperature=3.0)
    assert api.requests == []


def test_parse_json_object_tolerates_prose() -> None:
    assert parse_json_object('Sure! {"a": 1} Hope that helps.') == {"a": 1}
    with pytest.raises(ProviderResponseError):
        parse_json_object("[1, 2]")


# ---------------------------------------------------------------- hash embedder


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    a, b = HashEmbedder(), HashEmbedder()
    texts = ["I prefer deploying with Docker Compose", "", "!!!", "Ünïcödé wörds"]
    va, vb = a.embed(texts), b.embed(texts)
    assert va == vb
    assert a.dim == 384 and a.name == "hash-384"
    for v in va:
        assert len(v) == 384
        assert math.isclose(math.sqrt(cosine(v, v)), 1.0, rel_tol=1e-9)
    assert a.embed_query(texts[0]) == va[0]
    assert isinstance(a, Embedder)


def test_hash_embedder_is_stable_across_processes() -> None:
    # Python's str hash is salted per process; the embedder must not depend on it.
    code = "from cogmem_graph.providers import HashEmbedder; print(HashEmbedder(64).embed_query('stable vectors')[:5])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(HashEmbedder(64).embed_query("stable vectors")[:5])


def test_hash_embedder_similar_texts_are_closer() -> None:
    emb = HashEmbedder()
    base, near, far = emb.embed(
        [
            "I prefer deploying my services with Docker Compose",
            "Deploy the services using docker compose",
            "My grandmother bakes apple pie on Sundays",
        ]
    )
    assert cosine(base, near) > 0.4
    assert cosine(base, near) > cosine(base, far) + 0.3


def test_hash_embedder_validates_dimension() -> None:
    with pytest.raises(ValueError, match="embedder"):
        HashEmbedder(4)
    with pytest.raises(TypeError):
        HashEmbedder().embed("not a list")  # type: ignore[arg-type]


# ---------------------------------------------------------------- cache


class CountingEmbedder:
    """Records every batch it is asked for."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(32)
        self.name = "counting"
        self.dim = 32
        self.batches: list[list[str]] = []
        self.queries: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self.inner.embed_query(text)


def test_cached_embedder_only_embeds_misses_in_one_batch() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_size=100)
    first = cached.embed(["a", "b", "a"])
    assert inner.batches == [["a", "b"]]
    second = cached.embed(["b", "c", "a", "d"])
    assert inner.batches == [["a", "b"], ["c", "d"]]
    assert first[0] == first[2] == second[2] and second[0] == first[1]
    assert second == inner.inner.embed(["b", "c", "a", "d"])
    cached.embed(["a", "b", "c", "d"])
    assert len(inner.batches) == 2
    assert cached.hits == 7 and cached.misses == 4
    assert cached.name == "counting" and cached.dim == 32

    cached.embed_query("a")
    cached.embed_query("a")
    assert inner.queries == ["a"]

    # Callers mutating a returned vector must not corrupt the cache.
    vec = cached.embed(["a"])[0]
    vec[0] = 99.0
    assert cached.embed(["a"])[0][0] != 99.0


class BatchingQueryEmbedder(CountingEmbedder):
    """Embeds several queries in one call, as the built-in embedders do."""

    def __init__(self) -> None:
        super().__init__()
        self.query_batches: list[list[str]] = []

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        self.query_batches.append(list(texts))
        return self.inner.embed(texts)


def test_cached_queries_not_yet_embedded_go_out_in_one_call() -> None:
    inner = BatchingQueryEmbedder()
    cached = CachedEmbedder(inner, max_size=100)
    cached.embed_query("where does Ana work")
    both = cached.embed_queries(["where does Ana work", "where does work"])
    assert inner.query_batches == [["where does Ana work"], ["where does work"]]
    assert both == inner.inner.embed(["where does Ana work", "where does work"])
    assert cached.embed_query("where does work") == both[1]  # served from the cache now
    assert len(inner.query_batches) == 2 and not inner.queries
    with pytest.raises(TypeError, match="list of texts"):
        cached.embed_queries("one question")


def test_an_embedder_without_query_batches_gets_one_query_at_a_time() -> None:
    """A user's embedder may embed queries unlike documents: without `embed_queries`, each
    query goes through its `embed_query`."""
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_size=100)
    cached.embed_queries(["first question", "second question"])
    assert inner.queries == ["first question", "second question"] and not inner.batches


@pytest.mark.parametrize("spec", ["hash", "hash:64"])
def test_built_in_embedders_embed_queries_as_documents_in_one_call(spec: str) -> None:
    embedder = make_embedder(spec)
    texts = ["what is my dog called", "what is called"]
    assert embedder.embed_queries(texts) == embedder.embed(texts) == [embedder.embed_query(t) for t in texts]


def test_cached_embedder_evicts_least_recently_used() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_size=2)
    cached.embed(["a", "b"])
    cached.embed(["a"])  # a is now most recent
    cached.embed(["c"])  # evicts b
    assert len(cached) == 2
    cached.embed(["a", "b"])
    assert inner.batches[-1] == ["b"]
    with pytest.raises(ValueError):
        CachedEmbedder(inner, max_size=0)


def test_cached_embedder_is_thread_safe() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_size=50)
    texts = [f"text {i}" for i in range(200)]
    expected = {t: v for t, v in zip(texts, HashEmbedder(32).embed(texts), strict=True)}
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for i in range(300):
                chunk = [texts[(offset + i + j) % 200] for j in range(5)]
                for t, v in zip(chunk, cached.embed(chunk), strict=True):
                    assert v == expected[t]
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k * 17,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(cached) <= 50


# ---------------------------------------------------------------- make_embedder


def test_make_embedder_parses_specs(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_embedder("hash"), HashEmbedder) and make_embedder("hash").dim == 384
    assert make_embedder("hash:256").dim == 256
    assert make_embedder(" HASH:128 ").dim == 128

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", api.openai_url)
    small = make_embedder("openai:text-embedding-3-small")
    assert isinstance(small, OpenAIEmbedder)
    assert small.model == "text-embedding-3-small" and small.dim == 1536
    reduced = make_embedder("openai:text-embedding-3-large:256", retry=FAST)
    assert isinstance(reduced, OpenAIEmbedder) and reduced.dim == 256
    assert len(reduced.embed_query("x")) == 256
    assert make_embedder("openai").model == "text-embedding-3-small"  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["", "bogus", "hash:abc", "hash:2", "openai:text-embedding-3-small:big", "sbert:x"])
def test_make_embedder_rejects_bad_specs(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(ValueError, match="embedder"):
        make_embedder(spec)


def test_best_local_embedder_falls_back_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ImportError("the local embedder needs the 'local' extra")

    monkeypatch.setattr(embedders_module, "minilm_model_path", missing)
    with pytest.warns(RuntimeWarning, match="falling back to the hash embedder"):
        emb = best_local_embedder()
    assert isinstance(emb, HashEmbedder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert make_embedder("hash").dim == 384


def test_sentence_vectors_are_given_only_by_embedders_that_make_them_in_one_pass() -> None:
    from cogmem_graph.providers.embedders import embed_with_sentences

    text = "The weather was awful all week. I'm off to go swimming with the kids."
    spans = [[(0, 31), (32, len(text))]]
    hashed = HashEmbedder(32)  # bags of words: a sentence's vector would add nothing a word search lacks
    vectors, sentences = embed_with_sentences(hashed, [text], spans)
    assert vectors == hashed.embed([text]) and sentences is None
    counting = CountingEmbedder()  # one vector per memory, no second call
    vectors, sentences = embed_with_sentences(counting, [text], spans)
    assert sentences is None and counting.batches == [[text]]

    class Pooling(HashEmbedder):  # an embedder that gives them, seen through the store's cache
        gives_sentences = True

        def embed_with_sentences(self, texts, spans):
            return self.embed(texts), [[self.embed([t[a:b]])[0] for a, b in s]
                                       for t, s in zip(texts, spans, strict=True)]

    cached = CachedEmbedder(Pooling(32), max_size=10)
    vectors, sentences = embed_with_sentences(cached, [text], spans)
    assert cached.embed([text]) == vectors and len(sentences[0]) == 2
    assert not CachedEmbedder(HashEmbedder(32)).gives_sentences
