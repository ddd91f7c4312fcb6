"""URL credentials: every URL the library prints (error messages, `.url`, reprs, the CLI's
`error:` line and status line) is redacted, whether the credential is the URL's
`user:password@` or a query parameter (`?api_key=…`), and no exception reachable from
what the caller gets (`__cause__`, `__context__`, suppressed or not) still quotes it.

Failures are real: servers that are not there (closed ports), URLs no backend accepts,
the `cogmem` CLI run as a child process. `rediss://` is checked end to end against a
password-protected FalkorDB behind a TLS endpoint run by the test.
"""

from __future__ import annotations

import logging
import os
import select
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import traceback
import warnings
from pathlib import Path

import pytest
import redis

import cogmem_graph as cg
from cogmem_graph.config import CogmemConfig
from cogmem_graph.errors import GraphStoreUnavailable, VectorStoreUnavailable

from .conftest import REPO, closed_port
from .test_secrets import FALKOR_PW, PasswordFalkorDB

URL_PW = "url-pw-Tt52kE"
QUERY_KEY = "query-key-Yy80cS"
SECRETS = (URL_PW, QUERY_KEY, FALKOR_PW)


def every_text(exc: BaseException) -> str:
    """All an exception can show anyone: message, repr, `.url`, its printed traceback, and
    the same for every exception reachable through __cause__ and __context__, suppressed or not."""
    texts: list[str] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        texts += [str(current), repr(current), repr(current.args), str(getattr(current, "url", "")),
                  "".join(traceback.format_exception(current))]
        todo += [current.__cause__, current.__context__, *getattr(current, "exceptions", ())]
    return "\n".join(texts)


def assert_clean(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"secret {secret[:8]}… leaked in: {text[:400]!r}"


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)


def fast_config() -> CogmemConfig:
    config = CogmemConfig()
    config.graph.retry_attempts = 1
    config.graph.retry_max_wait_s = 0.0
    config.vectors.retry_attempts = 1
    return config


def run_cli(home: Path, *args: str, terminal: bool = False) -> subprocess.CompletedProcess[str]:
    """The real `cogmem` command in a child process. `terminal` makes rich draw what it
    draws on a terminal (the status line), which a pipe would otherwise not show."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COGMEM_", "QDRANT_", "NEO4J_", "FALKORDB_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env["COLUMNS"] = "250"  # URLs on one line, as the assertions read them
    env.pop("FORCE_COLOR", None)
    env.pop("NO_COLOR", None)
    if terminal:
        env["FORCE_COLOR"] = "1"
    return subprocess.run([sys.executable, "-m", "cogmem_graph.cli", "--home", str(home), "--embedder", "hash",
                           *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=180)


# ---------------------------------------------------------------- URLs no backend accepts

UNKNOWN = [
    f"memcached://:{URL_PW}@127.0.0.1:11211",
    f"mongodb://admin:{URL_PW}@db.internal:27017/?authSource=admin",
    f"http://db.internal:7474/?token={QUERY_KEY}",
    f"admin:{URL_PW}@db.internal:6379",
]


@pytest.mark.parametrize("url", UNKNOWN, ids=["userinfo", "userinfo+query", "query", "no-scheme"])
def test_an_unknown_graph_url_is_refused_redacted(tmp_path, all_logs, url: str) -> None:
    with pytest.raises(ValueError) as info:
        cg.open(home=tmp_path / "home", graph=url, vectors=":memory:", embedder="hash")
    assert "graph must be" in str(info.value)
    assert "db.internal" in str(info.value) or "127.0.0.1:11211" in str(info.value), "the host is still named"
    assert_clean(every_text(info.value), logged(all_logs))


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
def test_the_cli_refuses_an_unknown_graph_url_redacted(tmp_path, terminal: bool) -> None:
    result = run_cli(tmp_path / "home", "--graph", f"memcached://:{URL_PW}@127.0.0.1:11211", "stats",
                     terminal=terminal)
    assert result.returncode == 2, result.stderr
    assert "error:" in result.stderr and "memcached://***@127.0.0.1:11211" in result.stderr, result.stderr
    assert_clean(result.stdout, result.stderr)


# ---------------------------------------------------------------- FalkorDB: redis://, rediss://, falkors://


@pytest.mark.parametrize("scheme", ["redis", "rediss", "falkors"])
def test_an_unreachable_falkordb_is_named_redacted(tmp_path, all_logs, scheme: str) -> None:
    """rediss:// and falkors:// (TLS) are FalkorDB URLs like redis://: a server that is not
    there gives GraphStoreUnavailable naming the URL without its password."""
    port = closed_port()
    with pytest.raises(GraphStoreUnavailable) as info:
        cg.open(home=tmp_path / "home", graph=f"{scheme}://:{URL_PW}@127.0.0.1:{port}", vectors=":memory:",
                embedder="hash", config=fast_config())
    assert info.value.url == f"{scheme}://127.0.0.1:{port}"
    assert f"{scheme}://127.0.0.1:{port}" in str(info.value)
    assert_clean(every_text(info.value), logged(all_logs))


def test_the_cli_names_an_unreachable_rediss_server_redacted(tmp_path) -> None:
    port = closed_port()
    result = run_cli(tmp_path / "home", "--graph", f"rediss://:{URL_PW}@127.0.0.1:{port}", "stats", terminal=True)
    assert result.returncode == 1, result.stderr
    assert f"rediss://127.0.0.1:{port}" in result.stderr and "unreachable" in result.stderr, result.stderr
    assert_clean(result.stdout, result.stderr)


class TLSEndpoint:
    """A TLS port in front of a plain FalkorDB, as a managed Redis/FalkorDB offers it: it
    only speaks TLS, and counts the handshakes that succeeded."""

    def __init__(self, target_port: int, cert: Path, key: Path) -> None:
        self.target_port = target_port
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.handshakes = 0
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        try:
            tls = self.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        self.handshakes += 1
        plain = socket.create_connection(("127.0.0.1", self.target_port))
        self._open += [tls, plain]
        with tls, plain:
            while True:
                try:
                    readable = [tls] if tls.pending() else select.select([tls, plain], [], [], 1.0)[0]
                    for source, sink in ((tls, plain), (plain, tls)):
                        if source in readable:
                            data = source.recv(65536)
                            if not data:
                                return
                            sink.sendall(data)
                except (OSError, ValueError):
                    return

    def stop(self) -> None:
        self.listener.close()
        for sock in self._open:
            sock.close()


@pytest.fixture
def tls_falkor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A password-protected FalkorDB reachable only over TLS, its self-signed certificate
    trusted through SSL_CERT_FILE (how a private CA is trusted by OpenSSL)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server = PasswordFalkorDB(tmp_path / "tls-graph")
    endpoint = TLSEndpoint(server.port, cert, key)
    yield server, endpoint
    endpoint.stop()
    server.stop()


def test_rediss_connects_over_tls_with_the_password_from_the_url(tmp_path, all_logs, monkeypatch, tls_falkor) -> None:
    _server, endpoint = tls_falkor
    url = f"rediss://:{FALKOR_PW}@127.0.0.1:{endpoint.port}"
    with cg.open(home=tmp_path / "home", graph=url, vectors=":memory:", embedder="hash") as store:
        assert store.graph.url == f"rediss://127.0.0.1:{endpoint.port}"
        assert store.graph._db.connection.connection_pool.connection_class is redis.SSLConnection
        agent = store.agent("helper", user_id="u1")
        agent.encode("Written over TLS")
        assert [s.trace.content for s in agent.retrieve("written over tls", top_k=1).traces] == ["Written over TLS"]
        assert endpoint.handshakes >= 1
        texts = [repr(store), repr(store.graph), repr(store.config), str(store.config)]
    monkeypatch.delenv("SSL_CERT_FILE")  # the certificate is verified: untrusted, it is refused
    with pytest.raises(GraphStoreUnavailable) as untrusted:
        cg.open(home=tmp_path / "home2", graph=url, vectors=":memory:", embedder="hash", config=fast_config())
    assert f"rediss://127.0.0.1:{endpoint.port}" in str(untrusted.value)
    assert "CERTIFICATE_VERIFY_FAILED" in str(untrusted.value)
    assert_clean(*texts, every_text(untrusted.value), logged(all_logs))


# ---------------------------------------------------------------- Qdrant: a key in the query string

KEY_PARAMS = ["api_key", "API-Key", "token", "password"]


@pytest.mark.parametrize("name", KEY_PARAMS)
def test_a_qdrant_key_in_the_query_string_is_not_echoed_back(tmp_path, all_logs, monkeypatch, name: str) -> None:
    monkeypatch.delenv("QDRANT_API_KEY", raising=False)
    port = closed_port()
    with warnings.catch_warnings(), pytest.raises(VectorStoreUnavailable) as info:
        warnings.simplefilter("ignore")
        cg.open(home=tmp_path / "home", vectors=f"http://127.0.0.1:{port}/?{name}={QUERY_KEY}", embedder="hash",
                config=fast_config())
    assert info.value.url == f"http://127.0.0.1:{port}/?{name}=***"
    assert f"127.0.0.1:{port}" in str(info.value)
    assert_clean(every_text(info.value), logged(all_logs))


def test_the_cli_names_an_unreachable_qdrant_without_its_key(tmp_path) -> None:
    port = closed_port()
    result = run_cli(tmp_path / "home", "--vectors", f"http://127.0.0.1:{port}/?api_key={QUERY_KEY}", "stats")
    assert result.returncode == 1, result.stderr
    assert f"http://127.0.0.1:{port}/?api_key=***" in result.stderr, result.stderr
    assert_clean(result.stdout, result.stderr)


def test_the_demo_names_its_servers_redacted(tmp_path) -> None:
    graph_port, vectors_port = closed_port(), closed_port()
    result = run_cli(tmp_path / "home", "--graph", f"rediss://:{URL_PW}@127.0.0.1:{graph_port}",
                     "--vectors", f"http://127.0.0.1:{vectors_port}/?api_key={QUERY_KEY}", "demo")
    assert result.returncode == 1, result.stderr
    assert f"rediss://***@127.0.0.1:{graph_port}" in result.stdout, result.stdout
    assert f"http://127.0.0.1:{vectors_port}/?api_key=***" in result.stdout, result.stdout
    assert_clean(result.stdout, result.stderr)


# ---------------------------------------------------------------- Neo4j


@pytest.mark.parametrize("scheme", ["neo4j", "bolt", "neo4j+s"])
def test_a_neo4j_url_with_a_password_leaves_no_trace_of_it(tmp_path, all_logs, scheme: str) -> None:
    """The driver refuses userinfo and quotes the whole URI; that error must not survive
    as the context of the one the caller gets."""
    with pytest.raises(ValueError) as info:
        cg.open(home=tmp_path / "home", graph=f"{scheme}://neo4j:{URL_PW}@127.0.0.1:{closed_port()}",
                vectors=":memory:", embedder="hash", config=fast_config())
    assert "NEO4J_PASSWORD" in str(info.value)
    assert info.value.__context__ is None and info.value.__cause__ is None
    assert_clean(every_text(info.value), logged(all_logs))


def test_an_unreachable_neo4j_is_named_without_the_secret_in_its_query(tmp_path, all_logs) -> None:
    port = closed_port()
    with pytest.raises(GraphStoreUnavailable) as info:
        cg.open(home=tmp_path / "home", graph=f"neo4j://127.0.0.1:{port}?region=eu&token={QUERY_KEY}",
                vectors=":memory:", embedder="hash", config=fast_config())
    assert info.value.url == f"neo4j://127.0.0.1:{port}?region=eu&token=***"
    assert_clean(every_text(info.value), logged(all_logs))


def test_the_cli_refuses_a_neo4j_url_with_a_password_redacted(tmp_path) -> None:
    result = run_cli(tmp_path / "home", "--graph", f"neo4j://neo4j:{URL_PW}@127.0.0.1:{closed_port()}", "stats",
                     terminal=True)
    assert result.returncode == 2, result.stderr
    assert "neo4j://***@127.0.0.1" in result.stderr, result.stderr
    assert_clean(result.stdout, result.stderr)
