"""Queries live in cypher/, never in Python; labels and types in them come from the enums."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cogmem_graph.graph.cypher import (
    EDGE_TYPE_PLACEHOLDER,
    TYPE_LABEL_PLACEHOLDER,
    CypherLibrary,
    cypher_root,
)
from cogmem_graph.model import TYPE_LABELS, EdgeType, LinkType, MemoryType, NodeLabel

PACKAGE = Path(__file__).resolve().parents[2] / "cogmem_graph"
CYPHER_LIKE = re.compile(
    r"\b(OPTIONAL\s+MATCH|MATCH|MERGE|UNWIND|DETACH\s+DELETE)\b\s*[\($]|^\s*(RETURN|CALL|CREATE|WITH)\s+\S",
    re.MULTILINE,
)


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_no_cypher_text_in_python_files():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstring_nodes(tree)
        for node in ast.walk(tree):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and id(node) not in docstrings and CYPHER_LIKE.search(node.value):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value[:60]!r}")
    assert not offenders, "Cypher belongs in cypher/*.cypher:\n" + "\n".join(offenders)


def _statement_files() -> list[Path]:
    return sorted(cypher_root().rglob("*.cypher"))


ALLOWED_LABELS = {label.value for label in NodeLabel} | set(TYPE_LABELS.values()) | {TYPE_LABEL_PLACEHOLDER}
ALLOWED_RELS = {e.value for e in EdgeType} | {lt.value for lt in LinkType} | {EDGE_TYPE_PLACEHOLDER}
NODE_LABELS = re.compile(r"\(\s*\w*\s*((?::\s*\w+)+)")
SET_LABELS = re.compile(r"\b(?:SET|REMOVE)\s+\w+((?::\w+)+)")
WHERE_LABELS = re.compile(r"\b\w+((?::[A-Z]\w*)+)\s+(?:AND|OR|THEN|\))")
REL_TYPES = re.compile(r"\[\s*\w*\s*:\s*([\w|]+)")


@pytest.mark.parametrize("path", _statement_files(), ids=lambda p: str(p.relative_to(cypher_root())))
def test_labels_and_relationship_types_come_from_the_enums(path):
    text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.strip().startswith("//"))
    assert text.strip(), f"{path} is empty"
    labels = set()
    for pattern in (NODE_LABELS, SET_LABELS, WHERE_LABELS):
        for match in pattern.finditer(text):
            labels |= {part for part in match.group(1).split(":") if part.strip()}
    rels = {part for m in REL_TYPES.finditer(text) for part in m.group(1).split("|") if part}
    assert labels <= ALLOWED_LABELS, f"unknown labels {labels - ALLOWED_LABELS}"
    assert rels <= ALLOWED_RELS, f"unknown relationship types {rels - ALLOWED_RELS}"


def _names_used(module: str) -> set[str]:
    source = (PACKAGE / "graph" / module).read_text()
    return set(re.findall(r"""\b(?:run|for_edge|for_type_label)\(\s*["'](\w+)["']""", source))


@pytest.mark.parametrize(
    ("dialect", "modules"),
    [("falkordb", ["base.py", "falkor.py"]), ("neo4j", ["base.py", "neo4j.py"])],
)
def test_every_statement_the_code_runs_exists_for_its_dialect(dialect, modules):
    library = CypherLibrary(dialect)
    names = set().union(*(_names_used(m) for m in modules))
    assert names, "no statement names found: the scan is broken"
    for name in sorted(names):
        assert library.get(name)
    assert library.names("schema_"), f"{dialect} has no schema statements"


def test_type_label_template_accepts_only_enum_members():
    library = CypherLibrary("neo4j")
    assert "(t:Trace:Semantic {" in library.for_type_label("upsert_traces", MemoryType.SEMANTIC)
    with pytest.raises(TypeError):
        library.for_type_label("upsert_traces", "Semantic {id: 1}) DETACH DELETE t //")


def test_edge_template_accepts_only_enum_members():
    library = CypherLibrary("falkordb")
    assert ":CO_ACTIVATED]" in library.for_edge("merge_edges", EdgeType.CO_ACTIVATED)
    with pytest.raises(TypeError):
        library.for_edge("merge_edges", "CO_ACTIVATED]->(x) DETACH DELETE x //")
