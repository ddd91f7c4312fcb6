"""`redact_url`: the one function every URL the library prints goes through."""

from __future__ import annotations

import pytest

from cogmem_graph.errors import GraphStoreUnavailable, VectorStoreUnavailable
from cogmem_graph.providers.retry import ProviderUnavailable, clean_base_url, redact
from cogmem_graph.redact import redact_url, redact_urls

PW = "s3cr3t-Vv19"


@pytest.mark.parametrize(("url", "expected"), [
    (f"redis://:{PW}@db:6379", "redis://***@db:6379"),
    (f"rediss://default:{PW}@db:6380/0", "rediss://***@db:6380/0"),
    (f"neo4j+s://neo4j:{PW}@graph.example.com:7687", "neo4j+s://***@graph.example.com:7687"),
    (f"https://admin:{PW}@qdrant:6333/collections", "https://***@qdrant:6333/collections"),
    ("http://alice@qdrant:6333", "http://***@qdrant:6333"),
    (f"memcached://u:{PW}@h:11211", "memcached://***@h:11211"),
    (f"redis://:p@{PW}@db:6379", "redis://***@db:6379"),  # a raw `@` in the password
    (f"redis://:{PW}?x@db:6379", "redis://***@db:6379"),  # a raw `?` in the password
    (f"admin:{PW}@db:6379", "***@db:6379"),  # no scheme
])
def test_userinfo_is_masked_and_the_host_kept(url: str, expected: str) -> None:
    assert redact_url(url) == expected


SECRET_NAMES = ["api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "password",
                "pass", "passwd", "pwd", "secret", "client_secret", "auth", "authorization", "signature",
                "X-Amz-Signature", "sig", "credential", "session_id", "jwt", "private_key"]


@pytest.mark.parametrize("name", SECRET_NAMES + [n.upper() for n in SECRET_NAMES] + ["Api_Key", "ToKeN"])
def test_credential_query_parameters_are_masked_in_any_case(name: str) -> None:
    assert redact_url(f"http://qdrant:6333/?{name}={PW}") == f"http://qdrant:6333/?{name}=***"


@pytest.mark.parametrize(("url", "expected"), [
    (f"http://q:6333/?timeout=5&api_key={PW}&wait=true", "http://q:6333/?timeout=5&api_key=***&wait=true"),
    (f"http://q:6333?token={PW};region=eu", "http://q:6333?token=***;region=eu"),
    (f"http://q/cb#access_token={PW}&state=x", "http://q/cb#access_token=***&state=x"),
    (f"http://q/?api_key={PW}#top", "http://q/?api_key=***#top"),
    (f"http://q/?api%5Fkey={PW}", "http://q/?api%5Fkey=***"),  # a percent-encoded name
    (f"neo4j://g:7687?policy=eu&password={PW}", "neo4j://g:7687?policy=eu&password=***"),
    (f"https://u:{PW}@q/?key={PW}", "https://***@q/?key=***"),
    ("http://q:6333/?timeout=5&wait=true", "http://q:6333/?timeout=5&wait=true"),
    ("http://q/?api_key=", "http://q/?api_key=***"),
])
def test_only_credential_parameters_are_masked(url: str, expected: str) -> None:
    assert redact_url(url) == expected


@pytest.mark.parametrize("text", [
    "http://localhost:6333", "falkor://127.0.0.1:6379", "neo4j://graph:7687/db", ":memory:",
    "/home/me/.cogmem/qdrant", "/data/run@2024/qdrant", "http://h/path/@handle", "",
])
def test_urls_without_credentials_are_unchanged(text: str) -> None:
    assert redact_url(text) == text


def test_none_stays_none_and_redaction_is_idempotent() -> None:
    assert redact_url(None) is None
    for url in (f"rediss://:{PW}@db:6380/?api_key={PW}", f"u:{PW}@h", f"http://h/#token={PW}"):
        once = redact_url(url)
        assert PW not in once and redact_url(once) == once


def test_every_url_in_a_message_is_redacted() -> None:
    message = (f"graph must be a falkor:// URL, not 'mongodb://a:{PW}@db:27017' "
               f"(vectors at http://q:6333/?api_key={PW}, graph at redis://db:6379)")
    # The value runs to the next space: punctuation after it is masked too, never a secret cut short.
    assert redact_urls(message) == ("graph must be a falkor:// URL, not 'mongodb://***@db:27017' "
                                    "(vectors at http://q:6333/?api_key=*** graph at redis://db:6379)")


def test_backend_errors_redact_their_message_and_url() -> None:
    for error_type in (GraphStoreUnavailable, VectorStoreUnavailable):
        error = error_type(f"server at rediss://:{PW}@db:6380/?token={PW} is down", url=f"rediss://:{PW}@db:6380")
        assert str(error) == "server at rediss://***@db:6380/?token=*** is down"
        assert error.url == "rediss://***@db:6380"
        assert PW not in repr(error)


def test_provider_urls_and_messages_use_the_same_redaction() -> None:
    assert clean_base_url(f"https://u:{PW}@proxy.example.com/v1/?api-key={PW}") == \
        "https://***@proxy.example.com/v1/?api-key=***"
    assert clean_base_url("https://api.openai.com/v1/") == "https://api.openai.com/v1"
    assert redact(f"GET https://proxy/v1?key={PW} failed") == "GET https://proxy/v1?key=*** failed"
    error = ProviderUnavailable(f"openai embed at https://proxy/v1?key={PW} still failing", provider="openai",
                                operation="embed", url=f"https://proxy/v1?key={PW}")
    assert PW not in f"{error!s}{error!r}{error.url}"
