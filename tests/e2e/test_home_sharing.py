"""One memory, many processes: one process at a time opens a memory home, and another one is
told who holds it and how to share the memory (`cogmem serve` first). A store whose graph is
on a server but whose vectors are its own says how many of the graph's traces it cannot
search. Second processes are real ones."""

from __future__ import annotations

import json
import logging
import os
import re
import textwrap
from pathlib import Path

import cogmem_graph as cg
from cogmem_graph.graph.falkordb import launcher

from .watched_run import run_python

AGENT = {"agent_id": "helper", "user_id": "u1"}

OPEN_IN_A_CHILD = """
import json, sys
import cogmem_graph as cg
from cogmem_graph.errors import HomeLocked
try:
    store = cg.open(home=sys.argv[1], graph=sys.argv[2] or None, embedder="hash")
except HomeLocked as exc:
    print(json.dumps({"refused": str(exc)}))
else:
    with store:
        print(json.dumps({"opened": store.stats().total_traces}))
"""


def _env(password: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGMEM_") and k != "FALKORDB_PASSWORD"}
    env["COLUMNS"] = "400"  # the CLI's one-line error, unwrapped
    if password is not None:
        env["FALKORDB_PASSWORD"] = password
    return env


def open_in_a_child(home: Path, graph: str | None = None, password: str | None = None) -> dict:
    """`cg.open` on `home` in another Python process: {"refused": message} or {"opened": n traces}."""
    done = run_python(["-c", textwrap.dedent(OPEN_IN_A_CHILD), str(home), graph or ""], timeout=120,
                      home=home, env=_env(password))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_names_holder_and_serve_first(message: str, home: Path, holder: int) -> None:
    message = " ".join(message.split())
    assert f"the memory home {home.resolve()} is in use by process {holder}" in message, message
    first = {way: message.find(way) for way in ("`cogmem serve`", "--server", "cg.connect", "--graph", "Qdrant")}
    assert all(at >= 0 for at in first.values()), (first, message)
    assert first["`cogmem serve`"] < first["--server"] < first["--graph"] < first["Qdrant"], message
    assert f"cogmem --home {home.resolve()} serve" in message, message


def test_a_second_process_is_refused_naming_the_holder_and_cogmem_serve_first(tmp_path, clock) -> None:
    home = tmp_path / "home"
    with cg.open(home=home, embedder="hash", clock=clock) as store:
        store.agent(**AGENT).encode("The boiler was serviced in March")
        found = open_in_a_child(home)
        assert "refused" in found, found
        assert_names_holder_and_serve_first(found["refused"], home, os.getpid())
        # the command line says the same on one line, exit code 1
        done = run_python(["-m", "cogmem_graph.cli", "--home", str(home), "--embedder", "hash", "stats"],
                          timeout=120, home=home, env=_env())
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert done.stderr.startswith("error: the memory home") and "Traceback" not in done.stderr, done.stderr
        assert_names_holder_and_serve_first(done.stderr, home, os.getpid())
    assert open_in_a_child(home) == {"opened": 1}, "closing the store lets the next process in"


def test_stores_of_one_process_share_the_home_until_the_last_closes(tmp_path, clock) -> None:
    home = tmp_path / "home"
    first = cg.open(home=home, embedder="hash", clock=clock)
    second = cg.open(home=home, embedder="hash", clock=clock)
    try:
        first.agent(**AGENT).encode("Written through the first store")
        first.close()
        assert second.agent(**AGENT).retrieve("written through the first store").traces
        found = open_in_a_child(home)
        assert str(os.getpid()) in found.get("refused", ""), f"the second store still holds the home: {found}"
    finally:
        first.close()
        second.close()
    assert open_in_a_child(home) == {"opened": 1}


def test_embedded_vectors_are_held_too_when_the_graph_is_on_a_server(tmp_path, clock) -> None:
    """A graph on a server and the vectors under the home: the home is still one process's;
    the second one is told so, naming the holder, not an engine's lock error."""
    with cg.open(home=tmp_path / "graph-owner", embedder="hash", clock=clock) as owner:
        running = launcher.running_server(tmp_path / "graph-owner" / "graph")
        config = cg.CogmemConfig()
        config.graph.falkor_password = running.password
        home = tmp_path / "vectors-home"
        with cg.open(home=home, graph=running.url, embedder="hash", clock=clock, config=config) as store:
            store.agent(**AGENT).encode("The vectors of this one live under its home")
            found = open_in_a_child(home, running.url, running.password)
            assert "refused" in found, found
            assert_names_holder_and_serve_first(found["refused"], home, os.getpid())
        assert open_in_a_child(home, running.url, running.password) == {"opened": 1}
        assert owner.stats().total_traces == 1


# ---------------------------------------------------------------- a shared graph, vectors of one's own


def unsearchable_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and "cannot be found by this store's searches" in r.getMessage()]


def test_a_store_on_another_homes_graph_says_how_many_traces_it_cannot_search(tmp_path, clock, caplog) -> None:
    home_a, home_b = tmp_path / "a", tmp_path / "b"
    with cg.open(home=home_a, embedder="hash", clock=clock) as owner:
        agent = owner.agent(**AGENT)
        for text in ("The boiler was serviced in March", "The roof leaks above the attic",
                     "The garden gate sticks in winter"):
            agent.encode(text)
        running = launcher.running_server(home_a / "graph")
        config = cg.CogmemConfig()
        config.graph.falkor_password = running.password

        # the graph's own home's vectors (shared with the owner, in this process): nothing to say
        with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.store"), \
                cg.open(home=home_a, graph=running.url, embedder="hash", clock=clock, config=config) as shared:
            found = shared.agent(**AGENT).retrieve("when was the boiler serviced").traces
            assert "boiler" in found[0].trace.content
        assert unsearchable_warnings(caplog) == []

        with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.store"), \
                cg.open(home=home_b, graph=running.url, embedder="hash", clock=clock, config=config) as other:
            found = other.agent(**AGENT).retrieve("when was the boiler serviced").traces
            assert found == [], "the warning is true: this store cannot find them"
            other.agent(**AGENT).encode("The chimney was swept in April")
        [warning] = unsearchable_warnings(caplog)
        assert re.search(r"holds 3 searchable traces but the embedded vector index under \S+ holds 0 vectors: "
                         r"at least 3 traces", warning), warning
        assert str(home_b) in warning and running.url in warning
        assert "one Qdrant server" in warning and "`cogmem serve`" in warning and "counts were compared" in warning
        assert running.password not in warning

        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.store"), \
                cg.open(home=home_b, graph=running.url, embedder="hash", clock=clock, config=config):
            pass
        [warning] = unsearchable_warnings(caplog)
        assert "holds 4 searchable traces" in warning and "holds 1 vector: at least 3 traces" in warning, warning

        caplog.clear()  # and the other way round: the owner's vectors lack the trace written from b
        with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.store"), \
                cg.open(home=home_a, graph=running.url, embedder="hash", clock=clock, config=config) as shared:
            found = shared.agent(**AGENT).retrieve("when was the chimney swept").traces
            searched = [hit for hit in found if "chimney" in hit.trace.content and set(hit.sources) - {"activation"}]
            assert searched == [], "the warning is true: no search finds it (an edge may still lead to it)"
        [warning] = unsearchable_warnings(caplog)
        assert "holds 4 searchable traces" in warning and "holds 3 vectors: at least 1 trace in" in warning, warning
        assert str(home_a) in warning


def test_an_in_memory_index_on_a_shared_graph_warns_too_and_the_home_graph_never(tmp_path, clock, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="cogmem_graph.api.store"), \
            cg.open(home=tmp_path / "a", embedder="hash", clock=clock) as owner:
        owner.agent(**AGENT).encode("The boiler was serviced in March")
        running = launcher.running_server(tmp_path / "a" / "graph")
        config = cg.CogmemConfig()
        config.graph.falkor_password = running.password
        assert unsearchable_warnings(caplog) == []
        with cg.open(home=tmp_path / "b", graph=running.url, vectors=":memory:", embedder="hash",
                     clock=clock, config=config):
            pass
    [warning] = unsearchable_warnings(caplog)
    assert "holds 1 searchable trace but the in-process vector index (':memory:') holds 0 vectors" in warning
