"""Loads named Cypher statements from the `cypher/` folder.

Every query of the library is a `.cypher` file holding one statement. Shared
statements sit in `cypher/`; a dialect (`neo4j`, `falkordb`) may override one
by putting a file of the same name in its sub-folder. Values always travel as
parameters. The only text ever substituted is a relationship type, and only an
`EdgeType` member may fill it: user input can never reach the query text.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from cogmem_graph.errors import CypherNotFound, InvalidArgument
from cogmem_graph.model import TYPE_LABELS, EdgeType, MemoryType

EDGE_TYPE_PLACEHOLDER = "__EDGE_TYPE__"
TYPE_LABEL_PLACEHOLDER = "__TYPE_LABEL__"
DIALECTS = ("neo4j", "falkordb")


def cypher_root() -> Path:
    """The folder holding the statements: $COGMEM_CYPHER_DIR, the copy bundled in
    the package, or the repository's top-level `cypher/`."""
    env = os.environ.get("COGMEM_CYPHER_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_cypher", here.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise CypherNotFound(f"no cypher/ folder found next to {here}; set COGMEM_CYPHER_DIR")


def _strip_comments(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


class CypherLibrary:
    """Statements for one dialect, read once and cached."""

    def __init__(self, dialect: str, root: Path | None = None) -> None:
        if dialect not in DIALECTS:
            raise InvalidArgument(f"dialect must be one of {DIALECTS}, not {dialect!r}", argument="dialect")
        self.dialect = dialect
        self.root = root or cypher_root()
        self._texts: dict[str, str] = {}

    def path(self, name: str) -> Path:
        for candidate in (self.root / self.dialect / f"{name}.cypher", self.root / f"{name}.cypher"):
            if candidate.is_file():
                return candidate
        raise CypherNotFound(f"no statement named {name!r} for dialect {self.dialect} under {self.root}")

    def get(self, name: str) -> str:
        # Looked up once per name: finding the file costs two stat calls, and every
        # statement the store runs starts here.
        text = self._texts.get(name)
        if text is None:
            text = self._texts[name] = _read(self.path(name))
        return text

    def for_edge(self, name: str, edge_type: EdgeType) -> str:
        """A statement whose relationship type is an `EdgeType` member."""
        if not isinstance(edge_type, EdgeType):
            raise TypeError(f"edge_type must be an EdgeType member, not {edge_type!r}")
        text = self.get(name)
        if EDGE_TYPE_PLACEHOLDER not in text:
            raise InvalidArgument(f"statement {name!r} has no {EDGE_TYPE_PLACEHOLDER} placeholder", argument="name")
        return text.replace(EDGE_TYPE_PLACEHOLDER, edge_type.value)

    def for_type_label(self, name: str, memory_type: MemoryType) -> str:
        """A statement whose second node label is the label of a `MemoryType` member."""
        if not isinstance(memory_type, MemoryType):
            raise TypeError(f"memory_type must be a MemoryType member, not {memory_type!r}")
        text = self.get(name)
        if TYPE_LABEL_PLACEHOLDER not in text:
            raise InvalidArgument(f"statement {name!r} has no {TYPE_LABEL_PLACEHOLDER} placeholder", argument="name")
        return text.replace(TYPE_LABEL_PLACEHOLDER, TYPE_LABELS[memory_type])

    def names(self, prefix: str = "") -> list[str]:
        """Statement names visible to this dialect (shared plus overrides), sorted."""
        found = {p.stem for p in self.root.glob(f"{prefix}*.cypher")}
        found |= {p.stem for p in (self.root / self.dialect).glob(f"{prefix}*.cypher")}
        return sorted(found)


@cache
def _read(path: Path) -> str:
    text = _strip_comments(path.read_text(encoding="utf-8"))
    if not text:
        raise CypherNotFound(f"{path} holds no statement")
    return text
