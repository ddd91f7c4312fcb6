"""Dashboard benchmark: the server time of each `/ui` page at N memories.

    python benchmarks/dashboard_pages.py                 # 10,000 memories, 30 requests a page
    python benchmarks/dashboard_pages.py --traces 500 --repeat 5   # a quick run

One store (embedded backends, hash embedder: the embedding's cost is not what is measured)
holding N memories of one user, a tenth of them tagged and a fifth semantic, consolidated
once, with a reminder; the app as
`cogmem serve` builds it, called in process (starlette's test client: no sockets, so the
time is the server's: routing, session, service calls, the store and the HTML). Each page
is asked `--repeat` times after one warm-up request; p50 and p95 in ms beside the target.

Prints a table; wall-clock times on this machine (benchmarks never assert them).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient
from rich.console import Console
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.server.app import ServerSettings, create_app
from cogmem_graph.server.keys import KeyRing

WORDS = ("deploy invoice garden concert train budget recipe meeting doctor holiday lesson server "
         "football museum tax ticket laptop river coffee hiking").split()
TARGET_MS = 300.0
BATCH = 500
ORIGIN = "http://127.0.0.1"


def fill(agent: cg.AgentMemory, n: int, rng: random.Random) -> list[str]:
    ids: list[str] = []
    for start in range(0, n, BATCH):
        items = [{"content": f"Note {i}: " + " ".join(rng.sample(WORDS, 6)) + f" number {rng.randrange(10_000)}",
                  "type": "semantic" if i % 5 == 0 else "episodic", "tags": ["ops"] if i % 10 == 0 else []}
                 for i in range(start, min(n, start + BATCH))]
        ids += [t.id for t in agent.encode_many(items)]
    return ids


def logged_in(app: object, key: str) -> TestClient:
    client = TestClient(app, base_url=ORIGIN)
    answer = client.post("/ui/login", data={"key": key}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client


def time_page(client: TestClient, path: str, repeat: int) -> tuple[float, float]:
    first = client.get(path)
    assert first.status_code == 200, (path, first.status_code, first.text[:300])
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 200
    ordered = sorted(times)
    return statistics.median(times), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    console = Console()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder, cg.open(home=Path(folder) / "home", embedder="hash") as store:
        agent = store.agent("bench", user_id="u")
        started = time.perf_counter()
        ids = fill(agent, args.traces, rng)
        console.print(f"{len(ids):,} memories written in {time.perf_counter() - started:.1f} s")
        keys = KeyRing(Path(folder) / "keys.json")
        started = time.perf_counter()
        store.consolidate(trigger="benchmark")
        console.print(f"consolidated in {time.perf_counter() - started:.1f} s")
        agent.remind("Bring up the budget meeting", on_keywords=["budget"])
        key, _ = keys.add(agent_id="bench", user_id="u")
        owner, _ = keys.add(role="owner")
        app = create_app(store, keys, ServerSettings(consolidate_every_s=0, rate_per_second=None))
        client, admin = logged_in(app, key), logged_in(app, owner)
        listing = client.get("/ui/memories").text
        cursor = re.search(r'href="/ui/memories\?cursor=([^"&]+)"', listing)
        one = ids[len(ids) // 2]
        pages = [
            ("memories, first page", client, "/ui/memories"),
            ("memories, next page", client, f"/ui/memories?cursor={cursor.group(1)}" if cursor else "/ui/memories"),
            ("memories, type and tag filter", client, "/ui/memories?type=semantic&tags=ops"),
            ("search", client, "/ui/memories?q=deploy+server+budget+meeting"),
            ("a memory", client, f"/ui/memories/{one}"),
            ("forget confirmation", client, f"/ui/memories/{one}/forget"),
            ("a memory's graph (NVL)", client, f"/ui/memories/{one}/graph"),
            ("memories as of a day", client, "/ui/memories?as_of=2030-01-01"),
            ("timeline (first page)", client, "/ui/memories?view=timeline"),
            ("consolidation", client, "/ui/consolidation"),
            ("reminders", client, "/ui/reminders"),
            ("statistics", client, "/ui/stats"),
            ("store health (owner)", admin, "/ui/health"),
            ("consolidation (owner)", admin, "/ui/consolidation"),
            ("statistics (owner)", admin, "/ui/stats"),
        ]
        table = Table(title=f"dashboard pages at {len(ids):,} memories ({args.repeat} requests each)")
        for column in ("page", "p50 ms", "p95 ms", f"under {TARGET_MS:.0f} ms"):
            table.add_column(column, justify="left" if column == "page" else "right")
        for name, who, path in pages:
            p50, p95 = time_page(who, path, args.repeat)
            table.add_row(name, f"{p50:.1f}", f"{p95:.1f}", "yes" if p95 < TARGET_MS else "no")
        console.print(table)


if __name__ == "__main__":
    main()
