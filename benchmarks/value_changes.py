"""Facts that change: is a change of value followed, and are two different things both kept?

Each pair of `value_changes_set.py` is told by its own user (a scope of its own) in one store:
the first statement, ten nights of consolidation, the change, one more night, then the
question from a fresh handle through the default `retrieve()` and `assemble_for_prompt()`,
as an application calls them (`ManualClock`, default preset).

* A change is **followed** when the change ranks first and the prompt does not state the old
  value as current (the older statement is left out or marked outdated); the table also
  counts each part alone, and for relative changes ("pushed back an hour") whether the prompt
  shows the resolved value.
* Two **different things** both stay when neither is marked outdated, no CONTRADICTS or
  SUPERSEDES edge joins them, both are active, and each question finds its own statement in
  the top 5.

Both sets are split in two halves, `tune` and `confirm`; the confirm half is phrased with
verbs and constructions the tune half does not use.

    python benchmarks/value_changes.py                       # MiniLM
    python benchmarks/value_changes.py --embedder hash --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lifecycle import EMBEDDED, consolidate_nights, day_start, open_store  # noqa: E402
from value_changes_holdout import HOLDOUT_CHANGES, HOLDOUT_DISTINCT  # noqa: E402
from value_changes_second_holdout import HALF as SECOND_HALF  # noqa: E402
from value_changes_second_holdout import SECOND_CHANGES, SECOND_DISTINCT  # noqa: E402
from value_changes_set import CHANGES, DISTINCT, FORMS, HALVES, Change, Distinct  # noqa: E402
from value_changes_third_holdout import HALF as THIRD_HALF  # noqa: E402
from value_changes_third_holdout import THIRD_CHANGES, THIRD_DISTINCT  # noqa: E402

ALL_HALVES = (*HALVES, "holdout", SECOND_HALF, THIRD_HALF)
"""`holdout`: pairs written after the rules were built, in verbs and constructions neither half uses;
`holdout 2`: pairs written later still, after the rules that followed the first holdout's misses;
`holdout 3`: pairs written after the next session's rules (parts of an hour, nouns of an act)."""
HELD_OUT_CHANGES = (*HOLDOUT_CHANGES, *SECOND_CHANGES, *THIRD_CHANGES)
HELD_OUT_DISTINCT = (*HOLDOUT_DISTINCT, *SECOND_DISTINCT, *THIRD_DISTINCT)

DAYS_BETWEEN = 10
PROMPT_TOKENS = 400


@dataclass
class ChangeOutcome:
    form: str
    slot: str
    half: str
    question: str
    first: bool
    """The change ranks first."""
    prompt_right: bool
    """The prompt shows the change as current (for a relative change: the change or its resolved
    value) and the older statement not: left out, or marked outdated."""
    resolved: bool | None = None
    """Relative changes: the prompt shows the resolved value."""
    top: str = ""

    @property
    def followed(self) -> bool:
        return self.first and self.prompt_right


@dataclass
class DistinctOutcome:
    slot: str
    half: str
    pair: str
    both_stay: bool
    found_a: bool
    found_b: bool
    why: str = ""

    @property
    def kept(self) -> bool:
        return self.both_stay and self.found_a and self.found_b


def mentions(text: str, value: str) -> bool:
    """Whether `value` occurs in `text` as itself ("3 pm" not inside "4:30 pm", "12" not in "120")."""
    return re.search(r"(?<![\w:.,$€£])" + re.escape(value) + r"(?![\w:]|[.,]\d)", text, re.IGNORECASE) is not None


def current_and_outdated(text: str) -> tuple[str, str]:
    """The prompt's lines that state something as current, and the lines marked outdated."""
    lines = text.splitlines()
    outdated = [line for line in lines if "(outdated:" in line]
    return "\n".join(line for line in lines if line not in outdated), "\n".join(outdated)


def tell_ten_days_apart(store: cg.MemoryStore, clock: ManualClock, start: int, prefix: str,
                        statements: Sequence[tuple[str, str]]) -> tuple[list, list]:
    """Each pair told by its own user (`prefix` + index): the first statement, `DAYS_BETWEEN`
    nights of consolidation, the second, one more night. Returns both sides' traces."""
    agents = [store.agent("assistant", user_id=f"{prefix}{i}", thread_id="t1") for i in range(len(statements))]
    firsts = [agent.encode(first, scope="user") for agent, (first, _) in zip(agents, statements, strict=True)]
    consolidate_nights(store, clock, start + DAYS_BETWEEN * MS_PER_DAY)
    seconds = [agent.encode(second, scope="user") for agent, (_, second) in zip(agents, statements, strict=True)]
    consolidate_nights(store, clock, start + (DAYS_BETWEEN + 1) * MS_PER_DAY + 2 * MS_PER_HOUR)
    return firsts, seconds


def run_changes(embedder: str, preset: str, progress: Progress, graph: str = EMBEDDED,
                changes: Sequence[Change] = CHANGES) -> list[ChangeOutcome]:
    start = day_start(int(time.time() * 1000)) - 30 * MS_PER_DAY + 9 * MS_PER_HOUR
    clock = ManualClock(start)
    task = progress.add_task(f"{preset}: changes", total=len(changes))
    out: list[ChangeOutcome] = []
    with tempfile.TemporaryDirectory() as home, open_store(home, embedder, preset, clock, graph) as store:
        olds, news = tell_ten_days_apart(store, clock, start, "c", [(c.old, c.new) for c in changes])
        for i, change in enumerate(changes):
            asker = store.agent("assistant", user_id=f"c{i}")
            top = asker.retrieve(change.question).traces
            ctx = asker.assemble_for_prompt(change.question, token_budget=PROMPT_TOKENS)
            current, _ = current_and_outdated(ctx.text)
            shown_new = mentions(current, change.new_value) or (
                change.form == "relative" and change.new.strip() in current)
            prompt_right = shown_new and news[i].id not in ctx.outdated and (
                olds[i].id not in ctx.trace_ids or olds[i].id in ctx.outdated)
            out.append(ChangeOutcome(
                change.form, change.slot, change.half, change.question,
                first=bool(top) and top[0].trace.id == news[i].id, prompt_right=prompt_right,
                resolved=mentions(current, change.new_value) if change.form == "relative" else None,
                top=top[0].trace.content if top else ""))
            progress.advance(task)
    progress.remove_task(task)
    return out


def run_distinct(embedder: str, preset: str, progress: Progress, graph: str = EMBEDDED,
                 pairs: Sequence[Distinct] = DISTINCT) -> list[DistinctOutcome]:
    start = day_start(int(time.time() * 1000)) - 30 * MS_PER_DAY + 9 * MS_PER_HOUR
    clock = ManualClock(start)
    task = progress.add_task(f"{preset}: different things", total=len(pairs))
    out: list[DistinctOutcome] = []
    conflict = (cg.EdgeType.CONTRADICTS, cg.EdgeType.SUPERSEDES)
    with tempfile.TemporaryDirectory() as home, open_store(home, embedder, preset, clock, graph) as store:
        firsts, seconds = tell_ten_days_apart(store, clock, start, "d", [(p.a, p.b) for p in pairs])
        for i, pair in enumerate(pairs):
            asker = store.agent("assistant", user_id=f"d{i}")
            a, b = firsts[i], seconds[i]
            _, edges, _ = asker.neighbourhood(b.id)
            joined = [e.type.value for e in edges if e.type in conflict and {e.src, e.dst} == {a.id, b.id}]
            states = [asker.get(t.id).state for t in (a, b)]
            outdated = set()
            for question in (pair.question_a, pair.question_b):
                outdated |= set(asker.assemble_for_prompt(question, token_budget=PROMPT_TOKENS).outdated)
            found_a = a.id in [h.trace.id for h in asker.retrieve(pair.question_a, top_k=5).traces]
            found_b = b.id in [h.trace.id for h in asker.retrieve(pair.question_b, top_k=5).traces]
            why = []
            if joined:
                why.append(f"edges {joined}")
            if states != ["active", "active"]:
                why.append(f"states {states}")
            if outdated & {a.id, b.id}:
                why.append("marked outdated")
            out.append(DistinctOutcome(pair.slot, pair.half, f"{pair.a} / {pair.b}", not why, found_a, found_b,
                                       "; ".join(why)))
            progress.advance(task)
    progress.remove_task(task)
    return out


def ratio(flags: Sequence[bool]) -> str:
    return f"{sum(flags)}/{len(flags)}"


def changes_table(outcomes: list[ChangeOutcome], distinct: list[DistinctOutcome]) -> Table:
    table = Table(title=f"Facts that change (the change {DAYS_BETWEEN} days after the fact, a night's "
                        "consolidation, then asked)")
    table.add_column("form")
    halves = [h for h in ALL_HALVES if any(o.half == h for o in outcomes)]
    for half in (*halves, "all"):
        table.add_column(f"followed {half}", justify="right")
    table.add_column("change first", justify="right")
    table.add_column("prompt right", justify="right")
    for form in (*FORMS, None):
        chosen = [o for o in outcomes if form is None or o.form == form]
        table.add_row(form or "all changes",
                      *(ratio([o.followed for o in chosen if half is None or o.half == half])
                        for half in (*halves, None)),
                      ratio([o.first for o in chosen]), ratio([o.prompt_right for o in chosen]))
    table.add_row("different things kept", *(ratio([d.kept for d in distinct if half is None or d.half == half])
                                             for half in (*halves, None)),
                  "", ratio([d.both_stay for d in distinct]))
    return table


def run_value_changes(embedder: str, preset: str, progress: Progress, graph: str = EMBEDDED) -> dict:
    """The rows as `lifecycle.py` reports them: changes followed and different things kept, per half."""
    changes = run_changes(embedder, preset, progress, graph, (*CHANGES, *HELD_OUT_CHANGES))
    distinct = run_distinct(embedder, preset, progress, graph, (*DISTINCT, *HELD_OUT_DISTINCT))
    return {"hits": sum(o.followed for o in changes), "n": len(changes),
            "by_half": {h: ratio([o.followed for o in changes if o.half == h]) for h in ALL_HALVES},
            "distinct": {"hits": sum(d.kept for d in distinct), "n": len(distinct),
                         "by_half": {h: ratio([d.kept for d in distinct if d.half == h]) for h in ALL_HALVES}},
            "misses": [f"[{o.half}] {o.form}: {o.question} -> {o.top[:70]!r} (first {o.first}, prompt "
                       f"{o.prompt_right})" for o in changes if not o.followed],
            "distinct_misses": [f"[{d.half}] {d.pair}: {d.why or 'not found'}" for d in distinct if not d.kept]}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--preset", default="default", help="default | reference")
    parser.add_argument("--graph", default=EMBEDDED, help=f"{EMBEDDED} or a Neo4j URL (its database is cleared)")
    parser.add_argument("--no-holdout", action="store_true", help="only the tune and confirm halves")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    console = Console(width=200)
    started = time.perf_counter()
    change_set = CHANGES if args.no_holdout else (*CHANGES, *HELD_OUT_CHANGES)
    distinct_set = DISTINCT if args.no_holdout else (*DISTINCT, *HELD_OUT_DISTINCT)
    with Progress(console=console, transient=True) as progress:
        changes = run_changes(args.embedder, args.preset, progress, args.graph, change_set)
        distinct = run_distinct(args.embedder, args.preset, progress, args.graph, distinct_set)
    console.print(f"embedder {args.embedder}; preset {args.preset}; graph {args.graph}; {len(change_set)} changes, "
                  f"{len(distinct_set)} different-things pairs; {time.perf_counter() - started:.0f} s")
    console.print(changes_table(changes, distinct))
    for o in changes:
        if not o.followed:
            console.print(f"  [{o.half}] {o.form} {o.slot}: {o.question} -> first {o.first}, prompt "
                          f"{o.prompt_right}: {o.top[:90]!r}", markup=False)
    for d in distinct:
        if not d.kept:
            console.print(f"  [{d.half}] different things: {d.pair} ({d.why or ''} found a {d.found_a}, "
                          f"b {d.found_b})", markup=False)
    report = {"embedder": args.embedder, "preset": args.preset,
              "changes": [{**asdict(o), "followed": o.followed} for o in changes],
              "distinct": [{**asdict(d), "kept": d.kept} for d in distinct]}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report


if __name__ == "__main__":
    main()
