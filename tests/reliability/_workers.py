"""Child processes of the crash tests: ingest into a memory home and report each
acknowledged encode on stdout, so the parent knows exactly what was promised.

    python tests/reliability/_workers.py ingest HOME [--batch N] [--thread] [--limit N]

Lines written (each flushed at once):
    READY <embedded server pid>
    ACK <trace id> <item index>     one per item of a batch, after encode_many returned
    ERROR <exception type>: <message>   then exit code 3
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from pathlib import Path

WORDS = (
    "amber basalt cedar delta ember falcon garnet harbor indigo juniper kettle lantern meadow "
    "nectar orchid pepper quartz raven saffron timber umber velvet willow xenon yarrow zephyr "
    "anchor bramble canyon dune estuary fjord glacier heather island jasmine kelp lagoon marsh "
    "nutmeg oasis pebble quill reef sierra tundra upland valley walnut yonder zinnia"
).split()


def content_for(index: int) -> str:
    """The text of item `index`: a few words drawn for it, so items are not near-duplicates."""
    rng = random.Random(index)
    return f"crash record {index}: " + " ".join(rng.sample(WORDS, 6))


def ingest(home: Path, batch: int, limit: int) -> int:
    import cogmem_graph as cg
    from cogmem_graph.graph.falkordb.launcher import SERVER_FILE

    store = cg.open(home=home, embedder="hash")
    try:
        server_file = home / "graph" / SERVER_FILE
        print("READY", json.loads(server_file.read_text())["pid"], flush=True)
        agent = store.agent("crash-agent", user_id="u1", thread_id="t1")
        index = 0
        while index < limit:
            items = [{"content": content_for(i), "metadata": {"index": i}} for i in range(index, index + batch)]
            try:
                traces = agent.encode_many(items)
            except Exception as exc:  # the parent checks what failed and how it was named
                print(f"ERROR {type(exc).__name__}: {exc}", flush=True)
                return 3
            for i, trace in enumerate(traces, start=index):
                print("ACK", trace.id, i, flush=True)
            index += batch
        print("DONE", flush=True)
        time.sleep(60)  # stay alive until the parent kills us
        return 0
    finally:
        store.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["ingest"])
    parser.add_argument("home", type=Path)
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--limit", type=int, default=100_000)
    parser.add_argument("--thread", action="store_true",
                        help="open the store from a worker thread (which the server must not die with)")
    args = parser.parse_args(argv)
    if not args.thread:
        return ingest(args.home, args.batch, args.limit)
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(ingest(args.home, args.batch, args.limit)))
    worker.start()
    worker.join()
    return result[0] if result else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
