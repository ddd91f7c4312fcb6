"""`benchmarks/durable_facts.py`: its fact set is well formed (enough facts, every kind in both
halves, questions that do not simply repeat their fact's words), and the script runs end to
end in a short life with the hash embedder, printing one row per kind and a total over every
fact. Only the table's shape is asserted, never a score or a time."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cogmem_graph.text import query_terms
from tests.benchmark_scripts import LOCOMO_DATA, needs_locomo_data

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "durable_facts.py"

DATA = LOCOMO_DATA
MAX_SHARED_WORDS = 2
"""A question may share this many content words with its fact: more, and lexical search answers it alone."""


def _benchmark():
    spec = importlib.util.spec_from_file_location("durable_facts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


bench = _benchmark()


def test_there_are_enough_facts_and_every_kind_is_in_both_halves() -> None:
    assert len(bench.FACTS) >= 60
    counts = Counter((fact.kind, fact.half) for fact in bench.FACTS)
    assert {fact.kind for fact in bench.FACTS} == set(bench.KINDS)
    assert {fact.half for fact in bench.FACTS} == set(bench.HALVES)
    for kind in bench.KINDS:
        for half in bench.HALVES:
            assert counts[kind, half] > 0, f"{kind} has no {half} fact"
    per_kind = Counter(fact.kind for fact in bench.FACTS)
    assert max(per_kind.values()) - min(per_kind.values()) <= 1, f"kinds are not spread evenly: {per_kind}"


def test_halves_alternate_within_each_kind() -> None:
    for kind in bench.KINDS:
        halves = [fact.half for fact in bench.FACTS if fact.kind == kind]
        assert all(a != b for a, b in zip(halves, halves[1:], strict=False)), f"{kind}: {halves}"


def test_no_fact_or_question_is_repeated_and_every_question_is_a_question() -> None:
    statements = [fact.statement.casefold() for fact in bench.FACTS]
    questions = [fact.question.casefold() for fact in bench.FACTS]
    assert len(set(statements)) == len(statements)
    assert len(set(questions)) == len(questions)
    for fact in bench.FACTS:
        assert fact.question.endswith("?"), fact.question


def test_each_question_shares_few_content_words_with_its_fact() -> None:
    for fact in bench.FACTS:
        shared = set(query_terms(fact.statement, None)) & set(query_terms(fact.question, None))
        assert len(shared) <= MAX_SHARED_WORDS, f"{fact.question!r} repeats {sorted(shared)} of {fact.statement!r}"


def _rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        if line.startswith(("│", "┃")):  # body rows, and the header's heavier rule
            cells = [c.strip() for c in line.replace("┃", "│").strip("│ ").split("│")]
            rows.setdefault(cells[0], cells[1:])
    return rows


@pytest.mark.slow
@needs_locomo_data
def test_the_benchmark_runs_a_short_life_and_prints_every_kind_in_both_halves(tmp_path) -> None:
    report = tmp_path / "durable.json"
    env = {**os.environ, "COLUMNS": "250"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--embedder", "hash", "--days", "20", "--filler-per-day", "3",
         "--presets", "default", "--json", str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(done.stdout)
    header = rows.get("kind")
    assert header == ["default tune", "default confirm", "default all"], done.stdout
    for kind in (*bench.KINDS, "total"):
        assert kind in rows, f"row {kind!r} missing:\n{done.stdout}"
    per_kind = Counter(fact.kind for fact in bench.FACTS)
    for kind in bench.KINDS:
        tune, confirm, both = (cell.split("/") for cell in rows[kind])
        assert int(tune[1]) > 0 and int(confirm[1]) > 0, f"{kind}: a half is empty"
        assert int(tune[1]) + int(confirm[1]) == int(both[1]) == per_kind[kind]
    hits, total = (int(x) for x in rows["total"][2].split("/"))
    assert total == len(bench.FACTS) and 0 <= hits <= total
    written = report.read_text()
    assert f'"facts": {len(bench.FACTS)}' in written
