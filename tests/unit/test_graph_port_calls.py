"""Above `graph/`, nobody names a Cypher statement: the graph is asked through the typed
methods of its port (`graph/port.py`), never through the adapter's generic `run(name, ...)`
or `read_later(name, ...)`.

The check reads the syntax tree of every module outside `cogmem_graph/graph/`. A call is
flagged when it is `.run(...)`, `.read_later(...)` or `.q(...)` and either its receiver is a
graph (a name or attribute ending in `graph`: `graph`, `self.graph`, `ctx.graph`,
`store.graph`) or its first argument is a string naming a statement of `cypher/`. Calls such
as `asyncio.run(main())`, `subprocess.run([...])` or `server.run(sockets=...)` match neither.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cogmem_graph
from cogmem_graph.graph.cypher import cypher_root

PACKAGE = Path(cogmem_graph.__file__).resolve().parent
GENERIC_METHODS = frozenset({"run", "read_later", "q"})


def _statement_names() -> set[str]:
    return {p.stem for p in cypher_root().rglob("*.cypher")}


def _receiver(node: ast.expr) -> str:
    """The last name of a call's receiver: `ctx.graph` -> "graph", `graph` -> "graph"."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def generic_graph_calls(source: str, statements: set[str]) -> list[tuple[int, str]]:
    """(line, call) of each generic statement call in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in GENERIC_METHODS:
            continue
        on_graph = _receiver(node.func.value).lower().endswith("graph")
        first = node.args[0] if node.args else None
        names_statement = isinstance(first, ast.Constant) and first.value in statements
        if on_graph or names_statement:
            found.append((node.lineno, ast.unparse(node.func)))
    return found


def test_no_module_above_graph_names_a_statement() -> None:
    statements = _statement_names()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "graph":
            continue
        for line, call in generic_graph_calls(path.read_text(encoding="utf-8"), statements):
            offenders.append(f"cogmem_graph/{relative.as_posix()}:{line}: {call}(...)")
    assert not offenders, ("these modules run graph statements by name; add a typed method to the "
                           "GraphStore port (graph/port.py, graph/cypher_store/) instead:\n" + "\n".join(offenders))


def test_the_check_flags_graph_calls_and_leaves_other_runs_alone() -> None:
    statements = {"get_traces", "consolidation_prune"}
    source = '''
import asyncio, subprocess
asyncio.run(main())
subprocess.run(["ls"], check=True)
server.run(sockets=sockets)
checks.run({"graph": ping})
ctx.graph.run("anything", {})
self.graph.read_later("anything")
graph.run("x")
sc.q("consolidation_prune", {})
other.read_later("get_traces", {})
'''
    flagged = [call for _, call in generic_graph_calls(source, statements)]
    assert flagged == ["ctx.graph.run", "self.graph.read_later", "graph.run", "sc.q", "other.read_later"]
