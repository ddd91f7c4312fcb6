"""Configuration models. Every default number of the library lives in one of these
submodules and nowhere else; `CogmemConfig` gathers them for a store."""

from cogmem_graph.config.store import CogmemConfig, WritePathConfig

__all__ = ["CogmemConfig", "WritePathConfig"]
