"""Queries live in cypher/, never in Python; labels and types in them come from the enums."""

from __future__ import annotations

import ast
import io
import re
import tokenize
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
TESTS = PACKAGE.parent / "tests"
TEST_CYPHER = TESTS / "cypher"
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


# In tests, text that merely looks like Cypher is sometimes the point: injection strings fed to
# the API as data. Such a string is allowed when a comment starting with this marker ends one of
# its lines or the first line of its statement, or stands alone on the line above, and the string
# is not handed straight to something that runs queries.
PAYLOAD_MARK = "# cypher-payload"
QUERY_RUNNERS = {"_run_text", "_run", "run", "query", "ro_query", "execute_query", "execute_read", "execute_write"}
REGEX_CALLS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "split"}


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _call_name(node: ast.AST | None) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _is_regex_pattern(node: ast.Constant, parents: dict[int, ast.AST]) -> bool:
    call = parents.get(id(node))
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and getattr(call.func.value, "id", None) == "re" and call.func.attr in REGEX_CALLS)


def _marked_lines(source: str) -> tuple[set[int], set[int]]:
    """Lines with a marker comment (not marker text inside a string), and those of them
    that hold nothing but the comment."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    marks = [t for t in tokens if t.type == tokenize.COMMENT and t.string.startswith(PAYLOAD_MARK)]
    return {t.start[0] for t in marks}, {t.start[0] for t in marks if not t.line[: t.start[1]].strip()}


def _marked_payload(node: ast.Constant, parents: dict[int, ast.AST], marked: tuple[set[int], set[int]]) -> bool:
    holder = parents.get(id(node))
    if isinstance(holder, ast.keyword):
        holder = parents.get(id(holder))
    if _call_name(holder) in QUERY_RUNNERS:
        return False  # a string a query runner receives is a statement, whatever the comment says
    statement = parents.get(id(node))
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parents.get(id(statement))
    first = min(node.lineno, statement.lineno if statement is not None else node.lineno)
    on_lines, alone = marked
    return first - 1 in alone or any(line in on_lines for line in range(first, (node.end_lineno or node.lineno) + 1))


def cypher_in_test_files(root: Path = TESTS) -> list[str]:
    """Cypher-like string constants in the test Python files under `root`, other than
    docstrings, regular expressions and marked injection payloads, as `path:line: text`."""
    offenders = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree, marked = ast.parse(source), _marked_lines(source)
        docstrings, parents = _docstring_nodes(tree), _parents(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if id(node) in docstrings or not CYPHER_LIKE.search(node.value):
                continue
            if _is_regex_pattern(node, parents) or _marked_payload(node, parents, marked):
                continue
            offenders.append(f"{path.relative_to(root.parent)}:{node.lineno}: {node.value[:60]!r}")
    return offenders


def test_no_cypher_text_in_test_files():
    offenders = cypher_in_test_files()
    assert not offenders, "Cypher the tests run belongs in tests/cypher/*.cypher:\n" + "\n".join(offenders)


# cypher-payload: a sample file for the scan below, never run
SCAN_SAMPLE = '''
ROWS = store.graph._run_text("MATCH (t:Trace) RETURN t", {})  # cypher-payload
Q = """
MATCH (e:Entity)
RETURN e.key
"""
HOSTILE = [  # cypher-payload: fed to encode() as data
    "x",
    "MATCH (n) DETACH DELETE n",
]
PATTERN = re.compile(r"MATCH (\\w+)")
EDGES = graph.run(text="MATCH ()-[r]->() RETURN r", params={})  # cypher-payload
'''


def test_the_test_file_scan_finds_statements_and_spares_payloads(tmp_path):
    """The scan can fail: a query in a test file is found, even one marked as a payload."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sample.py").write_text(SCAN_SAMPLE, encoding="utf-8")
    found = cypher_in_test_files(tmp_path / "tests")
    assert sorted(int(line.split(":")[1]) for line in found) == [2, 3, 12], found


def _statement_files() -> list[Path]:
    # Test-only statements follow the same vocabulary, except those built to be rejected.
    tests_only = [p for p in TEST_CYPHER.rglob("*.cypher") if "dialect_gate" not in p.parts]
    return sorted(cypher_root().rglob("*.cypher")) + sorted(tests_only)


def _statement_id(path: Path) -> str:
    if path.is_relative_to(TEST_CYPHER):
        return f"tests/{path.relative_to(TEST_CYPHER)}"
    return str(path.relative_to(cypher_root()))


ALLOWED_LABELS = {label.value for label in NodeLabel} | set(TYPE_LABELS.values()) | {TYPE_LABEL_PLACEHOLDER}
ALLOWED_RELS = {e.value for e in EdgeType} | {lt.value for lt in LinkType} | {EDGE_TYPE_PLACEHOLDER}
NODE_LABELS = re.compile(r"\(\s*\w*\s*((?::\s*\w+)+)")
SET_LABELS = re.compile(r"\b(?:SET|REMOVE)\s+\w+((?::\w+)+)")
WHERE_LABELS = re.compile(r"\b\w+((?::[A-Z]\w*)+)\s+(?:AND|OR|THEN|\))")
REL_TYPES = re.compile(r"\[\s*\w*\s*:\s*([\w|]+)")


@pytest.mark.parametrize("path", _statement_files(), ids=_statement_id)
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


STATEMENT_NAME = re.compile(
    r"""\b(?:run|read_later|_link|cypher\.get|\)\.get|for_edge|for_type_label)\(\s*["']([a-z][a-z0-9_]*)["']""")
"""Where the adapter names a statement: `run("name", ...)`, `read_later(...)`, `_link(...)`,
`self.cypher.get(...)` or `CypherLibrary(dialect).get(...)`, the templates' `for_edge` /
`for_type_label`."""


def _names_used(modules: list[str]) -> set[str]:
    return set().union(*(STATEMENT_NAME.findall((PACKAGE / "graph" / m).read_text()) for m in modules))


SHARED = sorted(str(p.relative_to(PACKAGE / "graph")) for p in (PACKAGE / "graph" / "cypher_store").glob("*.py"))
DIALECT_MODULES = {"falkordb": ["falkordb/store.py", "falkordb/launcher.py"], "neo4j": ["neo4j.py"]}


def test_every_statement_the_shared_adapter_runs_exists_for_a_dialect():
    """The shared adapter runs a few statements on one engine only (GDS on Neo4j, FalkorDB's
    label propagation), so each of its names must exist for at least one dialect."""
    names = _names_used(SHARED)
    assert len(names) > 50, f"only {len(names)} statement names found: the scan is broken"
    libraries = [CypherLibrary(dialect) for dialect in DIALECT_MODULES]
    missing = sorted(name for name in names if not any(_exists(library, name) for library in libraries))
    assert not missing, f"statements the adapter runs that cypher/ does not hold: {missing}"


@pytest.mark.parametrize("dialect", sorted(DIALECT_MODULES))
def test_every_statement_an_engine_module_runs_exists_for_its_dialect(dialect):
    library = CypherLibrary(dialect)
    names = _names_used(DIALECT_MODULES[dialect])
    assert names, "no statement names found: the scan is broken"
    missing = sorted(name for name in names if not _exists(library, name))
    assert not missing, f"statements the {dialect} adapter runs that cypher/ does not hold for it: {missing}"
    assert library.names("schema_"), f"{dialect} has no schema statements"


def _exists(library: CypherLibrary, name: str) -> bool:
    try:
        library.get(name)
    except LookupError:
        return False
    return True


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
