"""Are a multi-hop question's evidence turns each other's neighbours, or only the question's?

A read path that found one evidence turn of a multi-hop question could reach the others
through what it found (associative edges between similar memories, "more like this"
feedback) only if the evidence turns are near each other in the embedder's space. This
diagnostic measures that ceiling on LoCoMo, with no memory store involved: for every
evidence turn of every multi-hop question with at least two, its rank among all turns of
the conversation by the question's vector, beside its best rank by the vector of another
evidence turn of the same question (an oracle: it knows which turns are the evidence).
Ranks start at 0; the share under 10, 25 and 50 is printed per conversation and per half.

    python benchmarks/evidence_neighbours.py --data ../shared/data/locomo            # MiniLM
    python benchmarks/evidence_neighbours.py --data /path/to/tune --data /path/to/confirm
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import DEFAULT_DATA, load_conversations, turns_of  # noqa: E402

from cogmem_graph.providers.embedders import make_embedder  # noqa: E402

MULTI_HOP = 1
CUTS = (10, 25, 50)


def evidence_ranks(conversation: dict, embedder) -> tuple[list[int], list[int]]:
    """(rank by the question, best rank by a sibling) of each multi-hop evidence turn."""
    turns = turns_of(conversation)
    ids = [t["metadata"]["dia_id"] for t in turns]
    index = {dia: n for n, dia in enumerate(ids)}
    vectors = np.asarray(embedder.embed([t["content"] for t in turns]), dtype=np.float32)
    by_question, by_sibling = [], []
    for qa in conversation.get("qa", []):
        evidence = [e for e in qa.get("evidence", []) if e in index]
        if qa.get("category") != MULTI_HOP or len(set(evidence)) < 2:
            continue
        evidence = sorted(set(evidence))
        query = np.asarray(embedder.embed_query(qa["question"]), dtype=np.float32)
        question_rank = _ranks(vectors @ query)
        sibling_ranks = {turn: _ranks(vectors @ vectors[index[turn]]) for turn in evidence}
        for turn in evidence:
            by_question.append(int(question_rank[index[turn]]))
            by_sibling.append(int(min(sibling_ranks[other][index[turn]] - 1  # the sibling itself is first
                                      for other in evidence if other != turn)))
    return by_question, by_sibling


def _ranks(scores: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(scores), dtype=np.int64)
    ranks[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return ranks


def _row(table: Table, name: str, by_question: list[int], by_sibling: list[int]) -> None:
    for label, ranks in (("the question", by_question), ("best sibling (oracle)", by_sibling)):
        values = np.asarray(ranks)
        table.add_row(name if label == "the question" else "", label, str(len(values)),
                      f"{np.median(values):.0f}", *(f"{np.mean(values < cut):.2f}" for cut in CUTS))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", action="append", type=Path,
                        help="a folder of LoCoMo conversations (a half); may be repeated")
    parser.add_argument("--embedder", default="local", help="local | hash | openai:<model>")
    args = parser.parse_args(argv)
    embedder = make_embedder(args.embedder)
    table = Table(title=f"multi-hop evidence turns ranked among all turns of their conversation ({args.embedder})")
    for column in ("conversation", "ranked by", "turns", "median rank", *(f"< {cut}" for cut in CUTS)):
        table.add_column(column, justify="left" if column in ("conversation", "ranked by") else "right")
    for folder in args.data or [DEFAULT_DATA]:
        if not folder.exists():
            raise SystemExit(f"--data {folder}: no such folder or file")
        half_question: list[int] = []
        half_sibling: list[int] = []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else [folder]:
            for conversation in load_conversations(path):
                by_question, by_sibling = evidence_ranks(conversation, embedder)
                if by_question:
                    _row(table, f"{folder.name}/{path.stem}", by_question, by_sibling)
                    half_question += by_question
                    half_sibling += by_sibling
        if half_question:
            _row(table, f"{folder.name}, all", half_question, half_sibling)
    Console().print(table)


if __name__ == "__main__":
    main()
