"""The result types, defined below the facade (`cogmem_graph.results`) so the layers that
build them need not import it."""

from cogmem_graph.results import AssembledContext, RepairResult, RetrievalResult, ScoredTrace

__all__ = ["AssembledContext", "RepairResult", "RetrievalResult", "ScoredTrace"]
