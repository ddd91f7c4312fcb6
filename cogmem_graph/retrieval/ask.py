"""One question as every stage of the read path takes it (`Ask`): what state of the memory
it asks about (`When`), what the caller may see and filter on (`Filtered`), how far to look."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from cogmem_graph.filters import MemoryFilter, PayloadCondition, payload_conditions
from cogmem_graph.model import entity_key

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext

Strategy = Literal["full", "dense", "lexical"]
STRATEGIES: tuple[str, ...] = ("full", "dense", "lexical")


@dataclass(frozen=True)
class When:
    """Which state of the memory a retrieval asks about: now (the default), a point in time
    (`as_of`: what held true then), or the whole timeline."""

    as_of: int | None = None
    timeline: bool = False


NOW = When()


@dataclass(frozen=True)
class Filtered:
    """A caller's filter as the read path applies it: in the vector searches' payload filter,
    and on every candidate that came from the graph (activation, multi-hop, versions) by one
    graph read before ranking, so the top-k returned all match whenever that many exist."""

    scope_keys: tuple[str, ...]
    payload: tuple[PayloadCondition, ...]
    graph_params: dict

    @staticmethod
    def of(ctx: MemoryContext, where: MemoryFilter | None) -> Filtered | None:
        if where is None or where.is_empty:
            return None
        entity_keys = [entity_key(n) for n in where.entity] if where.entity else None
        return Filtered(tuple(where.narrow_scope_keys(ctx.visible_scope_keys)),
                        tuple(payload_conditions(where, entity_keys)), where.graph_params(entity_keys))

    def keep(self, ctx: MemoryContext, ids: list[str]) -> list[str]:
        allowed = ctx.graph.filter_ids(ids, self.scope_keys, self.graph_params)
        return [i for i in ids if i in allowed]


@dataclass(frozen=True)
class Ask:
    """One question as every stage takes it: what may be read, and how far to look."""

    query: str
    top_k: int
    strategy: Strategy
    keys: list[str]
    payload: tuple[PayloadCondition, ...]
    pool: int
    """Hits each source brings."""
    depth: int
    """What a longer list would rank: its first top_k are returned."""
    when: When
    where: Filtered | None

    @staticmethod
    def of(ctx: MemoryContext, query: str, top_k: int, strategy: Strategy, keys: list[str], when: When,
           where: Filtered | None) -> Ask:
        cfg = ctx.config.retrieval
        return Ask(query, top_k, strategy, keys, where.payload if where is not None else (), cfg.pool_for(top_k),
                   cfg.depth_for(top_k), when, where)


def nothing() -> list:
    """The pending read (`Later`) of a read that was not needed."""
    return []
