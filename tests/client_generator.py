"""`tools/generate_client.py` loaded as a module, for the tests that hold the client to it
(`tools/` is no package: its scripts are run, not imported)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "tools" / "generate_client.py"


def generator() -> ModuleType:
    """The generator as the module `generate_client`, registered in `sys.modules` first: its
    dataclasses look their module up while being built."""
    name = "generate_client"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
