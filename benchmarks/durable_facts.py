"""Durable facts benchmark: is what a user said once still found months later?

A user tells the assistant 63 things about their life over the first three days: health,
family, pets, places, possessions, accounts and numbers, dates that matter, work, and
instructions for the assistant itself. Each is said once, the way people chat (run-on,
typos, in passing), and each gets one question asked at the end in other words than the
statement's, so a hit needs more than shared words.

Then months go by: every day some LoCoMo development turns are encoded as other
conversation (`--filler-per-day`), and `store.consolidate()` runs every night on a
`ManualClock`. At the end each question is asked once, in a shuffled order (`--seed`),
through the default `retrieve(question, top_k=5)`, as an application calls it (it
reinforces what it returns).
A hit: the fact is among those 5. For each miss the fact's rank is looked up read-only
(`top_k=50, record_access=False`), with its state (active, dormant or gone), its category,
and what came first instead.

The facts are split in two halves, `tune` and `confirm`, alternating within each kind, so
that a change made while looking at one half can be checked on the other.

    python benchmarks/durable_facts.py                                    # MiniLM, both presets, 180 days
    python benchmarks/durable_facts.py --presets default --json out.json
    python benchmarks/durable_facts.py --embedder hash --days 20 --filler-per-day 3 --presets default
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lifecycle import FACT_DAYS, day_start, filler_turns, preset_config, tell_then_live  # noqa: E402
from locomo import DEFAULT_DATA, load_conversations  # noqa: E402

KINDS = ("health", "family", "pets", "places", "possessions", "accounts", "dates", "work", "instructions")
HALVES = ("tune", "confirm")
PRESETS = ("default", "reference")
TOP_K = 5
SEARCH_DEPTH = 50
"""How deep the read-only look-up goes to find where a missed fact ranks."""


@dataclass(frozen=True)
class Fact:
    kind: str
    half: str
    statement: str
    """What the user says, once."""
    question: str
    """How it is asked months later: one thing, in other words."""


FACTS: tuple[Fact, ...] = (
    Fact("health", "tune",
         "btw I got diagnosed with celiac last spring so gluten is basically off the table for me now, "
         "anyway where were we",
         "Which condition limits what I can eat?"),
    Fact("health", "confirm",
         "The pharmacy refills my sertraline every 30 days, I've been on it since the divorce.",
         "What antidepressant am I on?"),
    Fact("health", "tune",
         "Wasp stings are really dangerous for me, I carry an EpiPen everywhere since the reaction in 2019.",
         "What insect am I allergic to?"),
    Fact("health", "confirm",
         "I had my left knee replaced two years ago so deep squats and running downhill still hurt.",
         "Which of my joints had surgery?"),
    Fact("health", "tune",
         "i get migranes pretty often, bright screens set them off",
         "What kind of headaches do I suffer from?"),
    Fact("health", "confirm",
         "My GP is Dr Halvorsen at the Brookside practice, she only sees patients on weekdays.",
         "Who is my family doctor?"),
    Fact("health", "tune",
         "I'm quite short-sighted, about minus four in both eyes, contacts during the day and glasses at night.",
         "What is my eyesight prescription?"),

    Fact("family", "tune",
         "My older brother Kenji flies for a cargo airline, he's away most weeks.",
         "What job does my brother have?"),
    Fact("family", "confirm",
         "my wife's called Ingrid, she teaches chemistry at the high school in town",
         "Who am I married to?"),
    Fact("family", "tune",
         "Grandma Rosa turned 94 this year and still insists on doing her own shopping.",
         "How old is my grandmother?"),
    Fact("family", "confirm",
         "We've got twins, Otto and Frida, they're six and completely wild.",
         "What are the twins' names?"),
    Fact("family", "tune",
         "My father-in-law, Bernard, is a retired firefighter.",
         "What did my wife's dad do before retiring?"),
    Fact("family", "confirm",
         "my cousin Dimitri runs a small bakery, up at 4am every day poor guy",
         "Which relative of mine bakes for a living?"),
    Fact("family", "tune",
         "My stepson Luca is in his first year of marine biology at university.",
         "What subject is my stepson studying?"),

    Fact("pets", "tune",
         "We adopted a three-legged tabby from the rescue and named him Pickle.",
         "What is my cat called?"),
    Fact("pets", "confirm",
         "Our animals are all seen by Dr Anand at Meadow Lane Animal Clinic.",
         "Who is our vet?"),
    Fact("pets", "tune",
         "the dog's only allowed grain-free kibble, the salmon one, or her stomach goes funny",
         "What food does my dog eat?"),
    Fact("pets", "confirm",
         "Juniper's a border collie, way too clever, she herds the kids around the garden.",
         "What breed is my dog?"),
    Fact("pets", "tune",
         "I keep two budgies, Salt and Pepper, they never shut up in the mornings.",
         "What are my birds called?"),
    Fact("pets", "confirm",
         "There's a tortoise in the garden too, Gerald, inherited him from my uncle and he's older than me.",
         "Which reptile do I have?"),
    Fact("pets", "tune",
         "Pickle needs half a thyroid pill crushed into his wet food twice a day.",
         "What medicine does my cat get?"),

    Fact("places", "tune",
         "We live in a narrow old townhouse in Ghent, right on the canal.",
         "Which city is my home in?"),
    Fact("places", "confirm",
         "I grew up in Mousehole, a tiny fishing village in Cornwall.",
         "Where is my hometown?"),
    Fact("places", "tune",
         "my parents retired to the Algarve, they've got a little villa outside Lagos",
         "Where do my mum and dad live now?"),
    Fact("places", "confirm",
         "My favourite cafe is a tiny place called Oat & Ember, best flat white in the city.",
         "Where do I like to get coffee?"),
    Fact("places", "tune",
         "so my brother moved to Osaka last year, near the airport obviously, which is why we barely see him",
         "Which city is my brother based in?"),
    Fact("places", "confirm",
         "Every summer we rent the same cabin by a lake in Värmland, ten years running now.",
         "Where do we go on holiday each year?"),
    Fact("places", "tune",
         "The in-laws are up north in Tromsø, we fly up every Christmas.",
         "Where do my wife's parents live?"),

    Fact("possessions", "tune",
         "I cycle to work on a secondhand Brompton, the orange one.",
         "What bike do I own?"),
    Fact("possessions", "confirm",
         "we finally bought a camper van!! an old VW T3, the kids named it Bertha",
         "What vehicle do we take on road trips?"),
    Fact("possessions", "tune",
         "There's a 1970s Yamaha upright piano in our living room that I bought off a church.",
         "Which instrument do I have at home?"),
    Fact("possessions", "confirm",
         "my phone's an old iPhone SE with a cracked screen, not upgrading till it dies",
         "What mobile do I use?"),
    Fact("possessions", "tune",
         "My prized possession is a Leica M6 that I shoot black and white film on.",
         "What camera do I have?"),
    Fact("possessions", "confirm",
         "The laptop I use for everything is a ThinkPad X1 Carbon from 2021.",
         "Which computer do I work on?"),
    Fact("possessions", "tune",
         "I own a small Laser dinghy, it's moored at the yacht club by the marina.",
         "What kind of boat do I have?"),

    Fact("accounts", "tune",
         "my library card number is 4400 1187 2293, keep it handy",
         "What's my ID for borrowing books?"),
    Fact("accounts", "confirm",
         "On Steam I'm frostbyte_88 if you ever need it.",
         "What handle do I use for gaming?"),
    Fact("accounts", "tune",
         "Our savings sit in a joint account at ING, mine and my wife's.",
         "Where do my wife and I bank together?"),
    Fact("accounts", "confirm",
         "The camper is registered under the plate GX-419-T.",
         "What is the registration of our van?"),
    Fact("accounts", "tune",
         "fyi my flying blue number is FB 7733 0912, for when you book flights",
         "What is my airline loyalty number?"),
    Fact("accounts", "confirm",
         "The gas and electricity account is held under reference ELX-558201 with Octopus.",
         "What is my energy supplier's customer reference?"),
    Fact("accounts", "tune",
         "I'm member 10342 at the allotment society, they always ask for it at the gate.",
         "What is my membership number for the garden plot?"),

    Fact("dates", "tune",
         "We got married on 14 May 2011, it poured the whole day.",
         "When is our wedding anniversary?"),
    Fact("dates", "confirm",
         "my birthday's the 2nd of February, groundhog day haha",
         "When was I born?"),
    Fact("dates", "tune",
         "The home insurance is renewed every 1 September, remind me to shop around before then.",
         "When does the house policy come up for renewal?"),
    Fact("dates", "confirm",
         "The twins' birthday is 23 July, they'll want a party again.",
         "When were my twins born?"),
    Fact("dates", "tune",
         "My best friend Sol died on 9 November 2020, that day is always hard for me.",
         "What date is always difficult for me?"),
    Fact("dates", "confirm",
         "The camper has to go for its technical inspection every March, don't let me forget.",
         "When must our van be checked by the authorities?"),
    Fact("dates", "tune",
         "the lease on the townhouse ends 31 January 2027 and we have to tell the landlord by October if we renew",
         "When is our rental contract up?"),

    Fact("work", "tune",
         "I'm a structural engineer at Vandenberghe & Partners, mostly bridges.",
         "What is my job?"),
    Fact("work", "confirm",
         "Margit Olsen is my boss, she heads the bridges group.",
         "Who do I report to?"),
    Fact("work", "tune",
         "Every design gets a four-eyes check by a second engineer before it goes out, no exceptions.",
         "What review happens before our drawings are released?"),
    Fact("work", "confirm",
         "I'm at home on Mondays and Fridays and in the office the rest of the week.",
         "Which days am I remote?"),
    Fact("work", "tune",
         "our standup is at 9:15 sharp except thursdays, we skip it for the site visit",
         "What time is the daily meeting?"),
    Fact("work", "confirm",
         "Right now I'm leading the new footbridge over the Leie, it's my first project as lead.",
         "What am I in charge of at the moment?"),
    Fact("work", "tune",
         "Calculations have to be done in SCIA Engineer, company policy, nothing else is allowed.",
         "Which software does my employer require for analysis?"),

    Fact("instructions", "tune",
         "Always answer me in Spanish please, I'm trying to practise.",
         "Which language should you reply in?"),
    Fact("instructions", "confirm",
         "Never suggest meditation apps to me, I've tried them all and I hate them.",
         "What kind of app recommendation annoys me?"),
    Fact("instructions", "tune",
         "please dont use emojis when you write to me",
         "What should you leave out of your messages?"),
    Fact("instructions", "confirm",
         "from now on give me prices in euros not dollars",
         "Which currency do I want amounts in?"),
    Fact("instructions", "tune",
         "Call me Fitz, nobody uses my full name.",
         "How should you address me?"),
    Fact("instructions", "confirm",
         "When I ask for a summary, bullet points only, five at most.",
         "How should summaries be formatted?"),
    Fact("instructions", "tune",
         "If I bring up work after 7pm, tell me to log off and go to bed lol",
         "What should you do when I talk about my job in the evening?"),
)


@dataclass
class Outcome:
    """How one fact fared: a hit, or where it was and what came first instead."""

    kind: str
    half: str
    question: str
    hit: bool
    rank: int | None = None
    """1-based rank in the read-only top 50 (None: deeper, or not found at all)."""
    state: str = ""
    category: str = ""
    first_hit: str = ""
    first_hit_is: str = ""
    """'filler' (other conversation), 'fact' (another of the facts) or 'nothing'."""


def state_of(store: cg.MemoryStore, reader: cg.AgentMemory, trace_id: str) -> tuple[str, str]:
    """('active' | 'dormant' | 'gone', category) of one trace."""
    found = store.graph.get_traces([trace_id], reader.visible_scope_keys)
    if not found or not found[0].is_active:
        return "gone", found[0].category.value if found else ""
    trace = found[0]
    return ("dormant" if trace.dormant else "active"), trace.category.value


def run(conversations: list[dict], embedder: str, preset: str, days: int, per_day: int, seed: int,
        progress: Progress) -> list[Outcome]:
    """State the facts over the first days, live `days` days of other conversation with a
    consolidation every night, then ask every question once."""
    start = day_start(int(time.time() * 1000)) - (days + 10) * MS_PER_DAY + 9 * MS_PER_HOUR
    clock = ManualClock(start)
    filler = filler_turns(conversations)
    task = progress.add_task(f"{preset}: {days} days", total=days)
    with tempfile.TemporaryDirectory() as home, \
            cg.open(home=home, embedder=embedder, config=preset_config(preset), clock=clock) as store:
        progress.advance(task, FACT_DAYS)
        fact_ids, _ = tell_then_live(store, clock, start, [fact.statement for fact in FACTS], days, filler, per_day,
                                     on_day=lambda: progress.advance(task))
        progress.remove_task(task)

        reader = store.agent("assistant", user_id="u1")
        known = set(fact_ids)
        order = list(range(len(FACTS)))
        random.Random(seed).shuffle(order)  # not kind by kind: what one answer reinforces touches the next
        by_index: dict[int, Outcome] = {}
        for index in order:
            fact, trace_id = FACTS[index], fact_ids[index]
            found = reader.retrieve(fact.question, top_k=TOP_K).traces
            outcome = Outcome(fact.kind, fact.half, fact.question, hit=trace_id in [h.trace.id for h in found])
            if not outcome.hit:
                deeper = [h.trace.id for h in
                          reader.retrieve(fact.question, top_k=SEARCH_DEPTH, record_access=False).traces]
                outcome.rank = deeper.index(trace_id) + 1 if trace_id in deeper else None
                outcome.state, outcome.category = state_of(store, reader, trace_id)
                if found:
                    outcome.first_hit = found[0].trace.content
                    outcome.first_hit_is = "fact" if found[0].trace.id in known else "filler"
                else:
                    outcome.first_hit_is = "nothing"
            by_index[index] = outcome
    return [by_index[i] for i in range(len(FACTS))]


def score(outcomes: list[Outcome], kind: str | None = None, half: str | None = None) -> str:
    chosen = [o for o in outcomes if (kind is None or o.kind == kind) and (half is None or o.half == half)]
    return f"{sum(o.hit for o in chosen)}/{len(chosen)}"


def hits_table(results: dict[str, list[Outcome]], days: int, per_day: int) -> Table:
    table = Table(title=f"Durable facts: in the top {TOP_K} after {days} days "
                        f"({per_day} other turns a day, consolidation every night)")
    table.add_column("kind")
    for preset in results:
        for half in (*HALVES, "all"):
            table.add_column(f"{preset} {half}", justify="right")
    for kind in (*KINDS, None):
        table.add_row(kind or "total", *(score(outcomes, kind, half)
                                          for outcomes in results.values() for half in (*HALVES, None)))
    return table


def misses_table(results: dict[str, list[Outcome]]) -> Table:
    table = Table(title=f"Misses (rank: read-only top {SEARCH_DEPTH}; first: what the default call ranked first)")
    for name in ("preset", "kind", "half", "rank", "state", "category", "question", "first"):
        table.add_column(name, justify="right" if name == "rank" else "left")
    for preset, outcomes in results.items():
        for o in outcomes:
            if not o.hit:
                rank = str(o.rank) if o.rank is not None else f"> {SEARCH_DEPTH}"
                first = f"({o.first_hit_is}) {o.first_hit[:90]}" if o.first_hit else o.first_hit_is
                table.add_row(preset, o.kind, o.half, rank, o.state, o.category, o.question, first)
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo conversations (the filler)")
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--presets", default=",".join(PRESETS), help="comma-separated: default, reference")
    parser.add_argument("--days", type=int, default=180, help="simulated days from the first fact to the questions")
    parser.add_argument("--filler-per-day", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7, help="the order the questions are asked in")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}: pass --data")
    if args.days <= FACT_DAYS:
        sys.exit(f"--days must be more than the {FACT_DAYS} days the facts are told over")
    for preset in presets:
        preset_config(preset)  # an unknown preset fails before anything runs
    conversations = load_conversations(args.data)
    console = Console(width=200)
    results: dict[str, list[Outcome]] = {}
    seconds: dict[str, float] = {}
    with Progress(console=console, transient=True) as progress:
        for preset in presets:
            started = time.perf_counter()
            results[preset] = run(conversations, args.embedder, preset, args.days, args.filler_per_day,
                                  args.seed, progress)
            seconds[preset] = time.perf_counter() - started
    console.print(f"embedder {args.embedder}; {len(FACTS)} facts; presets {', '.join(presets)}; "
                  + "; ".join(f"{p} {s:.0f} s" for p, s in seconds.items()))
    console.print(hits_table(results, args.days, args.filler_per_day))
    if any(not o.hit for outcomes in results.values() for o in outcomes):
        console.print(misses_table(results))
        for preset, outcomes in results.items():
            states = Counter(o.state for o in outcomes if not o.hit)
            firsts = Counter(o.first_hit_is for o in outcomes if not o.hit)
            console.print(f"{preset}: misses by state {dict(states)}; first hit instead {dict(firsts)}")
    report = {"embedder": args.embedder, "days": args.days, "filler_per_day": args.filler_per_day,
              "seed": args.seed, "facts": len(FACTS),
              "presets": {preset: {"hits": sum(o.hit for o in outcomes), "seconds": round(seconds[preset], 1),
                                   "by_kind": {k: score(outcomes, k) for k in KINDS},
                                   "by_half": {h: score(outcomes, half=h) for h in HALVES},
                                   "outcomes": [asdict(o) for o in outcomes]}
                          for preset, outcomes in results.items()}}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report


if __name__ == "__main__":
    main()
