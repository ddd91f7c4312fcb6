"""The server's MCP surface through the official MCP client: over streamable HTTP against
a `cogmem serve` process, and over stdio both as a bridge to that server (memory shared
with the HTTP clients) and on a store the stdio process owns."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

import cogmem_graph as cg

from .server_harness import (
    MCP_CALL_TIMEOUT_S,
    REPO,
    Server,
    add_key,
    child_env,
    free_port,
    mcp_session,
    mcp_tool,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

EXPECTED_TOOLS = {"remember", "recall", "build_context", "multi_hop", "observe", "remind", "list_reminders",
                  "cancel_reminder", "pin", "unpin", "whoami", "consolidate", "stats", "repair",
                  "list_memories", "update_memory", "memory_history", "forget", "consolidation_report",
                  "memory_stats", "users"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("mcp") / "home"
    keys = {"alice": add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme"),
            "bob": add_key(home, "--agent", "a2", "--user", "bob", "--org", "acme")}
    srv = Server(home, free_port(), ("--consolidate-every", "0")).start()
    try:
        yield srv, keys
    finally:
        srv.stop()


@asynccontextmanager
async def stdio_session(args: list[str], key: str, errlog):
    params = StdioServerParameters(command=sys.executable, args=["-m", "cogmem_graph.cli", *args],
                                   env=child_env(COGMEM_API_KEY=key), cwd=str(REPO))
    async with stdio_client(params, errlog=errlog) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


async def tool_error(session: ClientSession, tool: str, **arguments) -> str:
    with anyio.fail_after(MCP_CALL_TIMEOUT_S):
        result = await session.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text


def test_mcp_over_http_remember_recall_and_the_memory_resource(server) -> None:
    srv, keys = server

    async def scenario() -> None:
        async with mcp_session(srv.url, keys["alice"]) as alice:
            tools = {t.name: t for t in (await alice.list_tools()).tools}
            assert set(tools) == EXPECTED_TOOLS
            assert all(len(t.description or "") > 30 for t in tools.values()), "descriptions a model can choose by"
            assert "query" in tools["recall"].input_schema["properties"]
            assert not {"user_id", "agent_id", "organization_id"} & set(tools["remember"].input_schema["properties"])
            me = await mcp_tool(alice, "whoami")
            assert me["identity"]["user_id"] == "alice"
            shared = await mcp_tool(alice, "remember", content="Acme's VPN endpoint is vpn.acme.example",
                                scope="organization", type="semantic")
            private = await mcp_tool(alice, "remember", content="Alice's doctor appointment is on Tuesday")
            assert shared["scope_key"] == "organization:acme" and private["scope_key"] == "user:acme/alice"
            found = await mcp_tool(alice, "recall", query="What is the VPN endpoint?")
            top = found["memories"][0]
            assert top["id"] == shared["id"] and top["sources"] and top["signals"]
            context = await mcp_tool(alice, "build_context", query="VPN endpoint", token_budget=300)
            assert "vpn.acme.example" in context["text"] and context["tokens_used"] <= 300
            hop = await mcp_tool(alice, "multi_hop", query="Where is Acme's VPN endpoint?")
            assert all(m["evidence"].startswith("query") for m in hop["memories"])
            with anyio.fail_after(MCP_CALL_TIMEOUT_S):
                templates = (await alice.list_resource_templates()).resource_templates
                assert [t.uri_template for t in templates] == ["memory://{trace_id}"]
                read = await alice.read_resource(f"memory://{shared['id']}")
            body = json.loads(read.contents[0].text)
            assert body["trace"]["id"] == shared["id"] and "edges" in body and "neighbours" in body
            refused = await tool_error(alice, "consolidate")
            assert "owner operation" in refused
            assert (await mcp_tool(alice, "pin", ids=[private["id"]]))["pinned"] == [private["id"]]
            reminder = await mcp_tool(alice, "remind", content="renew the VPN certificate", on_keywords=["certificate"])
            listed = await mcp_tool(alice, "list_reminders")
            assert reminder["id"] in [r["id"] for r in listed["result"]]

        async with mcp_session(srv.url, keys["bob"]) as bob:
            seen = await mcp_tool(bob, "recall", query="Alice's doctor appointment Tuesday")
            assert private["id"] not in [m["id"] for m in seen["memories"] + seen["tip_of_the_tongue"]]
            shared_seen = await mcp_tool(bob, "recall", query="VPN endpoint")
            assert shared["id"] in [m["id"] for m in shared_seen["memories"]]
            assert (await mcp_tool(bob, "pin", ids=[private["id"]]))["pinned"] == []
            with anyio.fail_after(MCP_CALL_TIMEOUT_S), pytest.raises(Exception, match="no memory visible"):
                await bob.read_resource(f"memory://{private['id']}")

    anyio.run(scenario)


def test_mcp_over_http_with_a_wrong_key_is_refused(server) -> None:
    srv, keys = server

    async def scenario() -> None:
        with anyio.fail_after(MCP_CALL_TIMEOUT_S), pytest.raises(Exception):  # noqa: B017 - the SDK's error type varies
            async with mcp_session(srv.url, keys["alice"][:-3] + "xyz"):
                pass

    anyio.run(scenario)


def test_mcp_over_stdio_bridged_to_the_server_shares_its_memory(server, tmp_path) -> None:
    srv, keys = server
    written = cg.connect(srv.url, keys["alice"]).encode("Acme's on-call rota changes every Monday",
                                                         scope="organization")

    async def scenario() -> None:
        with open(tmp_path / "stdio.err", "w") as errlog:
            async with stdio_session(["--server", srv.url, "serve", "--stdio"], keys["bob"], errlog) as bob:
                assert (await mcp_tool(bob, "whoami"))["identity"]["user_id"] == "bob"
                found = await mcp_tool(bob, "recall", query="When does the on-call rota change?")
                assert written.id in [m["id"] for m in found["memories"]]
                note = await mcp_tool(bob, "remember", content="Bob prefers the Tuesday on-call slot")
                assert note["scope_key"] == "user:acme/bob"
                assert "owner operation" in await tool_error(bob, "stats")

    anyio.run(scenario)
    assert "Bob prefers" not in " ".join(t.trace.content for t in cg.connect(srv.url, keys["alice"])
                                        .retrieve("Tuesday on-call slot").traces)


def test_mcp_over_stdio_on_a_store_it_owns(tmp_path) -> None:
    home = tmp_path / "stdio-home"
    key = add_key(home, "--agent", "desk", "--user", "dana")

    args = ["--home", str(home), "--embedder", "hash", "serve", "--stdio", "--consolidate-every", "0"]

    async def scenario() -> None:
        with open(tmp_path / "stdio.err", "w") as errlog:
            async with stdio_session(args, key, errlog) as dana:
                stored = await mcp_tool(dana, "remember", content="Dana's standing desk is at height 112 cm")
                found = await mcp_tool(dana, "recall", query="standing desk height")
                assert found["memories"][0]["id"] == stored["id"]

    async def wrong_key() -> None:
        with open(tmp_path / "wrong.err", "w") as errlog, anyio.fail_after(MCP_CALL_TIMEOUT_S):
            async with stdio_session(args, "cgm_wrong_key", errlog):
                pass

    anyio.run(scenario)
    with pytest.raises(Exception):  # noqa: B017 - the process exits before initializing; the SDK's error varies
        anyio.run(wrong_key)
    assert "not in" in (tmp_path / "wrong.err").read_text()


def test_mcp_argument_errors_name_the_argument_and_never_echo_the_value(tmp_path) -> None:
    """A model reads these errors to correct its call: one line naming each argument at fault,
    no pydantic dump and no echo of the value; a moment may be ISO-8601 text."""
    home = tmp_path / "stdio-home"
    key = add_key(home, "--agent", "desk", "--user", "dana")
    args = ["--home", str(home), "--embedder", "hash", "serve", "--stdio", "--consolidate-every", "0"]

    async def scenario() -> None:
        with open(tmp_path / "stdio.err", "w") as errlog:
            async with stdio_session(args, key, errlog) as dana:
                wrong = await tool_error(dana, "recall", query="desk", top_k=5000, as_of="yesterday")
                assert wrong.startswith("400: recall: "), wrong
                assert "top_k: Input should be less than or equal to 1000" in wrong
                assert "as_of must be an aware datetime, an ISO-8601 string or epoch milliseconds" in wrong
                kind = await tool_error(dana, "remind", content="renew the certificate", at=[2030])
                assert kind.startswith("400: remind: at must be an aware datetime"), kind
                for raw in ("input_value", "input_type", "errors.pydantic.dev", "yesterday", "5000", "2030"):
                    assert raw not in wrong + kind, raw
                assert len(wrong.splitlines()) == len(kind.splitlines()) == 1, "one line each"

                stored = await mcp_tool(dana, "remember", content="Dana's standing desk is at height 112 cm")
                then = await mcp_tool(dana, "recall", query="standing desk height", as_of="2999-01-01T00:00:00Z")
                assert stored["id"] in [m["id"] for m in then["memories"]], "an ISO-8601 moment is taken"
                listed = await mcp_tool(dana, "list_memories", created_after="2000-01-01")
                assert [m["id"] for m in listed["memories"]] == [stored["id"]]
                assert (await mcp_tool(dana, "list_memories", created_before="2000-01-01"))["memories"] == []

    anyio.run(scenario)
