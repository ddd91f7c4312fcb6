"""Serving one store to many agents: `serve` starts the server (REST and MCP over HTTP,
or MCP over stdio) and `keys` makes, lists and revokes the API keys that map clients
to identities.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cogmem_graph.cli.app import HELP_LAYOUT, app
from cogmem_graph.cli.invocation import (
    EXIT_ERROR,
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
                       no_args_is_help=True, **HELP_LAYOUT)
app.add_typer(keys_app, name="keys")


@keys_app.callback()
def _keys(ctx: typer.Context) -> None:
    # The key file is the server host's: a --server given here would be ignored, so it is refused.
    refuse_server(ctx, "keys")


def _keyring(ctx: typer.Context, keys_file: Path | None):
    from cogmem_graph.home import default_home  # not the facade's: a key command opens no store
    from cogmem_graph.server.keys import KeyRing, default_keys_path

    settings = settings_of(ctx)
    return KeyRing(keys_file or default_keys_path(settings.home or default_home()))


KeysFile = Annotated[Path | None, typer.Option(
    "--keys-file", envvar="COGMEM_KEYS_FILE", help="key file (default: server-keys.json in the memory home)")]


EXIT_SERVING_FAILED = 3
EXIT_GRACE_S = 10.0  # once the store is closed, the process ends within this, even if a thread lingers
MIN_METRICS_TOKEN = 16

# Global options that may carry a credential, and where it goes instead.
_SECRET_OPTIONS = {
    "graph": ("--graph", "COGMEM_GRAPH, or the password alone in FALKORDB_PASSWORD / NEO4J_PASSWORD"),
    "vectors": ("--vectors", "COGMEM_VECTORS, or the key alone in QDRANT_API_KEY"),
    "server": ("--server", "COGMEM_SERVER"),
}


def _carries_secret(url: str) -> bool:
    """A password in the URL's userinfo, or a credential-like query or fragment parameter."""
    from urllib.parse import urlsplit

    from cogmem_graph.redact import redact_url

    with contextlib.suppress(ValueError):
        if urlsplit(url).password is not None:
            return True
    tail = url[len(url.split("?", 1)[0].split("#", 1)[0]):]
    return bool(tail) and redact_url(f"x://h{tail}") != f"x://h{tail}"


def _warn_secrets_in_arguments(ctx: typer.Context) -> None:
    """Every local user can read a process's command line (`ps`, /proc/PID/cmdline) for as long
    as the server runs: warn when a password or key is in it, and say where it goes instead."""
    settings = settings_of(ctx)
    given = [(flag, env) for name, (flag, env) in _SECRET_OPTIONS.items()
             if name in settings.given and getattr(settings, name) and _carries_secret(getattr(settings, name))]
    own_key = getattr(ctx.get_parameter_source("key"), "name", None) == "COMMANDLINE"
    if "key" in settings.given or own_key:
        given.append(("--key", "COGMEM_API_KEY"))
    if getattr(ctx.get_parameter_source("metrics_token"), "name", None) == "COMMANDLINE":
        given.append(("--metrics-token", "COGMEM_METRICS_TOKEN"))
    for flag, env in given:
        err.print(f"[yellow]warning:[/yellow] {flag} carries a password on the command line, where every local "
                  f"user can read it (ps, /proc/<pid>/cmdline) while the process runs; pass it in the environment "
                  f"instead: {escape(env)}")


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
    max_in_flight: Annotated[int, typer.Option(
        "--max-in-flight", min=0, help="requests of one key in progress at once; more get 429 (0: no limit)")] = 8,
    bad_key_rate: Annotated[float, typer.Option(
        "--bad-key-rate", min=0, help="requests a second with a missing, unknown or expired key per client address, "
                                      "bursts of 20; more get 429 (0: no limit)")] = 1.0,
    header_timeout: Annotated[float, typer.Option(
        "--header-timeout", min=0.1, help="seconds a client has to send a request's line and headers, from "
                                          "connecting or from the previous response")] = 10.0,
    body_timeout: Annotated[float, typer.Option(
        "--body-timeout", min=0.1, help="seconds a client has to send a request's body, from its headers")] = 30.0,
    keep_alive: Annotated[float, typer.Option(
        "--keep-alive", min=0.1, help="seconds an idle connection stays open after a response")] = 5.0,
    max_connections: Annotated[int, typer.Option(
        "--max-connections", min=1, help="connections open at once (fewer when the file-descriptor limit "
                                         "leaves no room for them)")] = 1000,
    dashboard: Annotated[bool, typer.Option(
        "--dashboard/--no-dashboard", help="serve the web dashboard at /ui (log in with an API key)")] = True,
    metrics: Annotated[bool, typer.Option(
        "--metrics/--no-metrics", help="serve Prometheus metrics at /metrics (to the owner's key or the "
                                       "metrics token)")] = True,
    metrics_token: Annotated[str | None, typer.Option(
        "--metrics-token", envvar="COGMEM_METRICS_TOKEN", show_envvar=True,
        help="a secret of at least 16 characters that reads /metrics beside the owner's keys (give it in the "
             "environment)")] = None,
    metrics_cache: Annotated[float, typer.Option(
        "--metrics-cache", min=0, help="seconds /metrics reuses the memory counts it asked the store for")] = 15.0,
) -> None:
    """Serve the memory store to many agents: REST (/v1, OpenAPI at /docs) and MCP (/mcp) on one
    port, or MCP over stdio (--stdio). With --server and --stdio, bridge stdio to that server.
    Exit codes: 0 stopped by SIGINT/SIGTERM, 1 could not start (port in use, store unreachable),
    2 a bad option or key file, 3 stopped serving because of a failure (the store was lost)."""
    # runner is light: the app and its imports come after the port is bound
    from cogmem_graph.server import runner

    settings = settings_of(ctx)
    _warn_secrets_in_arguments(ctx)
    runner.configure_log()
    if stdio and settings.server:
        with handled():
            require_key(dataclasses.replace(settings, key=key or settings.key))
            runner.serve_stdio_bridge(settings.server, key or settings.key)
        return
    refuse_server(ctx, "serve")
    if metrics_token is not None and len(metrics_token) < MIN_METRICS_TOKEN:
        raise fail(f"--metrics-token (COGMEM_METRICS_TOKEN) must be at least {MIN_METRICS_TOKEN} characters long",
                   EXIT_USAGE)
    code = EXIT_ERROR
    with handled():
        sockets = [] if stdio else runner.bind(host, port)  # a busy port fails first, before seconds of imports
        try:
            keys = _keyring(ctx, keys_file)
            keys.entries()  # a broken key file fails before the store opens
            from cogmem_graph.server.app import ServerSettings

            served = ServerSettings(
                host=host, port=port, max_body_bytes=max_body, rate_per_second=rate or None,
                consolidate_every_s=consolidate_every, max_in_flight_per_key=max_in_flight or None,
                bad_key_rate=bad_key_rate or None, header_timeout_s=header_timeout, body_timeout_s=body_timeout,
                keep_alive_s=keep_alive, max_connections=max_connections, dashboard=dashboard, metrics=metrics,
                metrics_token=metrics_token, metrics_counts_cache_s=metrics_cache)
            store = open_store(settings)
        except BaseException:
            for sock in sockets:
                sock.close()
            raise
        try:
            if stdio:
                runner.serve_stdio_local(store, keys, key or settings.key, consolidate_every)
            else:
                if not keys.entries():
                    err.print(f"[yellow]warning:[/yellow] no API keys in {escape(str(keys.path))}: every "
                              "request will get 401 (make one with `cogmem keys add`)")
                err.print(f"cogmem serving on http://{host}:{port} (REST /v1, MCP /mcp, docs /docs"
                          f"{', dashboard /ui' if dashboard else ''})")
                runner.serve_http(store, keys, served, sockets)
            code = 0
        except runner.ServingFailed as exc:
            code = EXIT_SERVING_FAILED
            raise fail(str(exc), code) from None
        finally:
            try:
                store.close()
            finally:
                if not stdio:
                    runner.exit_within(code, EXIT_GRACE_S)


@keys_app.command("add")
def keys_add(
    ctx: typer.Context,
    agent: Annotated[str | None, typer.Option(
        "--agent", help="agent id (default: the global --agent, $COGMEM_AGENT or cogmem, as the memory "
                        "commands use; an owner key without an identity has none)")] = None,
    user: Annotated[str | None, typer.Option("--user", help="user id")] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="thread id")] = None,
    persona: Annotated[str | None, typer.Option("--persona", help="persona id")] = None,
    org: Annotated[str | None, typer.Option("--org", help="organization id")] = None,
    owner: Annotated[bool, typer.Option("--owner", help="an owner key: consolidate, stats, repair")] = False,
    read_only: Annotated[bool, typer.Option(
        "--read-only", help="a read-only key: recall (without reinforcing), list, get, history, export, ...; "
                            "every write is refused (403)")] = False,
    expires: Annotated[str | None, typer.Option(
        "--expires", help="when the key stops working: a duration (30d, 12h, 90m, 2w) or an ISO date or "
                          "date-time (2026-01-31, UTC unless it names a zone)")] = None,
    name: Annotated[str, typer.Option(help="a label to recognise the key by")] = "",
    rate: Annotated[float | None, typer.Option(min=0.001, help="this key's requests a second")] = None,
    keys_file: KeysFile = None,
) -> None:
    """Make a key and print it once: only its hash is stored."""
    from cogmem_graph.server.keys import expiry_text, parse_expiry

    if owner and read_only:
        raise fail("--owner and --read-only exclude each other: an owner key may write", EXIT_USAGE)
    keys = _keyring(ctx, keys_file)
    if agent is None and (not owner or user or thread or persona or org):
        # The agent the memory commands act as, so the key reaches what they wrote.
        agent = settings_of(ctx).agent
    with handled():
        expires_at = None if expires is None else parse_expiry(expires)
        key, entry = keys.add(role="owner" if owner else "read" if read_only else "agent", agent_id=agent,
                              user_id=user, thread_id=thread, persona_id=persona, organization_id=org, name=name,
                              rate_per_second=rate, expires_at=expires_at)
    until = "" if entry.expires_at is None else f", expires {expiry_text(entry.expires_at)}"
    who = ", ".join(f"{k.removesuffix('_id')}={v}" for k, v in entry.identity.items())
    err.print(f"key {entry.key_id} ({entry.role}{', ' + escape(who) if who else ''}{until}) added to "
              f"{escape(str(keys.path))}; it is shown only now:")
    out.print(key)


@keys_app.command("list")
def keys_list(ctx: typer.Context, keys_file: KeysFile = None) -> None:
    """The keys (ids, roles, identities, expiry; never the keys themselves)."""
    from cogmem_graph.server.keys import expiry_text

    keys = _keyring(ctx, keys_file)
    with handled():
        entries = keys.entries()
    table = Table(title=f"API keys ({escape(str(keys.path))})")
    for column in ("id", "role", "name", "identity", "rate/s", "expires"):
        table.add_column(column, no_wrap=column in ("id", "role", "expires"))
    for e in entries:
        ident = ", ".join(f"{k.removesuffix('_id')}={v}" for k, v in e.identity.items())
        expires = expiry_text(e.expires_at) + (" (expired)" if e.principal().expired else "")
        table.add_row(e.key_id, e.role, escape(e.name), escape(ident), str(e.rate_per_second or "-"), expires)
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


