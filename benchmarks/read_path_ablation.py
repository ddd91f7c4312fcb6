"""Read-path ablation: recall@10 by LoCoMo category with each query-reading feature on and off.

The development conversations are encoded once (every turn at once, as `lifecycle.py`'s
`static` row); then every variant answers every question read-only
(`retrieve(record_access=False)`) on that same memory, so the rows differ only in the
read path. A variant is `default` with settings changed, as in `lifecycle.py`:
`default+retrieval.query.mmr_lambda=1`. This is a diagnostic beside the lifecycle table
(which measures the chosen default as the memory is used), not a headline.

`--memory life` asks the same on the memory as it was lived instead: each conversation
replayed session by session at its dates with nightly consolidation (`lifecycle.py`'s
`life` row, dormant memories and all), the variants asked read-only one day after the last
session, then the default asked once more through the default `retrieve()` (which
reinforces what it returns), shuffled: the `life` figure itself.

    python benchmarks/read_path_ablation.py                     # the standard variants, MiniLM
    python benchmarks/read_path_ablation.py --memory life       # on the lived memory (~15 min)
    python benchmarks/read_path_ablation.py --variants default,default+retrieval.query.decompose=false
    python benchmarks/read_path_ablation.py --embedder hash --limit-conversations 1
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.language.query_gate import skips_retrieval

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lifecycle import HALVES, encode_turns, half_of, live, preset_config, questions_of  # noqa: E402
from locomo import CATEGORIES, DEFAULT_DATA, load_conversations, turns_of  # noqa: E402

Q = "retrieval.query"
VARIANTS: dict[str, str] = {
    "default": "default",
    "no query reading (all off)": f"default+{Q}.intent_routing=false+{Q}.decompose=false+{Q}.mmr_lambda=1",
    "no intent routing": f"default+{Q}.intent_routing=false",
    "no decomposition": f"default+{Q}.decompose=false",
    "MMR λ 0.7 (the reference)": f"default+{Q}.mmr_lambda=0.7",
    "MMR λ 0.5": f"default+{Q}.mmr_lambda=0.5",
    "validity: expired memories kept current": "default+validity.current_state=false",
    "no preference boost": f"default+{Q}.intents.preference.category_boost=0",
    "temporal: superseded at own rank off": f"default+{Q}.intents.temporal.include_superseded=false",
    "temporal: HyDE": f"default+{Q}.intents.temporal.hyde=true",
    "factual: HyDE": f"default+{Q}.intents.factual.hyde=true",
    "all intents: HyDE": "default" + "".join(f"+{Q}.intents.{i}.hyde=true" for i in (
        "factual", "temporal", "causal", "entity_profile", "preference")),
    "no dense floor": "default+retrieval.dense_floor=0",
    "dense floor 0.5": "default+retrieval.dense_floor=0.5",
    "dense floor 0.9": "default+retrieval.dense_floor=0.9",
    "other speakers not discounted": f"default+{Q}.other_speaker_discount=0",
    "speakers a question does not name not discounted": f"default+{Q}.unnamed_speaker_discount=0",
}
TOP_K = 10
ALL_EVIDENCE = "multi-hop all@10"
"""The share of multi-hop questions with every evidence turn in the top TOP_K."""


Hit = tuple[float, bool]
"""A returned memory's score and whether it is one of the question's evidence turns."""


def evaluate(store: cg.MemoryStore, conversations: dict[int, dict], limit_q: int | None, *,
             record_access: bool = False, seed: int | None = None, total: int | None = None,
             ) -> tuple[dict[str, list[float]], list[tuple[int, list[Hit]]]]:
    """R@TOP_K per category (and per half of the development split, as "category|half"),
    and per question its evidence count and returned hits. `conversations` maps each
    conversation's number (its user id) to it, of `total` in the split; `seed` shuffles
    the questions."""
    recall: dict[str, list[float]] = defaultdict(list)
    hits: list[tuple[int, list[Hit]]] = []
    for number, conversation in conversations.items():
        reader = store.agent("bench", user_id=f"conversation-{number}")
        questions = questions_of(conversation, limit_q)
        if seed is not None:
            random.Random(seed + number).shuffle(questions)
        for q in questions:
            category = CATEGORIES.get(q.get("category"), str(q.get("category")))
            result = reader.retrieve(q["question"], top_k=TOP_K, record_access=record_access)
            evidence = set(q["evidence"])
            returned = [(hit.score, hit.trace.metadata.get("dia_id") in evidence) for hit in result.traces]
            found = {hit.trace.metadata.get("dia_id") for hit in result.traces}
            value = len(evidence & found) / len(evidence)
            half = half_of(number, total or len(conversations))
            for key in (category, "overall") + ((ALL_EVIDENCE,) if category == "multi-hop" else ()):
                score = float(value == 1.0) if key == ALL_EVIDENCE else value
                recall[key].append(score)
                recall[f"{key}|{half}"].append(score)
            hits.append((len(evidence), returned))
    return recall, hits


def halves_table(results: dict[str, dict[str, float]], memory: str) -> Table:
    """Overall, multi-hop and all-evidence R@TOP_K of each variant on each half of the
    development split: a change tuned on one half must hold on the other."""
    table = Table(title=f"By half of the split ({memory} memory): R@{TOP_K} overall / multi-hop / {ALL_EVIDENCE}")
    table.add_column("variant")
    for half in HALVES:
        table.add_column(half, justify="right")
    for name, r in results.items():
        table.add_row(name, *(" / ".join(f"{r[f'{c}|{half}']:.3f}" if f"{c}|{half}" in r else "-"
                                         for c in ("overall", "multi-hop", ALL_EVIDENCE)) for half in HALVES))
    return table


def injection_table(hits: list[tuple[int, list[Hit]]]) -> Table:
    """What confidence-gated injection would put in a prompt of the default variant's top
    TOP_K: evidence shown (whole or abbreviated), evidence shown whole, memories shown, and
    the share of what is shown that is evidence, for the gate off and for thresholds around
    the reference's (full ≥ 0.7, abbreviated ≥ 0.4)."""
    table = Table(title=f"Confidence-gated injection over the default top {TOP_K} (read-only)")
    for name in ("gate", "evidence shown", "evidence whole", "memories shown / question", "shown that is evidence"):
        table.add_column(name, justify="left" if name == "gate" else "right")
    for label, full_at, shown_at in (("off", 0.0, 0.0), ("reference: 0.7 / 0.4", 0.7, 0.4),
                                     ("0.5 / 0.25", 0.5, 0.25), ("0.4 / 0.2", 0.4, 0.2)):
        shown = [[(s, e) for s, e in returned if s >= shown_at] for _, returned in hits]
        evidence_shown = statistics.mean(sum(e for _, e in kept) / n for (n, _), kept in zip(hits, shown, strict=True))
        whole = statistics.mean(sum(e for s, e in returned if s >= full_at) / n for n, returned in hits)
        count = sum(len(kept) for kept in shown)
        precision = sum(e for kept in shown for _, e in kept) / max(1, count)
        table.add_row(label, f"{evidence_shown:.3f}", f"{whole:.3f}", f"{count / len(hits):.1f}", f"{precision:.3f}")
    return table


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--variants", default=None,
                        help="comma-separated variant specs (default: the standard list in this file)")
    parser.add_argument("--memory", choices=("static", "life"), default="static",
                        help="static: every turn encoded at once; life: replayed at its dates, consolidated nightly")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--limit-questions", type=int, default=None, help="per conversation")
    args = parser.parse_args(argv)
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}: pass --data")
    variants = VARIANTS if args.variants is None else {v: v for v in args.variants.split(",") if v.strip()}
    configs = {name: preset_config(spec) for name, spec in variants.items()}  # bad specs fail first
    conversations = load_conversations(args.data)[: args.limit_conversations]
    console = Console(width=200)
    recalls: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    default_hits: list[tuple[int, list[Hit]]] = []

    def ask_all(store: cg.MemoryStore, chosen: dict[int, dict]) -> None:
        for name, config in configs.items():
            store.config.retrieval = config.retrieval  # only the read path differs between rows
            store.config.validity = config.validity
            recall, hits = evaluate(store, chosen, args.limit_questions, total=len(conversations))
            for category, values in recall.items():
                recalls[name][category] += values
            if name == "default":
                default_hits.extend(hits)
            progress.advance(task)

    with Progress(console=console, transient=True) as progress:
        if args.memory == "static":
            clock = ManualClock(int(time.time() * 1000))
            with tempfile.TemporaryDirectory() as home, \
                    cg.open(home=home, embedder=args.embedder, clock=clock) as store:
                task = progress.add_task("encoding the conversations", total=len(conversations))
                for number, conversation in enumerate(conversations):
                    user = f"conversation-{number}"
                    encode_turns(lambda thread, user=user: store.agent("bench", user_id=user, thread_id=thread),
                                 turns_of(conversation))
                    progress.advance(task)
                progress.remove_task(task)
                task = progress.add_task("variants", total=len(configs))
                ask_all(store, dict(enumerate(conversations)))
        else:
            task = progress.add_task("living each conversation, then the variants",
                                     total=len(configs) * len(conversations))
            for number, conversation in enumerate(conversations):
                clock = ManualClock(min(t["created_at"] for t in turns_of(conversation)))
                with tempfile.TemporaryDirectory() as home, \
                        cg.open(home=home, embedder=args.embedder, clock=clock) as store:
                    live(store, clock, conversation, f"conversation-{number}")
                    ask_all(store, {number: conversation})
                    store.config.retrieval = configs.get("default", preset_config("default")).retrieval
                    recall, _ = evaluate(store, {number: conversation}, args.limit_questions, record_access=True,
                                         seed=7, total=len(conversations))
                    for category, values in recall.items():
                        recalls["default, asked with retrieve() (the life figure)"][category] += values
    results = {name: {c: statistics.mean(v) for c, v in r.items()} for name, r in recalls.items()}
    categories = [c for c in (*CATEGORIES.values(), "overall", ALL_EVIDENCE) if any(c in r for r in results.values())]
    table = Table(title=f"Read-path ablation: LoCoMo R@{TOP_K} by category, {args.memory} memory, read-only, "
                        f"embedder {args.embedder}")
    table.add_column("variant")
    for c in categories:
        table.add_column(c, justify="right")
    table.add_column("Δ overall vs default", justify="right")
    base = results.get("default", {}).get("overall")
    for name, r in results.items():
        delta = "" if base is None or name == "default" else f"{r['overall'] - base:+.3f}"
        table.add_row(name, *(f"{r[c]:.3f}" if c in r else "-" for c in categories), delta)
    console.print(table)
    console.print(halves_table(results, args.memory))
    if default_hits:
        console.print(injection_table(default_hits))
    console.print(gate_report(conversations))
    return results


def gate_report(conversations: list[dict]) -> str:
    """How much of the conversations the pre-retrieval gate would skip, and that it skips no
    question with evidence (turns are gated on their text, without the speaker's name)."""
    turns = [t["content"].split(": ", 1)[-1].split(" [shares a photo:")[0] for c in conversations for t in turns_of(c)]
    questions = [q["question"] for c in conversations for q in questions_of(c, None)]
    gated = [t for t in turns if skips_retrieval(t)]
    wrong = [q for q in questions if skips_retrieval(q)]
    examples = ", ".join(repr(t) for t in list(dict.fromkeys(gated))[:8])
    return (f"Pre-retrieval gate: {len(gated)} of {len(turns)} turns gated ({len(gated) / max(1, len(turns)):.1%}; "
            f"e.g. {examples}); {len(wrong)} of {len(questions)} questions with evidence gated")


if __name__ == "__main__":
    main()
