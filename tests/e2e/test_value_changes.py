"""Facts that change, through the public API on each graph engine: a change told as a move
ranks first and the prompt marks the older statement outdated; two statements about
different things, or of different times, both stay current; and where the write path never
saw the two statements together, the read path still puts the newer first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_DAY, ManualClock

START_MS = 1_767_225_600_000  # 2026-01-01 00:00 UTC

MOVES = [
    # (first, ten days later, the question, the new value)
    ("The quarterly planning session is on Thursday.", "The quarterly planning session has been shifted to Tuesday.",
     "When is the quarterly planning session?", "Tuesday"),
    ("Our plumber visit is at 9 am.", "They pushed our plumber visit to 2 pm.", "When is the plumber visit?", "2 pm"),
    ("Coach Ruiz trains the junior squad.", "The junior squad has been taken over by Coach Petrova.",
     "Who trains the junior squad?", "Petrova"),
    ("The book club meets on Wednesdays.", "From next week the book club meets on Thursdays.",
     "When does the book club meet?", "Thursdays"),
    # relative: the prompt shows what it comes to
    ("The school pickup is at 3 pm.", "The school pickup has been pushed back an hour.",
     "When is the school pickup?", "now 4 pm"),
]
DIFFERENT = [
    ("The chess club meets on Mondays.", "The drama club has been moved to Tuesdays."),
    ("The regatta was in Kiel last year.", "The regatta is in Gdansk this year."),
]


def _outdated_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "(outdated:" in line]


@pytest.fixture(params=["falkordb", "neo4j"])
def minilm_store(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[cg.MemoryStore]:
    """A fresh store with the offline MiniLM embedder (whose nearest neighbours bring an older
    statement to the write path's judge) on each graph engine."""
    graph = None if request.param == "falkordb" else request.getfixturevalue("neo4j_uri")
    with cg.open(home=tmp_path / "home", graph=graph, embedder="local", clock=clock) as s:
        if graph is not None:
            s.graph.clear()
            s.graph.setup_schema()
        yield s


@pytest.mark.local_embedder
def test_a_change_told_as_a_move_replaces_the_older_statement(minilm_store: cg.MemoryStore, clock) -> None:
    agents = [minilm_store.agent("assistant", user_id=f"m{i}", thread_id="t") for i in range(len(MOVES))]
    olds = [agent.encode(old, scope="user") for agent, (old, _, _, _) in zip(agents, MOVES, strict=True)]
    clock.advance(days=10)
    news = [agent.encode(new, scope="user") for agent, (_, new, _, _) in zip(agents, MOVES, strict=True)]
    clock.advance(days=1)
    minilm_store.consolidate()
    for agent, old, new, (_, _, question, value) in zip(agents, olds, news, MOVES, strict=True):
        top = agent.retrieve(question).traces
        assert top and top[0].trace.id == new.id, (question, [t.trace.content for t in top])
        ctx = agent.assemble_for_prompt(question, token_budget=400)
        assert old.id in ctx.outdated, ctx.text
        current = [line for line in ctx.text.splitlines() if line not in _outdated_lines(ctx.text)]
        assert any(value in line for line in current), ctx.text


@pytest.mark.local_embedder
def test_different_things_and_other_times_both_stay_current(minilm_store: cg.MemoryStore, clock) -> None:
    agents = [minilm_store.agent("assistant", user_id=f"d{i}", thread_id="t", traits=cg.Hexaco(honesty=0.95))
              for i in range(len(DIFFERENT))]  # (the agent that lets a newer statement win any conflict)
    firsts = [agent.encode(first, scope="user") for agent, (first, _) in zip(agents, DIFFERENT, strict=True)]
    clock.advance(days=10)
    seconds = [agent.encode(second, scope="user") for agent, (_, second) in zip(agents, DIFFERENT, strict=True)]
    told = list(zip(agents, firsts, seconds, strict=True))
    clock.advance(days=1)
    minilm_store.consolidate()
    for agent, a, b in told:
        _, edges, _ = agent.neighbourhood(b.id)
        assert not [e for e in edges if e.type in (cg.EdgeType.CONTRADICTS, cg.EdgeType.SUPERSEDES)], a.content
        assert [agent.get(t.id).state for t in (a, b)] == ["active", "active"]
        assert agent.assemble_for_prompt(b.content, token_budget=400).outdated == ()


def test_the_read_path_puts_the_newer_statement_first_where_no_edge_says_so(store: cg.MemoryStore) -> None:
    """Told in one batch (the write path judges a batch against what came before it, not
    against itself), ten days apart: no CONTRADICTS edge joins them, and still the newer ranks
    first and the prompt marks the older outdated; a question about the past is left alone."""
    agent = store.agent("assistant", user_id="u", thread_id="t")
    old, new = agent.encode_many([
        {"content": "The design review is on Fridays.", "scope": "user", "created_at": START_MS},
        {"content": "The design review has been moved to Mondays.", "scope": "user",
         "created_at": START_MS + 10 * MS_PER_DAY},
    ])
    _, edges, _ = agent.neighbourhood(new.id)
    assert not [e for e in edges if e.type in (cg.EdgeType.CONTRADICTS, cg.EdgeType.SUPERSEDES)]
    top = agent.retrieve("When is the design review?", record_access=False).traces
    assert [t.trace.id for t in top[:2]] == [new.id, old.id]
    assert top[1].score < top[0].score
    ctx = agent.assemble_for_prompt("When is the design review?", token_budget=300)
    assert ctx.outdated == (old.id,)
    assert "Fridays. (outdated: replaced on 2026-01-11 by the line above)" in ctx.text


def test_the_read_path_leaves_different_things_alone(store: cg.MemoryStore) -> None:
    agent = store.agent("assistant", user_id="u", thread_id="t")
    agent.encode_many([
        {"content": "The yoga class is on Tuesdays.", "scope": "user", "created_at": START_MS},
        {"content": "The pottery class has been moved to Wednesdays.", "scope": "user",
         "created_at": START_MS + 10 * MS_PER_DAY},
    ])
    ctx = agent.assemble_for_prompt("When are my classes?", token_budget=300)
    assert ctx.outdated == () and "(outdated:" not in ctx.text
