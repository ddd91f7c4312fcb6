"""The assembled prompt is written for a model, not for a person debugging the memory: no
internal ids, activation values or scores (unless `debug=True`), each memory once, text cut
at a sentence end or between words, and a replaced or expired memory marked outdated next to
what replaced it."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock

MONDAY_9AM = int(datetime(2026, 3, 2, 9, tzinfo=UTC).timestamp() * 1000)

STYLES = {
    "plain": cg.Hexaco(),
    "structured": cg.Hexaco(conscientiousness=0.9),
    "narrative": cg.Hexaco(openness=0.9),
    "emotional": cg.Hexaco(emotionality=0.9),
}

MEMORIES = (
    {"content": "Priya prefers code reviews in the morning before stand-up.", "type": "semantic"},
    {"content": "The staging cluster runs on three nodes in the Dublin region.", "type": "semantic"},
    {"content": "We deploy the billing service with Helm charts.", "type": "procedural"},
    {"content": "Yesterday the billing deploy failed because the Helm chart pinned an old image.",
     "type": "episodic"},
    {"content": "Priya and I paired on the flaky payment tests last Thursday.", "type": "episodic"},
    {"content": "The quarterly planning meeting is in the Orion room.", "type": "semantic"},
)

TURNS = ("How do we deploy the billing service?", "Who reviews code in the morning?",
         "Where does the staging cluster run?", "What happened with the billing deploy?")

INTERNAL = re.compile(r"\bmt_[0-9a-f]{6,}|score=|activation|\[(?:ACTIVE|fading|weak)\]|\b[01]\.\d{2}\b")
"""An internal id, a score or activation label, or a bare number such as 0.83 (the memories hold none)."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(MONDAY_9AM)


def _conversation(store: cg.MemoryStore, traits: cg.Hexaco, **kwargs) -> tuple[list[cg.AssembledContext], list]:
    agent = store.agent("helper", user_id="u1", thread_id="t1", traits=traits)
    traces = agent.encode_many([{**m, "scope": "user"} for m in MEMORIES])
    return [agent.assemble_for_prompt(turn, token_budget=600, top_k=3, **kwargs) for turn in TURNS], traces


@pytest.mark.parametrize("style", list(STYLES))
def test_the_prompt_holds_no_ids_activations_or_scores(store, style) -> None:
    contexts, traces = _conversation(store, STYLES[style])
    for ctx in contexts:
        assert ctx.text, "each turn finds memories"
        assert not INTERNAL.findall(ctx.text), ctx.text
        assert not any(t.id in ctx.text for t in traces)
    last = contexts[-1]
    assert last.sections["working_memory"] > 0, "earlier turns' memories are on the agent's mind"


@pytest.mark.parametrize("style", ["plain", "structured"])
def test_debug_shows_ids_scores_and_activations(store, style) -> None:
    contexts, traces = _conversation(store, STYLES[style], debug=True)
    last = contexts[-1]
    assert "score=" in last.text and "activation=" in last.text
    shown = [t for t in traces if t.content in last.text]
    assert shown and all(t.id in last.text for t in shown), "every memory shown carries its id"
    with pytest.raises(ValueError, match="debug"):
        store.agent("helper", user_id="u1").assemble_for_prompt("deploy", debug="yes")


def test_each_memory_appears_once_across_the_sections(store) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1", traits=cg.Hexaco(conscientiousness=0.9))
    traces = agent.encode_many([{**m, "scope": "user"} for m in MEMORIES])
    # The same words in the user's and the thread's scope are two memories with one text.
    agent.encode("We deploy the billing service with Helm charts.", scope="thread", type="procedural")
    for turn in TURNS:
        ctx = agent.assemble_for_prompt(turn, token_budget=800, top_k=3)
        for trace in traces:
            assert ctx.text.count(trace.content) <= 1, (trace.content, ctx.text)
    # The last turn's memories are shown where retrieval put them; Active Context holds the
    # earlier turns' memories that this one did not retrieve.
    active, _, rest = ctx.text.partition("\n\n")
    assert active.startswith("## Active Context")
    on_mind = [t.content for t in traces if t.content in active]
    assert on_mind and all(t.content not in rest for t in traces if t.content in active)
    assert not (set(ctx.trace_ids) & {t.id for t in traces if t.content in active})


def test_text_cut_to_fit_ends_at_a_sentence_or_between_words(store) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    long_ones = [
        "The billing service deploys through Helm and Argo in three stages, first to staging for smoke "
        "tests and then to a canary that takes five percent of traffic. After an hour without alerts the "
        "rollout continues to every region, one region at a time, with a pause between regions.",
        "Deploys of the billing service are frozen during the last three days of each month because "
        "invoices are generated then. Emergency fixes need approval from the finance lead and the on-call "
        "engineer, and they are announced in the billing channel before they start.",
        "Billing deploy checklists live in the runbook repository, next to the rollback steps and the "
        "contact list of the payment provider, which changes whenever the contract is renewed.",
    ]
    agent.encode_many([{"content": text, "scope": "user", "type": "semantic"} for text in long_ones])
    cut_lines = 0
    for budget in (70, 90, 120, 160):
        ctx = agent.assemble_for_prompt("How does the billing service deploy?", token_budget=budget)
        assert ctx.tokens_used <= budget
        for line in ctx.text.splitlines():
            if "…" not in line:
                continue
            cut_lines += 1
            body = line.removeprefix("- ").split("…")[0].rstrip()
            source = next(text for text in long_ones if text.startswith(body))
            following = source[len(body):]
            at_sentence = body.endswith((".", "!", "?"))
            assert at_sentence or following.startswith((" ", ",", ";", ":")), (body, following[:20])
    assert cut_lines >= 2, "the small budgets cut some memories"


def test_a_replaced_memory_is_marked_next_to_its_replacement(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1", traits=cg.Hexaco(conscientiousness=0.9))
    old = agent.encode("The release retrospective is held in the Cedar room.", scope="user")
    clock.advance(days=4)
    new = agent.encode("Actually, the release retrospective is held in the Maple room.", scope="user")
    clock.advance(hours=1)
    ctx = agent.assemble_for_prompt("Where is the release retrospective held?", token_budget=400)
    lines = ctx.text.splitlines()
    at = next(i for i, line in enumerate(lines) if old.content in line)
    assert new.content in lines[at - 1], "right after its replacement"
    assert lines[at].endswith("(outdated: replaced on 2026-03-06 by the line above)")
    assert "(outdated" not in lines[at - 1]
    assert ctx.outdated == (old.id,)


def test_a_replaced_memory_held_in_mind_quotes_its_replacement(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    agent.encode("The Tokyo office opens at 9 local time.", scope="user")
    old = agent.encode("The team lunch this week is at Nonna's Kitchen.", scope="user")
    agent.assemble_for_prompt("Where is the team lunch this week?", top_k=1)  # now on the agent's mind
    clock.advance(hours=3)
    agent.encode("Actually, the team lunch this week is at the Green Bowl, not Nonna's Kitchen.", scope="user")
    ctx = agent.assemble_for_prompt("When does the Tokyo office open?", token_budget=400, top_k=1)
    assert old.id not in ctx.trace_ids
    line = next(line for line in ctx.text.splitlines() if old.content in line)
    assert "(outdated: replaced on 2026-03-02 by \u201cActually, the team lunch this week" in line
    assert line.endswith("…\u201d)"), "quoted in a few words, cut between words"
    assert ctx.outdated == (old.id,)


def test_an_expired_memory_is_marked_with_its_last_day(store, clock) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    stay = agent.encode("I'm staying at the Hotel Avenida in Lisbon until Friday.", scope="user")
    assert stay.valid_until is not None
    clock.advance(days=7)
    now = agent.assemble_for_prompt("Where am I staying?", token_budget=400)
    assert stay.content not in now.text, "the current state leaves it out"
    then = agent.assemble_for_prompt("When did I stay at the Hotel Avenida in Lisbon?", token_budget=400)
    line = next(line for line in then.text.splitlines() if stay.content in line)
    assert line.endswith("(outdated: held until 2026-03-06)")  # Friday, the last day it held
    assert then.outdated == (stay.id,)


def test_a_memory_far_below_the_best_match_is_left_out(store) -> None:
    agent = store.agent("helper", user_id="u1", thread_id="t1")
    agent.encode_many([{**m, "scope": "user"} for m in MEMORIES])
    found = agent.retrieve("How do we deploy the billing service with Helm charts?", top_k=6, record_access=False)
    best = found.traces[0].score
    weak = [h.trace for h in found.traces if h.score < store.config.prompt.min_share_of_best * best]
    assert weak, "the query finds memories far weaker than its answer"
    ctx = agent.assemble_for_prompt("How do we deploy the billing service with Helm charts?", token_budget=600, top_k=6)
    assert "Helm charts" in ctx.text
    assert set(ctx.left_out) >= {t.id for t in weak}
    assert not any(t.content in ctx.text for t in weak)
    store.config.prompt.min_share_of_best = 0.0
    everything = agent.assemble_for_prompt("How do we deploy the billing service with Helm charts?",
                                           token_budget=600, top_k=6)
    assert not set(everything.left_out) & {t.id for t in weak}
