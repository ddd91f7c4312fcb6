"""What every `cogmem` command shares: the global settings, the two consoles,
the mapping of errors to one-line messages and exit codes, the store opened for
one command, and progress bars.

It exists so the command modules depend on one small base and never on each
other. It imports nothing heavy: the store opens inside the commands.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from cogmem_graph.errors import field_problems
from cogmem_graph.redact import redact_url, redact_urls

if TYPE_CHECKING:
    from rich.progress import Progress

    from cogmem_graph.api.agent import AgentMemory
    from cogmem_graph.api.records import AgentRecords
    from cogmem_graph.api.store import MemoryStore
    from cogmem_graph.client import RemoteAgent

err = Console(stderr=True, soft_wrap=True, highlight=False)
out = Console(soft_wrap=True, highlight=False)

EXIT_ERROR = 1
EXIT_USAGE = 2


class UsageProblem(ValueError):
    """Bad input the user can fix (exit code 2). Internal to the command line: `handled` turns it
    into the command's message and exit code, so no caller of the package catches it and it is
    not under `CogmemError` (the package's own refusals of an argument are `InvalidArgument`)."""


@dataclass
class Settings:
    """The global options, as the root callback parsed them."""

    home: Path | None = None
    graph: str | None = None
    vectors: str | None = None
    embedder: str | None = None
    agent: str = "cogmem"
    user: str | None = None
    thread: str | None = None
    persona: str | None = None
    org: str | None = None
    server: str | None = None
    key: str | None = None
    given: frozenset[str] = frozenset()  # the options given on the command line (not from the environment)

    def identity(self, thread: str | None = None) -> dict[str, Any]:
        return {"user_id": self.user, "thread_id": thread or self.thread, "persona_id": self.persona,
                "organization_id": self.org}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def fail(message: str, code: int) -> typer.Exit:
    """Print the one-line error; URLs in it are redacted whatever raised it (a driver may
    quote the URL it was given)."""
    err.print(f"[red]error:[/red] {escape(_one_line(redact_urls(message)))}")
    return typer.Exit(code)


def _validation_message(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            return field_problems(errors())
    return str(exc)


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Turn exceptions into one-line messages and the documented exit codes."""
    from pydantic import ValidationError

    from cogmem_graph.errors import BackendUnavailable, CogmemError

    try:
        yield
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("COGMEM_DEBUG"):
            raise
        if isinstance(exc, BackendUnavailable):
            raise fail(str(exc), EXIT_ERROR) from None
        if isinstance(exc, ValidationError):
            raise fail(_validation_message(exc), EXIT_USAGE) from None
        if isinstance(exc, (UsageProblem, ValueError, FileNotFoundError, IsADirectoryError, UnicodeDecodeError)):
            raise fail(str(exc), EXIT_USAGE) from None
        if isinstance(exc, CogmemError) and isinstance(exc, LookupError):  # a memory the identity cannot see
            raise fail(str(exc), EXIT_USAGE) from None
        if isinstance(exc, CogmemError):
            raise fail(str(exc), EXIT_ERROR) from None
        if isinstance(exc, PermissionError):  # a key file or folder of the home this user may not write
            raise fail(f"{exc.filename or exc}: permission denied ({exc.strerror or exc}); run as the user who "
                       "owns the memory home, give this user access to it, or choose another home (--home, "
                       "COGMEM_HOME)", EXIT_ERROR) from None
        if isinstance(exc, ImportError):
            _fail_on_missing_extra(exc)
        raise fail(f"{type(exc).__name__}: {exc}", EXIT_ERROR) from None


def _fail_on_missing_extra(exc: ImportError) -> None:
    """A module of an optional extra is missing: the install line, not the import error."""
    from cogmem_graph.extras import install_line, missing_extra

    if "pip install 'cogmem-graph[" in str(exc):  # the raiser already said which extra
        raise fail(str(exc), EXIT_ERROR) from None
    missing = missing_extra(exc)
    if missing is not None:
        module, extra = missing
        raise fail(f"{module} is not installed; this command needs the '{extra}' extra: {install_line(extra)}",
                   EXIT_ERROR) from None


def settings_of(ctx: typer.Context) -> Settings:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings()


def open_store(settings: Settings) -> MemoryStore:
    import cogmem_graph as cg

    where = redact_url(settings.graph) or f"embedded graph under {settings.home or 'the default home'}"
    with err.status(f"opening the memory store ({escape(where)})…"):
        return cg.open(home=settings.home, graph=settings.graph, vectors=settings.vectors,
                       embedder=settings.embedder)


# The commands that work on a local memory home (or its key file) and have no server
# operation behind them, with what to do instead. With --server they refuse (exit 2) rather
# than act, silently, on a home the user did not mean; every other command goes through
# the server (`agent_session`), and `session` refuses --server for any command that would
# still open a local store. A command that gains a server operation leaves this table.
LOCAL_ONLY: dict[str, str] = {
    "import": "a backup is restored where the store is: run `cogmem --home <the server's memory home> import FILE` "
              "on the server's host",
    "viz": "the page is drawn from the graph itself: run `cogmem --home <the server's memory home> viz ...` "
           "on the server's host",
    "demo": "the demo runs on a temporary embedded store of its own: run `cogmem demo`",
    "keys": "API keys live in the server's key file: run `cogmem --home <the server's memory home> keys ...` "
            "on the server's host",
    "serve": "`serve` starts a server on this host's memory home (only `serve --stdio` goes through --server, "
             "as a bridge to it): run `cogmem --home HOME serve`",
    "migrate": "a store is upgraded where it is (a server upgrades its own store as it starts): run "
               "`cogmem --home <the server's memory home> migrate` on the server's host",
}


def refuse_server(ctx: typer.Context, command: str, advice: str | None = None) -> None:
    """Exit 2 when --server (or COGMEM_SERVER) is given to a command that does not go
    through a server, saying what to do instead."""
    settings = settings_of(ctx)
    if settings.server:
        advice = advice or LOCAL_ONLY.get(command, "run it on the server's host with --home")
        raise fail(f"`cogmem {command}` does not go through --server ({settings.server}): {advice}, "
                   "without --server (and with COGMEM_SERVER unset)", EXIT_USAGE)


IDENTITY_OPTIONS = (("user", "--user"), ("thread", "--thread"), ("persona", "--persona"), ("org", "--org"))


def refuse_identity(settings: Settings, command: str, what: str) -> None:
    """Owner commands act on the whole store: an identity given to one would be silently
    ignored, so it is refused (exit 2) instead."""
    given = [option for name, option in IDENTITY_OPTIONS if getattr(settings, name)]
    if given:
        raise fail(f"`cogmem {command}` is an owner command: it {what} of the whole store, every tenant "
                   f"included, so it takes no identity; run it without {', '.join(given)} "
                   f"(or unset the matching COGMEM_* variables)", EXIT_USAGE)


@contextlib.contextmanager
def session(ctx: typer.Context, *, owner: tuple[str, str] | None = None) -> Iterator[MemoryStore]:
    """An open store for one command, closed after it, with errors mapped to exit codes.
    `owner=(command, what it does)` marks an owner command, which refuses the identity options."""
    settings = settings_of(ctx)
    if settings.server:  # a command that has no way through the server never opens a local store instead
        refuse_server(ctx, ctx.info_name or "this command",
                      "it works on a local memory home only: run it where the store is, with --home")
    if owner is not None:
        refuse_identity(settings, *owner)
    with handled():
        store = open_store(settings)
        try:
            yield store
        finally:
            store.close()


def agent_of(store: MemoryStore, settings: Settings, thread: str | None = None) -> AgentMemory:
    return store.agent(settings.agent, **settings.identity(thread))


def records_of(store: MemoryStore, settings: Settings) -> AgentRecords:
    """The agent's governance face (`store.records`): what a command that reads, corrects or
    forgets memories by id or filter needs, without loading the read and write paths."""
    return store.records(settings.agent, **settings.identity(None))


@contextlib.contextmanager
def agent_session(ctx: typer.Context) -> Iterator[AgentMemory | RemoteAgent]:
    """The agent a memory command acts as: on a store opened for the command, or, with
    --server, the key's agent on that server (its identity is the key's; the identity
    options are refused rather than silently ignored)."""
    settings = settings_of(ctx)
    if not settings.server:
        with session(ctx) as store:
            yield agent_of(store, settings)
        return
    with remote_session(ctx) as remote:
        yield remote


@contextlib.contextmanager
def remote_session(ctx: typer.Context) -> Iterator[RemoteAgent]:
    """The key's agent on the --server the command names (`agent_session` with --server)."""
    settings = settings_of(ctx)
    if not settings.server:
        raise UsageProblem("this command needs --server")
    server = settings.server
    with handled():
        # An identity is refused from the command line or the environment alike; the store options
        # only when given on the command line (COGMEM_HOME and the like describe the local store, which
        # a command through the server does not open).
        chosen = [flag for flag, value in (("--user", settings.user), ("--thread", settings.thread),
                                           ("--persona", settings.persona), ("--org", settings.org)) if value]
        chosen += [f"--{name}" for name in ("home", "graph", "vectors", "embedder") if name in settings.given]
        if chosen:
            raise UsageProblem(f"{', '.join(chosen)}: with --server the API key decides the identity and the store")
        require_key(settings)
        from cogmem_graph.client import connect

        remote = connect(server, settings.key)
        try:
            yield remote
        finally:
            remote.close()


def require_key(settings: Settings) -> None:
    """With --server, the API key is what the server knows the caller by."""
    if settings.server and not settings.key:
        raise UsageProblem(f"--server {redact_url(settings.server)} needs an API key: pass --key or set "
                           "COGMEM_API_KEY (the server's owner makes one with `cogmem keys add`)")


def one_of(choices: type[StrEnum]) -> str:
    """An option's choices as help text ("episodic, semantic, ..."), which wraps between
    words; the `<episodic|semantic|...>` a choice option shows by default is one long word."""
    return ", ".join(choice.value for choice in choices)


def progress_bars(*, bytes_: bool = False) -> Progress:
    # rich.progress on first use: `stats`, `list` and `get` draw no bar.
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               DownloadColumn() if bytes_ else MofNCompleteColumn(), TimeElapsedColumn()]
    return Progress(*columns, console=err, transient=False)
