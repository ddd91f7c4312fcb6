"""Replay dump: everything a seeded LoCoMo replay returns and stores, byte for byte, to show
that a restructuring changed no behaviour.

One development conversation is replayed session by session on a `ManualClock` with
seeded memory ids: half of each session through `encode_many`, half through `encode`,
`consolidate()` every night. Then its questions are asked through every strategy, with
filters, `as_of`, the timeline, compound and what-is-ahead wording, `multi_hop`, and
`assemble_for_prompt`; last, the whole store is exported (every node and edge). The dump is
JSON with every score rounded to 9 digits. The embedded graph and qdrant-client's local
mode (exact search) are used, with the hash embedder: Qdrant Edge's approximate index is
not repeatable to the last digit from one run to the next.

    python benchmarks/replay_dump.py --out /tmp/now.json          # this tree
    python benchmarks/replay_dump.py --compare 2ac53fa            # this tree beside a revision

`--compare REV` runs this script on REV's package (`git archive`) and on this tree's, each in
a child process with `PYTHONHASHSEED=0`, and says whether the dumps are identical, or where
they first differ.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _seed_ids(seed: int) -> None:
    """Memory ids from a seeded generator (before the package is imported, so every
    `uuid.uuid4()` it makes is one of these)."""
    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


def _result(r: Any) -> dict[str, Any]:
    return {"traces": [(h.trace.id, h.trace.metadata.get("dia_id"), round(h.score, 9),
                        {k: round(v, 9) for k, v in sorted(getattr(h, "signals", {}).items())},
                        list(getattr(h, "sources", ()))) for h in r.traces],
            "partial": [(h.trace.id, round(h.score, 9)) for h in getattr(r, "partial", [])],
            "gated": getattr(r, "gated", None), "strategy": getattr(r, "strategy", None)}


def replay(questions: int) -> dict[str, Any]:
    """The dump of one replay (see the module's docstring)."""
    from locomo import DEFAULT_DATA, load_conversations, turns_of

    import cogmem_graph as cg
    from cogmem_graph.clock import MS_PER_DAY, ManualClock

    conversation = load_conversations(DEFAULT_DATA)[0]
    turns = turns_of(conversation)
    asked = [q["question"] for q in conversation["qa"]][:questions]
    clock = ManualClock(turns[0]["created_at"])
    config = cg.CogmemConfig(vectors={"embedded": "local"}, retrieval={"defer_access_writes": False})
    dump: dict[str, Any] = {"encode": [], "questions": []}
    with tempfile.TemporaryDirectory() as home, \
            cg.open(home=Path(home) / "h", embedder="hash", clock=clock, config=config) as store:
        by_thread: dict[str, list[dict]] = {}
        for t in turns:
            by_thread.setdefault(t["thread"], []).append(t)
        for thread, items in by_thread.items():
            clock.set(max(clock.now_ms(), items[0]["created_at"]))
            agent = store.agent("assistant", user_id="u1", organization_id="o1", thread_id=thread)
            half = len(items) // 2
            written = agent.encode_many([{k: v for k, v in t.items() if k != "thread"} for t in items[:half]])
            written += [agent.encode(t["content"], created_at=t["created_at"], metadata=t["metadata"])
                        for t in items[half:]]
            dump["encode"].append([(m.id, m.category, round(m.encoding_strength, 9), round(m.stability, 3))
                                   for m in written])
            clock.advance(MS_PER_DAY)
            dump["encode"].append(store.consolidate().as_dict() | {"duration_ms": 0, "search_graph_ms": 0})
        reader = store.agent("assistant", user_id="u1", organization_id="o1")
        middle = turns[len(turns) // 2]["created_at"]
        asks = (
            lambda q: reader.retrieve(q, top_k=10),
            lambda q: reader.retrieve(q, top_k=5, record_access=False),
            lambda q: reader.retrieve(q, top_k=10, strategy="dense"),
            lambda q: reader.retrieve(q, top_k=10, strategy="lexical"),
            lambda q: reader.retrieve(q + " and what happened after that?", top_k=7),
            lambda q: reader.multi_hop(q, top_k=10),
            lambda q: reader.retrieve(q, top_k=10, where={"metadata": {"session": 3}}),
            lambda q: reader.retrieve(q, top_k=8, as_of=middle),
            lambda q: reader.retrieve(q, top_k=6, timeline=True),
            lambda q: reader.retrieve("What is coming up about " + q.split()[-1].strip("?") + "?", top_k=10),
        )
        for i, question in enumerate(asked):
            dump["questions"].append([question, i % len(asks), _result(asks[i % len(asks)](question))])
            clock.advance(60_000)
        dump["prompt"] = reader.assemble_for_prompt(asked[0], token_budget=400).text
        exported = io.StringIO()
        store.export(exported)
        dump["store"] = sorted(exported.getvalue().splitlines())
    return dump


def compare(rev: str, questions: int) -> int:
    """This script on REV's package and on this tree's; 0 when the dumps are identical."""
    from latency import revision_tree

    with tempfile.TemporaryDirectory() as scratch:
        trees = {rev: revision_tree(rev, Path(scratch) / "rev"), "this tree": HERE.parent}
        dumps = {}
        for name, tree in trees.items():
            out = Path(scratch) / f"{len(dumps)}.json"
            env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
            done = subprocess.run([sys.executable, __file__, "--out", str(out), "--questions", str(questions)],
                                  env=env, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"the replay on {name} failed:\n{done.stderr[-2000:]}")
            dumps[name] = out.read_text().splitlines()
    before, after = dumps.values()
    if before == after:
        print(f"identical: {len(after):,} lines of dump, {rev} and this tree")
        return 0
    pairs = enumerate(zip(before, after, strict=False))
    line = next((i for i, (a, b) in pairs if a != b), min(len(before), len(after)))
    def at(lines: list[str]) -> str:
        return lines[line][:300] if line < len(lines) else "(end)"
    print(f"different from line {line + 1} of the dump:\n  {rev}: {at(before)}\n  this tree: {at(after)}")
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write this tree's dump here")
    parser.add_argument("--compare", metavar="REV", help="compare this tree's dump with REV's")
    parser.add_argument("--questions", type=int, default=120, help="questions asked (default 120)")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    if args.questions < 1:
        parser.error(f"--questions must be positive, got {args.questions}")
    if (args.out is None) == (args.compare is None):
        parser.error("give one of --out or --compare")
    if args.compare:
        return compare(args.compare, args.questions)
    if os.environ.get("PYTHONHASHSEED") != "0":
        parser.error("run with PYTHONHASHSEED=0 (set sets order their members by it), or use --compare")
    _seed_ids(args.seed)
    args.out.write_text(json.dumps(replay(args.questions), indent=1, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
