"""The prompt's layout: which retrieved memory goes in which section, once, in which order,
with which note ("outdated: replaced on … by the line above", "now 4 pm" beside a change told
relatively). It reads nothing: the agent
handle gives it the memories, their replacements and the clock's time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cogmem_graph.model import MemoryTrace, MemoryType

if TYPE_CHECKING:
    from cogmem_graph.cognition.prompt import Entry, PromptItem, PromptSections
    from cogmem_graph.cognition.prospective import FiredReminder
    from cogmem_graph.cognition.working_memory import WorkingMemory, WorkingMemorySlot
    from cogmem_graph.results import ScoredTrace


def event_order(trace: MemoryTrace) -> tuple[int, int]:
    return trace.created_at, trace.recorded_at


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def _same_text(text: str) -> str:
    return " ".join(text.split()).casefold()


def _comes_to(new: MemoryTrace, olds: Sequence[ScoredTrace]) -> str | None:
    """What a relative change ("pushed back an hour") comes to against the statement it
    replaced, shown with it ("now 4 pm"); None when it gives its value itself."""
    from cogmem_graph.language.value_moves import resolved_value

    return resolved_value(new.content, olds[0].trace.content) if olds else None


class PromptLayout:
    """Which memory goes in which section, in which order, with which note: each memory once,
    a replaced memory right after its replacement."""

    def __init__(self, shown: Sequence[ScoredTrace], replaced: Mapping[str, MemoryTrace], now: int, *,
                 held: Mapping[str, MemoryTrace] | None = None, abbreviated: Set[str] = frozenset(),
                 abbreviated_chars: int = 120, quote_chars: int = 60, debug: bool = False) -> None:
        self.replaced = replaced
        self.now = now
        self.held = held or {}
        """The traces of working-memory slots the query did not retrieve, where read."""
        self.abbreviated = abbreviated
        self.abbreviated_chars = abbreviated_chars
        self.quote_chars = quote_chars
        self.debug = debug
        self.outdated: list[str] = []
        seen_ids: set[str] = set()
        seen_texts: set[str] = set()
        self.shown: list[ScoredTrace] = []
        for item in shown:  # each memory once, and the same words once
            text = _same_text(item.trace.content)
            if item.trace.id in seen_ids or text in seen_texts:
                continue
            seen_ids.add(item.trace.id)
            seen_texts.add(text)
            self.shown.append(item)
        self.seen_texts = seen_texts
        ids = {item.trace.id for item in self.shown}
        follows = {old: new.id for old, new in replaced.items() if new.id in ids and old in ids and old != new.id}
        self.follows = {old: new for old, new in follows.items() if not _in_a_cycle(old, follows)}
        """A replaced memory shown after its shown replacement: old id -> new id."""
        self.after: dict[str, list[ScoredTrace]] = {}
        for item in self.shown:
            if item.trace.id in self.follows:
                self.after.setdefault(self.follows[item.trace.id], []).append(item)

    def sections(self, on_mind: Sequence[WorkingMemorySlot], working_memory: WorkingMemory,
                 fired: Sequence[FiredReminder] = ()) -> PromptSections:
        from cogmem_graph.cognition.prompt import PromptSections

        traces = [t for t in self.shown if t.trace.id not in self.follows]
        direct = [t for t in traces if "activation" not in t.sources or len(t.sources) > 1]
        associated = [t for t in traces if t.sources == ("activation",)]
        semantic = [t for t in direct
                    if t.trace.type in (MemoryType.SEMANTIC, MemoryType.PROCEDURAL, MemoryType.RELATIONAL)]
        episodic = sorted((t for t in direct if t.trace.type is MemoryType.EPISODIC), key=lambda t: -t.trace.created_at)
        prospective = [t for t in direct if t.trace.type is MemoryType.PROSPECTIVE]
        return PromptSections(
            working_memory=self._on_mind(on_mind, working_memory),
            semantic_recall=self._items(semantic),
            recent_episodic=self._items(episodic),
            prospective_alerts=[_reminder_item(f) for f in fired] + self._items(prospective),
            graph_associations=self._items(associated),
        )

    def _items(self, traces: Sequence[ScoredTrace]) -> list[PromptItem]:
        out: list[PromptItem] = []
        for t in traces:
            self._place(t, out)
        return out

    def _place(self, scored: ScoredTrace, out: list[PromptItem], above: str | None = None) -> None:
        """The memory, then what it replaced (and what those replaced), in rank order: the first
        is the line right below its replacement, later ones quote it."""
        olds = self.after.get(scored.trace.id, ())
        out.append(self._item(scored, above, comes_to=_comes_to(scored.trace, olds)))
        for n, old in enumerate(olds):
            self._place(old, out, above=scored.trace.id if n == 0 else None)

    def _note(self, trace_id: str, valid_until: int | None, above: str | None = None) -> str:
        """"outdated: replaced on DATE by …" when a newer memory replaced it, "outdated: held
        until DATE" (its last day) when its stated validity has ended, else nothing."""
        from cogmem_graph.cognition.prompt import abbreviate

        new = self.replaced.get(trace_id)
        if new is not None and new.id != trace_id:
            self.outdated.append(trace_id)
            by = "the line above" if above == new.id else \
                f"\u201c{abbreviate(new.content, self.quote_chars)}\u201d"
            return f"outdated: replaced on {_day(new.valid_from or new.created_at)} by {by}"
        if valid_until is not None and valid_until <= self.now:
            self.outdated.append(trace_id)
            return f"outdated: held until {_day(valid_until - 1)}"
        return ""

    def _item(self, scored: ScoredTrace, above: str | None = None, comes_to: str | None = None) -> PromptItem:
        from cogmem_graph.cognition.prompt import PromptItem, abbreviate

        trace = scored.trace
        note = self._note(trace.id, trace.valid_until, above) or (f"now {comes_to}" if comes_to else "")
        ref = trace.id if self.debug else ""
        score = round(scored.score, 2) if self.debug else None
        if trace.id in self.abbreviated:
            return PromptItem(text=abbreviate(trace.content, self.abbreviated_chars), note=note, ref=ref)
        return PromptItem(text=trace.content, kind=trace.type.value, score=score, valence=trace.valence, note=note,
                          ref=ref)

    def _on_mind(self, slots: Sequence[WorkingMemorySlot], working_memory: WorkingMemory) -> list[Entry]:
        """What the agent holds in mind that the other sections do not show already."""
        from cogmem_graph.cognition.prompt import PromptItem

        shown = {t.trace.id for t in self.shown}
        out: list[Entry] = []
        for slot in slots:
            if slot.trace_id in shown or _same_text(slot.content) in self.seen_texts:
                continue
            self.seen_texts.add(_same_text(slot.content))
            trace = self.held.get(slot.trace_id)
            note = self._note(slot.trace_id, trace.valid_until if trace is not None else None)
            if self.debug:  # its level, id and activation, as the working memory holds it
                out.append(PromptItem(text=slot.content, kind=working_memory.label(slot.activation),
                                      score=slot.activation, score_label="activation", note=note, ref=slot.trace_id))
            else:
                out.append(PromptItem(text=slot.content, note=note))
        return out


def _in_a_cycle(start: str, follows: Mapping[str, str]) -> bool:
    """Whether following replacements from `start` comes back to it (two memories that each
    replace the other): such memories keep their own places."""
    seen = {start}
    current = follows.get(start)
    while current is not None:
        if current in seen:
            return current == start or _in_a_cycle(current, follows)
        seen.add(current)
        current = follows.get(current)
    return False


def _reminder_item(fired: FiredReminder) -> PromptItem:
    from cogmem_graph.cognition.prompt import PromptItem

    return PromptItem(text=fired.intention.content, kind=fired.intention.kind.value)
