"""No module of cogmem_graph takes part in an import circle, type-only imports included:
a circle makes each module of it impossible to read, test or move without the others.

Two views of one graph, both without exception. Module by module: no module imports,
through others, one that imports it, whether the two sit in one package or in two. Package
by package: inside any package, its parts (modules and subpackages, each subpackage taken
whole) import each other in one direction only, so a circle between two subpackages fails
even when no module of one imports back the very module of the other that imported it.

The graph is grimp's (what import-linter checks the layers with): one edge per import
statement between two modules of the package, `if TYPE_CHECKING:` imports too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grimp
import pytest


class _Edges:
    """A graph given as a mapping, in the shape `_circles` reads."""

    def __init__(self, edges: Mapping[str, Iterable[str]]) -> None:
        self.edges = {node: set(targets) for node, targets in edges.items()}
        self.modules = set(self.edges) | {t for targets in self.edges.values() for t in targets}

    def find_modules_directly_imported_by(self, module: str) -> set[str]:
        return self.edges.get(module, set())


def _circles(graph: grimp.ImportGraph | _Edges) -> list[frozenset[str]]:
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


def _parts(graph: grimp.ImportGraph | _Edges) -> _Edges:
    """The graph between the parts of each package: an import from `p.a.x` to `p.b.y` is an
    edge from `p.a` to `p.b`, the parts of their nearest common package. A module importing
    its own package, or a package importing one of its modules, is left out: that is a
    module edge, which the module view checks."""
    edges: dict[str, set[str]] = {}
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            a, b = importer.split("."), imported.split(".")
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            if common in (len(a), len(b)):
                continue
            edges.setdefault(".".join(a[: common + 1]), set()).add(".".join(b[: common + 1]))
    return _Edges(edges)


def _explained(graph: grimp.ImportGraph, circle: frozenset[str], whole: bool) -> str:
    """The circle's members and the import statements that join them."""
    lines = [f"circle: {sorted(circle)}"]
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            source = next((m for m in circle if importer == m or whole and importer.startswith(m + ".")), None)
            target = next((m for m in circle if imported == m or whole and imported.startswith(m + ".")), None)
            if source is None or target is None or source == target:
                continue
            for detail in graph.get_import_details(importer=importer, imported=imported):
                lines.append(f"  {importer}:{detail['line_number']}  {detail['line_contents']}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("cogmem_graph", cache_dir=None)


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = _Edges({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}})
    assert _circles(graph) == [frozenset({"p.a", "p.b", "p.c"})]


def test_the_parts_of_a_package_make_a_circle_that_no_two_modules_make() -> None:
    # p.a.x imports p.b.y, and p.b.z imports p.a.w: no module circle, a circle of p.a and p.b.
    graph = _Edges({"p.a.x": {"p.b.y"}, "p.b.z": {"p.a.w"}, "p.a": {"p.a.x"}, "p.c": {"p.c.d"}})
    assert _circles(graph) == []
    assert _circles(_parts(graph)) == [frozenset({"p.a", "p.b"})]


def test_no_module_of_cogmem_graph_is_in_an_import_circle(graph: grimp.ImportGraph) -> None:
    circles = _circles(graph)
    assert not circles, "\n".join(_explained(graph, c, whole=False) for c in circles)


def test_the_parts_of_every_package_of_cogmem_graph_import_in_one_direction(graph: grimp.ImportGraph) -> None:
    circles = _circles(_parts(graph))
    assert not circles, "\n".join(_explained(graph, c, whole=True) for c in circles)
