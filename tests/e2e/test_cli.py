"""The `cogmem` command, run as a user runs it: one subprocess per command, on a
temporary memory home (embedded FalkorDB + Qdrant local mode), hash embedder."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .watched_run import run_python

pytestmark = pytest.mark.slow  # some sixty commands, each a new process

CHAT = [
    {"role": "user", "content": "Hi, I'm Maya and I run the platform team at Acme.",
     "timestamp": "2024-03-01T10:00:00Z", "thread": "t1", "id": "m1"},
    {"role": "assistant", "content": "Nice to meet you, Maya! What does your stack look like?",
     "timestamp": 1709287230000, "thread": "t1", "id": "m2"},
    {"role": "user", "content": "We deploy everything with Docker Compose on one big server.",
     "timestamp": "2024-03-01T10:01:00+00:00", "thread": "t1", "id": "m3"},
    {"speaker": "Maya", "text": "Last Friday the server ran out of disk and production went down.",
     "ts": 1709287300, "thread": "t1"},
    {"role": "user", "content": "My dog Biscuit loves hiking on weekends.", "timestamp": "2024-03-02T09:00:00Z",
     "thread": "t2"},
    {"role": "tool", "content": ""},
]
NOTES = ("Acme runbook.\n\n"
         "Rollbacks use the previous image tag from the registry.\n\n"
         "The on-call rotation changes every Monday and Tom owns the schedule.\n")
LOCOMO = {
    "sample_id": "conv-x",
    "qa": [],
    "conversation": {
        "speaker_a": "Caroline", "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a pottery class yesterday."},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "Pottery sounds relaxing! What did you make?"},
            {"speaker": "Caroline", "dia_id": "D1:3", "text": "A blue bowl for my grandmother's birthday."},
        ],
        "session_2_date_time": "7:30 pm on 20 May, 2023",
        "session_2": [
            {"speaker": "Melanie", "dia_id": "D2:1", "text": "We camped by the lake with the kids last weekend."},
            {"speaker": "Caroline", "dia_id": "D2:2", "text": "Camping by a lake must have been lovely."},
        ],
        "session_3_date_time": "9:00 am on 1 June, 2023",
    },
}
TOTAL = 5 + 3 + 5


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


def _env(columns: int = 200) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_")}
    env["COLUMNS"] = str(columns)
    return env


OWNER_COMMANDS = {"stats", "export", "import", "repair"}


def cogmem(*args: str, home: Path | None = None, user: str | None = "maya", stdin: str | None = None,
           columns: int = 200) -> Run:
    command = ["-m", "cogmem_graph.cli"]
    if home is not None:
        command += ["--home", str(home), "--embedder", "hash"]
    if user is not None and not OWNER_COMMANDS & set(args):  # owner commands take no identity
        command += ["--user", user]
    done = run_python([*command, *args], timeout=300, home=home, env=_env(columns), input=stdin)
    return Run(done.returncode, done.stdout, done.stderr)


def ok(run: Run) -> Run:
    assert run.code == 0, f"exit {run.code}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert "Traceback" not in run.stderr
    return run


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    chat = folder / "chat.jsonl"
    chat.write_text("\n".join(json.dumps(m) for m in CHAT) + "\n")
    notes = folder / "notes.txt"
    notes.write_text(NOTES)
    conversation = folder / "conversation.json"
    conversation.write_text(json.dumps(LOCOMO, indent=2))
    return {"chat": chat, "notes": notes, "locomo": conversation}


@pytest.fixture(scope="module")
def home(tmp_path_factory, files) -> Iterator[tuple[Path, dict[str, Run]]]:
    """One memory home with the three kinds of input ingested."""
    path = tmp_path_factory.mktemp("home") / "cogmem"
    runs = {kind: ok(cogmem("ingest", str(file), home=path)) for kind, file in files.items()}
    yield path, runs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- ingest, recall, context


def test_ingest_detects_jsonl_text_and_locomo_by_content(home) -> None:
    _, runs = home
    assert "5 stored, 0 merged into existing memories, 1 skipped (1 empty)" in runs["chat"].stdout
    assert "format jsonl" in runs["chat"].stdout and "2 thread(s)" in runs["chat"].stdout
    assert "skipped chat.jsonl line 6: no text" in runs["chat"].stderr, "an empty message is named, not an error"
    assert "3 stored" in runs["notes"].stdout and "format text" in runs["notes"].stdout
    assert "5 stored" in runs["locomo"].stdout and "format locomo" in runs["locomo"].stdout
    assert "2 thread(s)" in runs["locomo"].stdout


def test_stats_counts_what_was_ingested(home) -> None:
    path, _ = home
    stats = ok(cogmem("stats", "--json", home=path)).json()
    assert stats["total_traces"] == TOTAL and stats["active_traces"] == TOTAL
    assert stats["traces_by_type"] == {"episodic": 10, "semantic": 3}
    assert stats["unindexed_traces"] == 0 and stats["vectors"]["active"] == TOTAL
    assert stats["entities"] > 0 and stats["edges_by_type"].get("TEMPORAL_SEQUENCE", 0) > 0
    table = ok(cogmem("stats", home=path)).stdout
    assert "traces: episodic" in table and "TEMPORAL_SEQUENCE" in table


def test_recall_returns_the_memory_with_event_time_and_metadata(home) -> None:
    path, _ = home
    result = ok(cogmem("recall", "how do we deploy with Docker Compose", "--top-k", "3", "--json",
                       home=path)).json()
    top = result["traces"][0]
    assert top["content"] == "user: We deploy everything with Docker Compose on one big server."
    assert top["created_at"] == 1709287260000, "ISO timestamp kept as the event time"
    assert top["metadata"] == {"id": "m3", "speaker": "user"} and top["scope_key"] == "user:maya"
    assert len(result["traces"]) <= 3 and set(top["signals"]) >= {"similarity", "strength", "activation"}

    turn = ok(cogmem("recall", "blue bowl grandmother birthday", "-k", "2", "--json", home=path)).json()
    turn = turn["traces"][0]
    assert turn["metadata"] == {"dia_id": "D1:3", "session": 1, "speaker": "Caroline"}
    assert turn["created_at"] == 1683554160000 + 60_000, "session date + 30 s per turn"

    hits = ok(cogmem("recall", "Friday disk production went down", "-k", "5", "--json", home=path)).json()
    outage = [t for t in hits["traces"] if "ran out of disk" in t["content"]]
    assert outage and outage[0]["created_at"] == 1709287300000, "epoch seconds read as seconds"
    assert outage[0]["content"].startswith("Maya: "), "the speaker prefixes the text"

    table = ok(cogmem("recall", "Biscuit hiking", "-k", "2", home=path)).stdout
    assert "Biscuit" in table and "score" in table

    thanks = ok(cogmem("recall", "thanks!", home=path))
    assert "not searched" in thanks.stderr and thanks.stdout == ""
    assert ok(cogmem("recall", "thanks!", "--json", home=path)).json() == {
        "query": "thanks!", "gated": True, "traces": [], "partial": []}


def test_recall_sees_only_the_identity_s_memories(home) -> None:
    path, _ = home
    stranger = ok(cogmem("recall", "Docker Compose deploy", "--json", home=path, user="someone-else"))
    assert stranger.json()["traces"] == []
    assert "note: --user someone-else (agent 'cogmem') sees no memories, but this memory home holds 13: " \
        "13 under --user maya" in stranger.stderr
    _shows_no_memory(stranger)


def _shows_no_memory(run: Run) -> None:
    texts = [m.get("content") or m.get("text") for m in CHAT] + NOTES.split("\n\n")
    for text in (t for t in texts if t and t.strip()):
        assert text.strip() not in run.stdout + run.stderr


@pytest.mark.parametrize("command", ["recall", "context"])
def test_without_an_identity_the_error_tells_who_holds_how_many_memories(home, command) -> None:
    path, _ = home
    run = cogmem(command, "what do we run in production", home=path, user=None)
    assert run.code == 2 and "Traceback" not in run.stderr and run.stdout == ""
    assert run.stderr.strip() == (
        "error: agent 'cogmem' with no --user, --thread, --persona or --org sees no memories, but this memory "
        "home holds 13: 13 under --user maya. Give the identity before the command, e.g. "
        f"`cogmem --user maya {command} 'what do we run in production'`")
    _shows_no_memory(run)
    assert ok(cogmem(command, "what do we run in production", home=path, user="maya")).stdout


def test_pin_and_unpin_a_memory_the_identity_can_see(home) -> None:
    path, _ = home
    top = ok(cogmem("recall", "how do we deploy with Docker Compose", "-k", "1", "--json", "--no-reinforce",
                    home=path)).json()["traces"][0]
    assert top["pinned"] is False and top["dormant"] is False and top["category"]
    assert ok(cogmem("pin", top["id"], home=path)).stdout.strip() == f"pinned {top['id']}"
    again = ok(cogmem("recall", "how do we deploy with Docker Compose", "-k", "1", "--json", "--no-reinforce",
                      home=path)).json()["traces"][0]
    assert again["id"] == top["id"] and again["pinned"] is True
    stranger = cogmem("pin", top["id"], home=path, user="someone-else")
    assert stranger.code == 2 and "no active memory visible" in stranger.stderr
    assert ok(cogmem("unpin", top["id"], home=path)).stdout.strip() == f"unpinned {top['id']}"
    stats = ok(cogmem("stats", "--json", home=path)).json()
    assert stats["dormant_traces"] == 0


def test_context_stays_within_the_budget(home) -> None:
    path, _ = home
    context = ok(cogmem("context", "production outage disk", "--budget", "80", "--json", home=path)).json()
    assert 0 < context["tokens_used"] <= 80 and context["token_budget"] == 80
    assert context["text"].strip() and context["trace_ids"]
    plain = ok(cogmem("context", "rollbacks image tag", "--budget", "400", home=path))
    assert "Rollbacks use the previous image tag" in plain.stdout and "/400 tokens" in plain.stderr


def test_repair_reports_a_consistent_store(home) -> None:
    path, _ = home
    run = ok(cogmem("repair", home=path))
    assert "repair: 0 re-indexed" in run.stdout and "0 removed" in run.stdout


def test_viz_writes_an_interactive_page(home, tmp_path) -> None:
    path, _ = home
    page = tmp_path / "out" / "graph.html"
    run = ok(cogmem("viz", "--query", "Docker Compose server disk", "--out", str(page), home=path))
    assert "wrote" in run.stdout and page.is_file()
    text = page.read_text()
    start = text.index('<script type="application/json" id="cogmem-viz-meta">') + len(
        '<script type="application/json" id="cogmem-viz-meta">')
    meta = json.loads(text[start:text.index("</script>", start)])
    assert meta["query"] == "Docker Compose server disk" and meta["retrieved"]
    assert meta["counts"]["nodes"] > len(meta["retrieved"]) - 1 and meta["counts"]["relationships"] > 0
    assert 'id="neo4j-viz-data"' in text


# ---------------------------------------------------------------- export / import


def _records(text: str) -> list[dict]:
    return [r for r in (json.loads(line) for line in text.splitlines()) if r["record"] != "header"]


@pytest.fixture(scope="module")
def restored(home, tmp_path_factory) -> tuple[Path, Path, Run, Run]:
    """The module's home after a retrieval has changed it (access counts, strengths, Hebbian
    edges), exported to a gzipped backup and imported into a new home: (backup, copy, the
    export's run, the import's run)."""
    path, _ = home
    ok(cogmem("recall", "Docker Compose deploy", home=path))  # Hebbian CO_ACTIVATED edges at least
    folder = tmp_path_factory.mktemp("backup")
    backup, copy = folder / "backup.jsonl.gz", folder / "copy-home"
    exported = ok(cogmem("export", str(backup), home=path))
    imported = ok(cogmem("import", str(backup), home=copy))
    return backup, copy, exported, imported


def test_backup_of_a_used_store_round_trips_exactly(home, restored) -> None:
    """The backup of the restored copy is the same backup, property for property."""
    path, _ = home
    backup, copy, exported, imported = restored
    assert f"exported {TOTAL} traces" in exported.stdout and f"imported {TOTAL} traces" in imported.stdout
    lines = gzip.decompress(backup.read_bytes()).decode().splitlines()
    assert json.loads(lines[0])["record"] == "header" and json.loads(lines[-1])["record"] == "footer"
    original = _records("\n".join(lines))
    assert {r["record"] for r in original} >= {"trace", "entity", "mention", "edge"}
    assert any(r["record"] == "edge" and r["type"] == "CO_ACTIVATED" for r in original)
    again = ok(cogmem("export", "-", home=copy))
    assert "exported" in again.stderr
    assert _records(again.stdout) == original
    assert ok(cogmem("stats", "--json", home=copy)).json() == ok(cogmem("stats", "--json", home=path)).json()


def test_export_then_import_gives_identical_stats_and_recall(home, restored, tmp_path) -> None:
    path, _ = home
    backup, copy, _, _ = restored
    for query in ("Docker Compose deploy server", "pottery bowl grandmother"):
        a = ok(cogmem("recall", query, "-k", "5", "--json", "--no-reinforce", home=path)).json()["traces"]
        b = ok(cogmem("recall", query, "-k", "5", "--json", "--no-reinforce", home=copy)).json()["traces"]
        assert a and [t["id"] for t in b] == [t["id"] for t in a]
        for x, y in zip(a, b, strict=True):
            assert (y["content"], y["created_at"], y["scope_key"], y["metadata"], y["sources"]) == (
                x["content"], x["created_at"], x["scope_key"], x["metadata"], x["sources"])
            assert y["score"] == pytest.approx(x["score"], abs=0.01), "only the clock moved between the runs"

    # a plain backup file imports too; importing the same backup again changes nothing; stdin works too
    plain = tmp_path / "backup.jsonl"
    plain.write_bytes(gzip.decompress(backup.read_bytes()))
    before = ok(cogmem("stats", "--json", home=copy)).json()
    assert f"imported {TOTAL} traces" in ok(cogmem("import", str(plain), home=copy)).stdout
    ok(cogmem("import", "-", home=copy, stdin=plain.read_text()))
    assert ok(cogmem("stats", "--json", home=copy)).json() == before


# ---------------------------------------------------------------- errors and exit codes


def test_missing_file_is_a_usage_error(tmp_path) -> None:
    run = cogmem("ingest", str(tmp_path / "nope.jsonl"), home=tmp_path / "h")
    assert run.code == 2 and "nope.jsonl" in run.stderr and "Traceback" not in run.stderr
    run = cogmem("import", str(tmp_path / "nope.jsonl"), home=tmp_path / "h")
    assert run.code == 2 and "nope.jsonl" in run.stderr


def test_malformed_input_is_a_usage_error_naming_the_line(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\n{"role": "user", "content": \n')
    run = cogmem("ingest", str(bad), home=tmp_path / "h")
    assert run.code == 2 and "line 2" in run.stderr and "Traceback" not in run.stderr
    stamp = tmp_path / "stamp.jsonl"
    stamp.write_text('{"role": "user", "content": "a"}\n{"role": "user", "content": "b", "timestamp": "soon"}\n')
    run = cogmem("ingest", str(stamp), home=tmp_path / "h")
    assert run.code == 2 and "line 2" in run.stderr and "soon" in run.stderr
    not_a_backup = tmp_path / "notes.jsonl"
    not_a_backup.write_text('{"role": "user", "content": "hello"}\n')
    run = cogmem("import", str(not_a_backup), home=tmp_path / "h")
    assert run.code == 2 and "not a cogmem-graph backup" in run.stderr
    nan_backup = tmp_path / "nan.jsonl"
    nan_backup.write_text('{"record": "header", "format": "cogmem-graph", "version": 1}\n'
                          '{"record": "trace", "props": {"id": "mt_1", "content": "x", "encodingStrength": NaN}}\n')
    run = cogmem("import", str(nan_backup), home=tmp_path / "h")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert f"{nan_backup} line 2: property 'encodingStrength' is NaN, not a finite number" in run.stderr


BAD_LINES = [
    '{"role": "user", "content": "The deploy runbook lives in the wiki.", "timestamp": "2024-03-01T10:00:00Z"}',
    '{"role": "user", "content": "a NaN time", "timestamp": NaN}',
    '{"role": "user", "content": "an infinite score", "metadata": {"score": -Infinity}}',
    '{"role": "user", "content": "   "}',
    '{"role": "user", "content": "far future", "ts": 1e20}',
    '{"role": "user", "content": "before 1970", "timestamp": "1900-01-01T00:00:00Z"}',
    '{"role": "user", "content": "no time at all", "created_at": "next tuesday"}',
    '{"role": "user", "content": 42}',
    '{"role": "user", "content": "cut off", ',
    '{"role": "assistant", "content": "Rollbacks use the previous image tag.", "timestamp": 1709287300}',
    '{"role": "user", "content": "The deploy runbook lives in the wiki.", "timestamp": "2024-03-01T10:05:00Z"}',
]
"""A chat log with one bad field per line 2-9 (line 4 has no text: nothing of it is lost)."""


def test_ingest_skips_each_bad_message_naming_file_line_and_field(tmp_path) -> None:
    log = tmp_path / "messy.jsonl"
    log.write_text("\n".join(BAD_LINES) + "\n")
    home_path = tmp_path / "h"
    run = cogmem("ingest", str(log), home=home_path)
    assert run.code == 2 and "Traceback" not in run.stderr
    problems = [line for line in run.stderr.splitlines() if line.startswith("skipped ")]
    assert problems == [
        "skipped messy.jsonl line 2: timestamp is NaN, not a finite number",
        "skipped messy.jsonl line 3: metadata.score is -Infinity, not a finite number",
        "skipped messy.jsonl line 4: no text (in text, content, message, body)",
        "skipped messy.jsonl line 5: ts 1e+20 is outside 1970-01-01 to 9999-12-31",
        "skipped messy.jsonl line 6: timestamp '1900-01-01T00:00:00Z' is outside 1970-01-01 to 9999-12-31",
        "skipped messy.jsonl line 7: created_at 'next tuesday' is not epoch ms or ISO 8601",
        "skipped messy.jsonl line 8: content must be text, not a number",
        "skipped messy.jsonl line 9: not JSON (Expecting property name enclosed in double quotes at column 40)",
    ]
    # Line 11 repeats line 1: merged into the memory line 1 stored, not stored twice.
    assert "2 stored, 1 merged into existing memories, 8 skipped (1 empty, 7 invalid)" in run.stdout
    assert "7 message(s) of" in run.stderr and "were not stored" in run.stderr
    stats = ok(cogmem("stats", "--json", home=home_path)).json()
    assert stats["total_traces"] == 2

    again = cogmem("ingest", str(log), home=home_path)
    assert again.code == 2 and "0 stored, 3 merged into existing memories" in again.stdout

    strict = cogmem("ingest", "--strict", str(log), home=tmp_path / "strict")
    assert strict.code == 2 and "with --strict nothing was stored" in strict.stderr
    assert "ingested" not in strict.stdout

    only_empty = tmp_path / "quiet.jsonl"
    only_empty.write_text(BAD_LINES[0] + "\n" + BAD_LINES[3] + "\n")
    fine = ok(cogmem("ingest", str(only_empty), home=tmp_path / "quiet"))
    assert "1 stored, 0 merged into existing memories, 1 skipped (1 empty)" in fine.stdout


def test_unreachable_backends_exit_1_naming_the_url(tmp_path) -> None:
    graph_url = f"falkor://127.0.0.1:{free_port()}"
    run = cogmem("--graph", graph_url, "stats", home=tmp_path / "h")
    assert run.code == 1, run.stderr
    assert graph_url in run.stderr and "Start FalkorDB" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, "one line"

    vectors_url = f"http://127.0.0.1:{free_port()}"
    run = cogmem("--vectors", vectors_url, "stats", home=tmp_path / "h")
    assert run.code == 1 and vectors_url in run.stderr and "Traceback" not in run.stderr


def test_bad_options_exit_2(tmp_path) -> None:
    assert cogmem("--no-such-option", "stats", home=tmp_path / "h").code == 2
    assert cogmem("recall", "x", "--top-k", "0", home=tmp_path / "h").code == 2
    assert cogmem("recall", home=tmp_path / "h").code == 2
    run = cogmem("--graph", "http://localhost:7474", "stats", home=tmp_path / "h")
    assert run.code == 2 and "http://localhost:7474" in run.stderr
    run = cogmem("--embedder", "no-such-embedder", "stats", home=tmp_path / "h", user=None)
    assert run.code == 2 and "no-such-embedder" in run.stderr


def test_help_lists_every_command() -> None:
    run = ok(cogmem("--help", user=None))
    for command in ("demo", "ingest", "recall", "context", "stats", "repair", "export", "import", "viz"):
        assert command in run.stdout


def test_consolidate_reports_what_it_did(files, tmp_path) -> None:
    path = tmp_path / "consolidated"
    ok(cogmem("ingest", str(files["notes"]), home=path))
    result = ok(cogmem("consolidate", "--json", home=path)).json()
    assert result["total_processed"] == 3 and result["skipped"] is False
    assert {"pruned", "merged", "schemas_created", "conflicts_resolved", "duration_ms"} <= set(result)
    assert "total processed 3" in ok(cogmem("consolidate", home=path)).stdout


# ---------------------------------------------------------------- frictions a first session meets


def test_list_never_wraps_an_id_at_80_columns(home) -> None:
    path, _ = home
    ids = [record["trace"]["id"] for record in ok(cogmem("list", "--json", home=path)).json()["items"]]
    table = ok(cogmem("list", home=path, columns=80)).stdout.splitlines()
    assert ids and max(len(line) for line in table) <= 80
    assert all(any(i in line for line in table) for i in ids), "each id whole on one line, to copy"


def test_keys_add_without_agent_takes_the_agent_the_memory_commands_use(tmp_path) -> None:
    run = ok(cogmem("keys", "add", "--user", "bob", "--org", "acme", home=tmp_path / "h", user=None))
    assert run.stdout.startswith("cgm_")
    assert "(agent, agent=cogmem, user=bob, organization=acme)" in run.stderr
    other = ok(cogmem("--agent", "helper", "keys", "add", "--user", "bob", home=tmp_path / "h", user=None))
    assert "(agent, agent=helper, user=bob)" in other.stderr
    assert "(owner)" in ok(cogmem("keys", "add", "--owner", home=tmp_path / "h", user=None)).stderr


@contextlib.contextmanager
def web_page_server(status: int) -> Iterator[int]:
    """A web server that is not cogmem: an HTML page with `status` for every request."""
    page = b"<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head>" + b"<p>x</p>" * 500 + b"</html>"

    class Page(http.server.BaseHTTPRequestHandler):
        def _page(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(status)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        do_GET = do_POST = do_DELETE = _page

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("status", [404, 200])
def test_a_server_that_is_not_cogmem_is_one_line_not_its_page(status: int) -> None:
    with web_page_server(status) as port:
        run = cogmem("--server", f"http://bob:s3cret@127.0.0.1:{port}", "--key", "cgm_abc_def", "recall",
                     "deploy", user=None)
    assert run.code == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip() == (f"error: server answered {status}: http://***@127.0.0.1:{port}/v1/recall sent an "
                                  "HTML page, not cogmem's JSON: is this a cogmem server?")


def test_a_one_line_jsonl_file_with_empty_text_says_the_line_is_empty(tmp_path) -> None:
    log = tmp_path / "quiet.jsonl"
    log.write_text('{"role": "user", "content": ""}\n')
    run = cogmem("ingest", str(log), home=tmp_path / "h")
    assert run.code == 2 and "Traceback" not in run.stderr
    assert "skipped quiet.jsonl line 1: no text (in text, content, message, body)" in run.stderr
    assert "nothing to ingest" in run.stderr and "neither chat messages" not in run.stderr


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """`folder` refuses new entries to this process: mode 0500, or for root (whom modes do not
    stop) the immutable attribute; a skip saying why where neither can be set."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            yield
        finally:
            folder.chmod(0o700)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(folder)],
                                                         capture_output=True).returncode != 0:
        pytest.skip("running as root, and this file system cannot make a folder immutable (chattr +i)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_home_this_user_cannot_write_is_named_with_what_to_do(tmp_path) -> None:
    import cogmem_graph as cg

    path = tmp_path / "home"
    path.mkdir(mode=0o700)
    with unwritable(path):
        run = cogmem("stats", home=path)
        keys = cogmem("keys", "add", "--owner", home=path, user=None)
        with pytest.raises(cg.HomeNotAccessible) as refused:
            cg.open(path, embedder="hash")
    assert isinstance(refused.value, PermissionError) and str(path) in str(refused.value)
    assert run.code == 1 and "Traceback" not in run.stderr
    assert f"error: memory home {path}: {path / 'home.lock'} cannot be opened or written" in run.stderr
    assert "give this user read and write access to it, or choose another home (--home" in run.stderr
    assert keys.code == 1 and "Traceback" not in keys.stderr and "PermissionError" not in keys.stderr
    assert f"{path}/" in keys.stderr and "permission denied" in keys.stderr and "--home" in keys.stderr
