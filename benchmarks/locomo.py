"""LoCoMo retrieval benchmark: does the memory find the dialogue turns that answer a question?

For each conversation every turn is encoded (speaker + text, image captions
appended; event time = session date + 30 s x turn index; metadata dia_id; one
thread per session). Then, for every question with evidence, the top k traces
are retrieved and scored: recall@k = |evidence ∩ retrieved dia_ids| / |evidence|,
averaged per category and overall, k in {5, 10, 25, 50}.

Six strategies run on the same store with the same embedder, in the same run:
`lexical` (BM25 only), `dense` (vectors only), `full` (the whole pipeline:
BM25 + dense fused, graph activation, composite scoring; no blending), `multi_hop`
(`agent.multi_hop`: the GraphRAG walk over entities, seeded by the query's
entities and the pipeline's best matches) and `blend` (`full` with multi-hop
candidates blended in for queries naming several entities), all read-only
(`record_access=False`), then `use`: the default `retrieve()` as an application calls
it (reinforcing what it returns), every question once in a shuffled order. The
lifecycle benchmark (`lifecycle.py`) measures the memory with time passing too. The last line
compares recall@10 of the multi-hop category (LoCoMo category 1) across them.

    python benchmarks/locomo.py                          # development data, local MiniLM
    python benchmarks/locomo.py --embedder hash --limit-conversations 1
    python benchmarks/locomo.py --data path/to/locomo10.json
    python benchmarks/locomo.py --strategies lexical,dense,multi_hop
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10, 25, 50)
STRATEGIES = ("lexical", "dense", "full", "multi_hop", "blend", "use")
READ_ONLY = ("lexical", "dense", "full", "multi_hop", "blend")
"""Strategies that leave the memory as it was; `use` (the default retrieve(), which reinforces
what it returns) runs after them, over the questions shuffled, so it cannot change their figures."""
MULTI_HOP = CATEGORIES[1]


def load_conversations(path: Path) -> list[dict]:
    """A folder of per-conversation JSON files, or one JSON list (the upstream locomo10.json)."""
    if path.is_dir():
        return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]
    data = json.loads(path.read_text())
    return data if isinstance(data, list) else [data]


def parse_session_time(text: str) -> int:
    """'1:56 pm on 8 May, 2023' -> epoch ms (UTC)."""
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def turns_of(conversation: dict) -> list[dict]:
    sample = conversation.get("conversation", conversation)
    out = []
    index = 1
    while f"session_{index}" in sample:
        start = parse_session_time(sample[f"session_{index}_date_time"])
        for position, turn in enumerate(sample[f"session_{index}"]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            out.append(
                {
                    "content": text,
                    "created_at": start + 30_000 * position,
                    "metadata": {"dia_id": turn["dia_id"], "session": index},
                    "thread": f"session-{index}",
                }
            )
        index += 1
    return out


def ranked_dia_ids(store: cg.MemoryStore, reader: cg.AgentMemory, question: str, strategy: str,
                   top_k: int) -> list[str | None]:
    """The dialogue ids of what one strategy returns for a question, best first."""
    if strategy == "multi_hop":
        traces = [hit.trace for hit in reader.multi_hop(question, top_k=top_k).traces]
    else:
        cfg = store.config.retrieval
        default = cfg.multi_hop_blend
        cfg.multi_hop_blend = strategy == "blend"  # `full` is the pipeline without blending
        try:
            result = reader.retrieve(question, top_k=top_k, strategy="full" if strategy == "blend" else strategy,
                                     record_access=False)
        finally:
            cfg.multi_hop_blend = default
        traces = [hit.trace for hit in result.traces]
    return [trace.metadata.get("dia_id") for trace in traces]


def evaluate(conversations: list[dict], embedder: str, top_k: int, progress: Progress,
             strategies: tuple[str, ...] = STRATEGIES, seed: int = 7) -> dict:
    """recall[strategy][category][k] -> list of per-question recalls."""
    recall: dict = {s: defaultdict(lambda: defaultdict(list)) for s in strategies}
    questions_total = sum(len([q for q in c["qa"] if q.get("evidence")]) for c in conversations)
    task = progress.add_task("questions", total=questions_total * len(strategies))
    with tempfile.TemporaryDirectory() as home, cg.open(home=home, embedder=embedder) as store:
        for number, conversation in enumerate(conversations):
            user = f"conversation-{number}"
            turns = turns_of(conversation)
            encode_task = progress.add_task(f"encoding conversation {number + 1}", total=len(turns))
            by_thread: dict[str, list[dict]] = defaultdict(list)
            for turn in turns:
                by_thread[turn["thread"]].append(turn)
            for thread, items in by_thread.items():
                agent = store.agent("bench", user_id=user, thread_id=thread)
                agent.encode_many(
                    [
                        {"content": t["content"], "scope": "user", "created_at": t["created_at"],
                         "metadata": t["metadata"], "type": "episodic"}
                        for t in items
                    ]
                )
                progress.advance(encode_task, len(items))
            progress.remove_task(encode_task)
            reader = store.agent("bench", user_id=user)
            for question in conversation["qa"]:
                evidence = set(question.get("evidence") or [])
                if not evidence:
                    continue
                category = CATEGORIES.get(question.get("category"), str(question.get("category")))
                for strategy in (s for s in strategies if s in READ_ONLY):
                    ranked = ranked_dia_ids(store, reader, question["question"], strategy, top_k)
                    _score(recall[strategy], category, evidence, ranked)
                    progress.advance(task)
        if "use" in strategies:
            asked = [(number, q) for number, c in enumerate(conversations) for q in c["qa"] if q.get("evidence")]
            random.Random(seed).shuffle(asked)
            for number, question in asked:
                reader = store.agent("bench", user_id=f"conversation-{number}")
                category = CATEGORIES.get(question.get("category"), str(question.get("category")))
                result = reader.retrieve(question["question"], top_k=top_k)
                _score(recall["use"], category, set(question["evidence"]),
                       [hit.trace.metadata.get("dia_id") for hit in result.traces])
                progress.advance(task)
    return recall


def _score(recall: dict, category: str, evidence: set[str], ranked: list[str | None]) -> None:
    for k in KS:
        found = evidence & set(ranked[:k])
        recall[category][k].append(len(found) / len(evidence))
        recall["overall"][k].append(len(found) / len(evidence))


def table_for(recall: dict) -> Table:
    """One row per category and strategy, recall@k in the columns."""
    strategies = list(recall)
    table = Table(title="LoCoMo retrieval recall@k (questions with evidence)")
    for name in ("category", "strategy", "n", *(f"R@{k}" for k in KS)):
        table.add_column(name, justify="left" if name in ("category", "strategy") else "right")
    first = recall[strategies[0]]
    categories = [c for c in [*CATEGORIES.values(), "overall"] if c in first]
    for category in categories:
        n = len(first[category][KS[0]])
        for index, strategy in enumerate(strategies):
            table.add_row(category if index == 0 else "", strategy, str(n),
                          *(f"{statistics.mean(recall[strategy][category][k]):.3f}" for k in KS),
                          end_section=index == len(strategies) - 1)
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder of conversation JSON files, or one JSON file")
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--limit-questions", type=int, default=None, help="per conversation (smoke runs)")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help=f"comma-separated subset of {', '.join(STRATEGIES)}")
    args = parser.parse_args(argv)
    strategies = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        sys.exit(f"--strategies: unknown {unknown or 'empty'}; choose from {', '.join(STRATEGIES)}")
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}: pass --data")
    conversations = load_conversations(args.data)[: args.limit_conversations]
    if args.limit_questions is not None:
        for c in conversations:
            c["qa"] = [q for q in c["qa"] if q.get("evidence")][: args.limit_questions]
    console = Console(width=200)
    with Progress(console=console, transient=True) as progress:
        recall = evaluate(conversations, args.embedder, max(KS), progress, strategies)
    console.print(table_for(recall))
    overall = {s: {k: statistics.mean(recall[s]["overall"][k]) for k in KS} for s in strategies}
    baselines = [s for s in ("lexical", "dense") if s in strategies]
    if baselines and "full" in strategies:
        best_baseline = max(overall[s][10] for s in baselines)
        console.print(
            f"embedder {args.embedder}: full R@10 {overall['full'][10]:.3f} vs best baseline {best_baseline:.3f} "
            f"(lift {overall['full'][10] - best_baseline:+.3f})"
        )
    if MULTI_HOP in recall[strategies[0]]:
        at10 = {s: statistics.mean(recall[s][MULTI_HOP][10]) for s in strategies}
        console.print(f"embedder {args.embedder}: {MULTI_HOP} category R@10 " +
                      ", ".join(f"{s} {v:.3f}" for s, v in at10.items()))
    return overall


if __name__ == "__main__":
    main()
