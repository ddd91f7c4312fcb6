"""Prompt evidence: how much of what answers a LoCoMo question reaches the assembled prompt, and
at what cost in tokens, for this checkout beside another revision of the library.

For each development conversation every turn is encoded as `locomo.py` does (speaker + text,
event time = session date + 30 s x turn index, dia_id in the metadata, one thread per
session). Then, for every question with evidence, `assemble_for_prompt(question)` builds the
prompt (default budget and top_k unless told otherwise) and we count:

- `retrieved`: evidence turns among the memories the prompt was built from (`trace_ids`);
- `whole`: evidence turns whose whole text is in the prompt;
- `reached`: evidence turns whose text reaches the prompt at least in part (its first 40
  characters, or all of it when shorter: what a cut item keeps);
- `tokens`: the prompt's tokens (`tokens_used`, ~4 characters each).

Each (revision, conversation) runs in its own process, the other revision's from its source
tree on PYTHONPATH (`--base`, e.g. a `git worktree add /tmp/wt-prompt-base HEAD`), the two
interleaved conversation by conversation (which one goes first alternates) so that a busy
machine weighs on both alike. The first two conversations are the tuning split, the other two
the confirming split, reported apart.

The clock stands one day after the last turn and each access write completes before the next
question, so a run repeats exactly. Each question is asked by a fresh agent handle (an empty
working memory: the prompt holds what this question retrieved); `--session` asks a
conversation's questions in order through one handle, as a chat would, so Active Context also
carries the previous questions' memories.

    python benchmarks/prompt_evidence.py --base /tmp/wt-prompt-base             # hash embedder, all questions
    python benchmarks/prompt_evidence.py --base /tmp/wt-prompt-base --limit-questions 40 --embedder local
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo"
SPLITS = (("tuning", (0, 1)), ("confirming", (2, 3)))
REACH_CHARS = 40
"""A turn reaches the prompt when this many of its first characters (or all, if shorter) are in it."""


def _flat(text: str) -> str:
    return " ".join(text.split())


def run_worker(args: argparse.Namespace) -> None:
    """One conversation on one revision (whichever `cogmem_graph` the interpreter imports):
    per-question counts as JSON on stdout."""
    sys.path.insert(0, str(HERE))
    from locomo import load_conversations, turns_of

    import cogmem_graph as cg
    from cogmem_graph.clock import ManualClock

    conversation = load_conversations(Path(args.data))[args.conversation]
    turns = turns_of(conversation)
    questions = [q for q in conversation["qa"] if q.get("evidence")]
    if args.limit_questions:
        questions = questions[: args.limit_questions]
    out: dict = {"library": str(Path(cg.__file__).resolve().parent), "questions": []}
    # The same run twice gives the same figures: the questions are asked one day after the last
    # turn on a clock that stands still, and each waits for the access write of the one before.
    clock = ManualClock(max(t["created_at"] for t in turns) + 86_400_000)
    config = cg.CogmemConfig()
    config.retrieval.defer_access_writes = False
    with tempfile.TemporaryDirectory() as home, \
            cg.open(home=home, embedder=args.embedder, clock=clock, config=config) as store:
        user = f"conversation-{args.conversation}"
        started = time.perf_counter()
        by_thread: dict[str, list[dict]] = defaultdict(list)
        for turn in turns:
            by_thread[turn["thread"]].append(turn)
        dia_of: dict[str, str] = {}
        for thread, items in by_thread.items():
            agent = store.agent("bench", user_id=user, thread_id=thread)
            traces = agent.encode_many([{"content": t["content"], "scope": "user", "created_at": t["created_at"],
                                         "metadata": t["metadata"], "type": "episodic"} for t in items])
            dia_of.update({trace.id: trace.metadata.get("dia_id") for trace in traces})
        out["encode_seconds"] = time.perf_counter() - started
        out["contradicts_edges"] = store.stats().edges_by_type.get("CONTRADICTS", 0)
        text_of = {t["metadata"]["dia_id"]: _flat(t["content"]) for t in turns}
        session = store.agent("bench", user_id=user) if args.session else None
        started = time.perf_counter()
        for q in questions:
            reader = session or store.agent("bench", user_id=user)
            ctx = reader.assemble_for_prompt(q["question"], token_budget=args.budget, top_k=args.top_k)
            prompt = _flat(ctx.text)
            evidence = [d for d in dict.fromkeys(q["evidence"]) if d in text_of]
            retrieved = {dia_of.get(tid) for tid in ctx.trace_ids}
            out["questions"].append({
                "evidence": len(evidence),
                "retrieved": sum(d in retrieved for d in evidence),
                "whole": sum(text_of[d] in prompt for d in evidence),
                "reached": sum(text_of[d][:REACH_CHARS] in prompt for d in evidence),
                "tokens": ctx.tokens_used,
                "outdated": ctx.text.count("(outdated:"),
                "shown_twice": _shown_twice(prompt, [text_of[dia_of[t]] for t in ctx.trace_ids if t in dia_of]),
            })
        out["question_seconds"] = time.perf_counter() - started
    json.dump(out, sys.stdout)


def _shown_twice(prompt: str, texts: list[str]) -> int:
    """Retrieved turns whose text the prompt holds more than once."""
    return sum(prompt.count(t) > 1 for t in dict.fromkeys(texts) if len(t) >= REACH_CHARS)


def _run(revision: str, source: Path, conversation: int, args: argparse.Namespace) -> dict:
    env = dict(os.environ, PYTHONPATH=str(source))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--conversation", str(conversation),
           "--data", str(args.data), "--embedder", args.embedder, "--budget", str(args.budget),
           "--top-k", str(args.top_k), "--limit-questions", str(args.limit_questions or 0)]
    if args.session:
        cmd.append("--session")
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{revision} on conversation {conversation} failed:\n{done.stderr[-4000:]}")
    result = json.loads(done.stdout)
    expected = (source / "cogmem_graph").resolve()
    if Path(result["library"]) != expected:
        raise SystemExit(f"{revision} imported {result['library']}, not {expected}")
    return result


def _row(results: list[dict]) -> dict:
    qs = [q for r in results for q in r["questions"]]
    evidence = sum(q["evidence"] for q in qs)
    tokens = [q["tokens"] for q in qs]
    reached = sum(q["reached"] for q in qs)
    return {
        "questions": len(qs), "evidence": evidence,
        "retrieved": sum(q["retrieved"] for q in qs), "whole": sum(q["whole"] for q in qs), "reached": reached,
        "tokens_mean": statistics.mean(tokens) if tokens else 0.0,
        "tokens_median": statistics.median(tokens) if tokens else 0.0,
        "tokens_per_reached": sum(tokens) / reached if reached else float("nan"),
        "outdated": sum(q["outdated"] for q in qs), "shown_twice": sum(q["shown_twice"] for q in qs),
        "contradicts": sum(r["contradicts_edges"] for r in results),
        "encode_s": sum(r["encode_seconds"] for r in results),
        "ask_ms": 1000 * sum(r["question_seconds"] for r in results) / max(1, len(qs)),
    }


def _table(rows: dict[tuple[str, str], dict]) -> str:
    head = ("split", "revision", "questions", "evidence", "retrieved", "whole", "reached", "tokens mean",
            "tokens median", "tokens/reached", "shown twice", "outdated marks", "CONTRADICTS", "encode s", "ms/prompt")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for (split, revision), r in rows.items():
        lines.append(" | ".join(str(v) for v in (
            split, revision, r["questions"], r["evidence"], r["retrieved"], r["whole"], r["reached"],
            f"{r['tokens_mean']:.1f}", f"{r['tokens_median']:.0f}", f"{r['tokens_per_reached']:.1f}",
            r["shown_twice"], r["outdated"], r["contradicts"], f"{r['encode_s']:.1f}", f"{r['ask_ms']:.0f}")))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, default=Path("/tmp/wt-prompt-base"),
                        help="source tree of the revision to compare with (a git worktree)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", default="hash", help="hash (fast) or local (MiniLM)")
    parser.add_argument("--budget", type=int, default=1000, help="token_budget of each prompt")
    parser.add_argument("--top-k", type=int, default=20, help="top_k of each prompt (assemble_for_prompt's default)")
    parser.add_argument("--limit-questions", type=int, default=0,
                        help="first N questions with evidence per conversation")
    parser.add_argument("--limit-conversations", type=int, default=4)
    parser.add_argument("--session", action="store_true", help="one agent handle per conversation")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--conversation", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args)
        return
    if not (args.base / "cogmem_graph").is_dir():
        raise SystemExit(f"--base {args.base} holds no cogmem_graph package (git worktree add {args.base} HEAD)")
    revisions = {"base": args.base.resolve(), "this": REPO}
    per: dict[tuple[str, int], dict] = {}
    for conversation in range(args.limit_conversations):
        order = list(revisions) if conversation % 2 == 0 else list(reversed(revisions))
        for revision in order:
            started = time.perf_counter()
            per[(revision, conversation)] = _run(revision, revisions[revision], conversation, args)
            print(f"conversation {conversation} on {revision}: {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
    rows = {}
    for split, members in SPLITS:
        for revision in revisions:
            results = [per[(revision, c)] for c in members if (revision, c) in per]
            if results:
                rows[(split, revision)] = _row(results)
    mode = "one handle per conversation" if args.session else "a fresh handle per question"
    print(f"\nPrompt evidence on LoCoMo dev data: embedder {args.embedder}, budget {args.budget}, "
          f"top_k {args.top_k}, {mode}; base = {args.base}\n")
    print(_table(rows))
    if args.json:
        args.json.write_text(json.dumps({f"{s}/{r}": v for (s, r), v in rows.items()}, indent=2))


if __name__ == "__main__":
    main()
