"""The prompt context (`context`) on every surface of the server, each through a real client:
httpx for REST, the official MCP client over streamable HTTP, `cg.connect`, and the `cogmem`
CLI through `--server` and on a local home. `debug` shows each memory's id and score in the
text, as the in-process handle's `debug=True` does, and only when asked; the answer carries
what the handle's `AssembledContext` carries: `outdated`, `abbreviated` and `left_out`. A
retrieval through `cg.connect` carries each hit's `composition` as the handle returns it.

The server runs in this process (uvicorn in a thread, the app `cogmem serve` runs, over a real
socket), on a store this module opened: confidence-gated injection is on, so that some
memories are shown abbreviated and some left out, and the handle of the same identity on the
same store gives the answer each surface is compared with.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx
import pytest
import uvicorn

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.server.app import ServerSettings, create_app
from cogmem_graph.server.keys import KeyRing, default_keys_path

from .server_harness import auth, cogmem, free_port, mcp_session
from .server_harness import mcp_tool as tool

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CALL_TIMEOUT_S = 60
START_TIMEOUT_S = 60
MONDAY_9AM = int(datetime(2026, 3, 2, 9, tzinfo=UTC).timestamp() * 1000)
QUERY = "Where is the release retrospective held?"
BUDGET = 600
TOP_K = 6
ID = re.compile(r"\bmt_[0-9a-f]{6,}")


@dataclass
class Served:
    url: str
    key: str
    store: cg.MemoryStore
    old: cg.MemoryTrace  # replaced by `new`: shown marked outdated
    new: cg.MemoryTrace

    def handle(self) -> cg.AgentMemory:
        """The in-process handle of the key's identity."""
        return self.store.agent("helper", user_id="u1")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("context") / "home"
    clock = ManualClock(MONDAY_9AM)
    config = cg.CogmemConfig(prompt={"injection": {"enabled": True}})
    with cg.open(home=home, embedder="hash", config=config, clock=clock) as store:
        agent = store.agent("helper", user_id="u1")
        old = agent.encode("The release retrospective is held in the Cedar room.", scope="user")
        agent.encode_many([{"content": text, "scope": "user"} for text in (
            "The release retrospective notes go to the team wiki after the meeting.",
            "The bakery on the corner had fresh croissants.",
            "We watched a documentary about whales last night.",
            "Priya prefers code reviews in the morning before stand-up.",
        )])
        clock.advance(days=4)
        new = agent.encode("Actually, the release retrospective is held in the Maple room.", scope="user")
        clock.advance(hours=1)
        # The gate's thresholds between the scores this query gets, whatever the embedder makes of
        # them: the best match whole, the next two abbreviated, the rest left out.
        scores = sorted((hit.score for hit in agent.retrieve(QUERY, top_k=TOP_K, record_access=False).traces),
                        reverse=True)
        assert len(scores) == TOP_K
        gate = store.config.prompt.injection
        gate.full_at, gate.abbreviated_at = (scores[0] + scores[1]) / 2, (scores[2] + scores[3]) / 2

        key, _ = KeyRing(default_keys_path(home)).add(agent_id="helper", user_id="u1", name="context")
        keys = KeyRing(default_keys_path(home))
        port = free_port()
        app = create_app(store, keys, ServerSettings(port=port, rate_per_second=None, consolidate_every_s=0,
                                                     bad_key_rate=None, max_in_flight_per_key=None))
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                               lifespan="on", ws="none"))
        thread = threading.Thread(target=server.run, name="context-server", daemon=True)
        thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        try:
            yield Served(f"http://127.0.0.1:{port}", key, store, old, new)
        finally:
            server.should_exit = True
            thread.join(timeout=30)
            assert not thread.is_alive(), "the server did not stop"


def facade(served: Served, *, debug: bool = False) -> cg.AssembledContext:
    return served.handle().assemble_for_prompt(QUERY, token_budget=BUDGET, top_k=TOP_K, debug=debug)


def lists(ctx: cg.AssembledContext | dict) -> tuple[list[str], list[str], list[str]]:
    if isinstance(ctx, dict):
        return ctx["outdated"], ctx["abbreviated"], ctx["left_out"]
    return list(ctx.outdated), list(ctx.abbreviated), list(ctx.left_out)


def assert_debug_text(text: str, trace_ids, left_out) -> None:
    """Every memory the text shows carries its id, the whole ones their score, as the handle's
    `debug=True` text does."""
    shown = [tid for tid in trace_ids if tid not in left_out]
    assert shown and all(f"[{tid}" in text for tid in shown), text
    assert "score=" in text, text
    assert not any(tid in text for tid in left_out), "what is left out stays out"


def assert_plain_text(text: str) -> None:
    assert text and not ID.search(text) and "score=" not in text and "activation=" not in text, text


def test_the_handle_s_answer_has_each_list_and_debug_shows_ids_and_scores(served) -> None:
    """The premise of the comparisons below: the facade's own answer for this store and query."""
    plain, debug = facade(served), facade(served, debug=True)
    outdated, abbreviated, left_out = lists(plain)
    assert outdated == [served.old.id], plain.text
    assert served.old.id in abbreviated and served.new.id not in abbreviated and len(left_out) == 3
    assert lists(debug) == lists(plain)
    assert_plain_text(plain.text)
    assert_debug_text(debug.text, debug.trace_ids, debug.left_out)


# ---------------------------------------------------------------- REST


def test_rest_context_shows_ids_and_scores_only_with_debug(served) -> None:
    expected = lists(facade(served))
    a = {"headers": auth(served.key), "timeout": CALL_TIMEOUT_S}
    body = {"query": QUERY, "token_budget": BUDGET, "top_k": TOP_K}
    plain = httpx.post(f"{served.url}/v1/context", json=body, **a)
    debug = httpx.post(f"{served.url}/v1/context", json={**body, "debug": True}, **a)
    assert plain.status_code == 200 and debug.status_code == 200, (plain.text, debug.text)
    plain_json, debug_json = plain.json(), debug.json()
    assert_plain_text(plain_json["text"])
    assert_debug_text(debug_json["text"], debug_json["trace_ids"], debug_json["left_out"])
    assert lists(plain_json) == expected and lists(debug_json) == expected
    off = httpx.post(f"{served.url}/v1/context", json={**body, "debug": False}, **a).json()
    assert_plain_text(off["text"])
    refused = httpx.post(f"{served.url}/v1/context", json={**body, "debug": "sometimes"}, **a)
    assert refused.status_code == 422 and "debug" in refused.json()["error"], refused.text


def test_the_openapi_schema_documents_debug(served) -> None:
    schema = httpx.get(f"{served.url}/openapi.json", headers=auth(served.key), timeout=CALL_TIMEOUT_S).json()
    context_args = schema["components"]["schemas"]["ContextArgs"]["properties"]
    assert context_args["debug"]["default"] is False and "score" in context_args["debug"]["description"]


# ---------------------------------------------------------------- cg.connect


def test_connect_returns_the_handle_s_lists_and_debug_text(served) -> None:
    expected = facade(served)
    with cg.connect(served.url, served.key) as remote:
        plain = remote.assemble_for_prompt(QUERY, token_budget=BUDGET, top_k=TOP_K)
        debug = remote.assemble_for_prompt(QUERY, token_budget=BUDGET, top_k=TOP_K, debug=True)
    assert isinstance(plain, cg.AssembledContext)
    assert (plain.outdated, plain.abbreviated, plain.left_out) == \
        (expected.outdated, expected.abbreviated, expected.left_out)
    assert all(isinstance(ids, tuple) for ids in (plain.outdated, plain.abbreviated, plain.left_out))
    assert lists(debug) == lists(expected)
    assert_plain_text(plain.text)
    assert_debug_text(debug.text, debug.trace_ids, debug.left_out)


def test_connect_retrieve_carries_each_hit_s_composition_as_the_handle_returns_it(served) -> None:
    """`ScoredTrace.composition` over HTTP, sync and async: equal to the handle's for the same
    query on the same store (the clock stands still, access is not recorded), with its types."""
    expected = served.handle().retrieve(QUERY, top_k=TOP_K, record_access=False)
    compositions = [hit.composition for hit in expected.traces]
    assert compositions and all(isinstance(c, cg.ScoreComposition) for c in compositions)
    with cg.connect(served.url, served.key) as remote:
        got = remote.retrieve(QUERY, top_k=TOP_K, record_access=False)

    async def over_async() -> cg.RetrievalResult:
        async with cg.connect_async(served.url, served.key) as remote:
            return await remote.retrieve(QUERY, top_k=TOP_K, record_access=False)

    for result in (got, anyio.run(over_async)):
        assert [hit.trace.id for hit in result.traces] == expected.ids
        assert [hit.composition for hit in result.traces] == compositions
        for hit, mine in zip(result.traces, compositions, strict=True):
            theirs = hit.composition
            assert isinstance(theirs, cg.ScoreComposition) and mine is not None
            assert {k: type(v) for k, v in vars(theirs).items()} == {k: type(v) for k, v in vars(mine).items()}
            assert all(type(v) is float for v in (*theirs.weights.values(), *theirs.contributions.values()))


# ---------------------------------------------------------------- MCP




def test_mcp_build_context_shows_ids_and_scores_only_with_debug(served) -> None:
    expected = lists(facade(served))

    async def scenario() -> None:
        async with mcp_session(served.url, served.key) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            parameter = tools["build_context"].input_schema["properties"]["debug"]
            assert parameter["default"] is False and "score" in parameter["description"]
            plain = await tool(session, "build_context", query=QUERY, token_budget=BUDGET)
            debug = await tool(session, "build_context", query=QUERY, token_budget=BUDGET, debug=True)
            assert_plain_text(plain["text"])
            assert_debug_text(debug["text"], debug["trace_ids"], debug["left_out"])
            assert lists(plain) == expected and lists(debug) == expected

    anyio.run(scenario)


# ---------------------------------------------------------------- the CLI


def test_cli_context_through_the_server_shows_ids_and_scores_only_with_debug(served) -> None:
    expected = facade(served)

    def context(*args: str):
        done = cogmem("--server", served.url, "context", QUERY, "--budget", str(BUDGET), "--top-k", str(TOP_K),
                      *args, COGMEM_API_KEY=served.key, COLUMNS="400")
        assert done.returncode == 0, done.stderr
        return done.stdout

    plain, debug = context(), context("--debug")
    assert served.new.content in plain and served.new.content in debug
    assert_plain_text(plain)
    assert_debug_text(debug, expected.trace_ids, expected.left_out)
    as_json = json.loads(context("--debug", "--json"))
    assert as_json["trace_ids"] == list(expected.trace_ids)
    assert lists(as_json) == lists(expected)
    assert_debug_text(as_json["text"], expected.trace_ids, expected.left_out)


def test_cli_context_on_a_local_home_shows_ids_and_scores_only_with_debug(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("The release retrospective is held in the Cedar room.\n\n"
                     "The bakery on the corner had fresh croissants.\n")
    local = ["--home", str(tmp_path / "home"), "--embedder", "hash", "--user", "maya"]
    assert cogmem(*local, "ingest", str(notes)).returncode == 0
    ids = [r["trace"]["id"] for r in json.loads(cogmem(*local, "list", "--json").stdout)["items"]]
    assert len(ids) == 2

    plain = cogmem(*local, "context", QUERY, COLUMNS="400")
    debug = cogmem(*local, "context", QUERY, "--debug", COLUMNS="400")
    assert plain.returncode == 0 and debug.returncode == 0, (plain.stderr, debug.stderr)
    assert "Cedar room" in plain.stdout and "Cedar room" in debug.stdout
    assert_plain_text(plain.stdout)
    assert any(f"[{tid}" in debug.stdout for tid in ids) and "score=" in debug.stdout, debug.stdout
