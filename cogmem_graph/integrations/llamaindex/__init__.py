"""LlamaIndex on cogmem (extra `llamaindex`): `CogmemMemoryBlock`, a memory block for
`llama_index.core.memory.Memory`. See docs/integrations.md."""

from cogmem_graph.integrations import require

require("llama_index.core.memory", "llamaindex")

from cogmem_graph.integrations.llamaindex.block import CogmemMemoryBlock  # noqa: E402

__all__ = ["CogmemMemoryBlock"]
