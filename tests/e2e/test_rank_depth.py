"""A short list is the head of a long one: `retrieve(q, top_k=k)` returns the first k of what
`retrieve(q, top_k=50)` returns, so a fact ranked first for a long list is never missing from
a short one. Asked read-only over the LoCoMo development questions, on the clock frozen."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.cli.readers import locomo_to_items
from cogmem_graph.clock import ManualClock
from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

DATA = LOCOMO_DATA
SHORT = (1, 5, 10)


def _filled(home: Path, path: Path, **retrieval) -> tuple[cg.MemoryStore, cg.AgentMemory]:
    sample = json.loads(path.read_text())
    plan = locomo_to_items(sample, path.name)
    threads: dict[str, list[dict]] = defaultdict(list)
    for item in plan.items:
        threads[item["_thread"]].append({k: v for k, v in item.items() if not k.startswith("_")})
    last = max(item["created_at"] for item in plan.items)
    store = cg.open(home=home, embedder="hash", clock=ManualClock(last + 86_400_000),
                    config=cg.CogmemConfig(retrieval=retrieval))
    for thread, items in threads.items():
        store.agent("assistant", user_id="user", thread_id=thread).encode_many(items)
    return store, store.agent("assistant", user_id="user")


@pytest.mark.slow
@needs_locomo_data
def test_every_shorter_list_is_the_head_of_the_longest(tmp_path: Path) -> None:
    name = "41.json"
    questions = [q["question"] for q in json.loads((DATA / name).read_text())["qa"] if q.get("evidence")][::3]
    store, agent = _filled(tmp_path / "home", DATA / name)
    with store:
        assert store.config.retrieval.rank_depth >= 50
        differing = []
        for question in questions:
            longest = agent.retrieve(question, top_k=50, record_access=False).ids
            for k in SHORT:
                short = agent.retrieve(question, top_k=k, record_access=False).ids
                if short != longest[:k]:
                    differing.append((question, k, short, longest[:k]))
        assert len(questions) > 50
        assert differing == [], f"{len(differing)} of {len(questions) * len(SHORT)} calls: {differing[:3]}"


def test_the_rank_depth_is_what_makes_the_lists_agree(store: cg.MemoryStore) -> None:
    """With the depth at 1 (each call ranks only as deep as it returns) a short list may miss
    what a long one ranks first; with the default it may not."""
    cfg = store.config.retrieval
    assert cfg.pool_for(5) == cfg.pool_for(50) == 50 * cfg.candidate_multiplier
    assert cfg.pool_for(80) == 80 * cfg.candidate_multiplier
    shallow = cfg.model_copy(update={"rank_depth": 1})
    assert shallow.pool_for(5) < shallow.pool_for(50)
