"""Benchmark scripts and their data sets, loaded as modules for the tests that check them
(`benchmarks/` is no package: its scripts are run, not imported), and where the LoCoMo
development data is."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import pytest

T = TypeVar("T")

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
LOCOMO_DATA = BENCHMARKS.parents[1] / "shared" / "data" / "locomo"
"""The LoCoMo development conversations, beside the checkout: a user's clone has none, so
every test that reads them is decorated with `needs_locomo_data` (tests/packaging/test_plain_clone.py
checks that no test finds them another way)."""
_skipped_without_data = pytest.mark.skipif(not LOCOMO_DATA.is_dir(),
                                           reason=f"no LoCoMo development data at {LOCOMO_DATA}")


def needs_locomo_data(test: T) -> T:
    """A test that reads the data: skipped with the reason where it is absent, and marked
    `locomo_data`, so `make test` runs these in a pass of their own beside the data after the
    main pass has run everything from a plain clone (tools/plain_clone.py)."""
    return pytest.mark.locomo_data(_skipped_without_data(test))


def load_benchmark(name: str) -> ModuleType:
    """`benchmarks/<name>.py` as the module `name`, registered in `sys.modules` first: its
    dataclasses look their module up while being built, and a set may import another by name."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
