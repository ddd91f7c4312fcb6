"""Silent updates: a later statement about the same thing with another value replaces the
older one, with no cue word ("actually", "now", "switched", "moved"); two statements about
different things both stay.

Each pair lives in its own user's scope of one store: the older statement, days later the
newer one, then the question. A pair passes when the newer statement ranks above the older
one by the configured margin and the prompt shows the new value as current, the old one
only marked outdated. Every pair must pass with both embedders (the hash embedder of the
fast tests and the offline MiniLM): the rule that reads them is lexical, and the embedding
similarity only admits a newer sentence that says a little more than the older one. MiniLM's
nearest neighbours find every older statement; the hash embedder's need the full-text lookup
(`write.restatement_lookup`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

START_MS = 1_767_225_600_000  # 2026-01-01 00:00 UTC


@dataclass(frozen=True)
class Update:
    old: str
    new: str
    question: str
    old_value: str
    new_value: str


UPDATES: tuple[Update, ...] = (
    # times
    Update("The dentist appointment is at 3 pm on Tuesday.", "The dentist appointment on Tuesday is at 4:30 pm.",
           "What time is the dentist appointment?", "3 pm", "4:30 pm"),
    Update("Yoga class starts at 6:30 in the morning.", "In the morning, yoga class starts at 7:15.",
           "When does yoga class start?", "6:30", "7:15"),
    Update("Our flight to Lisbon departs at 08:40.", "The flight to Lisbon departs at 11:05.",
           "When does the flight to Lisbon leave?", "08:40", "11:05"),
    Update("Hotel check-in opens at 2 pm.", "Check-in at the hotel opens at 4 pm.",
           "When can we check in at the hotel?", "2 pm", "4 pm"),
    Update("The farmers market closes at noon on Saturdays.", "On Saturdays the farmers market closes at 1:30 pm.",
           "When does the farmers market close?", "noon", "1:30 pm"),
    Update("The last ferry back to the island leaves at 21:10.", "At 22:40 the last ferry back to the island leaves.",
           "When is the last ferry back to the island?", "21:10", "22:40"),
    Update("Piano lessons for Noor are on Wednesdays at 5 pm.", "Piano lessons for Noor are at 6 pm on Wednesdays.",
           "What time are Noor's piano lessons?", "5 pm", "6 pm"),
    # numbers
    Update("Our team has 12 engineers.", "There are 15 engineers on our team.",
           "How many engineers are on our team?", "12", "15"),
    Update("I take 20 mg of lisinopril each morning.", "Each morning I take 40 mg of lisinopril.",
           "How much lisinopril do I take?", "20 mg", "40 mg"),
    Update("Our apartment is on the 4th floor.", "The apartment we rent is on the 7th floor.",
           "Which floor is our apartment on?", "4th", "7th"),
    Update("My running goal this year is 800 kilometers.", "This year my running goal is 1,000 kilometers.",
           "What is my running goal for the year?", "800", "1,000"),
    Update("The dog gets 2 cups of food at dinner.", "At dinner the dog gets 3 cups of food.",
           "How much food does the dog get at dinner?", "2 cups", "3 cups"),
    Update("The book club reads 2 novels per month.", "Per month, the book club reads 3 novels.",
           "How many novels does the book club read a month?", "2 novels", "3 novels"),
    # prices
    Update("The storage unit costs $85 a month.", "The storage unit is $110 a month.",
           "How much is the storage unit?", "$85", "$110"),
    Update("My monthly rent is 1,450 euros.", "My rent is 1,600 euros monthly.",
           "How much rent do I pay?", "1,450", "1,600"),
    Update("A season pass at the ski resort costs 420 francs.", "The ski resort season pass costs 465 francs.",
           "What does a season pass at the ski resort cost?", "420", "465"),
    Update("The plumber charges 70 pounds an hour.", "The plumber charges 85 pounds per hour.",
           "What is the plumber's hourly rate?", "70 pounds", "85 pounds"),
    Update("Tickets for the jazz festival are 55 dollars each.", "Each ticket for the jazz festival is 60 dollars.",
           "How much is a jazz festival ticket?", "55 dollars", "60 dollars"),
    Update("The gym membership is €39 per month.", "Gym membership: €45 per month.",
           "How much is the gym membership?", "€39", "€45"),
    # places
    Update("The team offsite will be held in Porto.", "The offsite for the team will be held in Seville.",
           "Where is the team offsite?", "Porto", "Seville"),
    Update("The book club meets at Café Lumen.", "The book club meets at the Greenway Library.",
           "Where does the book club meet?", "Café Lumen", "Greenway Library"),
    Update("I park my car at the Elm Street garage.", "I park my car in the Harbor Street garage.",
           "Where do I park my car?", "Elm Street", "Harbor Street"),
    Update("Grandma's birthday dinner is at Luigi's.", "Grandma's birthday dinner is at the Blue Fig.",
           "Where is grandma's birthday dinner?", "Luigi's", "Blue Fig"),
    Update("Our wedding reception is at Hillcrest Manor.", "The wedding reception is at Lakeside Hall.",
           "Where is the wedding reception?", "Hillcrest Manor", "Lakeside Hall"),
    Update("The quarterly board meeting takes place in Frankfurt.",
           "The quarterly board meeting will take place in Vienna.",
           "Where does the quarterly board meeting take place?", "Frankfurt", "Vienna"),
    # names
    Update("The babysitter on Fridays is Chloe.", "Our Friday babysitter is Ingrid.",
           "Who babysits on Fridays?", "Chloe", "Ingrid"),
    Update("Our family doctor is Dr. Haddad.", "Our family doctor these days is Dr. Lindqvist.",
           "Who is our family doctor?", "Haddad", "Lindqvist"),
    Update("The spare house key is with our neighbour Ruth.", "The spare house key is with Tomasz, our neighbour.",
           "Who has the spare house key?", "Ruth", "Tomasz"),
    Update("My project lead is Daniel.", "The lead on my project is Marta.",
           "Who leads my project?", "Daniel", "Marta"),
    Update("Our wedding photographer is Kenji.", "Our wedding photographer will be Amara.",
           "Who is our wedding photographer?", "Kenji", "Amara"),
    # dates
    Update("The tax return is due on April 30.", "The tax return is due on May 15.",
           "When is the tax return due?", "April 30", "May 15"),
    Update("Our lease ends on 31 August 2026.", "The lease ends on 30 September 2026.",
           "When does our lease end?", "31 August", "30 September"),
    Update("Mia's school play is on the 14th of June.", "Mia's school play is on the 21st of June.",
           "When is Mia's school play?", "14th", "21st"),
    Update("The car inspection is scheduled for 12 October.", "The car inspection is scheduled for 19 October.",
           "When is the car inspection?", "12 October", "19 October"),
    Update("My passport renewal appointment is on 2 February.",
           "The passport renewal appointment is on 9 February.",
           "When is my passport renewal appointment?", "2 February", "9 February"),
    Update("Dad's retirement party is on Saturday.", "Dad's retirement party is on Sunday.",
           "When is Dad's retirement party?", "Saturday", "Sunday"),
)

DIFFERENT_THINGS: tuple[tuple[str, str, str], ...] = (
    # (first statement, later statement about something else, a question about the later one)
    ("My sister lives in Oslo.", "My brother lives in Rome.", "Where does my brother live?"),
    ("My sister lives in Oslo.", "My sister's husband lives in Rome.", "Where does my sister's husband live?"),
    ("Room 204 costs 95 euros a night.", "Room 310 costs 140 euros a night.", "How much is room 310?"),
    ("Tom's birthday is on July 2.", "Sara's birthday is on July 2.", "When is Sara's birthday?"),
    ("The blue folder holds the 2023 invoices.", "The red folder holds the 2024 invoices.",
     "Which folder holds the 2024 invoices?"),
    ("Anna takes the bus at 7:40 to get to work.", "Marco takes the bus at 8:10 to get to work.",
     "When does Marco take the bus?"),
    ("I bought 3 kilos of apples at the market.", "I bought 2 kilos of apples at the market.",
     "How many apples did I buy?"),
    ("Our gate code at the cabin is 4410.", "Our gate code at the office is 7752.", "What is the office gate code?"),
    ("My passport number ends in 7731.", "My husband's passport number ends in 2290.",
     "What does my husband's passport number end in?"),
    ("On Fridays, Tom plays chess.", "On Fridays, Sara plays chess.", "Who plays chess on Fridays?"),
    ("The Monday standup is at 9:30.", "The Thursday retro is at 9:30.", "When is the Thursday retro?"),
    ("Locker 12 holds the camping gear.", "Locker 19 holds the ski gear.", "Which locker holds the ski gear?"),
)

EMBEDDERS = ["hash", pytest.param("local", marks=pytest.mark.local_embedder)]


def _mentions(text: str, value: str) -> bool:
    """Whether `value` occurs in `text` as itself ("3 pm" is not inside "4:30 pm", "12" not in "120")."""
    return re.search(r"(?<![\w:.,$€£])" + re.escape(value) + r"(?![\w:]|[.,]\d)", text) is not None


def _current_and_outdated(text: str) -> tuple[str, str]:
    """The prompt's lines that state something as current, and the lines marked outdated."""
    lines = text.splitlines()
    outdated = [line for line in lines if "(outdated:" in line]
    return "\n".join(line for line in lines if line not in outdated), "\n".join(outdated)


def _config(embedder: str) -> cg.CogmemConfig:
    """The defaults; the hash embedder rates some restatements below the interference threshold,
    so its store also looks them up in the full-text index (`write.restatement_lookup`)."""
    return cg.CogmemConfig(write={"restatement_lookup": embedder == "hash"})


@pytest.fixture(scope="module", params=EMBEDDERS)
def told(request, tmp_path_factory):
    """One store per embedder: each pair in its own user's scope, the newer statement three
    days after the older; (store, {index: (agent, old trace, new trace)})."""
    clock = ManualClock(START_MS)
    home = tmp_path_factory.mktemp(f"silent-{request.param}")
    with cg.open(home=home, embedder=request.param, clock=clock, config=_config(request.param)) as store:
        agents = {i: store.agent("assistant", user_id=f"u{i}", thread_id=f"t{i}") for i in range(len(UPDATES))}
        olds = {i: agents[i].encode(u.old, scope="user") for i, u in enumerate(UPDATES)}
        clock.advance(days=3)
        news = {i: agents[i].encode(u.new, scope="user") for i, u in enumerate(UPDATES)}
        clock.advance(hours=2)
        yield store, {i: (agents[i], olds[i], news[i]) for i in range(len(UPDATES))}


def test_the_sets_are_large_and_their_values_differ() -> None:
    assert len(UPDATES) >= 30 and len(DIFFERENT_THINGS) >= 8
    for u in UPDATES:
        assert _mentions(u.old, u.old_value) and not _mentions(u.old, u.new_value), u.old
        assert _mentions(u.new, u.new_value) and not _mentions(u.new, u.old_value), u.new
        cues = {"actually", "now", "switched", "moved", "changed", "instead", "no longer", "correction", "new"}
        assert not {w for w in cues if re.search(rf"\b{w}\b", u.new, re.IGNORECASE)}, u.new


def test_a_newer_statement_with_another_value_ranks_above_the_older_one(told) -> None:
    store, pairs = told
    margin = store.config.retrieval.current_first_margin
    failures = []
    for i, u in enumerate(UPDATES):
        agent, old, new = pairs[i]
        hits = {h.trace.id: h for h in agent.retrieve(u.question, top_k=5, record_access=False).traces}
        ranked = list(hits)
        if new.id not in hits:
            failures.append(f"{u.new!r} not retrieved")
        elif old.id in hits and not (ranked.index(new.id) < ranked.index(old.id)
                                     and hits[old.id].score <= hits[new.id].score * (1 - margin) + 1e-9):
            failures.append(f"{u.new!r} ({hits[new.id].score:.3f}) not clearly above {u.old!r} "
                            f"({hits[old.id].score:.3f})")
    assert failures == [], f"{len(UPDATES) - len(failures)}/{len(UPDATES)} pairs pass: {failures}"


def test_the_prompt_shows_the_new_value_as_current_and_the_old_one_as_outdated(told) -> None:
    store, pairs = told
    failures = []
    for i, u in enumerate(UPDATES):
        agent, old, new = pairs[i]
        ctx = agent.assemble_for_prompt(u.question, token_budget=400)
        current, outdated = _current_and_outdated(ctx.text)
        if not _mentions(current, u.new_value) or _mentions(current, u.old_value):
            failures.append(f"{u.question!r}: current lines {current!r}")
        elif old.id in ctx.trace_ids and (old.id not in ctx.outdated or "by the line above" not in outdated
                                           or not _mentions(outdated, u.old_value)):
            failures.append(f"{u.question!r}: the older statement not marked as replaced: {ctx.text!r}")
    assert failures == [], f"{len(UPDATES) - len(failures)}/{len(UPDATES)} prompts right: {failures}"


def test_the_replacement_date_is_when_the_newer_statement_was_made(told) -> None:
    store, pairs = told
    agent, old, new = pairs[0]
    ctx = agent.assemble_for_prompt(UPDATES[0].question, token_budget=400)
    lines = ctx.text.splitlines()
    marked = [n for n, line in enumerate(lines) if "(outdated:" in line]
    assert len(marked) == 1
    assert "replaced on 2026-01-04 by the line above" in lines[marked[0]]  # three days after 1 January
    assert UPDATES[0].new in lines[marked[0] - 1], "the replacement is the line above"


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_statements_about_different_things_both_stay_current(tmp_path, embedder) -> None:
    clock = ManualClock(START_MS)
    with cg.open(home=tmp_path / embedder, embedder=embedder, clock=clock, config=_config(embedder)) as store:
        traits = cg.Hexaco(honesty=0.95)  # the agent that lets a newer statement win whenever there is a conflict
        told = []
        for i, (first, second, question) in enumerate(DIFFERENT_THINGS):
            agent = store.agent("assistant", user_id=f"d{i}", thread_id=f"d{i}", traits=traits)
            a = agent.encode(first, scope="user")
            clock.advance(days=2)
            b = agent.encode(second, scope="user")
            told.append((agent, a, b, question))
        clock.advance(days=1)
        store.consolidate()
        failures = []
        for agent, a, b, question in told:
            _, edges, _ = agent.neighbourhood(b.id)
            conflicts = [e for e in edges if e.type in (cg.EdgeType.CONTRADICTS, cg.EdgeType.SUPERSEDES)]
            states = [agent.get(t.id).state for t in (a, b)]
            ctx = agent.assemble_for_prompt(question, token_budget=400)
            if conflicts or states != ["active", "active"] or ctx.outdated or "(outdated:" in ctx.text:
                failures.append(f"{a.content!r} / {b.content!r}: edges {[e.type for e in conflicts]}, "
                                f"states {states}, outdated {ctx.outdated}")
        assert failures == [], failures


@pytest.mark.parametrize("lookup", [False, True])
def test_the_full_text_lookup_finds_a_restatement_the_nearest_neighbours_miss(tmp_path, lookup) -> None:
    """The hash embedder rates "Our team has 12 engineers." and "There are 15 engineers on our
    team." below the interference threshold: only the full-text lookup brings the older one to
    the judge."""
    clock = ManualClock(START_MS)
    config = cg.CogmemConfig(write={"restatement_lookup": lookup})
    with cg.open(home=tmp_path / "h", embedder="hash", clock=clock, config=config) as store:
        agent = store.agent("assistant", user_id="u", thread_id="t")
        old = agent.encode("Our team has 12 engineers.", scope="user")
        clock.advance(days=3)
        new = agent.encode("There are 15 engineers on our team.", scope="user")
        _, edges, _ = agent.neighbourhood(new.id)
        linked = any(e.type is cg.EdgeType.CONTRADICTS and {e.src, e.dst} == {old.id, new.id} for e in edges)
        assert linked is lookup
