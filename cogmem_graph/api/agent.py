"""Agent handles: one agent's view of a store.

A handle carries who is asking (identity → visible scope keys), how it
attends (HEXACO traits), how it feels (a mood or a mood provider) and its
working memory. Every read and write of the memory goes through one, so no
call can forget the scope filter.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TextIO

from cogmem_graph.api import governance
from cogmem_graph.api.prompt_layout import PromptLayout, event_order
from cogmem_graph.cognition.working_memory import WorkingMemory
from cogmem_graph.context import MemoryContext, MoodSource, checked_context
from cogmem_graph.errors import InvalidArgument, model_from
from cogmem_graph.filters import MemoryFilter, as_filter
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.model import Hexaco, MemoryTrace, MemoryType, Mood, Scope, epoch_ms_of
from cogmem_graph.results import AssembledContext, RetrievalResult, ScoredTrace

# The write path, the read path and the between-turn processes (observer, reflector, prospective memory,
# archive) are imported inside the methods that use them: a command that only lists, gets
# or counts memories (`cogmem stats`, `list`, `export`) does not pay for them, nor for
# numpy, which the write path brings.
if TYPE_CHECKING:
    from cogmem_graph.api.ports import StorePort
    from cogmem_graph.between_turns.consolidation import ConsolidationResult
    from cogmem_graph.between_turns.observer import ObserveResult
    from cogmem_graph.between_turns.reflector import ReflectionResult
    from cogmem_graph.cognition.observation import ObservationNote
    from cogmem_graph.cognition.prompt import PromptSections
    from cogmem_graph.cognition.prospective import FiredReminder, Intention
    from cogmem_graph.config.retrieval import RetrievalConfig
    from cogmem_graph.graph.port import Edge, GraphStats
    from cogmem_graph.retrieval import read_path
    from cogmem_graph.retrieval.multihop.results import MultiHopResult
    from cogmem_graph.write.request import EncodeRequest

__all__ = ["AgentMemory", "MoodSource"]

log = logging.getLogger(__name__)


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


class AgentMemory:
    """One agent's view of a `MemoryStore` (`store.agent(...)`): every read and write of its
    memory, inside the scope keys its identity sees.

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
        return f"AgentMemory(agent_id={self.identity.agent_id!r}, scopes={self.visible_scope_keys!r})"

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

    # ------------------------------------------------------------ write

    def encode(self, content: str, **fields: Any) -> MemoryTrace:
        """Remember one thing.

        Args:
            content: the text to remember.
            **fields: as `EncodeRequest`: type, scope, mood, tags, source_type, created_at,
                metadata, confidence, entities, structured_data, ...; its times (created_at,
                valid_from, valid_until) an aware datetime, ISO-8601 text or epoch ms.

        Returns:
            The stored trace, or the existing one it reinforced when it was a near-duplicate.

        Raises:
            ValueError: a field is missing, unknown or invalid (the message names it).
            StoreClosed: the store is closed.
        """
        return self.encode_many([{"content": content, **fields}])[0]

    def encode_many(self, items: Iterable[Mapping[str, Any] | EncodeRequest], *,
                    batch_size: int = 500, reinforce_duplicates: bool = True) -> list[MemoryTrace]:
        """Remember many things: one graph batch and one vector batch per `batch_size` items.

        A list is checked whole before anything is stored; a generator is read one batch at a
        time (see `write.encode.encode_many`).

        Args:
            items: dicts of `EncodeRequest` fields, or `EncodeRequest`s.
            batch_size: items per batch, at most `write.encode.MAX_ENCODE_BATCH` (1,000).
            reinforce_duplicates: False stores a near-duplicate of an existing memory as a
                memory of its own, for callers that key each memory themselves (the
                LangGraph store); identical items of one batch are still one memory.

        Returns:
            One trace per item, in order (the reinforced one for a near-duplicate).

        Raises:
            ValueError: an item or an argument is invalid (the message names it and its index).
            StoreClosed: the store is closed.
        """
        from cogmem_graph.write.encode import encode_many

        if not isinstance(reinforce_duplicates, bool):
            raise InvalidArgument(f"reinforce_duplicates must be True or False, got {reinforce_duplicates!r}",
                                  argument="reinforce_duplicates")
        return encode_many(self.context(), items, batch_size=batch_size, reinforce_duplicates=reinforce_duplicates)

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
        return governance.list_page(self, where, order=order, limit=limit, cursor=cursor)

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
        return governance.forget(self, ids, where=where, force=force, compact=compact)

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
        ids = [trace_ids] if isinstance(trace_ids, str) else list(trace_ids)
        if not ids or not all(isinstance(i, str) and i.strip() for i in ids):
            raise InvalidArgument(f"trace_ids must be a trace id or a non-empty list of them, got {trace_ids!r}",
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

    def consolidation_report(self, *, runs: int = 20, schemas: int = 20, members: int = 10,
                             contradictions: int = 50) -> dict[str, Any]:
        """What consolidation did in this agent's visible scopes: the last `runs` that counted
        something there (those scopes' counts only), the newest `schemas` with up to `members`
        members each, and the newest `contradictions` it settled (winner, loser, their event
        times and confidences) and those still open. Reads only.

        Args:
            runs, schemas, members, contradictions: how many of each (schemas up to 200,
                members up to 100, contradictions up to 500).

        Returns:
            A dict with "runs", "schemas", "contradictions" and "open_contradictions".

        Raises:
            ValueError: a count out of its range.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns.consolidation.contradictions import RESOLVED_REASON

        for name, value, high in (("schemas", schemas, 200), ("members", members, 100),
                                  ("contradictions", contradictions, 500)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
                raise InvalidArgument(f"{name} must be an integer in [0, {high}], got {value!r}", argument=name)
        graph = checked_context(self).graph
        keys = self.visible_scope_keys
        return {
            "runs": self.store.consolidation_log.runs(runs, keys),
            "schemas": graph.schema_page(keys, limit=schemas, members=members) if schemas else [],
            "contradictions": graph.resolved_contradictions(keys, RESOLVED_REASON, limit=contradictions)
            if contradictions else [],
            "open_contradictions": graph.open_contradictions(keys, limit=contradictions) if contradictions else [],
        }

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
        if not isinstance(trace_id, str) or not trace_id.strip():
            raise InvalidArgument(f"trace_id must be a non-empty string, got {trace_id!r}", argument="trace_id")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit <= 500:
            raise InvalidArgument(f"limit must be an integer in [0, 500], got {limit!r}", argument="limit")
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

    def rehydrate(self, trace_id: str) -> str:
        """The verbatim original of a (gisted or rewritten) trace this agent can see, without
        strengthening the trace: what an LLM tool offered to the agent should call.

        Args:
            trace_id: the trace's id.

        Returns:
            The original text (the trace's own content when it was never rewritten).

        Raises:
            ArchiveNotFound: no such trace or original among the agent's visible scopes.
            ValueError: `trace_id` is not a string.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns.archive import MemoryArchive

        ctx = checked_context(self)
        return MemoryArchive(ctx.graph, ctx.clock).rehydrate(trace_id, self.visible_scope_keys)

    # ------------------------------------------------------------ observer and reflector

    def observe(self, role: str, text: str, *, created_at: int | datetime | str | None = None) -> ObserveResult:
        """Feed one conversation turn ("user", "assistant", "system" or "tool") to the observer.
        Turns are buffered; past the observer's token threshold they become typed observation
        notes, and past the reflector's threshold the notes become long-term traces.

        Args:
            role: "user", "assistant", "system" or "tool".
            text: what was said.
            created_at: when (an aware datetime, ISO-8601 text or epoch ms); default now.

        Returns:
            An `ObserveResult`: what is still buffered, the notes written, the reflection run.

        Raises:
            ValueError: an unknown role, blank text or a bad `created_at`.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import observer

        return observer.observe(checked_context(self), role, text, created_at=created_at)

    def flush_observations(self) -> ObserveResult:
        """Observe what is buffered and reflect every pending note now, thresholds or not.

        Returns:
            An `ObserveResult`, its `reflection` set.

        Raises:
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import observer

        return observer.flush(checked_context(self))

    def reflect(self) -> ReflectionResult:
        """Turn this agent's pending observation notes into long-term traces now.

        Returns:
            A `ReflectionResult`: notes processed, traces written, conflicts settled.

        Raises:
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import reflector

        return reflector.reflect(checked_context(self))

    def observations(self, limit: int = 20, *, pending_only: bool = False,
                     all_agents: bool = False) -> builtins.list[ObservationNote]:
        """This agent's observation notes in its visible scopes, newest first.

        Args:
            limit: notes at most.
            pending_only: only those not yet reflected.
            all_agents: those of every agent in the scopes, not only this one's.

        Returns:
            A list of `ObservationNote`.

        Raises:
            ValueError: `limit` out of range.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import observer

        return observer.list_notes(checked_context(self), limit=limit, pending_only=pending_only, all_agents=all_agents)

    # ------------------------------------------------------------ read

    def retrieve(self, query: str, top_k: int | None = None, *, strategy: read_path.Strategy = "full",
                 record_access: bool = True, mood: Mood | None = None, as_of: int | datetime | str | None = None,
                 timeline: bool = False, where: MemoryFilter | Mapping[str, Any] | None = None) -> RetrievalResult:
        """The memories that best answer `query`, with the signals that ranked them.

        By default the current state: what has expired ("in Lisbon until Friday", once Friday
        is over) is left out, and a replaced fact ranks just below its correction. `as_of`
        (an aware datetime, ISO-8601 text or epoch ms) asks about a point in time: what held true then, by
        all the memory knows now. `timeline=True` returns every version, in event order.
        `where` keeps to matching memories: the top_k returned all match whenever that many
        exist.

        Args:
            query: the question or cue, a non-empty string.
            top_k: how many, default `config.retrieval.top_k`.
            strategy: "full" (the whole read path), "dense" or "lexical" alone.
            record_access: count the retrieval (access, spaced repetition, Hebbian edges);
                False only looks.
            mood: the mood of this retrieval instead of the handle's.
            as_of: a point in time: an aware datetime, ISO-8601 text or epoch ms.
            timeline: every version, expired and superseded ones too, in event order.
            where: a `MemoryFilter` or a dict of its fields.

        Returns:
            A `RetrievalResult`: the ranked `ScoredTrace`s and the signals behind each.

        Raises:
            ValueError: an empty query, a bad top_k, filter or point in time, or `as_of`
                with `timeline=True`.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.retrieval import read_path

        cfg = self.store.config.retrieval
        k = _checked_query(query, cfg.top_k if top_k is None else top_k, cfg)
        when = _checked_when(as_of, timeline)
        f = as_filter(where)
        result = read_path.retrieve(checked_context(self), query, top_k=k, strategy=strategy,
                                    record_access=record_access, mood=mood, when=when, where=f)
        if record_access:
            self._focus(result.traces)
        return result

    def _focus(self, recalled: Sequence[ScoredTrace]) -> None:
        """What was just recalled is what the agent is now thinking about."""
        for item in recalled[: self.store.config.working_memory.focus_per_retrieval]:
            self.working_memory.focus(item.trace.id, item.trace.content)

    def multi_hop(self, query: str, hops: int | None = None, top_k: int | None = None, *,
                  where: MemoryFilter | Mapping[str, Any] | None = None) -> MultiHopResult:
        """GraphRAG multi-hop retrieval: the query's entities → traces that mention them →
        co-mentioned entities → their traces (`hops` entity crossings, default 2), seeded also by
        the text matches and, for global questions, by community summaries; ranked by
        personalised PageRank (GDS on Neo4j) or spreading activation in Cypher. Each returned
        trace carries its evidence path from the query. Reads only; see
        `cogmem_graph.retrieval.multihop.walk`.

        Args:
            query: the question, a non-empty string.
            hops: entity crossings, default `config.retrieval.multi_hop.default_hops`.
            top_k: how many, default `config.retrieval.top_k`.
            where: a `MemoryFilter` or a dict of its fields.

        Returns:
            A `MultiHopResult`: the traces reached, each with its `EvidencePath`s.

        Raises:
            ValueError: an empty query, or `hops`, `top_k` or the filter out of range.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.retrieval.graph_rag import multi_hop
        from cogmem_graph.retrieval.multihop.walk import check_arguments

        cfg = self.store.config.retrieval
        hops = cfg.multi_hop.default_hops if hops is None else hops
        top_k = cfg.top_k if top_k is None else top_k
        check_arguments(query, hops, top_k, cfg)
        f = as_filter(where)
        return multi_hop(checked_context(self), query, hops=hops, top_k=top_k, where=f)

    def assemble_for_prompt(self, query: str, token_budget: int | None = None, *, top_k: int = 20,
                            events: Sequence[str] = (),
                            where: MemoryFilter | Mapping[str, Any] | None = None,
                            debug: bool = False) -> AssembledContext:
        """Retrieve for `query` and lay the memories out for a model, in six sections within
        `token_budget`. `query` is also the turn that prospective memory checks: reminders it
        triggers (and any due by time, or named in `events`) fire and lead the Reminders section.

        The text is written for the model, not for debugging: each memory appears once (what
        the query retrieved is not repeated under Active Context, nor is the same text twice),
        with no internal ids, activation values or scores (`debug=True` shows them); a memory
        cut to fit ends at a sentence end or between words, with an ellipsis. A memory that a
        newer one replaced (a correction, or the same statement made later with another value)
        is shown right after its replacement, marked
        "(outdated: replaced on YYYY-MM-DD by the line above)", or by a quote of the replacement
        when that is not the line above; one whose stated validity has ended is marked
        "(outdated: held until YYYY-MM-DD)", its last day. `AssembledContext.outdated` lists
        the memories marked either way.

        Args:
            query: the turn, a non-empty string.
            token_budget: tokens at most, default `config.prompt.token_budget` (1,000).
            top_k: memories retrieved.
            events: event names the turn carries, for event-triggered reminders.
            where: a `MemoryFilter` or a dict of its fields.
            debug: show ids, activation values and scores.

        Returns:
            An `AssembledContext`: the text, tokens per section, the reminders fired.

        Raises:
            ValueError: an empty query, a bad top_k, filter, events or debug.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.cognition.prompt import Injection, assemble_prompt, far_below_best, injection_level
        from cogmem_graph.retrieval import read_path

        if not isinstance(debug, bool):
            raise InvalidArgument(f"debug must be True or False, got {debug!r}", argument="debug")
        top_k = _checked_query(query, top_k, self.store.config.retrieval)
        f = as_filter(where)
        result = read_path.retrieve(checked_context(self), query, top_k=top_k, where=f)
        fired = self.check_reminders(query, events=events)
        held = self._forget_gone_from_working_memory({item.trace.id for item in result.traces})
        gate = self.store.config.prompt.injection
        levels = {item.trace.id: injection_level(item.score, full_at=gate.full_at, abbreviated_at=gate.abbreviated_at)
                  if gate.enabled else Injection.FULL for item in result.traces}
        weak = far_below_best([item.score for item in result.traces], self.store.config.prompt.min_share_of_best)
        levels.update({item.trace.id: Injection.LEFT_OUT for item, far in zip(result.traces, weak, strict=True) if far})
        shown = [item for item in result.traces if levels[item.trace.id] is not Injection.LEFT_OUT]
        short = {tid for tid, level in levels.items() if level is Injection.ABBREVIATED}
        left_out = tuple(tid for tid, level in levels.items() if level is Injection.LEFT_OUT)
        if left_out:
            log.debug("prompt for %r leaves out %d low-confidence memories", query[:60], len(left_out))
        self._focus(shown)  # what the prompt leaves out does not become the agent's focus either
        on_mind = [slot for slot in self.working_memory.slots if slot.content.strip()]
        replaced = self._replacements([item.trace for item in shown], [slot.trace_id for slot in on_mind], query)
        layout = PromptLayout(shown, replaced, self.store.clock.now_ms(), held=held, abbreviated=short,
                         abbreviated_chars=gate.abbreviated_chars,
                         quote_chars=self.store.config.prompt.replacement_quote_chars, debug=debug)
        sections = layout.sections(on_mind, self.working_memory, fired)
        sections = _with_observations(sections, self)
        assembled = assemble_prompt(sections, token_budget=token_budget, traits=self.traits,
                                    config=self.store.config.prompt)
        self.working_memory.tick()  # one prompt, one turn: what is not rehearsed fades
        return AssembledContext(
            text=assembled.text, tokens_used=assembled.tokens_used, token_budget=assembled.token_budget,
            sections={name: usage.tokens_used for name, usage in assembled.sections.items()},
            trace_ids=tuple(item.trace.id for item in result.traces), reminders=tuple(fired),
            abbreviated=tuple(tid for tid in levels if tid in short), left_out=left_out,
            outdated=tuple(layout.outdated),
        )

    def replacements(self, ids: Sequence[str], *, question: str = "") -> dict[str, MemoryTrace]:
        """The newest visible memory that replaces each of `ids`, where one does: the reading
        `assemble_for_prompt` marks "outdated" by (a correction or later contradiction in the
        graph, and among `ids` a newer statement that contradicts an older one, or, given the
        `question` they answer, gives another value of what it asks), so a person looking at
        the same memories sees the same ones outdated. Reads only.

        Raises:
            StoreClosed: the store is closed.
        """
        wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
        if not wanted:
            return {}
        shown = checked_context(self).graph.get_traces(wanted, self.visible_scope_keys)
        return self._replacements(shown, [], question)

    def _replacements(self, shown: Sequence[MemoryTrace], on_mind: Sequence[str],
                      query: str) -> dict[str, MemoryTrace]:
        """The newest memory that replaces each shown (or held in mind) one, where one does:
        one read of the replacements, one more for those the prompt does not show; and among
        the shown, a statement a newer shown one contradicts, or gives another value of what
        `query` asks for, though no edge says so."""
        from cogmem_graph.retrieval import read_path

        known = {t.id: t for t in shown}
        pairs = read_path.newer_versions(self.context(), [*known, *on_mind])
        pairs += read_path.replaced_in_view(self.context(), shown, pairs, question=query)
        missing = [new for _, new in pairs if new not in known]
        if missing:
            known.update({t.id: t for t in self.store.graph.get_traces(missing, self.visible_scope_keys)})
        newest: dict[str, MemoryTrace] = {}
        for old, new in pairs:
            t = known.get(new)
            if t is not None and (old not in newest or event_order(t) > event_order(newest[old])):
                newest[old] = t
        return newest

    def _forget_gone_from_working_memory(self, known_active: set[str]) -> dict[str, MemoryTrace]:
        """What consolidation pruned or merged away (or another handle deleted) must not live
        on in this handle's Active Context: one lookup of the slots retrieval did not just see.
        Returns the traces of those that stay."""
        unknown = [i for i in self.working_memory.trace_ids if i not in known_active]
        if not unknown:
            return {}
        alive = {t.id: t for t in self.store.graph.get_traces(unknown, self.visible_scope_keys) if t.is_active}
        for trace_id in unknown:
            if trace_id not in alive:
                self.working_memory.remove(trace_id)
        return alive

    # ------------------------------------------------------------ prospective memory

    def remind(
        self, content: str, *, at: int | datetime | str | None = None, every: int | timedelta | None = None,
        on_keywords: str | Sequence[str] | None = None, on_context: str | None = None,
        recurring: bool | None = None, cooldown: int | timedelta | None = None, threshold: float | None = None,
        importance: float | None = None, scope: Scope | str | None = None,
    ) -> Intention:
        """Remember to bring `content` up later. Time: `at` (an aware datetime, ISO-8601 text or epoch ms) and/or
        `every` (ms or timedelta, recurring). Event: `on_keywords`, words a turn (or its events)
        mentions. Context: `on_context`, a situation a turn resembles by at least `threshold`.
        One-shot unless `every` or `recurring=True` (pausing `cooldown` between firings).

        Args:
            content: what to bring up.
            at, every, on_keywords, on_context: the trigger (at least one).
            recurring, cooldown, threshold, importance: as above; defaults from
                `config.prospective`.
            scope: where the intention lives (default the agent's user, else its own scope).

        Returns:
            The stored `Intention`.

        Raises:
            ValueError: no trigger, or an invalid time, scope or number.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import prospective as prospective_memory

        return prospective_memory.remind(
            checked_context(self), content, at=at, every=every, on_keywords=on_keywords, on_context=on_context,
            recurring=recurring, cooldown=cooldown, threshold=threshold, importance=importance, scope=scope)

    def reminders(self, *, include_inactive: bool = False, limit: int = 100) -> builtins.list[Intention]:
        """The intentions this agent can see.

        Args:
            include_inactive: also spent and cancelled ones.
            limit: intentions at most.

        Returns:
            A list of `Intention`.

        Raises:
            ValueError: `limit` is not a non-negative integer.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import prospective as prospective_memory

        return prospective_memory.memory_for(checked_context(self)).list(self.visible_scope_keys,
                                                        include_inactive=include_inactive, limit=limit)

    def cancel_reminder(self, reminder_id: str) -> bool:
        """Cancel a pending intention.

        Args:
            reminder_id: the intention's id.

        Returns:
            True when cancelled; False when this agent has no pending intention by that id.

        Raises:
            ValueError: `reminder_id` is not a string.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import prospective as prospective_memory

        return prospective_memory.memory_for(checked_context(self)).cancel(reminder_id, self.visible_scope_keys)

    def check_reminders(self, text: str = "", *, events: Sequence[str] = ()) -> builtins.list[FiredReminder]:
        """Fire the intentions this turn triggers (`assemble_for_prompt` does it for its query).

        Args:
            text: the turn.
            events: event names the turn carries.

        Returns:
            The `FiredReminder`s, those due by time included.

        Raises:
            ValueError: `text` is not a string, or bad `events`.
            StoreClosed: the store is closed.
        """
        from cogmem_graph.between_turns import prospective as prospective_memory

        return prospective_memory.memory_for(checked_context(self)).check(self.visible_scope_keys, text, events)


def _checked_query(query: object, top_k: object, config: RetrievalConfig) -> int:
    """`top_k` once `query` is known to be a non-empty string and `top_k` a positive integer
    within `config.max_top_k`."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query must be a non-empty string", argument="query")
    return config.checked_top_k(top_k)


def _checked_when(as_of: object, timeline: object) -> read_path.When:
    """The state a retrieval asks about, from the `as_of` and `timeline` arguments."""
    from cogmem_graph.retrieval import read_path

    if not isinstance(timeline, bool):
        raise InvalidArgument(f"timeline must be True or False, got {timeline!r}", argument="timeline")
    if as_of is None:
        return read_path.When(timeline=timeline)
    if timeline:
        raise InvalidArgument("as_of and timeline=True ask for different things: pass one of them", argument="as_of")
    return read_path.When(as_of=epoch_ms_of(as_of, "as_of"))


def _with_observations(sections: PromptSections, agent: AgentMemory) -> PromptSections:
    """The Observations section: the agent's newest notes not yet reflected."""
    from cogmem_graph.between_turns import observer

    return replace(sections, observation_notes=observer.prompt_notes(agent.context()))
