"""`/metrics` of a real `cogmem serve` process: scraped with an HTTP client and read with
Prometheus' own parser after REST and MCP calls, a burst over a key's rate, a consolidation
and a killed graph server; who may read it; that no tenant's id or content reaches it; and
the OpenTelemetry span of each operation where a tracer provider is set up."""

from __future__ import annotations

import json
import os
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from .server_harness import REPO, Server, add_key, auth, cogmem, free_port, mcp_session, mcp_tool
from .test_server_crash import graph_server_pid, is_running

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

USER = "tenant-user-5c1e"
AGENT = "tenant-agent-9a7d"
SECRET_WORDS = ("PLUM-4471", "Zanzibar")
CONTENTS = ("The launch code is PLUM-4471", "The offsite is in Zanzibar in May", "Ada reviews the parser on Friday")
TOKEN = "metrics-" + secrets.token_hex(16)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("metrics") / "home"
    keys = {"agent": add_key(home, "--agent", AGENT, "--user", USER),
            "read": add_key(home, "--agent", AGENT, "--user", USER, "--read-only"),
            "slow": add_key(home, "--agent", "slow-agent", "--user", "slow-user", "--rate", "1"),
            "owner": add_key(home, "--owner")}
    server = Server(home, free_port(), ("--consolidate-every", "0", "--metrics-cache", "0.2"),
                    env={"COGMEM_METRICS_TOKEN": TOKEN}).start()
    try:
        yield server, keys
    finally:
        server.stop()


def scrape(server: Server, credential: str) -> tuple[str, Samples]:
    answer = httpx.get(f"{server.url}/metrics", headers=auth(credential), timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return answer.text, parsed(answer.text)


def parsed(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_calls_are_counted_by_operation_and_status_and_nothing_of_a_tenant_shows(served) -> None:
    server, keys = served
    _, before = scrape(server, keys["owner"])
    with httpx.Client(base_url=server.url, headers=auth(keys["agent"]), timeout=60) as client:
        ids = []
        for content in CONTENTS:
            answer = client.post("/v1/memories", json={"content": content})
            assert answer.status_code == 200, answer.text
            ids.append(answer.json()["id"])
        assert client.post("/v1/recall", json={"query": "Where is the offsite?"}).status_code == 200
        assert client.get(f"/v1/memories/{ids[0]}").status_code == 200
        missing = f"no-such-{secrets.token_hex(4)}"
        assert client.get(f"/v1/memories/{missing}").status_code == 404
    assert httpx.post(f"{server.url}/v1/admin/consolidate", headers=auth(keys["owner"]),
                      timeout=120).status_code == 200

    async def over_mcp() -> None:
        async with mcp_session(server.url, keys["agent"]) as session:
            await mcp_tool(session, "recall", query="Who reviews the parser?")

    anyio.run(over_mcp)
    text, after = scrape(server, keys["owner"])

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("cogmem_http_requests_total", route="remember", status="200") == 3
    assert grew("cogmem_http_requests_total", route="get", status="200") == 1
    assert grew("cogmem_http_requests_total", route="get", status="404") == 1
    assert grew("cogmem_http_request_duration_seconds_count", route="remember") == 3
    assert grew("cogmem_operations_total", operation="remember", status="200") == 3
    assert grew("cogmem_operations_total", operation="get", status="404") == 1
    # The MCP tool call is counted by its operation, beside the REST one.
    assert grew("cogmem_operations_total", operation="recall", status="200") == 2
    assert grew("cogmem_http_requests_total", route="mcp", status="200") >= 1
    assert grew("cogmem_operation_duration_seconds_count", operation="recall") == 2
    assert value(after, "cogmem_operations_in_flight", operation="remember") == 0
    assert value(after, "cogmem_http_requests_in_flight", route="metrics") == 1, "the scrape itself"
    # The consolidation the owner asked for, and what it took.
    assert grew("cogmem_consolidation_runs_total", trigger="request", outcome="ran") == 1
    assert grew("cogmem_consolidation_duration_seconds_count", trigger="request") == 1
    assert value(after, "cogmem_consolidation_duration_seconds_sum", trigger="request") > 0
    # The backends' round trips, timed where the statements and vector calls go through.
    assert grew("cogmem_graph_statement_duration_seconds_count", kind="write") >= 3
    assert grew("cogmem_graph_statement_duration_seconds_count", kind="read") >= 1
    assert grew("cogmem_vector_call_duration_seconds_count", call="upsert") >= 3
    assert grew("cogmem_vector_call_duration_seconds_count", call="search_dense") >= 2
    assert value(after, "cogmem_graph_server_restarts_total", outcome="started") == 0
    # Memories by state, from the store's counts at scrape time (reused for 0.2 s here).
    time.sleep(0.3)
    counted_text, counted = scrape(server, keys["owner"])
    assert value(counted, "cogmem_memories", state="active") + value(counted, "cogmem_memories", state="dormant") == 3
    assert value(counted, "cogmem_memories", state="inactive") == 0
    assert value(before, "cogmem_memories", state="active") == 0
    assert value(after, "process_resident_memory_bytes") > 0

    for secret in (USER, AGENT, *ids, missing, *SECRET_WORDS, *keys.values(), TOKEN, "/v1/memories/"):
        assert secret not in text + counted_text, f"{secret!r} is in /metrics"
    routes = {dict(labels).get("route") for (name, labels) in after if name == "cogmem_http_requests_total"}
    assert routes <= {"remember", "recall", "get", "consolidate", "mcp", "mcp_stream", "metrics", "ready", "health",
                      "whoami", "multi_hop", "unmatched"}, routes


def test_refusals_of_the_rate_limiter_are_counted(served) -> None:
    server, keys = served
    _, before = scrape(server, TOKEN)
    with httpx.Client(base_url=server.url, headers=auth(keys["slow"]), timeout=30) as client:
        statuses = [client.get("/v1/whoami").status_code for _ in range(6)]
    refused = statuses.count(429)
    assert refused >= 1 and set(statuses) == {200, 429}, statuses  # a rate of 1/s: bursts of 2
    _, after = scrape(server, TOKEN)
    assert value(after, "cogmem_rate_limited_total", reason="key_rate") \
        - value(before, "cogmem_rate_limited_total", reason="key_rate") == refused
    assert value(after, "cogmem_http_requests_total", route="whoami", status="429") \
        - value(before, "cogmem_http_requests_total", route="whoami", status="429") == refused
    assert value(after, "cogmem_rate_limited_total", reason="key_in_flight") == 0


def test_only_the_owner_or_the_metrics_token_reads_metrics(served) -> None:
    server, keys = served
    url = f"{server.url}/metrics"
    nobody = httpx.get(url, timeout=10)
    assert nobody.status_code == 401 and nobody.headers["www-authenticate"].startswith("Bearer")
    assert set(nobody.json()) == {"error", "status"} and "cogmem_" not in nobody.text
    assert httpx.get(url, headers=auth(TOKEN + "x"), timeout=10).status_code == 401
    assert httpx.get(url, headers=auth("cgm_" + secrets.token_hex(32)), timeout=10).status_code == 401
    for role in ("agent", "read"):
        refused = httpx.get(url, headers=auth(keys[role]), timeout=10)
        assert refused.status_code == 403 and "cogmem_" not in refused.text, role
    assert httpx.post(url, headers=auth(TOKEN), timeout=10).status_code == 405
    assert httpx.get(url, headers={"X-API-Key": keys["owner"]}, timeout=10).status_code == 200
    _, samples = scrape(server, TOKEN)
    assert value(samples, "cogmem_http_requests_total", route="metrics", status="403") >= 2
    assert value(samples, "cogmem_http_requests_total", route="metrics", status="401") >= 3


def test_a_restart_of_the_embedded_graph_server_is_counted(served) -> None:
    server, keys = served
    _, before = scrape(server, TOKEN)
    old = graph_server_pid(server.home)
    os.kill(old, signal.SIGKILL)
    while is_running(old):
        time.sleep(0.01)
    deadline = time.monotonic() + 60
    with httpx.Client(base_url=server.url, headers=auth(keys["agent"]), timeout=60) as client:
        while True:  # a write may be refused once ("whether it was applied is unknown"): call again
            answer = client.post("/v1/recall", json={"query": "launch code"})
            if answer.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert answer.status_code == 200, answer.text
    assert graph_server_pid(server.home) != old
    _, after = scrape(server, TOKEN)
    assert value(after, "cogmem_graph_server_restarts_total", outcome="started") \
        - value(before, "cogmem_graph_server_restarts_total", outcome="started") == 1
    assert value(after, "cogmem_graph_server_restarts_total", outcome="failed") == 0


def test_each_operation_is_a_span_where_a_tracer_provider_is_set_up(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk", reason="opentelemetry-sdk (extra dev) is not installed")
    home = tmp_path / "home"
    key = add_key(home, "--agent", AGENT, "--user", USER)
    spans_file = tmp_path / "spans.jsonl"
    server = Server(home, free_port(), ("--consolidate-every", "0", "--no-metrics"),
                    command=(str(REPO / "tests" / "e2e" / "_serve_with_spans.py"), str(spans_file))).start()
    try:
        with httpx.Client(base_url=server.url, headers=auth(key), timeout=60) as client:
            trace_id = client.post("/v1/memories", json={"content": CONTENTS[0]}).json()["id"]
            assert client.get("/v1/memories/nope-404").status_code == 404
            assert client.get("/metrics").status_code == 404, "--no-metrics: no /metrics route"
    finally:
        server.stop()
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    served = [s for s in spans if s["name"] in ("cogmem.remember", "cogmem.get")]
    assert [(s["name"], s["attributes"]) for s in served] == [
        ("cogmem.remember", {"cogmem.operation": "remember", "cogmem.status": 200}),
        ("cogmem.get", {"cogmem.operation": "get", "cogmem.status": 404})]
    text = spans_file.read_text()
    for secret in (USER, AGENT, trace_id, "nope-404", SECRET_WORDS[0]):
        assert secret not in text


def test_memory_counts_are_reused_until_the_cache_expires(store) -> None:
    from cogmem_graph.server.metrics import ServerMetrics

    def active(metrics: ServerMetrics) -> float:
        return value(parsed(metrics.exposition()[0].decode()), "cogmem_memories", state="active")

    agent = store.agent(AGENT, user_id=USER)
    agent.encode(CONTENTS[0])
    metrics = ServerMetrics(store, counts_cache_s=3600)
    assert active(metrics) == 1
    agent.encode(CONTENTS[1])
    assert active(metrics) == 1, "a second scrape within the cache asks the store nothing"
    assert active(ServerMetrics(store, counts_cache_s=0)) == 2
    store.close()
    samples = parsed(ServerMetrics(store, counts_cache_s=0).exposition()[0].decode())
    assert not [name for name, _ in samples if name.startswith("cogmem_memories")], "a closed store: no counts"


def test_a_short_metrics_token_is_refused_and_one_on_the_command_line_is_warned_of(tmp_path: Path) -> None:
    done = cogmem("--home", str(tmp_path / "home"), "serve", "--port", str(free_port()),
                  "--metrics-token", "short-secret")
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, done.stderr
    assert "at least 16 characters" in said and "--metrics-token carries a password on the command line" in said
    assert "short-secret" not in done.stderr
