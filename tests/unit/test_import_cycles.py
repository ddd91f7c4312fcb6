"""No module of cogmem_graph takes part in an import circle, type-only imports included:
a circle makes each module of it impossible to read, test or move without the others.

The graph is grimp's (what import-linter checks the layers with): one edge per import
statement between two modules of the package, `if TYPE_CHECKING:` imports too."""

from __future__ import annotations

import grimp

KNOWN_CIRCLES: tuple[frozenset[str], ...] = (
    # The async facade: the async store makes async agents, which name their store (type-only).
    frozenset({"cogmem_graph.api.async_agent", "cogmem_graph.api.async_store"}),
)
"""Circles that were there before this test, each to be broken in its own change. A circle
may shrink (a subset of one of these passes); no new one, and no module joining one."""

NEVER_IN_A_CIRCLE = ("cogmem_graph.pipeline.consolidation", "cogmem_graph.cognition")


def _circles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(frozenset(component))
    return out


def test_the_cycle_finder_finds_a_circle() -> None:
    class Graph:
        modules = {"p.a", "p.b", "p.c", "p.d"}
        edges = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return self.edges[module]

    assert _circles(Graph()) == [frozenset({"p.a", "p.b", "p.c"})]  # type: ignore[arg-type]


def test_no_new_import_circle_in_cogmem_graph() -> None:
    graph = grimp.build_graph("cogmem_graph", cache_dir=None)
    circles = _circles(graph)
    for circle in circles:
        for name in NEVER_IN_A_CIRCLE:
            inside = sorted(m for m in circle if m == name or m.startswith(name + "."))
            assert not inside, f"{name} is in an import circle: {sorted(circle)}"
    unknown = [sorted(c) for c in circles if not any(c <= known for known in KNOWN_CIRCLES)]
    assert not unknown, f"import circles in cogmem_graph: {unknown}"
