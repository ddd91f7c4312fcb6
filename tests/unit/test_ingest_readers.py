"""The ingest readers name the line of every message they skip, in JSON lists too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cogmem_graph.cli.invocation import UsageProblem
from cogmem_graph.cli.readers import InputFormat, element_lines, read_ingest_file

GOOD = {"role": "user", "content": "fine", "timestamp": "2024-03-01T10:00:00Z"}
BAD_TIME = {"role": "user", "content": "when?", "timestamp": "soon"}


def _problems(path: Path) -> list[str]:
    return [str(s) for s in read_ingest_file(path, InputFormat.AUTO).skipped]


def test_a_json_list_names_the_line_each_bad_message_starts_on(tmp_path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([GOOD, {"role": "user", "content": ""}, BAD_TIME], indent=2))
    # json.dumps(indent=2) puts "[" on line 1, then each message's "{", keys and "}" on lines of their own.
    assert _problems(path) == ["chat.json line 7: no text (in text, content, message, body)",
                               "chat.json line 11: timestamp 'soon' is not epoch ms or ISO 8601"]


def test_an_object_with_messages_names_lines_too(tmp_path) -> None:
    path = tmp_path / "export.json"
    path.write_text("\n".join([
        '{"title": "chat", "tags": ["a", {"messages": [1]}],',
        ' "messages": [',
        f"  {json.dumps(GOOD)},",
        f"  {json.dumps(BAD_TIME)}",
        "]}",
    ]))
    assert _problems(path) == ["export.json line 4: timestamp 'soon' is not epoch ms or ISO 8601"]


def test_element_lines_follow_nested_values_and_strings_with_newlines() -> None:
    text = '[\n  {"a": "x\\ny"},\n\n  [1,\n   2], "z"\n]'
    assert element_lines(text, 0) == [2, 4, 5]


@pytest.mark.parametrize(("record", "problem"), [
    ({"content": "x", "timestamp": float("nan")}, "timestamp is NaN, not a finite number"),
    ({"content": "x", "timestamp": float("inf")}, "timestamp is Infinity, not a finite number"),
    ({"content": "x", "speaker": float("-inf")}, "speaker is -Infinity, not a finite number"),
    ({"content": "x", "metadata": {"scores": [1.0, float("nan")]}}, "metadata.scores[1] is NaN, not a finite number"),
    ({"content": "x", "timestamp": -5}, "timestamp -5 is negative"),
    ({"content": "x", "timestamp": 300_000_000_000_000},
     "timestamp 300000000000000 is outside 1970-01-01 to 9999-12-31"),
    ({"content": "x", "date": "31/12/2024"}, "date '31/12/2024' is not epoch ms or ISO 8601"),
    ({"content": ["part", 3]}, "content holds parts that are not text"),
    ({"text": {"nested": "object"}}, "text must be text, not an object"),
])
def test_each_bad_field_is_named(tmp_path, record, problem) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(record) + "\n")
    plan = read_ingest_file(path, InputFormat.AUTO)
    assert [str(s) for s in plan.skipped] == [f"one.jsonl line 2: {problem}"]
    assert [item["content"] for item in plan.items] == ["user: fine"] and not plan.skipped[0].empty


def test_a_first_line_that_is_not_json_is_a_file_problem(tmp_path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"role": "user"\n' + json.dumps(GOOD) + "\n")
    with pytest.raises(UsageProblem, match="line 1: not JSON .*--format text"):
        read_ingest_file(path, InputFormat.JSONL)
