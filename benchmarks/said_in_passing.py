"""Facts said in passing: is a fact mentioned inside a turn about something else still found months later?

People rarely announce a fact on its own line: "Ugh, the ring road again, an hour to get
in. Oh, my gym locker is number 38 by the way." Each fact of `passing_facts_set.py` is one
such turn, small talk first and the fact in its second or third sentence, said once on a day
spread over the first `--fact-span` days; every day the user also has `--filler-per-day` turns
of other conversation (LoCoMo development turns), and `store.consolidate()` runs every night
on a `ManualClock`. After `--days` days each question is asked once, in other words than the
turn's, in a shuffled order, through `retrieve(question, top_k=5)` as an application calls it
(it reinforces what it returns). A hit: the turn is among those 5.

For each miss: the turn's rank in a read-only top 50, its state (active, dormant, gone), its
category, whether its text still holds the answer (a gist may have dropped it) and what came
first instead. Beside the lived memory, in the same run: the same turns encoded at once with
the clock frozen, asked read-only through the full pipeline and through the dense search
alone (`strategy="dense"`), so a miss of the lived memory shows whether retention or the
retriever lost it.

The facts are split in two halves, `tune` and `confirm`, alternating within each kind.

    python benchmarks/said_in_passing.py                          # MiniLM, default preset, 180 days
    python benchmarks/said_in_passing.py --embedder hash --days 30 --fact-span 20 --filler-per-day 3
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock
from cogmem_graph.language.memory_kind import durable_sentences

sys.path.insert(0, str(Path(__file__).resolve().parent))
import durable_facts  # noqa: E402
from durable_facts import score  # noqa: E402
from lifecycle import EMBEDDED, consolidate_nights, day_start, filler_turns, open_store  # noqa: E402
from locomo import DEFAULT_DATA, load_conversations  # noqa: E402
from passing_facts_holdout import HALF as HOLDOUT_HALF  # noqa: E402
from passing_facts_holdout import PASSING_HOLDOUT  # noqa: E402
from passing_facts_set import HALVES, KINDS, PASSING_FACTS, PassingFact  # noqa: E402

FACT_SETS: dict[str, tuple[tuple[PassingFact, ...], tuple[str, ...]]] = {
    "set": (PASSING_FACTS, HALVES), "holdout": (PASSING_HOLDOUT, (HOLDOUT_HALF,))}
"""`--facts`: the tune and confirm halves, or the held-out facts written after their rules."""

TOP_K = 5
SEARCH_DEPTH = 50
"""How deep the read-only look-up goes to find where a missed fact ranks."""


@dataclass
class Outcome(durable_facts.Outcome):
    """How one fact fared (see `durable_facts.Outcome`), and whether its answer is still written."""

    answer_kept: bool = True
    """Whether the memory's text at the end still holds the answer."""


def fact_days(count: int, span: int, seed: int) -> list[int]:
    """The day each fact is said on: spread evenly over `span` days, in a shuffled order of the
    facts (kinds interleave, and the tune and confirm halves share the calendar)."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    days = [0] * count
    for slot, index in enumerate(order):
        days[index] = slot * span // count
    return days


def live_with_facts(store: cg.MemoryStore, clock: ManualClock, start: int, facts: list[PassingFact], days: int,
                    span: int, filler: list[str], per_day: int, seed: int,
                    on_day: Callable[[], None] | None = None, sentence_memories: bool = False,
                    derived: dict[str, str] | None = None) -> list[str]:
    """Every day a conversation of `per_day` filler turns, the day's facts said among them (each
    fact turn after half the day's small talk), consolidation every night; the clock ends the
    morning after the last day. Returns the facts' trace ids. `sentence_memories`: each turn's
    later durable sentences are also told as memories of their own (`derived` maps
    them to their turn), the alternative to reading the turn as a whole."""
    derived = {} if derived is None else derived
    said_on = fact_days(len(facts), span, seed)
    ids: dict[int, str] = {}
    cursor = 0
    for day in range(days):
        consolidate_nights(store, clock, start + day * MS_PER_DAY)
        agent = store.agent("assistant", user_id="u1", thread_id=f"day-{day}")
        turns = [filler[(cursor + i) % len(filler)] for i in range(per_day)]
        cursor += per_day
        todays = [i for i, d in enumerate(said_on) if d == day]
        at = len(turns) // 2
        said = [*turns[:at], *(facts[i].turn for i in todays), *turns[at:]]
        written = agent.encode_many([{"content": t, "scope": "user", "type": "episodic"} for t in said])
        for offset, index in enumerate(todays):
            ids[index] = written[at + offset].id
        if sentence_memories:  # the alternative measured beside it: each later durable sentence a memory of its own
            parts = [(n, s) for n, t in enumerate(said) for s in durable_sentences(t) if not t.startswith(s)]
            if parts:
                made = agent.encode_many([{"content": s, "scope": "user", "type": "semantic",
                                           "metadata": {"from_turn": written[n].id}} for n, s in parts])
                for (n, _), trace in zip(parts, made, strict=True):
                    derived[trace.id] = written[n].id
        if on_day:
            on_day()
    consolidate_nights(store, clock, start + days * MS_PER_DAY + 10 * MS_PER_HOUR)
    return [ids[i] for i in range(len(facts))]


def state_of(store: cg.MemoryStore, reader: cg.AgentMemory, trace_id: str, answer: str) -> tuple[str, str, bool]:
    """('active' | 'dormant' | 'gone', category, whether the text still holds the answer)."""
    state, category = durable_facts.state_of(store, reader, trace_id)
    if state == "gone":
        return state, category, False
    (trace,) = store.graph.get_traces([trace_id], reader.visible_scope_keys)
    return state, category, answer.casefold() in trace.content.casefold()


def run_lived(conversations: list[dict], embedder: str, preset: str, days: int, span: int, per_day: int,
              seed: int, progress: Progress, graph: str = EMBEDDED, sentence_memories: bool = False,
              told: tuple[PassingFact, ...] = PASSING_FACTS) -> list[Outcome]:
    """The facts said over the first `span` days among daily conversation, nights consolidated,
    then every question asked once."""
    facts = list(told)
    start = day_start(int(time.time() * 1000)) - (days + 10) * MS_PER_DAY + 9 * MS_PER_HOUR
    clock = ManualClock(start)
    filler = filler_turns(conversations)
    task = progress.add_task(f"{preset}: facts in passing, {days} days", total=days)
    with tempfile.TemporaryDirectory() as home, open_store(home, embedder, preset, clock, graph) as store:
        derived: dict[str, str] = {}
        fact_ids = live_with_facts(store, clock, start, facts, days, span, filler, per_day, seed,
                                   on_day=lambda: progress.advance(task), sentence_memories=sentence_memories,
                                   derived=derived)
        reader = store.agent("assistant", user_id="u1")
        order = list(range(len(facts)))
        random.Random(seed + 1).shuffle(order)
        by_index: dict[int, Outcome] = {}
        for index in order:
            fact, trace_id = facts[index], fact_ids[index]
            found = reader.retrieve(fact.question, top_k=TOP_K).traces
            turns = [derived.get(h.trace.id, h.trace.id) for h in found]  # a sentence's memory counts for its turn
            outcome = Outcome(fact.kind, fact.half, fact.question, hit=trace_id in turns)
            outcome.state, outcome.category, outcome.answer_kept = state_of(store, reader, trace_id, fact.answer)
            if not outcome.hit:
                deeper = [derived.get(h.trace.id, h.trace.id) for h in
                          reader.retrieve(fact.question, top_k=SEARCH_DEPTH, record_access=False).traces]
                outcome.rank = deeper.index(trace_id) + 1 if trace_id in deeper else None
                outcome.first_hit = found[0].trace.content if found else ""
            by_index[index] = outcome
    progress.remove_task(task)
    return [by_index[i] for i in range(len(facts))]


def run_frozen(conversations: list[dict], embedder: str, preset: str, days: int, per_day: int,
               progress: Progress, graph: str = EMBEDDED,
               told: tuple[PassingFact, ...] = PASSING_FACTS) -> dict[str, list[bool]]:
    """The same turns encoded at once, the clock frozen, asked read-only: the full pipeline and
    the dense search alone. Returns hits per strategy, in the facts' order."""
    facts = list(told)
    filler = filler_turns(conversations)
    turns = [filler[i % len(filler)] for i in range(days * per_day)]
    hits: dict[str, list[bool]] = {"full": [], "dense": []}
    task = progress.add_task(f"{preset}: frozen, read-only", total=len(facts))
    with tempfile.TemporaryDirectory() as home, open_store(home, embedder, preset, ManualClock(), graph) as store:
        agent = store.agent("assistant", user_id="u1", thread_id="frozen")
        ids = [t.id for t in agent.encode_many([{"content": f.turn, "scope": "user", "type": "episodic"}
                                                 for f in facts])]
        agent.encode_many([{"content": t, "scope": "user", "type": "episodic"} for t in turns])
        for fact, trace_id in zip(facts, ids, strict=True):
            for strategy in hits:
                top = agent.retrieve(fact.question, top_k=TOP_K, strategy=strategy, record_access=False).traces
                hits[strategy].append(trace_id in [h.trace.id for h in top])
            progress.advance(task)
    progress.remove_task(task)
    return hits


def run_passing(conversations: list[dict], embedder: str, preset: str, days: int, span: int, per_day: int,
                seed: int, progress: Progress, graph: str = EMBEDDED) -> dict:
    """The lived row as `lifecycle.py` reports it: hits per half and the misses in words."""
    outcomes = run_lived(conversations, embedder, preset, days, span, per_day, seed, progress, graph)
    return {"hits": sum(o.hit for o in outcomes), "n": len(outcomes),
            "by_half": {h: score(outcomes, half=h) for h in HALVES},
            "misses": [miss_line(o) for o in outcomes if not o.hit]}


def miss_line(o: Outcome) -> str:
    rank = str(o.rank) if o.rank is not None else f"> {SEARCH_DEPTH}"
    kept = "" if o.answer_kept else ", answer no longer in its text"
    return f"[{o.half}] {o.question} (rank {rank}, {o.state} {o.category}{kept}; first: {o.first_hit[:70]!r})"


def hits_table(lived: list[Outcome], frozen: dict[str, list[bool]] | None, days: int, span: int,
               per_day: int, told: tuple[PassingFact, ...] = PASSING_FACTS,
               halves: tuple[str, ...] = HALVES) -> Table:
    table = Table(title=f"Facts said in passing: in the top {TOP_K} (said over the first {span} days, asked after "
                        f"{days}; {per_day} other turns a day, consolidation every night)")
    table.add_column("kind")
    columns: list[tuple[str, list[bool]]] = [("lived", [o.hit for o in lived])]
    if frozen:
        columns += [(f"frozen {name}", hits) for name, hits in frozen.items()]
    for name, _ in columns:
        for half in (*halves, "all"):
            table.add_column(f"{name} {half}", justify="right")
    facts = list(told)
    for kind in (*(k for k in KINDS if any(f.kind == k for f in facts)), None):
        cells = []
        for _, hits in columns:
            for half in (*halves, None):
                chosen = [h for f, h in zip(facts, hits, strict=True)
                          if (kind is None or f.kind == kind) and (half is None or f.half == half)]
                cells.append(f"{sum(chosen)}/{len(chosen)}")
        table.add_row(kind or "total", *cells)
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo conversations (the filler)")
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--preset", default="default", help="default | reference")
    parser.add_argument("--days", type=int, default=180, help="simulated days from the first turn to the questions")
    parser.add_argument("--fact-span", type=int, default=120, help="the facts are said over the first this many days")
    parser.add_argument("--filler-per-day", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7, help="the facts' days and the questions' order")
    parser.add_argument("--no-frozen", action="store_true", help="skip the frozen, read-only baselines")
    parser.add_argument("--sentence-memories", action="store_true",
                        help="the alternative design, measured: every turn's later durable sentences are "
                             "also told as memories of their own (a hit: the turn or one of them in the top 5)")
    parser.add_argument("--graph", default=EMBEDDED, help=f"{EMBEDDED} or a Neo4j URL (its database is cleared)")
    parser.add_argument("--facts", choices=sorted(FACT_SETS), default="set",
                        help="the tune and confirm halves (set), or the facts held out from their rules (holdout)")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    told, halves = FACT_SETS[args.facts]
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}: pass --data")
    if not 0 < args.fact_span <= args.days:
        sys.exit("--fact-span must be between 1 and --days")
    conversations = load_conversations(args.data)
    console = Console(width=200)
    started = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        lived = run_lived(conversations, args.embedder, args.preset, args.days, args.fact_span,
                          args.filler_per_day, args.seed, progress, args.graph, args.sentence_memories, told)
        frozen = None if args.no_frozen else run_frozen(conversations, args.embedder, args.preset, args.days,
                                                        args.filler_per_day, progress, args.graph, told)
    console.print(f"embedder {args.embedder}; preset {args.preset}; graph {args.graph}; {len(told)} facts "
                  f"({args.facts}); {time.perf_counter() - started:.0f} s")
    console.print(hits_table(lived, frozen, args.days, args.fact_span, args.filler_per_day, told, halves))
    for o in lived:
        if not o.hit:
            console.print(f"  missed: {miss_line(o)}", markup=False)
    misses = [o for o in lived if not o.hit]
    if misses:
        console.print(f"misses by state {dict(Counter(o.state for o in misses))}; "
                      f"answer gone from the text {sum(not o.answer_kept for o in misses)}; "
                      f"deeper than {SEARCH_DEPTH}: {sum(o.rank is None for o in misses)}")
    gisted_away = sum(not o.answer_kept for o in lived)
    console.print(f"answer no longer in the memory's text (hit or not): {gisted_away}/{len(lived)}")
    report = {"embedder": args.embedder, "preset": args.preset, "days": args.days, "fact_span": args.fact_span,
              "filler_per_day": args.filler_per_day, "seed": args.seed, "facts": len(told), "set": args.facts,
              "lived": {"hits": sum(o.hit for o in lived), "by_half": {h: score(lived, half=h) for h in halves},
                        "outcomes": [asdict(o) for o in lived]},
              "frozen": frozen}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report


if __name__ == "__main__":
    main()
