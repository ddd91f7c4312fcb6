"""`memory_stats` and `consolidation_report` on every surface: REST (httpx), the MCP client,
`cg.connect`, and the `cogmem` CLI through `--server` and on a local home. Each key is told
only of its own scopes: another organization's key counts nothing of them and sees no run
that counted them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

import cogmem_graph as cg

from .server_harness import Server, add_key, auth, cogmem, free_port, mcp_session
from .server_harness import mcp_tool as tool

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    home = tmp_path_factory.mktemp("reports") / "home"
    keys = {
        "dan": add_key(home, "--agent", "a1", "--user", "dan", "--org", "acme"),
        "carol": add_key(home, "--agent", "a3", "--user", "carol", "--org", "globex"),
        "owner": add_key(home, "--owner", "--name", "operator"),
    }
    srv = Server(home, free_port(), ("--consolidate-every", "0", "--rate", "0")).start()
    try:
        with cg.connect(srv.url, keys["dan"]) as dan:
            dan.encode("Dan keeps his bike in the basement")
            dan.encode("Dan keeps his bike in the basement")  # a duplicate: the run merges or reinforces it
            dan.encode("Dan's locker code is 4471")
        with cg.connect(srv.url, keys["owner"]) as owner:
            owner.consolidate()
        yield srv, keys
    finally:
        srv.stop()


def test_every_surface_counts_only_the_keys_own_memories(server) -> None:
    srv, keys = server
    with httpx.Client(base_url=srv.url, timeout=60) as http:
        rest = http.get("/v1/stats", headers=auth(keys["dan"])).json()
        assert rest["total_traces"] >= 2
        assert http.get("/v1/stats", headers=auth(keys["carol"])).json()["total_traces"] == 0
    with cg.connect(srv.url, keys["dan"]) as dan:
        assert dan.memory_stats()["total_traces"] == rest["total_traces"]

    async def over_mcp() -> tuple[dict, dict]:
        async with mcp_session(srv.url, keys["dan"]) as d, mcp_session(srv.url, keys["carol"]) as c:
            return await tool(d, "memory_stats"), await tool(c, "memory_stats")

    mine, theirs = anyio.run(over_mcp)
    assert mine["total_traces"] == rest["total_traces"] and theirs["total_traces"] == 0
    cli = cogmem("--server", srv.url, "memory-stats", COGMEM_API_KEY=keys["dan"])
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["total_traces"] == rest["total_traces"]


def test_every_surface_reports_only_the_runs_that_touched_the_keys_scopes(server) -> None:
    srv, keys = server
    with httpx.Client(base_url=srv.url, timeout=60) as http:
        rest = http.get("/v1/consolidation", params={"runs": 5}, headers=auth(keys["dan"])).json()
        assert rest["store_wide"] is False and set(rest) >= {"runs", "schemas", "contradictions"}
        bad = http.get("/v1/consolidation", params={"runs": 0}, headers=auth(keys["dan"]))
        assert bad.status_code == 422 and "runs" in bad.text
        owner = http.get("/v1/consolidation", headers=auth(keys["owner"])).json()
        assert owner["store_wide"] is True and owner["runs"], "the owner sees the run, counts only"
    with cg.connect(srv.url, keys["dan"]) as dan, cg.connect(srv.url, keys["carol"]) as carol:
        assert dan.consolidation_report(runs=5)["runs"] == rest["runs"]
        assert carol.consolidation_report()["runs"] == [], "no run counted anything in carol's scopes"

    async def over_mcp() -> dict:
        async with mcp_session(srv.url, keys["dan"]) as d:
            return await tool(d, "consolidation_report", runs=5)

    assert anyio.run(over_mcp)["runs"] == rest["runs"]
    cli = cogmem("--server", srv.url, "consolidation-report", "--runs", "5", COGMEM_API_KEY=keys["dan"])
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["runs"] == rest["runs"]


def test_the_cli_on_a_local_home_reports_the_identitys_scopes(tmp_path: Path) -> None:
    store = ["--home", str(tmp_path / "home"), "--embedder", "hash"]
    notes = tmp_path / "notes.txt"
    notes.write_text("Maya's desk is by the window.\n")
    assert cogmem(*store, "--user", "maya", "ingest", str(notes)).returncode == 0
    stats = cogmem(*store, "--user", "maya", "memory-stats")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["total_traces"] == 1
    assert json.loads(cogmem(*store, "--user", "tom", "memory-stats").stdout)["total_traces"] == 0
    report = cogmem(*store, "--user", "maya", "consolidation-report")
    assert report.returncode == 0 and json.loads(report.stdout)["store_wide"] is False, report.stderr
    bad = cogmem(*store, "--user", "maya", "consolidation-report", "--runs", "0")
    assert bad.returncode == 2 and "--runs" in bad.stderr
