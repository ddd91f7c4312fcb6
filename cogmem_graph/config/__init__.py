"""Configuration models. Every default number of the library lives in one of these
submodules and nowhere else; `CogmemConfig` gathers them for a store. They import the
clock's constants, the model and `redact.py`, nothing that does work."""

from cogmem_graph.config.store import CogmemConfig, WritePathConfig

__all__ = ["CogmemConfig", "WritePathConfig"]
