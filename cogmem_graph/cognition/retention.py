"""Retention: how long forgetting must leave a memory alone, by what it is.

* Memory category: each has a minimum retention after its last use; some are never
  forgotten by decay at all. The category itself is read from the memory's words
  (`language/memory_kind.py`).
* Information density: each unit lengthens stability, so small talk fades first.

Pure functions: no clock, no I/O; every number comes from `RetentionConfig`.
"""

from __future__ import annotations

from cogmem_graph.config.retention import RetentionConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MemoryCategory

_DEFAULT_CONFIG = RetentionConfig()


def min_retention_ms(category: MemoryCategory | str, config: RetentionConfig | None = None) -> int | None:
    """How long after its last use a memory of this category is safe from decay; None: always."""
    cfg = _DEFAULT_CONFIG if config is None else config
    name = MemoryCategory(category).value
    if name in cfg.permanent_categories:
        return None
    if name == MemoryCategory.COMMITMENT.value:
        return cfg.min_retention_commitment_ms
    if name == MemoryCategory.FACT.value:
        return cfg.min_retention_fact_ms
    return cfg.min_retention_other_ms


def density_stability_factor(density: int, config: RetentionConfig | None = None) -> float:
    """Stability multiplier 1 + gain · min(density, cap): dense memories last longer."""
    cfg = _DEFAULT_CONFIG if config is None else config
    if density < 0:
        raise InvalidArgument(f"density must be >= 0, got {density!r}", argument="density")
    return 1.0 + cfg.density_stability_gain * min(density, cfg.density_cap)
