"""`benchmarks/evidence_neighbours.py` on a small conversation written here, with the hash
embedder: the ranks it prints are those of the evidence turns, by the question and by each
other, so a script that ranked the wrong turns or ignored the oracle would print other figures."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("evidence_neighbours", ROOT / "benchmarks" / "evidence_neighbours.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def conversation() -> dict:
    turns = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I went kayaking on the river with my brother"},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "The weather report says rain tomorrow"},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "My landlord raised the rent again"},
        {"speaker": "Ana", "dia_id": "D2:1", "text": "Kayaking on the river again this weekend with my brother"},
        {"speaker": "Ben", "dia_id": "D2:2", "text": "I bought a new printer for the office"},
        {"speaker": "Ana", "dia_id": "D2:3", "text": "What hobbies does Ana have"},
    ]
    return {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": turns[:3],
        "session_2_date_time": "2:10 pm on 9 June, 2023", "session_2": turns[3:],
        "qa": [{"question": "What hobbies does Ana have?", "category": 1, "evidence": ["D1:1", "D2:1"]},
               {"question": "When is the rain?", "category": 2, "evidence": ["D1:2"]}],
    }


def test_each_evidence_turn_is_ranked_by_the_question_and_by_its_sibling(bench) -> None:
    embedder = bench.make_embedder("hash")
    by_question, by_sibling = bench.evidence_ranks(conversation(), embedder)
    assert len(by_question) == len(by_sibling) == 2, "the two evidence turns of the one multi-hop question"
    assert by_sibling == [0, 0], "two kayaking turns are each other's nearest, the sibling itself left out"
    assert all(rank > 0 for rank in by_question), "the turn that repeats the question's words comes first"


def test_the_table_has_a_row_per_conversation_and_per_half(bench, tmp_path: Path, capsys) -> None:
    half = tmp_path / "half"
    half.mkdir()
    (half / "7.json").write_text(json.dumps(conversation()))
    bench.main(["--data", str(half), "--embedder", "hash"])
    out = capsys.readouterr().out
    assert "half/7" in out and "half, all" in out
    assert "best sibling" in out and "the question" in out


def test_a_missing_data_folder_is_named(bench, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--data"):
        bench.main(["--data", str(tmp_path / "nowhere"), "--embedder", "hash"])
