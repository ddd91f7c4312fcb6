"""A separate client process of the server tests: one agent's key, one command, JSON out.

    python tests/e2e/_server_client.py URL write   (reads the memories to write as JSON on stdin)
    python tests/e2e/_server_client.py URL recall QUERY
    python tests/e2e/_server_client.py URL get TRACE_ID
    python tests/e2e/_server_client.py URL ingest BATCH   (until the server goes away)

The key comes from COGMEM_API_KEY, as an agent process would get it.
"""

from __future__ import annotations

import json
import os
import random
import sys

import cogmem_graph as cg
from cogmem_graph.client import RequestRejected

WORDS = ("amber basalt cedar delta ember falcon garnet harbor indigo juniper kettle lantern meadow nectar "
         "orchid pepper quartz raven saffron timber umber velvet willow xenon yarrow zephyr").split()


def content_for(index: int) -> str:
    """Item `index`'s text: distinct words, so no two items are near-duplicates."""
    return f"server crash record {index}: " + " ".join(random.Random(index).sample(WORDS, 6))


def ingest(agent: cg.RemoteAgent, batch: int) -> int:
    """Write batches forever, one ACK line per item the server acknowledged."""
    index = 0
    while True:
        items = [{"content": content_for(i), "metadata": {"index": i}} for i in range(index, index + batch)]
        try:
            traces = agent.encode_many(items)
        except Exception as exc:  # the server was killed: stop, saying how the failure was named
            print(f"ERROR {type(exc).__name__}: {exc}", flush=True)
            return 3
        for i, trace in enumerate(traces, start=index):
            print("ACK", trace.id, i, flush=True)
        index += batch


def main() -> int:
    url, command, *rest = sys.argv[1:]
    with cg.connect(url, os.environ["COGMEM_API_KEY"]) as agent:
        if command == "write":
            traces = agent.encode_many(json.load(sys.stdin))
            print(json.dumps([{"id": t.id, "scope_key": t.scope_key} for t in traces]))
        elif command == "recall":
            result = agent.retrieve(rest[0], top_k=20, record_access=False)
            print(json.dumps([{"id": s.trace.id, "content": s.trace.content, "scope_key": s.trace.scope_key}
                              for s in result.traces + result.partial]))
        elif command == "ingest":
            return ingest(agent, int(rest[0]))
        elif command == "get":
            try:
                print(json.dumps({"found": agent.neighbourhood(rest[0])["trace"]["id"]}))
            except RequestRejected as exc:
                print(json.dumps({"status": exc.status}))
        else:
            raise SystemExit(f"unknown command {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
