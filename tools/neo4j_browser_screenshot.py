"""Make the README's Neo4j Browser screenshot, `docs/images/neo4j-browser.png`, the way
`tests/e2e/test_neo4j_browser.py` checks it: a small memory on Neo4j (five traces sharing
entities, one corrected, the correction retrieved), then headless Chromium opens the Browser the
server serves, connects with its form, `:play`s `cypher/browser/guide.html` (served from
loopback), applies `cypher/browser/style.grass` with `:style`, sets `$traceId` and `$scopeKeys`
with `:param` and runs `cypher/browser/trace_neighbourhood.cypher`; the picture is the result
frame. Offline: Chromium resolves no name but localhost and 127.0.0.1.

It EMPTIES the database it is pointed at, so it asks for `--clear`. A fresh server for the run:

    .venv/bin/python tools/neo4j/server.py run --dir .neo4j/shot -- \\
        .venv/bin/python tools/neo4j_browser_screenshot.py --clear

or, beside `make neo4j-up`: `. .neo4j/server/env` and the same command. The server comes from
COGMEM_TEST_NEO4J_URI (Bolt), COGMEM_TEST_NEO4J_HTTP (its HTTP root), NEO4J_USER and
NEO4J_PASSWORD, or --bolt and --http. Needs Chromium (`make browser-tools`).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cogmem_graph as cg  # noqa: E402 - after the repository joins the path
from tests.e2e.neo4j_browser import (  # noqa: E402
    Neo4jBrowser,
    find_chromium,
    saved_statement,
    seed,
    serve_browser_folder,
    set_up,
)

TARGET = ROOT / "docs" / "images" / "neo4j-browser.png"


@contextlib.contextmanager
def held(bolt_uri: str) -> Iterator[None]:
    """The lock the test suite's `neo4j_uri` fixture (tests/conftest.py) takes on this server's
    one database, so a run of the suite and this script take turns."""
    digest = hashlib.sha256(bolt_uri.encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"cogmem-test-neo4j-{digest}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bolt", default=os.environ.get("COGMEM_TEST_NEO4J_URI"),
                        help="the server's Bolt URI (default: $COGMEM_TEST_NEO4J_URI)")
    parser.add_argument("--http", default=os.environ.get("COGMEM_TEST_NEO4J_HTTP"),
                        help="the server's HTTP root, Browser under /browser/ (default: $COGMEM_TEST_NEO4J_HTTP)")
    parser.add_argument("--out", type=Path, default=TARGET,
                        help=f"the PNG to write (default: {TARGET.relative_to(ROOT)})")
    parser.add_argument("--clear", action="store_true", help="agree that the server's database is emptied first")
    parser.add_argument("--layouts", type=int, default=4,
                        help="run the query this many times and keep the layout whose nodes are drawn largest "
                             "(Browser's force layout is random, and zooms out to fit a node thrown far out)")
    args = parser.parse_args(argv)
    if not args.bolt or not args.http:
        parser.error("no Neo4j server: set COGMEM_TEST_NEO4J_URI and COGMEM_TEST_NEO4J_HTTP (`. .neo4j/server/env` "
                     "after `make neo4j-up`) or pass --bolt and --http")
    if not args.clear:
        parser.error(f"this empties the database at {args.bolt}; run again with --clear if that is what you want")
    binary = find_chromium()
    if binary is None:
        parser.error("no `chromium` on PATH (`make browser-tools` installs Debian's chromium package)")
    user, password = os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", "")

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cogmem-browser-shot-") as scratch, held(args.bolt):
        folder = Path(scratch)
        with cg.open(home=folder / "home", graph=args.bolt, embedder="hash") as store:
            store.graph.clear()
            store.graph.setup_schema()
            seeded = seed(store)
        browser = Neo4jBrowser(binary, folder / "profile")
        try:
            with serve_browser_folder() as guide_base:
                _, graph = set_up(browser, guide_base, args.http, args.bolt, user, password, seeded)
            best, shot = 0.0, folder / "shot.png"
            for attempt in range(max(1, args.layouts)):
                if attempt:
                    browser.run(saved_statement("trace_neighbourhood"))
                    graph = browser.graph(nodes=4)
                size = min(node["box"]["width"] for node in graph.nodes)
                if size > best:
                    best = size
                    browser.screenshot(shot, graph.frame)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_bytes(shot.read_bytes())
            asked, loaded = browser.outside_requests()
        finally:
            browser.close()
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.monotonic() - started:.0f} s: "
          f"{graph.status} {len(asked)} requests outside loopback were refused, {len(loaded)} answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
