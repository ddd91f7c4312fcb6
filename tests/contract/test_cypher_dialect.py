"""Neo4j dialect gate, without a Neo4j server.

Every statement Neo4j would execute (the shared files, the `cypher/neo4j/`
overrides, and the Browser queries) goes through Neo4j's own Cypher front end,
`@neo4j-cypher/language-support` (installed by `make node-tools` from the
committed lock file). Its mock schema carries the Neo4j 5 catalogue of
functions and procedures, GDS and APOC included, so syntax errors and
FalkorDB-only calls (`vecf32`, `db.idx.fulltext.*`) are caught here.

Labels and relationship types are declared from the project's enums only: a
warning about an unknown label or type means a statement uses one that is not
an enum member, and fails the gate too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cogmem_graph.graph.cypher import (
    EDGE_TYPE_PLACEHOLDER,
    TYPE_LABEL_PLACEHOLDER,
    CypherLibrary,
    cypher_root,
)
from cogmem_graph.model import TYPE_LABELS, EdgeType, LinkType, MemoryTrace, MemoryType, NodeLabel

LINT_DIR = Path(__file__).resolve().parents[2] / "tools" / "cypher-lint"
LINT_SCRIPT = LINT_DIR / "lint.mjs"
TEST_CYPHER = Path(__file__).resolve().parents[1] / "cypher"

pytestmark = pytest.mark.slow  # ~200 statements through Node, a third of a second each


def _require_linter() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Neo4j dialect gate skipped: no `node` on PATH (install Node.js 18+)")
    if not (LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        pytest.fail("the Cypher linter is not installed: run `make node-tools`")
    return node


def _declared_schema() -> dict[str, list[str]]:
    labels = [label.value for label in NodeLabel] + list(TYPE_LABELS.values())
    rel_types = [e.value for e in EdgeType] + [link.value for link in LinkType]
    property_keys = [f.alias or name for name, f in MemoryTrace.model_fields.items()]
    return {"labels": labels, "relationshipTypes": rel_types, "propertyKeys": property_keys}


def lint(statements: list[dict[str, str]]) -> list[dict]:
    """Neo4j's front end on every statement: one linter process per CPU, each on its share
    (about 0.3 s a statement)."""
    node = _require_linter()
    schema = _declared_schema()
    shares = [statements[i::max(1, os.cpu_count() or 1)] for i in range(max(1, os.cpu_count() or 1))]
    linters = []
    for share in (s for s in shares if s):
        process = subprocess.Popen([node, str(LINT_SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        linters.append((process, json.dumps({"statements": share, **schema})))
    results = []
    with ThreadPoolExecutor(max_workers=len(linters) or 1) as pool:  # feed and read them all at once
        for (process, _), (out, err) in zip(
                linters, pool.map(lambda pair: pair[0].communicate(pair[1], timeout=300), linters), strict=True):
            assert process.returncode == 0, f"linter crashed: {err[-2000:]}"
            results += json.loads(out)
    return results


def neo4j_statements() -> list[dict[str, str]]:
    """Every Neo4j-bound statement, with placeholders filled by each enum member."""
    lib = CypherLibrary("neo4j")
    out: list[dict[str, str]] = []
    for name in lib.names():
        text = lib.get(name)
        if EDGE_TYPE_PLACEHOLDER in text:
            out += [{"name": f"{name}[{e.value}]", "query": lib.for_edge(name, e)} for e in EdgeType]
        elif TYPE_LABEL_PLACEHOLDER in text:
            out += [{"name": f"{name}[{t.value}]", "query": lib.for_type_label(name, t)} for t in MemoryType]
        else:
            out.append({"name": name, "query": text})
    for path in sorted((cypher_root() / "browser").glob("*.cypher")):
        text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
        out.append({"name": f"browser/{path.stem}", "query": text.strip()})
    return out


def _unknown_vocabulary(warnings: list[dict]) -> list[dict]:
    return [w for w in warnings if w["message"].startswith(("Label ", "Relationship type "))]


def gate_statements() -> list[dict[str, str]]:
    """What the gate must refuse: FalkorDB overrides and broken text."""
    falkor = CypherLibrary("falkordb")
    rejects = CypherLibrary("neo4j", root=TEST_CYPHER / "dialect_gate")
    return [
        {"name": "gate/falkordb/fulltext_search", "query": falkor.get("fulltext_search")},
        {"name": "gate/vecf32", "query": rejects.get("vecf32")},
        {"name": "gate/syntax", "query": rejects.get("syntax_error")},
        {"name": "gate/unknown_label", "query": rejects.get("unknown_label")},
    ]


def statements_of_the_tests() -> list[dict[str, str]]:
    library = CypherLibrary("neo4j", root=TEST_CYPHER)
    return [{"name": f"tests/{name}", "query": library.get(name)} for name in library.names()]


@pytest.fixture(scope="module")
def linted() -> dict[str, dict]:
    """The library's, the tests' and the gate's statements linted in one run (the linter takes
    seconds to start): results by name."""
    return {r["name"]: r for r in lint(neo4j_statements() + statements_of_the_tests() + gate_statements())}


def _failures(results: list[dict]) -> dict[str, list[dict]]:
    found = {r["name"]: r["errors"] + _unknown_vocabulary(r["warnings"]) for r in results}
    return {name: problems for name, problems in found.items() if problems}


def test_every_neo4j_bound_statement_passes_neo4js_front_end(linted: dict[str, dict]) -> None:
    names = [s["name"] for s in neo4j_statements()]
    assert len(names) > 30, "the gate must see the whole library"
    assert _failures([linted[name] for name in names]) == {}


def test_gate_rejects_falkordb_only_calls_and_syntax_errors(linted: dict[str, dict]) -> None:
    """The gate can fail: FalkorDB overrides and broken text are refused."""
    assert "db.idx.fulltext" in json.dumps(linted["gate/falkordb/fulltext_search"]["errors"])
    assert "vecf32" in json.dumps(linted["gate/vecf32"]["errors"])
    assert linted["gate/syntax"]["errors"], "a syntax error must be reported"
    assert _unknown_vocabulary(linted["gate/unknown_label"]["warnings"])


def test_test_only_statements_pass_neo4js_front_end(linted: dict[str, dict]) -> None:
    """The owner views and faults under tests/cypher/ are held to the library's standard."""
    names = [s["name"] for s in statements_of_the_tests()]
    assert names, "no test-only statements found"
    assert _failures([linted[name] for name in names]) == {}
