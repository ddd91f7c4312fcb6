"""Agent handles: one agent's view of a store.

A handle carries who is asking (identity → visible scope keys), how it
attends (HEXACO traits), how it feels (a mood or a mood provider) and its
working memory. Every read and write of the memory goes through one, so no
call can forget the scope filter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cogmem_graph.api import read, write
from cogmem_graph.api.results import AssembledContext, RetrievalResult, ScoredTrace
from cogmem_graph.cognition.prompt import PromptItem, PromptSections, assemble_prompt
from cogmem_graph.cognition.working_memory import WorkingMemory
from cogmem_graph.identity import AgentIdentity
from cogmem_graph.model import Hexaco, MemoryTrace, MemoryType, Mood

if TYPE_CHECKING:
    from cogmem_graph.api.store import MemoryStore

MoodSource = Mood | Callable[[], Mood] | None


class AgentMemory:
    def __init__(self, store: MemoryStore, identity: AgentIdentity, traits: Hexaco, mood: MoodSource = None) -> None:
        self.store = store
        self.identity = identity
        self.traits = traits
        self._mood = mood
        self.working_memory = WorkingMemory(traits, config=store.config.working_memory, clock=store.clock)

    def __repr__(self) -> str:
        return f"AgentMemory(agent_id={self.identity.agent_id!r}, scopes={self.visible_scope_keys!r})"

    @property
    def visible_scope_keys(self) -> list[str]:
        return self.identity.visible_scope_keys()

    def current_mood(self) -> Mood:
        if self._mood is None:
            return Mood()
        return self._mood() if callable(self._mood) else self._mood

    def set_mood(self, mood: MoodSource) -> None:
        self._mood = mood

    # ------------------------------------------------------------ write

    def encode(self, content: str, **fields: Any) -> MemoryTrace:
        """Remember one thing. Fields as `EncodeRequest` (type, scope, mood, tags, source_type,
        created_at, metadata, confidence, entities, structured_data). Returns the stored trace,
        or the existing one it reinforced when it was a near-duplicate."""
        return self.encode_many([{"content": content, **fields}])[0]

    def encode_many(self, items: Iterable[Mapping[str, Any] | write.EncodeRequest], *,
                    batch_size: int = 500) -> list[MemoryTrace]:
        """Remember many things: one graph batch and one vector batch per `batch_size` items."""
        requests = [_request(item, index) for index, item in enumerate(items)]
        self.store._check_open()
        out: list[MemoryTrace] = []
        for start in range(0, len(requests), batch_size):
            out += write.encode_batch(self, requests[start:start + batch_size]).traces
        return out

    # ------------------------------------------------------------ read

    def retrieve(self, query: str, top_k: int | None = None, *, strategy: read.Strategy = "full",
                 record_access: bool = True, mood: Mood | None = None) -> RetrievalResult:
        """The memories that best answer `query`, with the signals that ranked them."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query must be a non-empty string")
        k = self.store.config.retrieval.top_k if top_k is None else top_k
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
        self.store._check_open()
        result = read.retrieve(self, query, top_k=k, strategy=strategy, record_access=record_access, mood=mood)
        if record_access:
            # What was just recalled is what the agent is now thinking about.
            for item in result.traces[: self.store.config.working_memory.focus_per_retrieval]:
                self.working_memory.focus(item.trace.id, item.trace.content)
        return result

    def assemble_for_prompt(self, query: str, token_budget: int | None = None, *, top_k: int = 20) -> AssembledContext:
        """Retrieve for `query` and lay the memories out in six sections within `token_budget`."""
        result = self.retrieve(query, top_k=top_k)
        sections = _sections(result.traces, self.working_memory.format_for_prompt())
        assembled = assemble_prompt(sections, token_budget=token_budget, traits=self.traits,
                                    config=self.store.config.prompt)
        self.working_memory.tick()  # one prompt, one turn: what is not rehearsed fades
        return AssembledContext(
            text=assembled.text, tokens_used=assembled.tokens_used, token_budget=assembled.token_budget,
            sections={name: usage.tokens_used for name, usage in assembled.sections.items()},
            trace_ids=tuple(item.trace.id for item in result.traces),
        )


def _request(item: Mapping[str, Any] | write.EncodeRequest, index: int) -> write.EncodeRequest:
    if isinstance(item, write.EncodeRequest):
        return item
    if not isinstance(item, Mapping):
        raise TypeError(f"items[{index}] must be a mapping of encode fields, not {type(item).__name__}")
    try:
        return write.EncodeRequest.model_validate(dict(item))
    except ValidationError as exc:
        problems = "; ".join(
            f"items[{index}].{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ValueError(problems) from exc


def _item(scored: ScoredTrace) -> PromptItem:
    trace = scored.trace
    return PromptItem(text=trace.content, kind=trace.type.value, score=round(scored.score, 2), valence=trace.valence)


def _sections(traces: list[ScoredTrace], working_memory: str) -> PromptSections:
    direct = [t for t in traces if "activation" not in t.sources or len(t.sources) > 1]
    associated = [t for t in traces if t.sources == ("activation",)]
    semantic = [t for t in direct if t.trace.type in (MemoryType.SEMANTIC, MemoryType.PROCEDURAL, MemoryType.RELATIONAL)]
    episodic = sorted((t for t in direct if t.trace.type is MemoryType.EPISODIC), key=lambda t: -t.trace.created_at)
    prospective = [t for t in direct if t.trace.type is MemoryType.PROSPECTIVE]
    return PromptSections(
        working_memory=working_memory,
        semantic_recall=[_item(t) for t in semantic],
        recent_episodic=[_item(t) for t in episodic],
        prospective_alerts=[_item(t) for t in prospective],
        graph_associations=[_item(t) for t in associated],
    )
