"""The root of the package is the public surface: every name it lists resolves, the list is
the `if TYPE_CHECKING:` block type checkers read, and every error the package defines is
there and is a `CogmemError`."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import cogmem_graph as cg

NOT_LIBRARY_ERRORS = {
    "cogmem_graph.cli.invocation.UsageProblem": "the `cogmem` command's own signal for exit code 2, caught by "
                                            "`handled()`; never raised to a caller of the library",
}


def _type_checking_imports() -> set[str]:
    """The names the `if TYPE_CHECKING:` block of cogmem_graph/__init__.py imports."""
    tree = ast.parse(Path(cg.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    names = set()
    for node in block.body:
        assert isinstance(node, ast.ImportFrom), ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name}: write `{alias.name} as {alias.name}` (a re-export)"
            names.add(alias.name)
    return names


def test_every_name_in_all_resolves() -> None:
    missing = [name for name in cg.__all__ if not hasattr(cg, name)]
    assert missing == []
    assert len(cg.__all__) == len(set(cg.__all__))


def test_all_is_the_block_type_checkers_read() -> None:
    assert set(cg.__all__) == _type_checking_imports() | {"__version__"}
    assert set(cg.__all__) <= set(dir(cg))


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(cg, "no_such_name")


def test_importing_the_package_imports_nothing_else() -> None:
    probe = "import sys, cogmem_graph; print(sorted(m for m in sys.modules if m.startswith('cogmem_graph')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "['cogmem_graph']"


# Run in a fresh interpreter: importing every module (the framework integrations included)
# would leave them loaded in the test process.
SCAN = """
import importlib, inspect, json, pkgutil
import cogmem_graph as cg
from cogmem_graph.errors import CogmemError
found = {}
for info in pkgutil.walk_packages(cg.__path__, "cogmem_graph."):
    if info.name.endswith("__main__"):
        continue
    try:
        module = importlib.import_module(info.name)
    except ImportError as exc:  # an optional framework that is not installed (`integrations.require` names it)
        missing = exc if isinstance(exc, ModuleNotFoundError) else exc.__cause__
        if not isinstance(missing, ModuleNotFoundError) or (missing.name or "").startswith("cogmem_graph"):
            raise
        continue
    for name, value in vars(module).items():
        if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name
                and not name.startswith("_")):  # `_...`: a signal private to its module
            found[f"{info.name}.{name}"] = {"cogmem": issubclass(value, CogmemError),
                                            "at_root": getattr(cg, name, None) is value}
print(json.dumps(found))
"""


def test_every_error_is_a_cogmem_error_exported_at_the_root() -> None:
    done = subprocess.run([sys.executable, "-c", SCAN], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    errors = {where: seen for where, seen in json.loads(done.stdout).items() if where not in NOT_LIBRARY_ERRORS}
    assert "cogmem_graph.errors.MemoryNotFound" in errors
    outside = [where for where in errors if not where.startswith("cogmem_graph.errors.")]
    assert outside == [], "define errors in cogmem_graph/errors.py and import them where they are raised"
    assert [where for where, seen in errors.items() if not seen["cogmem"]] == []
    assert [where for where, seen in errors.items() if not seen["at_root"]] == []


def test_old_import_paths_name_the_same_classes() -> None:
    from cogmem_graph.api.governance import MemoryNotFound
    from cogmem_graph.between_turns.archive import ArchiveError, ArchiveNotFound
    from cogmem_graph.client import RequestRejected, ServerError, UnsendableArgument
    from cogmem_graph.graph.cypher import CypherNotFound
    from cogmem_graph.providers import ProviderError, ProviderResponseError
    from cogmem_graph.server.service import ServiceError

    assert MemoryNotFound is cg.MemoryNotFound and ArchiveNotFound is cg.ArchiveNotFound
    assert ArchiveError is cg.ArchiveError and CypherNotFound is cg.CypherNotFound
    assert ProviderError is cg.ProviderError and ProviderResponseError is cg.ProviderResponseError
    assert (ServerError, RequestRejected, UnsendableArgument) == (cg.ServerError, cg.RequestRejected,
                                                                 cg.UnsendableArgument)
    assert ServiceError is cg.ServiceError


def test_errors_keep_their_builtin_kinds() -> None:
    for cls in (cg.MemoryNotFound, cg.ArchiveNotFound, cg.CypherNotFound):
        assert issubclass(cls, LookupError), cls
    for cls in (cg.PortableFormatError, cg.RequestRejected, cg.UnsendableArgument, cg.NamespaceScanTooLarge):
        assert issubclass(cls, ValueError), cls
    assert issubclass(cg.ProviderUnavailable, cg.BackendUnavailable)
