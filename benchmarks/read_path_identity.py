"""Read path identity dump: what `retrieve` returns for a fixed store, every float in full,
to show that a change to the read path's code changed none of its answers.

One LoCoMo conversation (a few hundred turns) is encoded on a `ManualClock` with seeded
memory ids and the hash embedder, then consolidated once. Its questions are asked read-only
(`record_access=False`) through the full pipeline, with a few variants (compound, a filter,
`as_of`, the timeline, `multi_hop`, the plain strategies), and last a few with the default
(access recorded, so later answers see the writes). For each answer the dump holds the ranked
ids, scores, signals, sources and score composition (`ScoredTrace.composition`), the
partials and feeling-of-knowing. Qdrant's local mode (exact search) keeps the vector side
repeatable; the dump is JSON, floats as `repr` gives them.

    PYTHONHASHSEED=0 python benchmarks/read_path_identity.py --out /tmp/before.json
    ... change the code ...
    PYTHONHASHSEED=0 python benchmarks/read_path_identity.py --out /tmp/after.json
    cmp /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _seed_ids(seed: int) -> None:
    """Memory ids from a seeded generator (before the package is imported)."""
    rng = random.Random(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)


def _scored(h: Any) -> dict[str, Any]:
    composition = getattr(h, "composition", None)
    return {"id": h.trace.id, "score": h.score, "signals": dict(sorted(getattr(h, "signals", {}).items())),
            "sources": list(getattr(h, "sources", ())),
            "composition": asdict(composition) if composition is not None else None}


def _result(r: Any) -> dict[str, Any]:
    return {"traces": [_scored(h) for h in r.traces], "partial": [_scored(h) for h in getattr(r, "partial", [])],
            "fok": [repr(s) for s in getattr(r, "feeling_of_knowing", [])],
            "gated": getattr(r, "gated", None), "strategy": getattr(r, "strategy", None),
            "intent": getattr(r, "intent", None), "parts": list(getattr(r, "parts", ()) or ())}


def dump(conversation_index: int, questions: int, recorded: int) -> dict[str, Any]:
    from locomo import DEFAULT_DATA, load_conversations, turns_of

    import cogmem_graph as cg
    from cogmem_graph.clock import MS_PER_DAY, ManualClock

    conversation = load_conversations(DEFAULT_DATA)[conversation_index]
    turns = turns_of(conversation)
    asked = [q["question"] for q in conversation["qa"]][: questions + recorded]
    clock = ManualClock(turns[0]["created_at"])
    config = cg.CogmemConfig(vectors={"embedded": "local"}, retrieval={"defer_access_writes": False})
    out: dict[str, Any] = {"memories": len(turns), "questions": []}
    with tempfile.TemporaryDirectory() as home, \
            cg.open(home=Path(home) / "h", embedder="hash", clock=clock, config=config) as store:
        writer = store.agent("assistant", user_id="u1", organization_id="o1")
        for start in range(0, len(turns), 100):
            writer.encode_many([{k: v for k, v in t.items() if k != "thread"} for t in turns[start:start + 100]])
        clock.set(turns[-1]["created_at"] + MS_PER_DAY)
        out["consolidation"] = store.consolidate().as_dict() | {"duration_ms": 0, "search_graph_ms": 0}
        reader = store.agent("assistant", user_id="u1", organization_id="o1")
        middle = turns[len(turns) // 2]["created_at"]
        variants = (
            lambda q: reader.retrieve(q, top_k=10, record_access=False),
            lambda q: reader.retrieve(q, top_k=5, record_access=False),
            lambda q: reader.retrieve(q + " and what happened after that?", top_k=7, record_access=False),
            lambda q: reader.retrieve(q, top_k=10, record_access=False, where={"metadata": {"session": 3}}),
            lambda q: reader.retrieve(q, top_k=8, record_access=False, as_of=middle),
            lambda q: reader.retrieve(q, top_k=6, record_access=False, timeline=True),
            lambda q: reader.retrieve("What is coming up about " + q.split()[-1].strip("?") + "?", top_k=10,
                                      record_access=False),
            lambda q: reader.multi_hop(q, top_k=10),
            lambda q: reader.retrieve(q, top_k=10, strategy="dense", record_access=False),
            lambda q: reader.retrieve(q, top_k=10, strategy="lexical", record_access=False),
        )
        for i, question in enumerate(asked[:questions]):
            out["questions"].append([question, i % len(variants), _result(variants[i % len(variants)](question))])
        for question in asked[questions:]:  # the default: access recorded, later answers see it
            out["questions"].append([question, "recorded", _result(reader.retrieve(question, top_k=10))])
            clock.advance(60_000)
        for question in asked[:3]:  # asked again after the writes
            out["questions"].append([question, "again", _result(reader.retrieve(question, top_k=10,
                                                                                record_access=False))])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="write the dump here")
    parser.add_argument("--conversation", type=int, default=0, help="which LoCoMo conversation (default the first)")
    parser.add_argument("--questions", type=int, default=100, help="questions asked read-only (default 100)")
    parser.add_argument("--recorded", type=int, default=8, help="questions asked with access recorded (default 8)")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        parser.error("run with PYTHONHASHSEED=0 (sets order their members by it)")
    _seed_ids(args.seed)
    args.out.write_text(json.dumps(dump(args.conversation, args.questions, args.recorded), indent=1,
                                   sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
