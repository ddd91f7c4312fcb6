"""Serving one store to many agents: `serve` starts the server (REST and MCP over HTTP,
or MCP over stdio) and `keys` makes, lists and revokes the API keys that map clients
to identities.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import app
from cogmem_graph.cli.common import (
    EXIT_USAGE,
    err,
    fail,
    handled,
    open_store,
    out,
    refuse_server,
    require_key,
    settings_of,
)

keys_app = typer.Typer(help="API keys of `cogmem serve`: each maps a client to one identity, or to the owner.",
                       no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.callback()
def _keys(ctx: typer.Context) -> None:
    # The key file is the server host's: a --server given here would be ignored, so it is refused.
    refuse_server(ctx, "keys")


def _keyring(ctx: typer.Context, keys_file: Path | None):
    from cogmem_graph.api.store import default_home
    from cogmem_graph.server.keys import KeyRing, default_keys_path

    settings = settings_of(ctx)
    return KeyRing(keys_file or default_keys_path(settings.home or default_home()))


KeysFile = Annotated[Path | None, typer.Option(
    "--keys-file", envvar="COGMEM_KEYS_FILE", help="key file (default: server-keys.json in the memory home)")]


@app.command()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port of the REST API and of MCP at /mcp")] = 8765,
    stdio: Annotated[bool, typer.Option("--stdio", help="serve MCP over stdin/stdout instead of HTTP")] = False,
    key: Annotated[str | None, typer.Option(
        "--key", envvar="COGMEM_API_KEY", help="with --stdio: the key whose identity the process serves")] = None,
    keys_file: KeysFile = None,
    consolidate_every: Annotated[float, typer.Option(
        "--consolidate-every", min=0, help="seconds between scheduled consolidations (0: never)")] = 3600.0,
    rate: Annotated[float, typer.Option(
        "--rate", min=0, help="requests a second per key, bursts of twice that (0: no limit)")] = 50.0,
    max_body: Annotated[int, typer.Option(
        "--max-body-bytes", min=1024, help="largest request body accepted")] = 1_048_576,
) -> None:
    """Serve the memory store to many agents: REST (/v1, OpenAPI at /docs) and MCP (/mcp) on one
    port, or MCP over stdio (--stdio). With --server and --stdio, bridge stdio to that server."""
    from cogmem_graph.server import runner
    from cogmem_graph.server.app import ServerSettings

    settings = settings_of(ctx)
    if stdio and settings.server:
        with handled():
            require_key(dataclasses.replace(settings, key=key or settings.key))
            runner.serve_stdio_bridge(settings.server, key or settings.key)
        return
    refuse_server(ctx, "serve")
    keys = _keyring(ctx, keys_file)
    with handled():
        keys.entries()  # a broken key file fails before the store opens
        store = open_store(settings)
        try:
            if stdio:
                runner.serve_stdio_local(store, keys, key or settings.key, consolidate_every)
            else:
                if not keys.entries():
                    err.print(f"[yellow]warning:[/yellow] no API keys in {escape(str(keys.path))}: every "
                              "request will get 401 (make one with `cogmem keys add`)")
                err.print(f"cogmem serving on http://{host}:{port} (REST /v1, MCP /mcp, docs /docs)")
                runner.serve_http(store, keys, ServerSettings(
                    host=host, port=port, max_body_bytes=max_body, rate_per_second=rate or None,
                    consolidate_every_s=consolidate_every))
        finally:
            store.close()


@keys_app.command("add")
def keys_add(
    ctx: typer.Context,
    agent: Annotated[str | None, typer.Option("--agent", help="agent id (required for an agent key)")] = None,
    user: Annotated[str | None, typer.Option("--user", help="user id")] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="thread id")] = None,
    persona: Annotated[str | None, typer.Option("--persona", help="persona id")] = None,
    org: Annotated[str | None, typer.Option("--org", help="organization id")] = None,
    owner: Annotated[bool, typer.Option("--owner", help="an owner key: consolidate, stats, repair")] = False,
    name: Annotated[str, typer.Option(help="a label to recognise the key by")] = "",
    rate: Annotated[float | None, typer.Option(min=0.001, help="this key's requests a second")] = None,
    keys_file: KeysFile = None,
) -> None:
    """Make a key and print it once: only its hash is stored."""
    keys = _keyring(ctx, keys_file)
    with handled():
        key, entry = keys.add(role="owner" if owner else "agent", agent_id=agent, user_id=user, thread_id=thread,
                              persona_id=persona, organization_id=org, name=name, rate_per_second=rate)
    err.print(f"key {entry.key_id} ({entry.role}) added to {escape(str(keys.path))}; it is shown only now:")
    out.print(key)


@keys_app.command("list")
def keys_list(ctx: typer.Context, keys_file: KeysFile = None) -> None:
    """The keys (ids, roles, identities; never the keys themselves)."""
    keys = _keyring(ctx, keys_file)
    with handled():
        entries = keys.entries()
    table = Table(title=f"API keys ({escape(str(keys.path))})")
    for column in ("id", "role", "name", "identity", "rate/s"):
        table.add_column(column)
    for e in entries:
        ident = ", ".join(f"{k.removesuffix('_id')}={v}" for k, v in e.identity.items())
        table.add_row(e.key_id, e.role, escape(e.name), escape(ident), str(e.rate_per_second or "-"))
    out.print(table)


@keys_app.command("revoke")
def keys_revoke(ctx: typer.Context, key_id: Annotated[str, typer.Argument(metavar="ID")],
                keys_file: KeysFile = None) -> None:
    """Revoke a key by id: a running server refuses it from its next request."""
    keys = _keyring(ctx, keys_file)
    with handled():
        removed = keys.revoke(key_id)
    if not removed:
        raise fail(f"no key with id {key_id} in {keys.path}", EXIT_USAGE)
    out.print(f"revoked {key_id}")


