"""What `cogmem export` and `cogmem keys` load and leave behind: the export module does not
import the observer's text rules (cognition.observation, language.note_kinds,
language.contradiction) nor the
provider stack's HTTP client and retry library; a key command does not import the facade;
an export, even one that fails half-way, leaves the garbage collector as it found it."""

from __future__ import annotations

import gc
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import cogmem_graph as cg
from cogmem_graph.home import default_home
from cogmem_graph.portable import export_store

EXPORT_PATH = """
import json, sys, warnings
import cogmem_graph.cli
import cogmem_graph as cg
cg.open
import cogmem_graph.graph.falkordb.store
import cogmem_graph.portable
from cogmem_graph.providers import best_local_embedder
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    best_local_embedder()
print(json.dumps(sorted(sys.modules)))
"""

KEYS_PATH = """
import json, sys
from typer.testing import CliRunner
from cogmem_graph.cli import app
done = CliRunner().invoke(app, ["--home", sys.argv[1], "keys", "list"])
assert done.exit_code == 0, done.output
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(code: str, *args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_export_path_imports_no_observer_rules_http_client_or_retry_library() -> None:
    loaded = _modules_after(EXPORT_PATH)
    unwanted = {"cogmem_graph.cognition.observation", "cogmem_graph.language.note_kinds",
                "cogmem_graph.language.contradiction", "httpx"}
    assert not unwanted & loaded, f"the export path imports {sorted(unwanted & loaded)}"
    assert "cogmem_graph.providers.retry" in loaded  # the provider stack itself is there, its client is not


def test_a_key_command_does_not_import_the_facade(tmp_path: Path) -> None:
    loaded = _modules_after(KEYS_PATH, str(tmp_path / "home"))
    assert "cogmem_graph.api.store" not in loaded
    assert "cogmem_graph.server.keys" in loaded


@pytest.mark.parametrize("env", [None, "elsewhere/home"])
def test_the_default_home_without_the_facade_is_the_facades(monkeypatch: pytest.MonkeyPatch, env: str | None) -> None:
    from cogmem_graph.api.store import default_home as facade_default_home

    if env is None:
        monkeypatch.delenv("COGMEM_HOME", raising=False)
    else:
        monkeypatch.setenv("COGMEM_HOME", env)
    assert default_home() == facade_default_home()


class _FailsAfter(io.StringIO):
    """A file that stops accepting lines after `lines` of them (a full disk)."""

    def __init__(self, lines: int) -> None:
        super().__init__()
        self.left = lines

    def write(self, text: str) -> int:
        self.left -= 1
        if self.left < 0:
            raise OSError(28, "No space left on device")
        return super().write(text)

    def writelines(self, lines) -> None:  # type: ignore[override]
        for line in lines:
            self.write(line)


@pytest.mark.parametrize("fails_after", [None, 3])
def test_an_export_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path, fails_after: int | None) -> None:
    with cg.open(home=tmp_path / "home", embedder="hash") as store:
        store.agent("a", user_id="u").encode_many([{"content": f"note {i} about Porto"} for i in range(5)])
        out = io.StringIO() if fails_after is None else _FailsAfter(fails_after)
        assert gc.isenabled()
        if fails_after is None:
            counts = export_store(store, out, batch_size=2)  # pages of two: the pause is taken and given back per page
            assert counts.traces == 5
        else:
            with pytest.raises(OSError, match="No space left"):
                export_store(store, out, batch_size=2)
        assert gc.isenabled()
        gc.disable()
        try:
            export_store(store, io.StringIO(), batch_size=2)
            assert not gc.isenabled()  # a collector the application turned off stays off
        finally:
            gc.enable()
