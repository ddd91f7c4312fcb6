"""The names that docs/architecture.md and CONTRIBUTING.md give in backticks exist in the code.

What is checked, in inline code spans (fenced blocks are pictures, not references):
- a path (`api/agent.py`, `cypher/after_retrieval.cypher`, `tests/contract/`, `consolidation_*.cypher`):
  a file or folder of the checkout, found from the root, from `cogmem_graph/`, or as the tail of a
  path in the checkout (a bare `steps.py` names a file somewhere in it); a `*` must match;
- a path followed by a name (`retrieval/read_path.py` `retrieve`, `api/store.py` (`_open_vectors`),
  `api/agent.py` `AgentMemory.retrieve`): the name is defined in that Python file, a member after
  a dot defined in that class or a class it derives from;
- `Class.member` (`MemoryStore.consolidate`, `EdgeType.CONTRADICTS`): a class of `cogmem_graph`
  by that name defines the member, or one of its bases does (fields and enum members count);
- a private name alone (`_search`, `_open_vectors`): some module or class of `cogmem_graph` defines it;
- a dotted name from the package root (`cogmem_graph.errors`, `cogmem_graph.api.governance.MemoryNotFound`).
A span holding `<`, a space or a call's parentheses is wording, not a name, and is passed over.
The Layers picture of docs/architecture.md names every layer of the import-linter contract.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cogmem_graph"
DOCS = [ROOT / "docs" / "architecture.md", ROOT / "CONTRIBUTING.md"]
SKIP_DIRS = {".git", ".venv", ".venv-crewai", "node_modules", "__pycache__", ".neo4j", "target",
             ".pytest_cache", ".ruff_cache", ".mypy_cache", "cogmem_graph.egg-info", "build", "dist"}

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^[\w.*-]*(?:/[\w.*-]*)*$")
FILE_SUFFIXES = (".py", ".cypher", ".md", ".toml", ".mjs", ".js", ".grass", ".html", ".json", ".yml", ".yaml",
                 ".cfg", ".txt")
IDENT = r"[A-Za-z_]\w*"
NAME = re.compile(rf"^{IDENT}(?:\.{IDENT})*$")
CLASS_MEMBER = re.compile(rf"^([A-Z]\w*[a-z]\w*)\.({IDENT})$")
BETWEEN_PATH_AND_NAME = re.compile(r"^\s*\(?\s*$")
PRIVATE = re.compile(r"^_[a-z]\w*$")


@dataclass(frozen=True)
class Ref:
    doc: str
    line: int
    text: str
    after_path: str | None = None  # the path span right before it, when it names something in that file

    def __str__(self) -> str:
        where = f" (after `{self.after_path}`)" if self.after_path else ""
        return f"{self.doc}:{self.line}: `{self.text}`{where}"


def _spans(path: Path) -> tuple[list[tuple[int, int, str]], str]:
    text = path.read_text(encoding="utf-8")
    # Fenced blocks are blanked out, keeping the line count.
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    spans = [(text.count("\n", 0, m.start()) + 1, m.end(), m.group(1).strip()) for m in SPAN.finditer(text)]
    return spans, text


def _is_path(token: str) -> bool:
    if token.startswith(("/", ".", "http", "--")) or "//" in token or not PATH.match(token):
        return False
    return "/" in token or token.endswith(FILE_SUFFIXES)


def references(doc: Path) -> list[Ref]:
    spans, text = _spans(doc)
    name = doc.name
    refs: list[Ref] = []
    for i, (line, _end, token) in enumerate(spans):
        if _is_path(token):
            refs.append(Ref(name, line, token))
            continue
        if not NAME.match(token):
            continue
        previous = spans[i - 1] if i else None
        if previous is not None and _is_path(previous[2]) and previous[2].endswith(".py"):
            start = text.index(f"`{token}`", previous[1])
            if BETWEEN_PATH_AND_NAME.match(text[previous[1]:start]):
                refs.append(Ref(name, line, token, after_path=previous[2]))
                continue
        if token.startswith("cogmem_graph.") or CLASS_MEMBER.match(token) or PRIVATE.match(token):
            refs.append(Ref(name, line, token))
    return refs


# ---------------------------------------------------------------- the checkout


@functools.cache
def checkout_paths() -> tuple[str, ...]:
    """Every file and folder of the checkout, relative to the root, folders ending in '/'."""
    found: list[str] = []

    def walk(folder: Path) -> None:
        for child in folder.iterdir():
            if child.name in SKIP_DIRS:
                continue
            rel = child.relative_to(ROOT).as_posix()
            if child.is_dir():
                found.append(rel + "/")
                walk(child)
            else:
                found.append(rel)

    walk(ROOT)
    return tuple(found)


def path_exists(token: str) -> bool:
    want = token.rstrip("/")
    folder = token.endswith("/")
    pattern = re.compile("^" + ".*".join(re.escape(p) for p in want.split("*")) + "/?$")
    for rel in checkout_paths():
        if folder and not rel.endswith("/"):
            continue
        plain = rel.rstrip("/")
        for candidate in (plain, plain.removeprefix("cogmem_graph/")):
            if pattern.match(candidate):
                return True
        # the tail of a longer path, cut at a folder boundary
        parts = plain.split("/")
        if any(pattern.match("/".join(parts[k:])) for k in range(1, len(parts))):
            return True
    return False


def python_file(token: str) -> Path | None:
    for base in (ROOT, PACKAGE):
        if (base / token).is_file():
            return base / token
    tails = [rel for rel in checkout_paths() if rel.endswith("/" + token) and rel.startswith("cogmem_graph/")]
    return ROOT / tails[0] if len(tails) == 1 else None


@dataclass
class ClassInfo:
    members: set[str]
    bases: list[str]


@functools.cache
def module_defs(path: Path) -> tuple[frozenset[str], dict[str, ClassInfo]]:
    """Top-level names a Python file defines or imports, and its classes' members and bases."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    classes: dict[str, ClassInfo] = {}
    for node in tree.body:
        names |= _bound(node)
        if isinstance(node, ast.ClassDef):
            members: set[str] = set()
            for item in node.body:
                members |= _bound(item)
            members |= _instance_attributes(node)
            bases = [b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                     if isinstance(b, ast.Name | ast.Attribute)]
            classes[node.name] = ClassInfo(members, bases)
    return frozenset(names), classes


def _instance_attributes(cls: ast.ClassDef) -> set[str]:
    """`self.name = ...` in the class's methods."""
    names = set()
    for node in ast.walk(cls):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        names |= {t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                  and t.value.id == "self"}
    return names


def _bound(node: ast.AST) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.If | ast.Try):  # `if TYPE_CHECKING:` blocks, guarded imports
        return set().union(*(_bound(n) for n in ast.iter_child_nodes(node)))
    return set()


@functools.cache
def package_classes() -> dict[str, list[ClassInfo]]:
    classes: dict[str, list[ClassInfo]] = {}
    for path in PACKAGE.rglob("*.py"):
        for name, info in module_defs(path)[1].items():
            classes.setdefault(name, []).append(info)
    return classes


@functools.cache
def every_name() -> frozenset[str]:
    """Every name a module or a class of the package defines."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        defs, classes = module_defs(path)
        names |= defs
        for info in classes.values():
            names |= info.members
    return frozenset(names)


def class_has(cls: str, member: str, seen: frozenset[str] = frozenset()) -> bool:
    if cls in seen:
        return False
    for info in package_classes().get(cls, []):
        if member in info.members or any(class_has(b, member, seen | {cls}) for b in info.bases):
            return True
    return False


def defined_in(path: Path, name: str) -> bool:
    names, classes = module_defs(path)
    head, _, rest = name.partition(".")
    if not rest:
        return head in names
    if "." in rest or head not in classes:
        return False
    return rest in classes[head].members or any(class_has(b, rest) for b in classes[head].bases)


def dotted_exists(token: str) -> bool:
    """`cogmem_graph.a.b` (a module or package) or `cogmem_graph.a.b.Name[.member]`."""
    parts = token.split(".")[1:]
    folder = PACKAGE
    for i, part in enumerate(parts):
        if (folder / part).is_dir():
            folder = folder / part
            continue
        if (folder / f"{part}.py").is_file():
            rest = parts[i + 1:]
            return not rest or defined_in(folder / f"{part}.py", ".".join(rest))
        init = folder / "__init__.py"
        return init.is_file() and defined_in(init, ".".join(parts[i:]))
    return True


def problem(ref: Ref) -> str | None:
    token = ref.text
    if ref.after_path is not None:
        path = python_file(ref.after_path)
        if path is None:
            return f"{ref}: no single Python file {ref.after_path!r} to look `{token}` up in"
        return None if defined_in(path, token) else f"{ref}: {path.relative_to(ROOT)} defines no {token!r}"
    if _is_path(token):
        return None if path_exists(token) else f"{ref}: no such file or folder in the checkout"
    if token.startswith("cogmem_graph."):
        return None if dotted_exists(token) else f"{ref}: no such module or name in the package"
    m = CLASS_MEMBER.match(token)
    if m:
        cls, member = m.groups()
        if cls not in package_classes():
            return f"{ref}: no class {cls} in cogmem_graph"
        return None if class_has(cls, member) else f"{ref}: {cls} (nor a base of it) defines no {member!r}"
    if PRIVATE.match(token):
        return None if token in every_name() else f"{ref}: no module or class of cogmem_graph defines {token!r}"
    return None


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_backticked_reference_exists(doc: Path) -> None:
    assert doc.is_file(), f"{doc.relative_to(ROOT)} is missing"
    refs = references(doc)
    assert len(refs) > 20, f"only {len(refs)} references found in {doc.name}: the scan is broken"
    problems = [p for p in map(problem, refs) if p]
    assert not problems, "references to names the code does not have:\n" + "\n".join(problems)


def test_the_layers_picture_names_every_layer_of_the_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    picture = FENCE.search(text[text.index("## Layers"):])
    assert picture, "docs/architecture.md has no picture under '## Layers'"
    for layer in layers:
        for module in (m.strip() for m in layer.split("|")):
            short = module.removeprefix("cogmem_graph.")
            is_folder = (PACKAGE / short).is_dir()
            shown = f"{short}/" if is_folder else f"{short}.py"
            assert shown in picture.group(0), f"the Layers picture does not show {shown} ({module})"


def test_the_scan_catches_wrong_names(tmp_path: Path) -> None:
    doc = tmp_path / "wrong.md"
    doc.write_text(
        "`api/agent.py` `AgentMemory.retrieve` and `retrieval/read_path.py` (`retrieve`) exist;\n"
        "`api/agent.py` `AgentMemory.recollect`, `retrieval/read_path.py` `fetch_everything`,\n"
        "`retrieval/reading_path.py`, `cypher/no_such_statement.cypher`, `MemoryStore.vanish`,\n"
        "`NoSuchClass.method`, `cogmem_graph.errors.NoSuchError`, `_no_such_helper` do not.\n"
        "```\n`not/checked.py` inside a picture\n```\n")
    found = {r.text: problem(r) for r in references(doc)}
    assert found["AgentMemory.retrieve"] is None and found["retrieve"] is None
    assert found["api/agent.py"] is None and found["retrieval/read_path.py"] is None
    wrong = ["AgentMemory.recollect", "fetch_everything", "retrieval/reading_path.py",
             "cypher/no_such_statement.cypher", "MemoryStore.vanish", "NoSuchClass.method",
             "cogmem_graph.errors.NoSuchError", "_no_such_helper"]
    assert all(found[w] for w in wrong), {w: found[w] for w in wrong}
    assert "not/checked.py" not in found
