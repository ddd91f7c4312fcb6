"""Secrets: no credential or API key appears in logs, exceptions (message, repr, the whole
chained traceback) or the repr of config objects, stores and providers.

Credentials come the ways users give them: environment variables (NEO4J_PASSWORD,
FALKORDB_PASSWORD, QDRANT_API_KEY, OPENAI_API_KEY, COHERE_API_KEY), constructor
arguments, and passwords inside URLs. Failures are real: a FalkorDB that requires a
password (started here), servers that are not there, an HTTP server that echoes the
Authorization header back in its error body.
"""

from __future__ import annotations

import json
import logging
import subprocess
import time
import traceback
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest
import redis

import cogmem_graph as cg
from cogmem_graph.config import CogmemConfig
from cogmem_graph.config.graph import GraphConfig
from cogmem_graph.config.vectors import VectorConfig
from cogmem_graph.errors import GraphQueryError, GraphStoreUnavailable, VectorStoreUnavailable
from cogmem_graph.graph.falkordb.launcher import EmbeddedFalkorDB, find_binaries
from cogmem_graph.providers import (
    CohereReranker,
    OpenAIChat,
    OpenAIEmbedder,
    ProviderError,
    RetryConfig,
)

from .conftest import closed_port

NEO4J_PW = "neo4j-pw-Zq81xR"
FALKOR_PW = "falkor-pw-Jk22mW"
QDRANT_KEY = "qdrant-key-Pp93vL"
OPENAI_KEY = "sk-test-openai-Ww47nB0123456789"
COHERE_KEY = "cohere-key-Hh56tD"
URL_PW = "url-pw-Rr11aQ"
ALL = (NEO4J_PW, FALKOR_PW, QDRANT_KEY, OPENAI_KEY, COHERE_KEY, URL_PW)
FAST = RetryConfig(attempts=2, initial_wait_s=0.0, max_wait_s=0.0, timeout_s=5.0)


def full_text(exc: BaseException) -> str:
    """Everything an exception shows: message, repr, and the whole chained traceback."""
    return f"{exc!s}\n{exc!r}\n" + "".join(traceback.format_exception(exc))


def assert_clean(*texts: str) -> None:
    for text in texts:
        for secret in ALL:
            assert secret not in text, f"secret {secret[:8]}… leaked in: {text[:300]!r}"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", NEO4J_PW)
    monkeypatch.setenv("FALKORDB_PASSWORD", FALKOR_PW)
    monkeypatch.setenv("QDRANT_API_KEY", QDRANT_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("COHERE_API_KEY", COHERE_KEY)


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)  # every logger, every level: drivers and HTTP clients included
    return caplog


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)


# ---------------------------------------------------------------- config objects


def test_config_reprs_hide_secrets_from_the_environment(secret_env) -> None:
    config = CogmemConfig()
    assert config.graph.neo4j_password.get_secret_value() == NEO4J_PW, "the secret is there, just not shown"
    assert config.vectors.api_key.get_secret_value() == QDRANT_KEY
    assert_clean(repr(config), str(config), config.model_dump_json(), json.dumps(config.model_dump(mode="json")),
                 repr(config.graph), repr(config.vectors), str(config.model_dump()))


def test_config_reprs_hide_passwords_written_into_urls() -> None:
    graph = GraphConfig(uri=f"falkor://:{URL_PW}@db.internal:6379")
    vectors = VectorConfig(url=f"https://admin:{URL_PW}@qdrant.internal:6333")
    config = CogmemConfig(graph=graph, vectors=vectors)
    assert_clean(repr(graph), repr(vectors), repr(config), str(config))


# ---------------------------------------------------------------- graph


class PasswordFalkorDB:
    """A FalkorDB that requires a password, run by the test with the launcher's flags."""

    def __init__(self, data_dir: Path) -> None:
        self.port = closed_port()
        data_dir.mkdir(parents=True)
        spec = EmbeddedFalkorDB(data_dir, port=self.port)
        command = spec._command(*find_binaries()) + ["--requirepass", FALKOR_PW]
        self.proc = subprocess.Popen(command, cwd=data_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=self.port, password=FALKOR_PW, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.execute_command("GRAPH.LIST")
                break
            except (redis.ConnectionError, redis.BusyLoadingError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)


@pytest.fixture
def password_falkor(tmp_path: Path):
    server = PasswordFalkorDB(tmp_path / "pw-graph")
    yield server
    server.stop()


@pytest.mark.parametrize("given_as", ["env", "url"])
def test_falkordb_password_never_shown(tmp_path, monkeypatch, all_logs, password_falkor, given_as: str) -> None:
    host = f"127.0.0.1:{password_falkor.port}"
    if given_as == "env":
        monkeypatch.setenv("FALKORDB_PASSWORD", FALKOR_PW)
        url = f"falkor://{host}"
    else:
        monkeypatch.delenv("FALKORDB_PASSWORD", raising=False)
        url = f"falkor://:{FALKOR_PW}@{host}"
    config = CogmemConfig()
    config.graph.retry_attempts = 2
    config.graph.retry_max_wait_s = 0.01
    texts: list[str] = []
    with cg.open(home=tmp_path / "home", graph=url, vectors=":memory:", embedder="hash", config=config) as store:
        agent = store.agent("helper", user_id="u1")
        agent.encode("Authenticated write")
        assert agent.retrieve("authenticated write", top_k=1).traces
        texts += [repr(store), repr(store.graph), store.graph.url, repr(store.config), str(store.config), repr(agent)]
        with pytest.raises(GraphQueryError) as bad_query:
            store.graph._run_text("THIS IS NOT CYPHER", {}, write=True, name="test_bad")
        texts.append(full_text(bad_query.value))
        with pytest.raises(GraphStoreUnavailable) as refused:  # a wrong password for the same server
            cg.open(home=tmp_path / "home2", graph=f"falkor://:wrong-{FALKOR_PW}@{host}", vectors=":memory:",
                    embedder="hash", config=config)
        texts.append(full_text(refused.value))
        password_falkor.stop()
        with pytest.raises(GraphStoreUnavailable) as down:
            agent.encode("Written after the server went away")
        texts.append(full_text(down.value))
        assert host in str(down.value)
    assert_clean(*texts, logged(all_logs))


def test_neo4j_password_in_the_url_is_not_echoed_back(tmp_path, all_logs) -> None:
    port = closed_port()
    for scheme in ("bolt", "neo4j"):
        with pytest.raises(ValueError) as info:
            cg.open(home=tmp_path / scheme, graph=f"{scheme}://neo4j:{URL_PW}@127.0.0.1:{port}",
                    vectors=":memory:", embedder="hash")
        assert "graph" in str(info.value)
        assert_clean(full_text(info.value))
    assert_clean(logged(all_logs))


# ---------------------------------------------------------------- vectors


def test_qdrant_api_key_never_shown(tmp_path, secret_env, all_logs) -> None:
    config = CogmemConfig()
    config.vectors.retry_attempts = 1
    url = f"http://127.0.0.1:{closed_port()}"
    with warnings.catch_warnings(), pytest.raises(VectorStoreUnavailable) as info:
        warnings.simplefilter("ignore")  # qdrant-client warns about a key over plain http
        cg.open(home=tmp_path / "home", vectors=url, embedder="hash", config=config)
    assert url in str(info.value)
    assert_clean(full_text(info.value), logged(all_logs))


def test_qdrant_password_in_the_url_is_not_echoed_back(tmp_path, all_logs, monkeypatch) -> None:
    monkeypatch.delenv("QDRANT_API_KEY", raising=False)
    config = CogmemConfig()
    config.vectors.retry_attempts = 1
    port = closed_port()
    with pytest.raises(VectorStoreUnavailable) as info:
        cg.open(home=tmp_path / "home", vectors=f"http://admin:{URL_PW}@127.0.0.1:{port}", embedder="hash",
                config=config)
    assert f"127.0.0.1:{port}" in str(info.value)
    assert_clean(full_text(info.value), str(info.value.url), logged(all_logs))


# ---------------------------------------------------------------- providers


def test_provider_reprs_hide_their_keys(secret_env) -> None:
    providers = [
        OpenAIEmbedder(api_key=OPENAI_KEY, base_url="http://127.0.0.1:9/v1"),
        OpenAIEmbedder(base_url=f"http://user:{URL_PW}@127.0.0.1:9/v1"),  # key from the environment
        OpenAIChat(api_key=OPENAI_KEY, base_url="http://127.0.0.1:9/v1"),
        CohereReranker(api_key=COHERE_KEY, base_url="http://127.0.0.1:9"),
        CohereReranker(),
    ]
    assert_clean(*(repr(p) for p in providers), *(str(vars(p).get("_url", "")) for p in providers))


def test_openai_embedder_against_a_closed_port_through_the_store(tmp_path, all_logs) -> None:
    embedder = OpenAIEmbedder(api_key=OPENAI_KEY, base_url=f"http://127.0.0.1:{closed_port()}/v1", retry=FAST)
    with cg.open(home=tmp_path / "home", vectors=":memory:", embedder=embedder) as store:
        agent = store.agent("helper", user_id="u1")
        with pytest.raises(ProviderError) as info:
            agent.encode("Needs an embedding")
        assert "127.0.0.1" in str(info.value)
        assert_clean(full_text(info.value), repr(store), repr(store.embedder), logged(all_logs))
        assert store.stats().total_traces == 0, "nothing is written when the embedder fails"


class EchoAuthorization(BaseHTTPRequestHandler):
    """A hostile or buggy API server: repeats the caller's credentials in its error body."""

    status = 401

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = json.dumps({"error": {"message": f"bad key: {self.headers.get('Authorization')}",
                                     "type": "invalid_request_error", "code": None}}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("status", [401, 500])
def test_a_server_echoing_the_key_does_not_make_us_echo_it(tmp_path, all_logs, status: int) -> None:
    handler = type("Echo", (EchoAuthorization,), {"status": status})
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        Thread(target=server.serve_forever, daemon=True).start()
        try:
            embedder = OpenAIEmbedder(api_key=OPENAI_KEY, base_url=f"http://127.0.0.1:{server.server_port}/v1",
                                      retry=FAST)
            with cg.open(home=tmp_path / "home", vectors=":memory:", embedder=embedder) as store, \
                    pytest.raises(ProviderError) as info:
                store.agent("helper", user_id="u1").encode("Needs an embedding")
        finally:
            server.shutdown()
    assert info.value.status_code == status
    assert_clean(full_text(info.value), logged(all_logs))
