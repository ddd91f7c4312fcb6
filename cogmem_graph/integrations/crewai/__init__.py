"""CrewAI on cogmem (extra `crewai`): `CogmemCrewMemory`, a CrewAI `Memory` whose memories are
cogmem's, for `Crew(memory=...)` or `Agent(memory=...)`. See docs/integrations.md."""

from cogmem_graph.integrations import require

require("crewai.memory.unified_memory", "crewai")

from cogmem_graph.integrations.crewai.memory import CogmemCrewMemory  # noqa: E402

__all__ = ["CogmemCrewMemory"]
