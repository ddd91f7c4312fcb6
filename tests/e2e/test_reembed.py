"""`repair(reembed=True)`: every memory embedded again with the store's embedder, its whole
point written again. A home whose memories were written without sentence vectors gets them;
every memory stays findable and is embedded once; a memory forgotten while its batch is
embedded does not come back into the vectors; the CLI shows it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_HOUR, ManualClock
from cogmem_graph.providers.embedders import HashEmbedder

LONG_NOTE = ("Busy Monday: the dishwasher leaked again, my manager moved the quarterly review, and the bus was "
             "packed. On the bright side I booked my first climbing lesson at the bouldering gym for Saturday. "
             "Still need to call the insurance people about the dent in the car.")
SHORT_NOTES = [
    "Had leftover curry for lunch, better on the second day.",
    "The cat knocked a plant off the windowsill this morning.",
    "My brother is moving to Lisbon in the spring.",
    "Finished the crime novel my neighbour lent me.",
    "Our team switched the standup to half past nine.",
    "Watched a film about deep sea divers with my partner.",
]
QUESTION = "What physical activity have I signed up for?"


def _write(home: Path, clock: ManualClock, *, sentences: bool) -> None:
    config = cg.CogmemConfig(write={"sentence_vectors": sentences})
    with cg.open(home=home, embedder="local", clock=clock, config=config) as store:
        ana = store.agent("assistant", user_id="ana")
        for text in [LONG_NOTE, *SHORT_NOTES]:
            ana.encode(text)
            clock.advance(5 * MS_PER_HOUR)


def test_memories_written_without_sentence_vectors_get_them_from_a_reembed(tmp_path: Path) -> None:
    clock = ManualClock(1_700_000_000_000)
    home = tmp_path / "home"
    _write(home, clock, sentences=False)
    with cg.open(home=home, embedder="local", clock=clock) as store:
        ana = store.agent("assistant", user_id="ana")
        before = ana.retrieve(QUESTION, top_k=len(SHORT_NOTES) + 1, record_access=False)
        assert all("sentence" not in hit.sources for hit in before.traces)  # no sentence vectors to find
        keys = sorted({hit.trace.scope_key for hit in before.traces})
        middle = store.embedder.embed_query("booked a climbing lesson at the gym")
        assert store.vectors.search_sentences(middle, keys, 3) == []
        seen: list[tuple[str, int]] = []
        result = store.repair(reembed=True, on_progress=lambda kind, n: seen.append((kind, n)))
        assert result.reembedded == 1 + len(SHORT_NOTES) and result.reindexed == 0
        assert sum(n for kind, n in seen if kind == "reembedded") == result.reembedded
        by_sentence = store.vectors.search_sentences(middle, keys, 3)
        assert by_sentence and by_sentence[0].trace_id == next(h.trace.id for h in before.traces
                                                               if h.trace.content == LONG_NOTE)
        after = ana.retrieve(QUESTION, top_k=len(SHORT_NOTES) + 1, record_access=False)
        assert "sentence" in next(h for h in after.traces if h.trace.content == LONG_NOTE).sources
        assert store.repair().changed == 0  # nothing left to reconcile


class CountingHash(HashEmbedder):
    """The hash embedder, counting the texts it embeds, and running `during` once, on the
    first call after it is set (a forget arriving while a batch is embedded)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0
        self.during = None

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return super().embed(texts)


def _notes(home: Path) -> dict[str, list[str]]:
    """Short notes of three users, written with the hash embedder; their ids by user."""
    ids: dict[str, list[str]] = {"ana": [], "ben": [], "caro": []}
    clock = ManualClock(1_700_000_000_000)
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        for i, text in enumerate(SHORT_NOTES * 2):
            user = ("ana", "ben", "caro")[i % 3]
            ids[user].append(store.agent("assistant", user_id=user).encode(f"{text} (note {i})").id)
            clock.advance(60_000)
    return ids


def test_a_reembed_embeds_each_memory_once_and_changes_no_answer(tmp_path: Path) -> None:
    _notes(tmp_path / "home")
    embedder = CountingHash()  # a new process's embedder: nothing cached
    with cg.open(home=tmp_path / "home", embedder=embedder, clock=ManualClock(1_700_000_000_000)) as store:
        people = {name: store.agent("assistant", user_id=name) for name in ("ana", "ben", "caro")}
        answers = {name: agent.retrieve("What is the team doing?", top_k=5, record_access=False).ids
                   for name, agent in people.items()}
        total = store.stats().total_traces
        embedder.texts = 0
        result = store.repair(reembed=True)
        assert result.reembedded == total == len(SHORT_NOTES) * 2 and embedder.texts == total  # once a memory
        assert {name: agent.retrieve("What is the team doing?", top_k=5, record_access=False).ids
                for name, agent in people.items()} == answers


def test_a_memory_forgotten_during_a_reembed_stays_out_of_the_vectors(tmp_path: Path) -> None:
    ids = _notes(tmp_path / "home")["ana"]
    embedder = CountingHash()
    with cg.open(home=tmp_path / "home", embedder=embedder, clock=ManualClock(1_700_000_000_000)) as store:
        ana = store.agent("assistant", user_id="ana")
        doomed = ids[1]
        embedder.during = lambda: ana.forget(doomed)  # after its batch was read, before its points are written
        store.repair(reembed=True)
        assert embedder.during is None  # the forget ran inside the re-embedding
        assert store.vectors.existing_ids(ids) == set(ids) - {doomed}
        assert doomed not in ana.retrieve(SHORT_NOTES[3], top_k=10, record_access=False).ids


def test_the_cli_reembeds_with_a_progress_bar(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash") as store:
        ana = store.agent("assistant", user_id="ana")
        for text in SHORT_NOTES:
            ana.encode(text)
    run = subprocess.run([sys.executable, "-m", "cogmem_graph.cli", "--home", str(home), "--embedder", "hash",
                          "repair", "--reembed"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert f"repair: {len(SHORT_NOTES)} re-embedded, 0 re-indexed" in run.stdout
    assert "embedding every memory again" in run.stderr


def test_a_home_whose_embedder_gives_no_sentence_vectors_keeps_no_sentence_storage(tmp_path: Path) -> None:
    """Only an embedder that gives sentence vectors gets their storage in the embedded index:
    with the hash embedder (or an API's), each segment would map empty sentence files."""
    for embedder, expected in (("hash", False), ("local", True)):
        home = tmp_path / embedder
        with cg.open(home=home, embedder=embedder) as store:
            store.agent("assistant", user_id="ana").encode(LONG_NOTE)
        stored = [p for p in home.rglob("vector_storage-sentences") if p.is_dir()]
        assert bool(stored) is expected, embedder
