"""The `cogmem` command.

Global options choose the store (an embedded home, or production URLs) and the
agent identity; each can also come from the environment (`COGMEM_HOME`,
`COGMEM_GRAPH`, `COGMEM_VECTORS`, `COGMEM_EMBEDDER`, `COGMEM_AGENT`,
`COGMEM_USER`, `COGMEM_THREAD`, `COGMEM_PERSONA`, `COGMEM_ORG`).

Exit codes: 0 success; 1 a runtime or backend error (the message names the URL
or what to start); 2 a usage error or bad input (bad option, missing or
malformed file). Errors are one line on stderr, without a traceback
(`COGMEM_DEBUG=1` shows it). Data goes to stdout, progress to stderr.

One module per group of commands, all registering on the one `app` of
`cogmem_graph.cli.app`; `invocation` holds what one run of a command needs (settings,
the store it opens, how its errors end it), `readers` the ingest file formats,
`help_layout` how `--help` is laid out. Heavy modules are imported inside the commands,
so `--help` stays fast.

The CLI sits above the facade: a command opens a store (`cg.open`) or, with `--server`,
an agent handle on a server (`cg.connect`); below the facade it imports only the write
path's request model and batch encoder, for `cogmem ingest`.
"""

from __future__ import annotations

# Importing a command module registers its commands on `app`; the order of
# these imports is the order `cogmem --help` lists the commands in.
# isort: off
from cogmem_graph.cli import demo, memory, governance, maintenance, portable, server, viz  # noqa: F401
# isort: on
from cogmem_graph.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    app()
