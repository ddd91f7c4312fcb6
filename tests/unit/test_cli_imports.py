"""The `cogmem` commands that embed nothing (stats, export, list, get, history, forget, erase)
start in about a second: what they import must not include the embedding model's stack
(torch, sentence-transformers), numpy, nor qdrant-client. Checked in a fresh interpreter,
importing what such a command imports: the CLI with every command registered, the facade
`cg.open()` lives in, the embedded graph and vector adapters it opens, the default local
embedder it constructs (which loads its model only on the first embedding), and the export
module."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("torch", "sentence_transformers", "transformers", "numpy", "qdrant_client")

# What `cogmem stats` / `cogmem export` import on an embedded home, in the order they do.
STATS_PATH = """
import json, sys, warnings
import cogmem_graph.cli                      # every command registers (cogmem_graph/cli/__init__.py)
import cogmem_graph as cg
cg.open                                      # cogmem_graph.api: the store, the agent handle, governance
from cogmem_graph.api.store import _open_graph, _open_vectors  # noqa: F401
import cogmem_graph.graph.falkordb.store     # the embedded FalkorDB adapter (_open_graph)
import cogmem_graph.vectors.qdrant_edge      # the embedded Qdrant Edge index (_open_vectors)
import cogmem_graph.portable                 # `export`
from cogmem_graph.providers import best_local_embedder
with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # hash, with a warning, where MiniLM is not installed
    best_local_embedder()                    # no --embedder: MiniLM, loaded on the first embedding
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)))
"""


def _imported_after(code: str) -> list[str]:
    probe = f"HEAVY = {HEAVY!r}\n{code}"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_stats_and_export_path_imports_no_model_numpy_or_qdrant_client() -> None:
    heavy = _imported_after(STATS_PATH)
    assert heavy == [], f"a command that embeds nothing imports {heavy}: import them where they are used"


PIPELINE_RESULTS = ("ConsolidationResult", "ObserveResult", "ReflectionResult")
"""Public names defined in the pipeline modules that produce them, which load numpy: touching
one loads what running its step loads."""
AGENT_HANDLES = ("AgentMemory", "AsyncAgentMemory", "AsyncMemoryStore", "OpeningStore", "open_async")
"""The agent handle, its async twin and the async store that makes them: their module imports
the read and write paths it runs (`store.records(...)` is the handle without them)."""


def test_the_public_names_resolve_without_numpy() -> None:
    """`cg.Hexaco`, `cg.Mood`, `cg.open`, ... load on first use, and none of them needs numpy
    (the write path, the read path and consolidation bring it, when they run)."""
    loading = PIPELINE_RESULTS + AGENT_HANDLES
    heavy = _imported_after(f"import json, sys\nimport cogmem_graph as cg\n"
                            f"[getattr(cg, name) for name in cg.__all__ if name not in {loading!r}]\n"
                            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in HEAVY)))")
    assert heavy == []


RECORDS_PATH = """
import json, sys, tempfile, warnings
import cogmem_graph as cg
with tempfile.TemporaryDirectory() as home, cg.open(home=home, embedder="hash") as store:
    records = store.records("helper", user_id="u1")
    records.list(), records.stats(), records.forget(where={"tags_any": ["none"]})
    assert not hasattr(records, "retrieve")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)))
"""


def test_an_agent_s_records_are_read_and_forgotten_without_the_read_and_write_paths() -> None:
    """`store.records(...)`, what `cogmem list`, `get`, `history`, `update`, `forget` and
    `memory-stats` run locally, lists, counts and forgets on an open embedded store without
    importing numpy (the read and write paths bring it)."""
    heavy = _imported_after(RECORDS_PATH)
    assert heavy == [], f"the governance face imports {heavy}"
