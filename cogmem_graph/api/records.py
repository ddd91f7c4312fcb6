"""Agent handles' governance face: one agent's memory records, without recall or encoding.

`AgentRecords` holds who is asking (identity → visible scope keys), how it attends (HEXACO
traits), how it feels (a mood or a mood provider) and its working memory, and the calls that
read, correct and delete memories by id or filter: `get`, `list`, `update`, `history`,
`forget`, `export`, `pin`, `stats`, `neighbourhood`. It imports neither the read path nor
the write path (nor numpy, which they bring), so a command or a script that only lists,
corrects or forgets memories (`cogmem list`, `get`, `forget`, `stats`) starts without them:
`MemoryStore.records(...)` gives one. `AgentMemory` (`api/agent.py`, `store.agent(...)`) is
this face plus recall, encoding and the between-turn processes.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from cogmem_graph.api import governance
from cogmem_graph.cognition.working_memory import WorkingMemory
from cogmem_graph.context import MemoryContext, MoodSource, checked_context
from cogmem_graph.errors import InvalidArgument, model_from
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.model import Hexaco, MemoryTrace, MemoryType, Mood, Scope
from cogmem_graph.operations import checked_arguments

if TYPE_CHECKING:
    from cogmem_graph.api.ports import StorePort
    from cogmem_graph.between_turns.consolidation import ConsolidationResult
    from cogmem_graph.graph.port import Edge, GraphStats

__all__ = ["AgentRecords", "MoodSource", "as_mood_source", "as_traits"]


def as_traits(traits: Hexaco | Mapping[str, Any] | None) -> Hexaco | None:
    """`traits` as a `Hexaco`: the model itself, or a dict of its fields validated at once."""
    if traits is None or isinstance(traits, Hexaco):
        return traits
    if not isinstance(traits, Mapping):
        raise InvalidArgument(f"traits must be a Hexaco or a dict of its fields, not {type(traits).__name__}",
                              argument="traits")
    return model_from(Hexaco, traits, "traits are not valid Hexaco traits", argument="traits")


def as_mood_source(mood: MoodSource | Mapping[str, Any]) -> MoodSource:
    """`mood` as a `Mood`, a provider (a callable returning one) or None; a dict of `Mood`
    fields is validated into one at once."""
    if mood is None or isinstance(mood, Mood) or callable(mood):
        return mood
    if not isinstance(mood, Mapping):
        raise InvalidArgument(f"mood must be a Mood, a dict of its fields or a callable returning a Mood, "
                              f"not {type(mood).__name__}", argument="mood")
    return model_from(Mood, mood, "mood is not a valid Mood", argument="mood")


class AgentRecords:
    """One agent's memory records in a `MemoryStore` (`store.records(...)`): what it holds, read,
    corrected and deleted by id or filter, inside the scope keys its identity sees. The base of
    `AgentMemory`, which adds recall, encoding and the between-turn processes.

    Every method that reaches the store raises `StoreClosed` once the store is closed, and
    `BackendUnavailable` when the graph or the vector index cannot be reached.
    """

    def __init__(self, store: StorePort, identity: AgentIdentity, traits: Hexaco, mood: MoodSource = None) -> None:
        self.store = store
        self.identity = identity
        self.traits = traits
        self._mood = as_mood_source(mood)
        self.working_memory = WorkingMemory(traits, config=store.config.working_memory, clock=store.clock)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(agent_id={self.identity.agent_id!r}, scopes={self.visible_scope_keys!r})"

    @property
    def visible_scope_keys(self) -> list[str]:
        return self.identity.visible_scope_keys()

    def current_mood(self) -> Mood:
        """The mood encoding and retrieval use now (the provider's answer, if one was given).

        Returns:
            The `Mood` set, or a neutral one when none was.
        """
        return self.context().current_mood()

    def context(self) -> MemoryContext:
        """What the read path, the write path and the between-turn processes get instead of this handle:
        the store's ports and this agent's identity, traits and mood (made per call, so a
        changed mood or traits count at once)."""
        return self.store.context().for_agent(self.identity, self.traits, self._mood)

    def set_mood(self, mood: MoodSource | Mapping[str, Any]) -> None:
        """Set the mood that encoding and retrieval take from now on.

        Args:
            mood: a `Mood`, a dict of its fields, a callable returning a `Mood`, or None
                for neutral.

        Raises:
            ValueError: `mood` is none of these, or a dict that is not a valid `Mood`.
        """
        self._mood = as_mood_source(mood)

    # ------------------------------------------------------------ what the memory holds

    def get(self, trace_id: str) -> governance.MemoryRecord:
        """One memory with its state (active, dormant, superseded, inactive), pinned, validity
        bounds and version.

        Args:
            trace_id: the memory's id.

        Returns:
            Its `MemoryRecord`.

        Raises:
            MemoryNotFound: this agent cannot see a memory of that id.
            ValueError: `trace_id` is not a non-empty string.
            StoreClosed: the store is closed.
        """
        checked_arguments("get", {"trace_id": trace_id})
        return governance.get(self, trace_id)

    def list(self, where: MemoryFilter | Mapping[str, Any] | None = None, *, order: str = "newest",
             limit: int = governance.DEFAULT_PAGE, cursor: str | None = None) -> governance.MemoryPage:
        """A page of this agent's memories, newest or oldest event first.

        Args:
            where: a `MemoryFilter` or a dict of its fields; None lists every memory.
            order: "newest" or "oldest".
            limit: memories per page, 1 to 1,000.
            cursor: the `cursor` of the previous page, for the next one.

        Returns:
            A `MemoryPage`: its records and the cursor of the next page (None after the last).

        Raises:
            ValueError: a bad filter, order, limit, or a cursor no list call returned.
            StoreClosed: the store is closed.
        """
        args = checked_arguments("list", {"where": where, "order": order, "limit": limit, "cursor": cursor})
        return governance.list_page(self, args.where, order=args.order, limit=args.limit, cursor=args.cursor)

    def update(self, trace_id: str, *, content: str | None = None, tags: Sequence[str] | None = None,
               metadata: Mapping[str, Any] | None = None, pinned: bool | None = None,
               type: MemoryType | str | None = None) -> governance.MemoryRecord:  # noqa: A002
        """Correct a memory.

        Args:
            trace_id: the memory's id.
            content: new text: a new version superseding the old (kept for `history`,
                `timeline` and `as_of`).
            tags, metadata, pinned, type: changed in place.

        Returns:
            The `MemoryRecord` of the memory as it is now (the new version for new content).

        Raises:
            MemoryNotFound: this agent cannot see a memory of that id.
            ValueError: nothing to change, an invalid value, or a memory already replaced.
            StoreClosed: the store is closed.
        """
        checked_arguments("update", {"trace_id": trace_id, "content": content, "tags": tags, "metadata": metadata,
                                     "pinned": pinned, "type": type})
        return governance.update(self, trace_id, content=content, tags=tags, metadata=metadata, pinned=pinned,
                                 type=type)

    def history(self, trace_id: str) -> builtins.list[governance.MemoryRecord]:
        """Every version of a memory, oldest first, each with when and by which agent.

        Args:
            trace_id: the id of any of its versions.

        Returns:
            One `MemoryRecord` per version.

        Raises:
            MemoryNotFound: this agent cannot see a memory of that id.
            ValueError: `trace_id` is not a non-empty string.
            StoreClosed: the store is closed.
        """
        checked_arguments("history", {"trace_id": trace_id})
        return governance.history(self, trace_id)

    def forget(self, ids: str | Sequence[str] | None = None, *, where: MemoryFilter | Mapping[str, Any] | None = None,
               force: bool = False, compact: bool = False) -> governance.ForgetReceipt:
        """Delete memories for good: the trace, its versions, edges, vectors, archive copies
        and what was made from it. Gone from the files at the next consolidation.

        Args:
            ids: one id or up to 1,000 (not with `where`).
            where: a `MemoryFilter` or a dict of its fields: every matching memory (not with `ids`).
            force: delete pinned memories too (else they are skipped).
            compact: rewrite the files now, not at the next consolidation.

        Returns:
            A `ForgetReceipt`: what was forgotten, not found, or skipped as pinned.

        Raises:
            ValueError: both or neither of `ids` and `where`, too many ids, or an empty filter.
            StoreClosed: the store is closed.
        """
        listed = [ids] if isinstance(ids, str) else ids
        args = checked_arguments("forget", {"ids": listed, "where": where, "force": force, "compact": compact})
        return governance.forget(self, args.ids, where=args.where, force=args.force, compact=args.compact)

    def export(self, out: TextIO) -> Any:
        """Write this agent's user's memories (the user and thread scopes it sees) as JSON Lines
        that `import` takes into another store. Audited.

        Args:
            out: a text stream to write to.

        Returns:
            The `PortableCounts` written.

        Raises:
            StoreClosed: the store is closed.
        """
        keys = [k for k in self.visible_scope_keys if k.startswith(("user:", "thread:"))] \
            or [self.identity.scope_key(Scope.AGENT)]
        return governance.export(self.store, out, keys, governance.actor_of(self))

    def working_memory_forget(self, trace_ids: Sequence[str]) -> None:
        """Drop deleted memories from this handle's working memory.

        Args:
            trace_ids: the ids; those not held are ignored.
        """
        for trace_id in trace_ids:
            if trace_id in self.working_memory.trace_ids:
                self.working_memory.remove(trace_id)

    # ------------------------------------------------------------ truth anchors

    def pin(self, trace_ids: str | Sequence[str]) -> builtins.list[str]:
        """Pin memories (truth anchors): never made dormant, merged, gisted, weakened by
        interference or superseded by consolidation; a dormant one wakes.

        Args:
            trace_ids: one id or a list of them.

        Returns:
            The ids pinned; ids this agent cannot see, or that were deleted, are left out.

        Raises:
            ValueError: `trace_ids` is empty or holds something other than non-empty strings.
            StoreClosed: the store is closed.
        """
        return self._set_pinned(trace_ids, True)

    def unpin(self, trace_ids: str | Sequence[str]) -> builtins.list[str]:
        """Let pinned memories be forgotten like any other again.

        Args:
            trace_ids: one id or a list of them.

        Returns:
            The ids unpinned (those this agent can see).

        Raises:
            ValueError: `trace_ids` is empty or holds something other than non-empty strings.
            StoreClosed: the store is closed.
        """
        return self._set_pinned(trace_ids, False)

    def _set_pinned(self, trace_ids: str | Sequence[str], pinned: bool) -> builtins.list[str]:
        listed = [trace_ids] if isinstance(trace_ids, str) else trace_ids
        ids = checked_arguments("pin", {"ids": listed}, names={"ids": "trace_ids"}).ids
        if not all(i.strip() for i in ids):
            raise InvalidArgument(f"trace_ids must be a trace id or a list of them, got {trace_ids!r}",
                                  argument="trace_ids")
        return checked_context(self).graph.set_pinned(ids, pinned, self.visible_scope_keys)

    def consolidate(self) -> ConsolidationResult:
        """Consolidate this agent's visible scopes now, its traits deciding contradictions
        (an honest agent lets the newer statement supersede the older).

        Returns:
            The run's `ConsolidationResult` (`skipped` when another run held the mutex).

        Raises:
            StoreClosed: the store is closed.
        """
        return self.store.consolidate(self.visible_scope_keys, traits=self.traits, trigger="agent")

    def stats(self) -> GraphStats:
        """Counts of what this agent can see.

        Returns:
            `GraphStats`: traces by type and state, edges by type, entities.

        Raises:
            StoreClosed: the store is closed.
        """
        return checked_context(self).graph.stats(self.visible_scope_keys)

    def neighbourhood(
        self, trace_id: str, *, limit: int = 25,
    ) -> tuple[MemoryTrace | None, builtins.list[Edge], builtins.list[MemoryTrace]]:
        """One memory this agent can see, its associative edges and the neighbours at their
        other ends (the strongest `limit`), all inside the visible scopes. Reads only.

        Args:
            trace_id: the memory's id.
            limit: edges at most, 0 to 500.

        Returns:
            (the trace, its edges, the neighbours); (None, [], []) when the memory is unknown
            or out of sight.

        Raises:
            ValueError: an empty `trace_id`, or `limit` out of range.
            StoreClosed: the store is closed.
        """
        limit = checked_arguments("memory", {"trace_id": trace_id, "limit": limit}).limit
        if not trace_id.strip():
            raise InvalidArgument(f"trace_id must be a non-empty string, got {trace_id!r}", argument="trace_id")
        graph = checked_context(self).graph
        keys = self.visible_scope_keys
        found = graph.get_traces([trace_id], keys)
        if not found:
            return None, [], []
        edges = [e for e in graph.get_edges([trace_id], keys) if trace_id in (e.src, e.dst)]
        edges = sorted(edges, key=lambda e: -e.weight)[:limit]
        others = list(dict.fromkeys(e.dst if e.src == trace_id else e.src for e in edges))
        neighbours = graph.get_traces(others, keys) if others else []
        seen = {t.id for t in neighbours}
        return found[0], [e for e in edges if (e.dst if e.src == trace_id else e.src) in seen], neighbours
