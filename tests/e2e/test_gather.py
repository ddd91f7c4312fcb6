"""Gathering around the question's entities (`RetrievalConfig.gather`): the further dense
lists join the candidates, stay within the caller's scopes, and a short list stays the head
of a long one. The entity search is on by default; the aspect list is off."""

from __future__ import annotations

from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.clock import ManualClock
from cogmem_graph.providers.embedders import HashEmbedder

DAY = 86_400_000


class RecordingEmbedder(HashEmbedder):
    """The hash embedder, recording each call's texts (below the store's cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return super().embed(texts)
GATHER = {"gather": {"aspect_dense_weight": 0.5, "entity_dense_weight": 0.5, "entity_dense_aspect": True,
                     "entity_dense_questions": "all"}}


@pytest.mark.parametrize("retrieval", [{}, GATHER], ids=["default", "both lists on every question"])
def test_gathered_lists_join_within_the_callers_scopes(tmp_path: Path, retrieval: dict) -> None:
    start = 1_700_000_000_000
    with cg.open(home=tmp_path / "home", embedder="hash", clock=ManualClock(start + 30 * DAY),
                 config=cg.CogmemConfig(retrieval=retrieval)) as store:
        mine = store.agent("bench", user_id="a")
        mine.encode_many([
            {"content": "Melanie: I signed up for a pottery class yesterday.", "created_at": start},
            {"content": "Melanie: We went camping at the beach with the kids.", "created_at": start + 7 * DAY},
            {"content": "Melanie: Painting is how I relax after work.", "created_at": start + 14 * DAY},
            {"content": "Caroline: The support group was great today.", "created_at": start + 14 * DAY + 60_000},
        ])
        store.agent("bench", user_id="b").encode("Melanie: I took up fencing and archery.", created_at=start)
        long = mine.retrieve("What activities does Melanie partake in?", top_k=50, record_access=False)
        texts = [t.trace.content for t in long.traces]
        assert all("fencing" not in text for text in texts)  # another user's memory
        assert any("gathered" in t.sources for t in long.traces)
        # Every short list is still the head of the long one.
        for k in (1, 2, 3):
            short = mine.retrieve("What activities does Melanie partake in?", top_k=k, record_access=False)
            assert [t.trace.id for t in short.traces] == [t.trace.id for t in long.traces[:k]]

        # Switched off, nothing is gathered.
        store.config.retrieval.gather.entity_dense_weight = 0.0
        store.config.retrieval.gather.aspect_dense_weight = 0.0
        off = mine.retrieve("What activities does Melanie partake in?", top_k=50, record_access=False)
        assert not any("gathered" in t.sources for t in off.traces)


def test_the_entity_search_serves_every_question_naming_a_known_entity(tmp_path: Path) -> None:
    """Not only questions asking for several things: "Where does Melanie go to unwind?" is
    searched among Melanie's memories too, by its aspect, embedded with the question in one
    call. Restricted to "several" questions, it is not."""
    start = 1_700_000_000_000
    embedder = RecordingEmbedder()
    with cg.open(home=tmp_path / "home", embedder=embedder, clock=ManualClock(start + 30 * DAY)) as store:
        agent = store.agent("bench", user_id="a")
        agent.encode_many([
            {"content": "Melanie: The lake near our house is where I go to unwind.", "created_at": start},
            {"content": "Caroline: I go to the gym to unwind after a long week.", "created_at": start + DAY},
            {"content": "Melanie: The kids started school this week.", "created_at": start + 2 * DAY},
        ])
        question = "Where does Melanie go to unwind?"
        embedder.calls.clear()
        found = agent.retrieve(question, top_k=3, record_access=False)
        gathered = [t.trace.content for t in found.traces if "gathered" in t.sources]
        assert gathered and all(text.startswith("Melanie:") for text in gathered)
        assert found.traces[0].trace.content.startswith("Melanie: The lake")
        assert embedder.calls == [[question, "Where does go to unwind?"]]  # one call for both

        store.config.retrieval.gather.entity_dense_questions = "several"
        narrowed = agent.retrieve(question, top_k=3, record_access=False)
        assert not any("gathered" in t.sources for t in narrowed.traces)
