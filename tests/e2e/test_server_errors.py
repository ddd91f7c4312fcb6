"""Whose fault a failure is, as `cogmem serve` answers it to real clients (httpx for REST,
`cg.connect`, the MCP SDK client over streamable HTTP): an argument the facade refuses is a
400 naming it; a failure of the server's own making is a 500 whose body carries an error id,
found with its traceback in the server's log, and nothing else of the failure.

The server's fault here is real: a file of its home that it reads back
(`consolidation_runs.jsonl`) is corrupted under it, so reading it raises
`UnicodeDecodeError`, a ValueError that no argument of the caller's caused."""

from __future__ import annotations

import re
from collections.abc import Iterator

import anyio
import httpx
import pytest
from mcp import ClientSession

import cogmem_graph as cg
from cogmem_graph.api.consolidation_log import FILE as RUNS_FILE
from cogmem_graph.client import RequestRejected, ServerError

from .server_harness import MCP_CALL_TIMEOUT_S, Server, add_key, auth, free_port, mcp_session

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ERROR_ID = re.compile(r"error id ([0-9a-f]{12})")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    home = tmp_path_factory.mktemp("errors") / "home"
    key = add_key(home, "--agent", "a1", "--user", "alice", "--org", "acme")
    srv = Server(home, free_port(), ("--consolidate-every", "0")).start()
    try:
        yield srv, key
    finally:
        srv.stop()


async def tool_error(session: ClientSession, tool: str, **arguments) -> str:
    with anyio.fail_after(MCP_CALL_TIMEOUT_S):
        result = await session.call_tool(tool, arguments)
    assert result.is_error, result.content
    return result.content[0].text


def logged(srv: Server, error_id: str) -> str:
    """The server log's entry for one error id: from the id to the next error logged."""
    log = srv.log.read_text()
    start = log.index(error_id)
    end = log.find("ERROR", start)
    return log[start:end if end != -1 else len(log)]


def test_an_argument_the_facade_refuses_is_a_400_naming_it(server) -> None:
    """Both arguments pass the request model and are refused by the facade (`InvalidArgument`)."""
    srv, key = server
    cursor = httpx.post(f"{srv.url}/v1/memories/list", json={"cursor": "not-a-cursor"}, headers=auth(key))
    assert cursor.status_code == 400, cursor.text
    assert cursor.json()["error"].startswith("list: cursor is not one a list call returned")
    both = httpx.post(f"{srv.url}/v1/recall", json={"query": "desk", "as_of": "2026-01-01", "timeline": True},
                      headers=auth(key))
    assert both.status_code == 400, both.text
    assert both.json()["error"].startswith("recall: as_of and timeline=True ask for different things")

    with pytest.raises(RequestRejected) as rejected:
        cg.connect(srv.url, key).list(cursor="not-a-cursor")
    assert rejected.value.status == 400 and "cursor" in rejected.value.message

    async def scenario() -> None:
        async with mcp_session(srv.url, key) as session:
            listed = await tool_error(session, "list_memories", cursor="not-a-cursor")
            assert listed.startswith("Error executing tool list_memories: 400: list: cursor is not one"), listed
            recalled = await tool_error(session, "recall", query="desk", as_of="2026-01-01", timeline=True)
            assert recalled.startswith("Error executing tool recall: 400: recall: as_of and timeline=True"), recalled

    anyio.run(scenario)


def test_a_fault_of_the_server_is_a_500_with_an_error_id_in_its_log_never_the_callers(server) -> None:
    srv, key = server
    runs = srv.home / RUNS_FILE
    assert httpx.get(f"{srv.url}/v1/consolidation", headers=auth(key)).status_code == 200
    runs.write_bytes(b'{"at": 1, "trigger": "\xff\xfe"}\n')
    try:
        answer = httpx.get(f"{srv.url}/v1/consolidation", headers=auth(key))
        assert answer.status_code == 500, answer.text
        body = answer.json()
        assert body["status"] == 500 and body["error"].startswith("consolidation_report: internal error")
        rest_id = ERROR_ID.search(body["error"]).group(1)
        for internal in ("UnicodeDecodeError", "utf-8", "Traceback", RUNS_FILE, str(srv.home)):
            assert internal not in answer.text, internal

        with pytest.raises(ServerError) as failed:
            cg.connect(srv.url, key).consolidation_report()
        assert failed.value.status == 500
        assert not isinstance(failed.value, ValueError), "the caller's request was not at fault"
        client_id = ERROR_ID.search(failed.value.message).group(1)

        async def scenario() -> str:
            async with mcp_session(srv.url, key) as session:
                return await tool_error(session, "consolidation_report")

        text = anyio.run(scenario)
        assert text.startswith("Error executing tool consolidation_report: 500: consolidation_report: internal "
                               "error (error id "), text
        assert "UnicodeDecodeError" not in text and RUNS_FILE not in text
        mcp_id = ERROR_ID.search(text).group(1)
    finally:
        runs.unlink()

    assert len({rest_id, client_id, mcp_id}) == 3, "each failure has an id of its own"
    for error_id in (rest_id, client_id, mcp_id):
        entry = logged(srv, error_id)
        assert "consolidation_report" in entry and "Traceback (most recent call last):" in entry, entry
        # Whole, as Python prints it: the line that says what failed is not cut to a width.
        assert re.search(r"^UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position \d+: "
                         r"invalid start byte$", entry, re.MULTILINE), entry
    assert httpx.get(f"{srv.url}/v1/consolidation", headers=auth(key)).status_code == 200, "the server serves on"
