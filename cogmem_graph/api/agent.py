"""Agent handles: one agent's view of a store, for recall and encoding.

`AgentMemory` is `AgentRecords` (the governance face: who is asking, its traits, mood and
working memory, and the calls by id or filter) plus everything that needs the read path,
the write path or a between-turn process: `encode`, `retrieve`, `multi_hop`,
`assemble_for_prompt`, the observer, the reflector and reminders. Every read and write of
the memory goes through a handle, so no call can forget the scope filter. This module
imports those paths (and numpy with them); `store.agent(...)` loads it on first use, so a
command that only lists or forgets memories (`store.records(...)`) does not.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from cogmem_graph.api.prompt_layout import PromptLayout, event_order
from cogmem_graph.api.records import AgentRecords, MoodSource
from cogmem_graph.between_turns import observer, reflector
from cogmem_graph.between_turns import prospective as prospective_memory
from cogmem_graph.between_turns.archive import MemoryArchive
from cogmem_graph.between_turns.consolidation.contradictions import RESOLVED_REASON
from cogmem_graph.cognition.prompt import Injection, PromptSections, assemble_prompt, far_below_best, injection_level
from cogmem_graph.context import checked_context
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import MemoryTrace, Mood, Scope, duration_ms
from cogmem_graph.operations import checked_arguments
from cogmem_graph.results import AssembledContext, RetrievalResult, ScoredTrace
from cogmem_graph.retrieval import read_path
from cogmem_graph.retrieval.graph_rag import multi_hop
from cogmem_graph.retrieval.multihop.walk import check_arguments
from cogmem_graph.write.encode import encode_many

if TYPE_CHECKING:
    from cogmem_graph.between_turns.observer import ObserveResult
    from cogmem_graph.between_turns.reflector import ReflectionResult
    from cogmem_graph.cognition.observation import ObservationNote
    from cogmem_graph.cognition.prospective import FiredReminder, Intention
    from cogmem_graph.config.retrieval import RetrievalConfig
    from cogmem_graph.retrieval.multihop.results import MultiHopResult
    from cogmem_graph.write.request import EncodeRequest

__all__ = ["AgentMemory", "MoodSource"]

log = logging.getLogger(__name__)


class AgentMemory(AgentRecords):
    """One agent's view of a `MemoryStore` (`store.agent(...)`): every read and write of its
    memory, inside the scope keys its identity sees: `AgentRecords`' governance calls, and
    recall, encoding, prompt assembly, the observer, the reflector and reminders.

    Every method that reaches the store raises `StoreClosed` once the store is closed, and
    `BackendUnavailable` when the graph or the vector index cannot be reached.
    """

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

        if not isinstance(reinforce_duplicates, bool):
            raise InvalidArgument(f"reinforce_duplicates must be True or False, got {reinforce_duplicates!r}",
                                  argument="reinforce_duplicates")
        return encode_many(self.context(), items, batch_size=batch_size, reinforce_duplicates=reinforce_duplicates)

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

        checked_arguments("consolidation_report", {"runs": runs, "schemas": schemas, "members": members,
                                                   "contradictions": contradictions})
        graph = checked_context(self).graph
        keys = self.visible_scope_keys
        return {
            "runs": self.store.consolidation_log.runs(runs, keys),
            "schemas": graph.schema_page(keys, limit=schemas, members=members) if schemas else [],
            "contradictions": graph.resolved_contradictions(keys, RESOLVED_REASON, limit=contradictions)
            if contradictions else [],
            "open_contradictions": graph.open_contradictions(keys, limit=contradictions) if contradictions else [],
        }

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
        checked_arguments("observe", {"role": role, "text": text, "created_at": created_at})
        return observer.observe(checked_context(self), role, text, created_at=created_at)

    def flush_observations(self) -> ObserveResult:
        """Observe what is buffered and reflect every pending note now, thresholds or not.

        Returns:
            An `ObserveResult`, its `reflection` set.

        Raises:
            StoreClosed: the store is closed.
        """

        return observer.flush(checked_context(self))

    def reflect(self) -> ReflectionResult:
        """Turn this agent's pending observation notes into long-term traces now.

        Returns:
            A `ReflectionResult`: notes processed, traces written, conflicts settled.

        Raises:
            StoreClosed: the store is closed.
        """

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
        args = checked_arguments("recall", {"query": query, "top_k": top_k, "strategy": strategy,
                                            "record_access": record_access, "as_of": as_of, "timeline": timeline,
                                            "where": where})
        cfg = self.store.config.retrieval
        k = _checked_query(query, cfg.top_k if args.top_k is None else args.top_k, cfg)
        when = _checked_when(args.as_of, args.timeline)
        result = read_path.retrieve(checked_context(self), query, top_k=k, strategy=args.strategy,
                                    record_access=args.record_access, mood=mood, when=when, where=args.where)
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
        args = checked_arguments("multi_hop", {"query": query, "hops": hops, "top_k": top_k, "where": where})
        cfg = self.store.config.retrieval
        hops = cfg.multi_hop.default_hops if args.hops is None else args.hops
        top_k = cfg.top_k if args.top_k is None else args.top_k
        check_arguments(query, hops, top_k, cfg)
        return multi_hop(checked_context(self), query, hops=hops, top_k=top_k, where=args.where)

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

        args = checked_arguments("context", {"query": query, "token_budget": token_budget, "top_k": top_k,
                                             "events": [events] if isinstance(events, str) else events,
                                             "where": where, "debug": debug})
        top_k = _checked_query(query, args.top_k, self.store.config.retrieval)
        f = args.where
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
        checked_arguments("remind", {
            "content": content, "at": at, "every": duration_ms(every), "on_keywords": [on_keywords] if isinstance(
                on_keywords, str) else on_keywords, "on_context": on_context, "recurring": recurring,
            "cooldown": duration_ms(cooldown), "threshold": threshold, "importance": importance,
            "scope": getattr(scope, "value", scope)})
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
        checked_arguments("reminders", {"include_inactive": include_inactive, "limit": limit})
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
        checked_arguments("cancel_reminder", {"reminder_id": reminder_id})
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

        return prospective_memory.memory_for(checked_context(self)).check(self.visible_scope_keys, text, events)


def _checked_query(query: object, top_k: object, config: RetrievalConfig) -> int:
    """`top_k` once `query` is known to be a non-empty string and `top_k` a positive integer
    within `config.max_top_k`."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query must be a non-empty string", argument="query")
    return config.checked_top_k(top_k)


def _checked_when(as_of: int | None, timeline: bool) -> read_path.When:
    """The state a retrieval asks about, from the `as_of` (epoch ms) and `timeline` arguments."""
    if as_of is None:
        return read_path.When(timeline=timeline)
    if timeline:
        raise InvalidArgument("as_of and timeline=True ask for different things: pass one of them", argument="as_of")
    return read_path.When(as_of=as_of)


def _with_observations(sections: PromptSections, agent: AgentMemory) -> PromptSections:
    """The Observations section: the agent's newest notes not yet reflected."""

    return replace(sections, observation_notes=observer.prompt_notes(agent.context()))
