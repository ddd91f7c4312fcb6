"""Lifecycle benchmark: does the memory keep what it was told once it is used and time passes?

Every row goes through the public API with the same embedder, in one run:

LoCoMo (the development conversations), three ways of using one memory:
- `static`: every turn encoded at once, questions asked read-only
  (`retrieve(record_access=False)`), the clock frozen: what `locomo.py` measures;
- `use`: the same memory, questions asked with the default `retrieve()` (which
  reinforces what it returns) in a shuffled order;
- `life`: each conversation in its own store on a `ManualClock`; every session is
  encoded at its own date, `store.consolidate()` runs every night from the first
  session to the day after the last one, and the questions are asked through the
  default `retrieve()`, shuffled, one day after the last session.
`lexical` (BM25 alone) and `dense` (vectors alone) on the static memory are the baselines.
R@k = |evidence dia_ids ∩ top k| / |evidence|, per category and overall. R@5 and R@10 are read
from what `retrieve(question)` returns as a user calls it (the default top_k, 10: the candidate
pools and what is reinforced depend on top_k), R@25 from a read-only top_k=25 call right
after. At the end of
`life`: how many turns are active or dormant, which share of the evidence turns is
active, and R@10 counting only active hits.

Durable facts: a few dozen facts a user states once in the first days (health, family,
preferences, accounts, work), then months of other conversation (LoCoMo turns as filler)
with `consolidate()` every night; each fact is asked once at the end through the default
`retrieve()`, a hit is the fact in the top 5.

Knowledge updates: facts and their later corrections in several wordings, consolidation
nightly; a hit is the correction ranked first, for an honest agent and for default traits.

Facts in passing (`said_in_passing.py`): facts said inside a turn about something else, over
four months of daily conversation with nightly consolidation; a hit is the turn in the top 5
at the end. Changes (`value_changes.py`): a value changed ten days after it was stated
("moved to Mondays", "upped to 1,020", ...); a hit is the change ranked first with the older
statement marked outdated in the prompt (or left out), and different things both kept. Each
reported per half of its own split.

Presets: `default` (the library's defaults) and `reference` (the references' literal
parameters, `CogmemConfig.reference_preset()`), side by side.

    python benchmarks/lifecycle.py                                   # everything, MiniLM
    python benchmarks/lifecycle.py --embedder hash --limit-conversations 1 --limit-questions 20 \\
        --durable-days 20 --filler-per-day 4                          # a smoke run
    python benchmarks/lifecycle.py --graphs embedded,bolt://127.0.0.1:7687   # both engines, one run
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.api.store import consolidator_for
from cogmem_graph.clock import MS_PER_DAY, MS_PER_HOUR, ManualClock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import setting_targets  # noqa: E402
from locomo import CATEGORIES, DEFAULT_DATA, load_conversations, turns_of  # noqa: E402

KS = (5, 10, 25)
ALL_AT_10 = "all@10"
"""The share of questions with every evidence turn in the top 10."""
HALVES = ("tune", "confirm")
"""The development split: the first half of the conversations (sorted by file name) is tuned on,
the second half confirms; every LoCoMo figure is reported for both."""


def half_of(number: int, total: int) -> str:
    """The half of the split conversation `number` (0-based) of `total` belongs to."""
    return HALVES[0] if number < (total + 1) // 2 else HALVES[1]
MODES = ("static", "use", "life")
PRESETS = ("default", "reference")
NIGHT_HOUR = 3
"""Consolidation runs at 03:00 of every simulated day (the memory's sleep)."""


# ---------------------------------------------------------------- scenarios written for this benchmark

DURABLE_FACTS: tuple[tuple[str, str], ...] = (
    # (what the user says once, how it is asked months later: one question each; compound questions
    # are a read-path matter, not a retention one)
    ("I am allergic to peanuts, so please never suggest recipes with them.", "Which food am I allergic to?"),
    ("My daughter's name is Lina and she turns seven in March.", "What is my daughter called?"),
    ("I take 50 mg of metoprolol every morning for my blood pressure.", "What medication do I take each morning?"),
    ("My blood type is O negative.", "What is my blood type?"),
    ("I prefer window seats when I fly, never the aisle.", "Which seat do I like on planes?"),
    ("I'm vegetarian; I stopped eating meat in 2015.", "Do I eat meat?"),
    ("My husband Tomas works as a nurse at the city hospital.", "What does my husband do for a living?"),
    ("My bank account for rent payments is at Triodos, ending in 4471.", "Which bank holds my rent account?"),
    ("My GitHub username is lina-dev-42.", "What is my GitHub username?"),
    ("I work as a data engineer at Northwind Analytics.", "Where do I work?"),
    ("My manager is called Priya Raman.", "Who is my manager?"),
    ("I prefer short answers with code examples rather than long explanations.",
     "How do I like answers to be written?"),
    ("My favourite programming language is Rust.", "Which programming language do I like best?"),
    ("I am afraid of heights, so no rooftop restaurants please.", "What am I afraid of?"),
    ("My mother lives in Porto and I visit her every August.", "Where does my mother live?"),
    ("Our team deploys every Tuesday at 10 am.", "When does our team deploy?"),
    ("My dentist is Dr. Okafor on Elm Street.", "Who is my dentist?"),
    ("I run 5 km every Saturday morning along the river.", "What exercise do I do on weekends?"),
    ("My passport expires on 12 June 2031.", "When does my passport expire?"),
    ("I don't drink coffee; green tea only.", "What do I drink instead of coffee?"),
    ("My son Mateo is allergic to cats.", "Which of my children has an allergy?"),
    ("The wifi password at home is sunflower-1987.", "What is the home wifi password?"),
    ("I'm learning Japanese and have a lesson every Thursday evening.", "Which language am I learning?"),
    ("My car is a blue 2019 Skoda Octavia.", "What car do I drive?"),
    ("I committed to mentoring two junior engineers this year.", "What did I commit to at work this year?"),
    ("My cat is named Pixel.", "What is my cat's name?"),
    ("I have type 1 diabetes and use an insulin pump.", "What chronic condition do I have?"),
    ("My favourite band is Radiohead.", "Which band do I love?"),
    ("I always want meetings scheduled after 10 am, never earlier.", "When may meetings be scheduled for me?"),
    ("My sister Ana is getting married in Lisbon on 4 October.", "Whose wedding is coming up?"),
)

KNOWLEDGE_UPDATES: tuple[tuple[str, str, str], ...] = (
    # (what was said first, the correction days later, the question)
    ("I live in Paris.", "I moved to Berlin last month, I live in Berlin now.", "Where do I live?"),
    ("I work at Acme Corp as an analyst.", "I left Acme; I now work at Globex as a product manager.",
     "Where do I work?"),
    ("We deploy with Jenkins.", "We switched from Jenkins to GitHub Actions for deployments.",
     "What do we deploy with?"),
    ("My phone number is 555-0101.", "My new phone number is 555-0199.", "What is my phone number?"),
    ("My favourite food is sushi.", "Actually my favourite food is ramen now, not sushi.",
     "What is my favourite food?"),
    ("I drive a Toyota Corolla.", "I sold the Corolla and bought a Tesla Model 3.", "What car do I drive?"),
    ("My manager is Sarah.", "Sarah left the company; my manager is now David.", "Who is my manager?"),
    ("The team meeting is on Mondays at 9.", "The team meeting moved to Wednesdays at 11.",
     "When is the team meeting?"),
    ("I'm using Python 3.9 for the project.", "We upgraded the project to Python 3.12.",
     "Which Python version does the project use?"),
    ("My gym is Fitness First on Main Street.", "I cancelled Fitness First and joined the climbing gym Boulderhaus.",
     "Which gym do I go to?"),
)


# ---------------------------------------------------------------- helpers


def preset_config(spec: str) -> cg.CogmemConfig:
    """`default`, `reference`, or either with settings changed: `default+decay.model=ebbinghaus`."""
    name, *changes = spec.split("+")
    if name == "default":
        config = cg.CogmemConfig()
    else:
        factory = getattr(cg.CogmemConfig, f"{name}_preset", None)
        if factory is None:
            raise SystemExit(f"--presets: this version of the library has no {name!r} preset")
        config = factory()
    for target, leaf, value in setting_targets(config, "+".join(changes), "--presets") if changes else ():
        setattr(target, leaf, value)
    return config.model_validate(config.model_dump())


def day_start(ms: int) -> int:
    return ms - ms % MS_PER_DAY


def next_night(ms: int) -> int:
    """The first 03:00 after `ms`."""
    night = day_start(ms) + NIGHT_HOUR * MS_PER_HOUR
    return night if night > ms else night + MS_PER_DAY


def consolidate_nights(store: cg.MemoryStore, clock: ManualClock, until: int,
                       on_night: Callable[[], None] | None = None) -> int:
    """Move the clock night by night up to `until`, consolidating each night; returns nights run."""
    nights = 0
    while (night := next_night(clock.now_ms())) <= until:
        clock.set(night)
        store.consolidate()
        nights += 1
        if on_night:
            on_night()
    clock.set(max(clock.now_ms(), until))
    return nights


def trace_states(store: cg.MemoryStore, scope_keys: list[str]) -> dict[str, str]:
    """dia_id -> 'active' | 'dormant' | 'gone' for every trace of the scope keys."""
    states: dict[str, str] = {}
    skip = 0
    while True:
        page = store.graph.list_traces(scope_keys, include_inactive=True, skip=skip, limit=1000)
        for trace in page:
            dia = trace.metadata.get("dia_id")
            if dia is None:
                continue
            dormant = getattr(trace, "dormant", False)
            state = "gone" if not trace.is_active else "dormant" if dormant else "active"
            # a dia_id encoded twice (a merged duplicate) counts as its best state
            order = {"active": 0, "dormant": 1, "gone": 2}
            if dia not in states or order[state] < order[states[dia]]:
                states[dia] = state
        if len(page) < 1000:
            return states
        skip += 1000


@dataclass
class Recall:
    """recall[category][k] -> per-question recalls; active_only likewise for R@10."""

    by_category: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    by_half: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(list))))
    active_only: list[float] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    evidence_active: float | None = None
    seconds: float = 0.0
    schema_sizes: list[int] = field(default_factory=list)
    """`life`: the sizes of the schemas consolidation made, largest first per conversation."""

    def add(self, category: str, evidence: set[str], ranked: list[str | None],
            wide: list[str | None] | None = None, half: str = HALVES[0]) -> None:
        """`ranked`: the list a default call returned; `wide`: a longer one for the k beyond it;
        `half`: which half of the development split the question's conversation is in."""
        found = {}
        for k in KS:
            source = ranked if wide is None or k <= len(ranked) else wide
            found[k] = len(evidence & set(source[:k])) / len(evidence)
        found[ALL_AT_10] = float(evidence <= set(ranked[:10]))
        for key, value in found.items():
            for where in (self.by_category, self.by_half[half]):
                where[category][key].append(value)
                where["overall"][key].append(value)

    def mean(self, category: str, k: int | str, half: str | None = None) -> float | None:
        table = self.by_category if half is None else self.by_half.get(half, {})
        values = table.get(category, {}).get(k)
        return statistics.mean(values) if values else None


def questions_of(conversation: dict, limit: int | None) -> list[dict]:
    qa = [q for q in conversation["qa"] if q.get("evidence")]
    return qa[:limit] if limit is not None else qa


def ask(reader: cg.AgentMemory, question: str, *, strategy: str = "full", record_access: bool,
        top_k: int | None = None) -> list[str | None]:
    """The dialogue ids `retrieve` returns, best first (top_k None: the default, as a user calls it)."""
    result = reader.retrieve(question, top_k=top_k, strategy=strategy, record_access=record_access)
    return [hit.trace.metadata.get("dia_id") for hit in result.traces]


def ask_as_a_user(reader: cg.AgentMemory, question: str, *, strategy: str = "full",
                  record_access: bool) -> tuple[list[str | None], list[str | None]]:
    """The default call's list, and a read-only top-25 list right after it (for R@25)."""
    ranked = ask(reader, question, strategy=strategy, record_access=record_access)
    return ranked, ask(reader, question, strategy=strategy, record_access=False, top_k=max(KS))


def encode_turns(agent_for: Callable[[str], cg.AgentMemory], turns: list[dict]) -> None:
    by_thread: dict[str, list[dict]] = defaultdict(list)
    for turn in turns:
        by_thread[turn["thread"]].append(turn)
    for thread, items in by_thread.items():
        agent_for(thread).encode_many([
            {"content": t["content"], "scope": "user", "created_at": t["created_at"],
             "metadata": t["metadata"], "type": "episodic"} for t in items])


# ---------------------------------------------------------------- the graph engine of a run


EMBEDDED = "embedded"
"""`--graphs` name of the embedded FalkorDB under each store's temporary home."""


def open_store(home: str, embedder: str, preset: str, clock: ManualClock, graph: str) -> cg.MemoryStore:
    """A store of one preset on `graph` (EMBEDDED, or a Neo4j URL): each store of a run starts
    empty, so a Neo4j database is cleared first (Community Edition has one)."""
    store = cg.open(home=home, graph=None if graph == EMBEDDED else graph, embedder=embedder,
                    config=preset_config(preset), clock=clock)
    if graph != EMBEDDED:
        store.graph.clear()
        store.graph.setup_schema()
    return store


def engine_label(graph: str) -> str:
    """How a row names its engine: nothing for the embedded default, else the graph's dialect."""
    return "" if graph == EMBEDDED else f" on {'neo4j' if graph.startswith(('bolt', 'neo4j')) else graph}"


# ---------------------------------------------------------------- LoCoMo: static, use, baselines


def run_static_and_use(conversations: list[dict], embedder: str, preset: str, limit_q: int | None,
                       seed: int, progress: Progress, baselines: bool, graph: str = EMBEDDED) -> dict[str, Recall]:
    out = {name: Recall() for name in ("static", "use", *(("lexical", "dense") if baselines else ()))}
    clock = ManualClock(int(time.time() * 1000))
    total = sum(len(questions_of(c, limit_q)) for c in conversations) * (4 if baselines else 2)
    task = progress.add_task(f"{preset}: static and use", total=total)
    with tempfile.TemporaryDirectory() as home, \
            open_store(home, embedder, preset, clock, graph) as store:
        for number, conversation in enumerate(conversations):
            user = f"conversation-{number}"
            encode_turns(lambda thread, user=user: store.agent("bench", user_id=user, thread_id=thread),
                         turns_of(conversation))
        started = time.perf_counter()
        for number, conversation in enumerate(conversations):
            reader = store.agent("bench", user_id=f"conversation-{number}")
            for q in questions_of(conversation, limit_q):
                category = CATEGORIES.get(q.get("category"), str(q.get("category")))
                strategies = (("static", "full"), *((("lexical", "lexical"), ("dense", "dense")) if baselines else ()))
                for row, strategy in strategies:
                    out[row].add(category, set(q["evidence"]),
                                 *ask_as_a_user(reader, q["question"], strategy=strategy, record_access=False),
                                 half=half_of(number, len(conversations)))
                    progress.advance(task)
        out["static"].seconds = time.perf_counter() - started
        # `use`: the default retrieve() on the same memory, questions shuffled across conversations.
        asked = [(number, q) for number, c in enumerate(conversations) for q in questions_of(c, limit_q)]
        random.Random(seed).shuffle(asked)
        started = time.perf_counter()
        for number, q in asked:
            reader = store.agent("bench", user_id=f"conversation-{number}")
            category = CATEGORIES.get(q.get("category"), str(q.get("category")))
            out["use"].add(category, set(q["evidence"]), *ask_as_a_user(reader, q["question"], record_access=True),
                           half=half_of(number, len(conversations)))
            progress.advance(task)
        out["use"].seconds = time.perf_counter() - started
    progress.remove_task(task)
    return out


# ---------------------------------------------------------------- LoCoMo: life


def live(store: cg.MemoryStore, clock: ManualClock, conversation: dict, user: str,
         on_night: Callable[[], None] | None = None) -> None:
    """Replay a conversation as it was lived: each session encoded at its own date,
    `consolidate()` every night, up to the night after the last session (when the
    questions come). The clock must start at the first session."""
    turns = turns_of(conversation)
    sessions: dict[int, list[dict]] = defaultdict(list)
    for turn in turns:
        sessions[turn["metadata"]["session"]].append(turn)
    for session in sorted(sessions, key=lambda s: sessions[s][0]["created_at"]):
        items = sessions[session]
        consolidate_nights(store, clock, items[0]["created_at"], on_night)
        clock.set(max(clock.now_ms(), items[0]["created_at"]))
        encode_turns(lambda thread, u=user: store.agent("bench", user_id=u, thread_id=thread), items)
        clock.set(max(clock.now_ms(), items[-1]["created_at"]))
    consolidate_nights(store, clock, max(t["created_at"] for t in turns) + MS_PER_DAY, on_night)


def run_life(conversations: list[dict], embedder: str, preset: str, limit_q: int | None, seed: int,
             progress: Progress, graph: str = EMBEDDED) -> Recall:
    out = Recall(counts={"active": 0, "dormant": 0, "gone": 0, "schemas": 0})
    evidence_states: list[str] = []
    started = time.perf_counter()
    for number, conversation in enumerate(conversations):
        turns = turns_of(conversation)
        first = min(t["created_at"] for t in turns)
        last = max(t["created_at"] for t in turns)
        days = (last - first) // MS_PER_DAY + 2
        task = progress.add_task(f"{preset}: life, conversation {number + 1} ({days} days)", total=days)
        clock = ManualClock(first)
        user = f"conversation-{number}"
        with tempfile.TemporaryDirectory() as home, \
                open_store(home, embedder, preset, clock, graph) as store:
            live(store, clock, conversation, user, lambda t=task: progress.advance(t))
            reader = store.agent("bench", user_id=user)
            states = trace_states(store, reader.visible_scope_keys)
            for state in states.values():
                out.counts[state] += 1
            schemas = consolidator_for(store).schemas(reader.visible_scope_keys)
            out.counts["schemas"] += len(schemas)
            out.schema_sizes += sorted((s["size"] for s in schemas), reverse=True)
            questions = questions_of(conversation, limit_q)
            for q in questions:
                evidence_states += [states.get(d, "gone") for d in q["evidence"]]
            shuffled = list(questions)
            random.Random(seed + number).shuffle(shuffled)
            for q in shuffled:
                category = CATEGORIES.get(q.get("category"), str(q.get("category")))
                evidence = set(q["evidence"])
                ranked, wide = ask_as_a_user(reader, q["question"], record_access=True)
                out.add(category, evidence, ranked, wide, half=half_of(number, len(conversations)))
                active_hits = {d for d in ranked[:10] if states.get(d) == "active"}
                out.active_only.append(len(evidence & active_hits) / len(evidence))
        progress.remove_task(task)
    out.evidence_active = (sum(s == "active" for s in evidence_states) / len(evidence_states)
                           if evidence_states else None)
    out.seconds = time.perf_counter() - started
    return out


# ---------------------------------------------------------------- durable facts


def filler_turns(conversations: list[dict]) -> list[str]:
    return [t["content"] for c in conversations for t in turns_of(c)]


FACT_DAYS = 3
"""Durable facts are stated over the first three days of a simulated life."""


def tell_then_live(store: cg.MemoryStore, clock: ManualClock, start: int, statements: list[str], days: int,
                   filler: list[str], per_day: int, on_day: Callable[[], None] | None = None) -> tuple[list[str], int]:
    """Each statement said once over the first FACT_DAYS days (in turn, ten minutes apart), then
    `per_day` filler turns every day up to `days` with consolidation each night, the clock ending
    the morning after. Returns the statements' trace ids and how many filler turns were used."""
    ids: list[str] = []
    for index, text in enumerate(statements):
        day, slot = index % FACT_DAYS, index // FACT_DAYS
        clock.set(start + day * MS_PER_DAY + slot * 10 * 60_000)
        agent = store.agent("assistant", user_id="u1", thread_id=f"day-{day}")
        ids.append(agent.encode(text, scope="user").id)
    cursor = 0
    for day in range(FACT_DAYS, days):
        consolidate_nights(store, clock, start + day * MS_PER_DAY)
        agent = store.agent("assistant", user_id="u1", thread_id=f"day-{day}")
        batch = [filler[(cursor + i) % len(filler)] for i in range(per_day)]
        cursor += per_day
        agent.encode_many([{"content": text, "scope": "user", "type": "episodic"} for text in batch])
        if on_day:
            on_day()
    consolidate_nights(store, clock, start + days * MS_PER_DAY + 10 * MS_PER_HOUR)
    return ids, cursor


def run_durable(conversations: list[dict], embedder: str, preset: str, days: int, per_day: int,
                progress: Progress, graph: str = EMBEDDED) -> dict:
    """Facts stated in the first days, `days` of filler with nightly consolidation, then asked."""
    start = day_start(int(time.time() * 1000)) - (days + 10) * MS_PER_DAY + 9 * MS_PER_HOUR
    clock = ManualClock(start)
    filler = filler_turns(conversations)
    task = progress.add_task(f"{preset}: durable facts ({days} days)", total=days)
    hits: list[bool] = []
    misses: list[str] = []
    ranks: list[int | None] = []
    with tempfile.TemporaryDirectory() as home, \
            open_store(home, embedder, preset, clock, graph) as store:
        facts_at, cursor = tell_then_live(store, clock, start, [fact for fact, _ in DURABLE_FACTS], days, filler,
                                          per_day, on_day=lambda: progress.advance(task))
        reader = store.agent("assistant", user_id="u1")
        for trace_id, (fact, question) in zip(facts_at, DURABLE_FACTS, strict=True):
            found = reader.retrieve(question).traces  # as a user asks: the default top_k
            top = [hit.trace.id for hit in found]
            hits.append(trace_id in top[:5])
            if trace_id not in top:  # where it is, read-only
                top = [hit.trace.id for hit in reader.retrieve(question, top_k=25, record_access=False).traces]
            ranks.append(top.index(trace_id) + 1 if trace_id in top else None)
            if trace_id not in top[:5]:
                state = store.graph.get_traces([trace_id], reader.visible_scope_keys)
                how = "gone" if not state else ("dormant" if state[0].dormant else "active") + \
                    f" {state[0].category.value}" if state[0].is_active else "deleted"
                rank = top.index(trace_id) + 1 if trace_id in top else "> 25"
                misses.append(f"{fact} ({how}, rank {rank}; first: {found[0].trace.content[:60] if found else '-'})")
    progress.remove_task(task)
    frozen, frozen_misses = run_durable_frozen(filler[:cursor], embedder, preset, graph)
    return {"hits": sum(hits), "n": len(hits), "misses": misses, "frozen": frozen, "frozen_misses": frozen_misses,
            "close": [f"{q} (rank {r})" for (_, q), r in zip(DURABLE_FACTS, ranks, strict=True) if r in (4, 5)]}


def run_durable_frozen(filler: list[str], embedder: str, preset: str,
                       graph: str = EMBEDDED) -> tuple[int, list[str]]:
    """The diagnostic beside it: the same facts and filler encoded at once, asked read-only with the
    clock frozen. What this misses, the retriever misses; what only the lifecycle misses, retention does.
    Returns the hits and the questions missed, with the fact's rank."""
    with tempfile.TemporaryDirectory() as home, \
            open_store(home, embedder, preset, ManualClock(), graph) as store:
        agent = store.agent("assistant", user_id="u1", thread_id="frozen")
        ids = [t.id for t in agent.encode_many([{"content": fact, "scope": "user"} for fact, _ in DURABLE_FACTS])]
        agent.encode_many([{"content": text, "scope": "user", "type": "episodic"} for text in filler])
        misses = []
        for trace_id, (_, question) in zip(ids, DURABLE_FACTS, strict=True):
            top = [h.trace.id for h in agent.retrieve(question, record_access=False).traces]
            if trace_id not in top[:5]:
                top = [h.trace.id for h in agent.retrieve(question, top_k=25, record_access=False).traces]
                misses.append(f"{question} (rank {top.index(trace_id) + 1 if trace_id in top else '> 25'})")
        return len(DURABLE_FACTS) - len(misses), misses


# ---------------------------------------------------------------- knowledge updates


def run_updates(embedder: str, preset: str, honesty: float, progress: Progress, graph: str = EMBEDDED) -> dict:
    """Every update in one store, each told by its own user (a scope of its own, so no update
    sees another's memories): the old statement, ten nights, the correction, two nights, then
    the question from a fresh handle of that user."""
    start = day_start(int(time.time() * 1000)) - 30 * MS_PER_DAY + 9 * MS_PER_HOUR
    task = progress.add_task(f"{preset}: knowledge updates, honesty {honesty}", total=len(KNOWLEDGE_UPDATES))
    hits, misses = 0, []
    clock = ManualClock(start)
    traits = cg.Hexaco(honesty=honesty)
    with tempfile.TemporaryDirectory() as home, \
            open_store(home, embedder, preset, clock, graph) as store:
        agents = [store.agent("assistant", user_id=f"u{i}", thread_id="t1", traits=traits)
                  for i in range(len(KNOWLEDGE_UPDATES))]
        for agent, (old, _, _) in zip(agents, KNOWLEDGE_UPDATES, strict=True):
            agent.encode(old, scope="user")
        consolidate_nights(store, clock, start + 10 * MS_PER_DAY)
        corrections = [agent.encode(new, scope="user")
                       for agent, (_, new, _) in zip(agents, KNOWLEDGE_UPDATES, strict=True)]
        consolidate_nights(store, clock, start + 12 * MS_PER_DAY)
        for i, ((_, _, question), correction) in enumerate(zip(KNOWLEDGE_UPDATES, corrections, strict=True)):
            top = store.agent("assistant", user_id=f"u{i}", traits=traits).retrieve(question).traces
            if top and top[0].trace.id == correction.id:
                hits += 1
            else:
                misses.append(f"{question} -> {top[0].trace.content if top else '(nothing)'}")
            progress.advance(task)
    progress.remove_task(task)
    return {"hits": hits, "n": len(KNOWLEDGE_UPDATES), "misses": misses}


# ---------------------------------------------------------------- tables


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def locomo_table(rows: dict[str, Recall]) -> Table:
    table = Table(title="LoCoMo recall@k as the memory is used (questions with evidence)")
    for name in ("row", "n", *(f"R@{k}" for k in KS), "active", "dormant", "gone", "evidence active",
                 "R@10 active only", "schemas (largest)", "s"):
        table.add_column(name, justify="left" if name == "row" else "right")
    for name, r in rows.items():
        n = len(r.by_category["overall"][KS[0]])
        counts = r.counts
        table.add_row(name, str(n), *(fmt(r.mean("overall", k)) for k in KS),
                      str(counts.get("active", "")), str(counts.get("dormant", "")), str(counts.get("gone", "")),
                      fmt(r.evidence_active), fmt(statistics.mean(r.active_only) if r.active_only else None),
                      schemas_cell(r), f"{r.seconds:.0f}")
    return table


def schemas_cell(r: Recall) -> str:
    """`life`: how many schemas, and the largest's size (blank for the rows that do not consolidate)."""
    if r.schema_sizes:
        return f"{len(r.schema_sizes)} ({max(r.schema_sizes)})"
    return str(r.counts.get("schemas", ""))


def category_table(rows: dict[str, Recall]) -> Table:
    table = Table(title=f"By category and half of the split: R@5 / R@10 / {ALL_AT_10} (every evidence turn in "
                        "the top 10)")
    categories = [c for c in CATEGORIES.values() if any(r.mean(c, 10) is not None for r in rows.values())]
    table.add_column("row")
    table.add_column("half")
    for c in [*categories, "overall"]:
        table.add_column(c, justify="right")
    for name, r in rows.items():
        for half in HALVES:
            if r.mean("overall", 10, half) is None:
                continue
            table.add_row(name, half, *(" / ".join(fmt(r.mean(c, key, half)) for key in (5, 10, ALL_AT_10))
                                        for c in [*categories, "overall"]))
    return table


def scenario_table(durable: dict, updates: dict) -> Table:
    table = Table(title="Durable facts (hit: in the top 5 at the end) and knowledge updates (hit: correction first)")
    table.add_column("preset")
    table.add_column("durable facts", justify="right")
    table.add_column("… frozen, read-only", justify="right")
    table.add_column("updates, honest agent", justify="right")
    table.add_column("updates, default traits", justify="right")

    def score(result: dict | None) -> str:
        return "-" if result is None else f"{result['hits']}/{result['n']}"

    for preset in dict.fromkeys([*durable, *updates]):
        u = updates.get(preset, {})
        d = durable.get(preset)
        frozen = "-" if d is None else f"{d['frozen']}/{d['n']}"
        table.add_row(preset, score(d), frozen, score(u.get(0.9)), score(u.get(0.5)))
    return table


def said_table(passing: dict, changes: dict) -> Table:
    table = Table(title="Facts said in passing (hit: in the top 5 months later) and changes of value (hit: the "
                        "change first, the older statement marked outdated)")
    table.add_column("preset")
    for name in ("passing tune", "passing confirm", "changes tune", "changes confirm", "changes holdout",
                 "changes holdout 2", "changes holdout 3", "different things kept"):
        table.add_column(name, justify="right")
    for preset in dict.fromkeys([*passing, *changes]):
        p, c = passing.get(preset, {}), changes.get(preset, {})
        table.add_row(preset, p.get("by_half", {}).get("tune", "-"), p.get("by_half", {}).get("confirm", "-"),
                      *(c.get("by_half", {}).get(h, "-") for h in ("tune", "confirm", "holdout", "holdout 2",
                                                                   "holdout 3")),
                      f"{c['distinct']['hits']}/{c['distinct']['n']}" if c else "-")
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    parser.add_argument("--presets", default=",".join(PRESETS), help="comma-separated: default, reference")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--limit-questions", type=int, default=None, help="per conversation")
    parser.add_argument("--durable-days", type=int, default=180)
    parser.add_argument("--filler-per-day", type=int, default=12)
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: locomo (all of it), "
                        "static (static and use), life, durable, updates, passing, changes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--graphs", default=EMBEDDED,
                        help=f"comma-separated graph engines, each measured in turn: {EMBEDDED} (FalkorDB under "
                             "each store's home) or a Neo4j URL (bolt://…, credentials from NEO4J_USER / "
                             "NEO4J_PASSWORD; its database is cleared before each store)")
    args = parser.parse_args(argv)
    graphs = [g.strip() for g in args.graphs.split(",") if g.strip()]
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}: pass --data")
    for preset in presets:
        preset_config(preset)  # an unknown preset fails before anything runs
    conversations = load_conversations(args.data)[: args.limit_conversations]
    console = Console(width=200)
    rows: dict[str, Recall] = {}
    durable: dict[str, dict] = {}
    updates: dict[str, dict] = {}
    passing: dict[str, dict] = {}
    changes: dict[str, dict] = {}
    from said_in_passing import run_passing  # (they import this module's helpers)
    from value_changes import run_value_changes
    with Progress(console=console, transient=True) as progress:
        for graph in graphs:
            on = engine_label(graph)
            for index, preset in enumerate(presets):
                if "locomo" not in skip and "static" not in skip:
                    static_use = run_static_and_use(conversations, args.embedder, preset, args.limit_questions,
                                                    args.seed, progress, baselines=index == 0, graph=graph)
                    for name, recall in static_use.items():
                        rows[(name if name in ("lexical", "dense") else f"{name} ({preset})") + on] = recall
                if "life" not in skip and "locomo" not in skip:
                    rows[f"life ({preset}){on}"] = run_life(conversations, args.embedder, preset,
                                                            args.limit_questions, args.seed, progress, graph)
                if "durable" not in skip:
                    durable[preset + on] = run_durable(conversations, args.embedder, preset, args.durable_days,
                                                       args.filler_per_day, progress, graph)
                if "updates" not in skip:
                    updates[preset + on] = {h: run_updates(args.embedder, preset, h, progress, graph)
                                            for h in (0.9, 0.5)}
                if "passing" not in skip:
                    passing[preset + on] = run_passing(conversations, args.embedder, preset, args.durable_days,
                                                       args.durable_days * 2 // 3, args.filler_per_day, args.seed,
                                                       progress, graph)
                if "changes" not in skip:
                    changes[preset + on] = run_value_changes(args.embedder, preset, progress, graph)
    console.print(f"embedder {args.embedder}; presets {', '.join(presets)}; graphs {', '.join(graphs)}")
    if rows:
        console.print(locomo_table(rows))
        console.print(category_table(rows))
    if durable or updates:
        console.print(scenario_table(durable, updates))
        for preset in dict.fromkeys([*durable, *updates]):
            for miss in durable.get(preset, {}).get("misses", []):
                console.print(f"  {preset}: durable fact missed: {miss}")
            for miss in durable.get(preset, {}).get("frozen_misses", []):
                console.print(f"  {preset}: frozen, read-only: durable fact missed: {miss}")
            for close in durable.get(preset, {}).get("close", []):
                console.print(f"  {preset}: durable fact found at the edge of the top 5: {close}")
            for honesty, result in updates.get(preset, {}).items():
                for miss in result["misses"]:
                    console.print(f"  {preset}: honesty {honesty}: update missed: {miss}")
    if passing or changes:
        console.print(said_table(passing, changes))
        for preset in dict.fromkeys([*passing, *changes]):
            for miss in passing.get(preset, {}).get("misses", []):
                console.print(f"  {preset}: fact in passing missed: {miss}", markup=False)
            for miss in changes.get(preset, {}).get("misses", []):
                console.print(f"  {preset}: change missed: {miss}", markup=False)
            for miss in changes.get(preset, {}).get("distinct_misses", []):
                console.print(f"  {preset}: different things not kept: {miss}", markup=False)
    return {"locomo": {name: {k: r.mean("overall", k) for k in KS} for name, r in rows.items()},
            "locomo_halves": {name: {half: {c: {str(key): r.mean(c, key, half) for key in (*KS, ALL_AT_10)}
                                            for c in r.by_half.get(half, {})}
                                     for half in HALVES if half in r.by_half}
                              for name, r in rows.items()},
            "life_counts": {name: r.counts for name, r in rows.items() if r.counts},
            "durable": durable, "updates": updates, "passing": passing, "changes": changes}


if __name__ == "__main__":
    main()
