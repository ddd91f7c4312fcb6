"""Prompt assembly: fit what memory has to say into a token budget.

Six sections, each with a share of the budget (working memory 15 %, semantic
recall 45 %, recent episodic 25 %, prospective alerts, graph associations and
observation notes 5 % each). Sections that need less than their share give the
rest to the others, semantic recall first; empty sections give all of theirs.
The formatting style follows the agent's dominant HEXACO trait. Tokens are
estimated at ~4 characters each, and the result never exceeds the budget: a
section's block is only ever as long as its allocation allows, items that do
not fit whole are cut at a sentence end or between words (with an ellipsis) or
dropped, and a final guard trims lines should rounding ever disagree. An item's
note ("outdated: replaced on …") survives a cut.

Pure: takes plain items (text, kind, score), so it knows nothing about where
they were retrieved from.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from cogmem_graph.config.prompt import SECTION_NAMES, PromptConfig
from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import Hexaco

ELLIPSIS = "…"
SEPARATOR = "\n\n"

SECTION_TITLES: dict[str, str] = {
    "working_memory": "## Active Context",
    "semantic_recall": "## Relevant Memories",
    "recent_episodic": "## Recent Experiences",
    "prospective_alerts": "## Reminders",
    "graph_associations": "## Related Context",
    "observation_notes": "## Observations",
}

_NARRATIVE_LEADS: dict[str, str] = {
    "working_memory": "On my mind: ",
    "semantic_recall": "I know: ",
    "recent_episodic": "I remember: ",
    "prospective_alerts": "I mean to: ",
    "graph_associations": "That brings to mind: ",
    "observation_notes": "I have noticed: ",
}


class PromptStyle(StrEnum):
    STRUCTURED = "structured"  # bullet points with categories and scores
    NARRATIVE = "narrative"  # first-person prose lines, connections
    EMOTIONAL = "emotional"  # bullets that carry each memory's feeling tone
    PLAIN = "plain"  # concise, factual bullets


_STYLE_BY_TRAIT: dict[str, PromptStyle] = {
    "conscientiousness": PromptStyle.STRUCTURED,
    "openness": PromptStyle.NARRATIVE,
    "emotionality": PromptStyle.EMOTIONAL,
}


def prompt_style(traits: Hexaco | None = None, config: PromptConfig | None = None) -> PromptStyle:
    """The configured style, or with 'auto' the dominant trait's: conscientiousness
    structured, openness narrative, emotionality emotional, anything else plain."""
    cfg = config or PromptConfig()
    if cfg.style != "auto":
        return PromptStyle(cfg.style)
    if traits is None:
        return PromptStyle.PLAIN
    return _STYLE_BY_TRAIT.get(traits.dominant(), PromptStyle.PLAIN)


def estimate_tokens(text: str, chars_per_token: float | None = None) -> int:
    """ceil(characters / chars-per-token): the ~4 characters per token heuristic."""
    cpt = PromptConfig().chars_per_token if chars_per_token is None else chars_per_token
    return _tokens_for_chars(len(text), cpt)


def _tokens_for_chars(n_chars: int, cpt: float) -> int:
    return math.ceil(n_chars / cpt) if n_chars > 0 else 0


def _max_chars(tokens: int, cpt: float) -> int:
    """Most characters whose estimate is at most `tokens` (float-safe)."""
    n = max(0, math.floor(tokens * cpt))
    while n > 0 and _tokens_for_chars(n, cpt) > tokens:
        n -= 1
    return n


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- confidence-gated injection


class Injection(StrEnum):
    """How much of a retrieved memory a prompt shows (third reference)."""

    FULL = "full"  # the whole text with its metadata
    ABBREVIATED = "abbreviated"  # a short form, no metadata
    LEFT_OUT = "left_out"  # not shown; counted


def injection_level(confidence: float, *, full_at: float = 0.7, abbreviated_at: float = 0.4) -> Injection:
    """Full at or above `full_at`, abbreviated at or above `abbreviated_at`, else left out:
    a borderline match shown whole invites the reader to build on it."""
    if confidence >= full_at:
        return Injection.FULL
    if confidence >= abbreviated_at:
        return Injection.ABBREVIATED
    return Injection.LEFT_OUT


def far_below_best(scores: Sequence[float], share: float) -> list[bool]:
    """For each score, whether it lies below `share` of the best: a match that weak beside the
    answer is filler, whatever its absolute value (scores are comparable within one query only)."""
    best = max(scores, default=0.0)
    return [best > 0.0 and score < share * best for score in scores]


def abbreviate(text: str, max_chars: int) -> str:
    """The first sentence of `text` when it fits in `max_chars`, else its first `max_chars`
    characters cut at a word boundary, with an ellipsis."""
    if max_chars < 1:
        raise InvalidArgument(f"max_chars must be positive, got {max_chars!r}", argument="max_chars")
    flat = _one_line(text)
    end = next((i + 1 for i, ch in enumerate(flat) if ch in ".!?" and (i + 1 == len(flat) or flat[i + 1] == " ")),
               len(flat))
    first = flat[:end]
    if len(first) <= max_chars:
        return first
    return cut_to_fit(flat, max_chars)


def cut_to_fit(text: str, max_chars: int) -> str:
    """`text` in at most `max_chars` characters: whole when it fits, else cut after its last
    sentence that fits (when that keeps at least half the room) or between words, with an
    ellipsis; a single word longer than the room is cut inside it."""
    if len(text) <= max_chars:
        return text
    room = max_chars - len(ELLIPSIS)
    if room < 1:
        return ELLIPSIS[:max_chars]
    head = text[: room + 1]  # a sentence or word may end right at the room's edge
    sentence = max((head.rfind(mark + " ") for mark in ".!?"), default=-1)
    if sentence + 1 >= room // 2 and sentence + 2 <= room:
        return text[: sentence + 1] + " " + ELLIPSIS
    space = head.rfind(" ")
    cut = text[:space] if 0 < space <= room and space >= room // 2 else text[:room]
    return (cut.rstrip(" ,;:-") or cut) + ELLIPSIS


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class PromptItem:
    """One memory to show: its text and, optionally, what kind it is, a score
    (shown as `score_label=0.82`), the emotional valence it carries, a note shown in
    parentheses after the text (kept when the text is cut) and a reference (an id, for
    debugging) shown among the tags."""

    text: str
    kind: str = ""
    score: float | None = None
    score_label: str = "score"
    valence: float | None = None
    note: str = ""
    ref: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InvalidArgument("PromptItem.text must be a string", argument="text")
        if not isinstance(self.note, str) or not isinstance(self.ref, str):
            raise InvalidArgument("PromptItem.note and PromptItem.ref must be strings",
                                  argument="note" if not isinstance(self.note, str) else "ref")
        for name in ("score", "valence"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise InvalidArgument(f"PromptItem.{name} must be a finite number or None", argument=name)


Entry = PromptItem | str
"""A section entry: an item to format, or a pre-formatted line shown as is."""


def _entries(value: Sequence[Entry] | str, name: str) -> tuple[Entry, ...]:
    if isinstance(value, str):
        return tuple(line for line in value.splitlines() if line.strip())
    out = tuple(value)
    for entry in out:
        if not isinstance(entry, PromptItem | str):
            raise InvalidArgument(f"{name} entries must be PromptItem or str, got {type(entry).__name__}",
                                  argument=name)
    return out


@dataclass(frozen=True)
class PromptSections:
    """What each of the six sections should show, best first within a section.

    Any field also accepts one multi-line string (e.g. `WorkingMemory.format_for_prompt()`),
    which becomes one pre-formatted entry per line.
    """

    working_memory: Sequence[Entry] | str = ()
    semantic_recall: Sequence[Entry] | str = ()
    recent_episodic: Sequence[Entry] | str = ()
    prospective_alerts: Sequence[Entry] | str = ()
    graph_associations: Sequence[Entry] | str = ()
    observation_notes: Sequence[Entry] | str = ()

    def __post_init__(self) -> None:
        for name in SECTION_NAMES:
            object.__setattr__(self, name, _entries(getattr(self, name), name))

    def entries(self, name: str) -> tuple[Entry, ...]:
        return getattr(self, name)  # normalised to a tuple in __post_init__


# ---------------------------------------------------------------- outputs


@dataclass(frozen=True, slots=True)
class SectionUsage:
    """How one section spent its budget."""

    name: str
    budget: int
    """Tokens allotted after overflow redistribution."""
    tokens_used: int
    """Tokens of the section's block, counting its share of the separator."""
    items_total: int
    items_included: int
    truncated: bool
    """True when an item was cut short or items were left out."""


@dataclass(frozen=True)
class AssembledPrompt:
    """The memory context ready to inject into a system prompt."""

    text: str
    tokens_used: int
    token_budget: int
    style: PromptStyle
    sections: dict[str, SectionUsage] = field(default_factory=dict)


# ---------------------------------------------------------------- rendering


def _feeling(valence: float) -> str:
    if valence > 0.3:
        return "positive"
    if valence < -0.3:
        return "negative"
    return "neutral"


def _frame(item: PromptItem, section: str, style: PromptStyle) -> tuple[str, str]:
    """(prefix, suffix) around an item's text for the style. The plain style shows no tags
    unless the item carries a reference (debugging)."""
    score = f"{item.score_label}={item.score:.2f}" if item.score is not None else ""
    note = f" ({_one_line(item.note)})" if item.note.strip() else ""
    if style is PromptStyle.NARRATIVE:
        details = ", ".join(part for part in (item.kind, score, item.ref) if part)
        return _NARRATIVE_LEADS[section], note + (f" ({details})" if details else "")
    if style is PromptStyle.PLAIN:
        tags = [part for part in (item.ref, score) if part] if item.ref else []
        return (f"- [{', '.join(tags)}] " if tags else "- "), note
    tags = [part for part in (item.kind, score, item.ref) if part]
    if style is PromptStyle.EMOTIONAL and item.valence is not None:
        tags.append(f"feeling: {_feeling(item.valence)}")
    return (f"- [{', '.join(tags)}] " if tags else "- "), note


def _line_parts(entry: Entry, section: str, style: PromptStyle) -> tuple[str, str, str]:
    if isinstance(entry, str):
        return "", _one_line(entry), ""
    prefix, suffix = _frame(entry, section, style)
    return prefix, _one_line(entry.text), suffix


@dataclass(slots=True)
class _Rendered:
    block: str
    included: int
    truncated: bool

    @property
    def cost_chars(self) -> int:
        # Every block is charged one separator so the joined text never costs more.
        return len(self.block) + len(SEPARATOR) if self.block else 0


def _render(
    section: str, entries: tuple[Entry, ...], style: PromptStyle, max_chars: int | None, min_item_chars: int
) -> _Rendered:
    """Header plus as many lines (in order) as fit in `max_chars` of block cost;
    None means unlimited. The first line that does not fit is cut if enough of
    its text survives; everything after it is left out to keep rank order."""
    parts = [_line_parts(e, section, style) for e in entries]
    parts = [p for p in parts if p[1]]
    if not parts:
        return _Rendered("", 0, bool(entries))
    header = SECTION_TITLES[section]
    used = len(header) + len(SEPARATOR)
    if max_chars is not None and used >= max_chars:
        return _Rendered("", 0, True)
    lines: list[str] = []
    truncated = False
    for prefix, text, suffix in parts:
        line = prefix + text + suffix
        if max_chars is None or used + 1 + len(line) <= max_chars:
            lines.append(line)
            used += 1 + len(line)
            continue
        room = max_chars - used - 1 - len(prefix) - len(suffix)
        if room - len(ELLIPSIS) >= min_item_chars:
            lines.append(prefix + cut_to_fit(text, room) + suffix)
        truncated = True
        break
    if not lines:
        return _Rendered("", 0, True)
    truncated = truncated or len(lines) < len(entries)
    return _Rendered(header + "\n" + "\n".join(lines), len(lines), truncated)


# ---------------------------------------------------------------- assembly


def section_budgets(token_budget: int, config: PromptConfig | None = None) -> dict[str, int]:
    """Each section's whole-token share, floor(budget x fraction); the few tokens
    lost to rounding go to the overflow pool in `assemble_prompt`."""
    cfg = config or PromptConfig()
    return {name: math.floor(token_budget * frac) for name, frac in cfg.budget_split.as_dict().items()}


def assemble_prompt(
    sections: PromptSections,
    *,
    token_budget: int | None = None,
    traits: Hexaco | None = None,
    config: PromptConfig | None = None,
) -> AssembledPrompt:
    """Lay the sections out within `token_budget` (default from the config).

    1. each section gets floor(budget x fraction); rounding leftovers are pooled;
    2. a section that needs less than its share returns the rest to the pool
       (an empty section returns all of it);
    3. the pool goes to sections that need more, in `overflow_order`
       (semantic recall first);
    4. each section is rendered within its allocation; whatever rendering left
       unspent is offered once more in the same order.
    """
    cfg = config or PromptConfig()
    budget = cfg.token_budget if token_budget is None else token_budget
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise InvalidArgument(f"token_budget must be a non-negative integer, got {budget!r}", argument="token_budget")
    if not isinstance(sections, PromptSections):
        raise InvalidArgument("sections must be a PromptSections", argument="sections")
    style = prompt_style(traits, cfg)
    cpt = cfg.chars_per_token

    def render(name: str, tokens: int | None) -> _Rendered:
        limit = None if tokens is None else _max_chars(tokens, cpt)
        return _render(name, sections.entries(name), style, limit, cfg.min_item_chars)

    def cost(rendered: _Rendered) -> int:
        return _tokens_for_chars(rendered.cost_chars, cpt)

    alloc = section_budgets(budget, cfg)
    pool = budget - sum(alloc.values())
    demand = {name: cost(render(name, None)) for name in SECTION_NAMES}

    for name in SECTION_NAMES:
        if demand[name] <= alloc[name]:
            pool += alloc[name] - demand[name]
            alloc[name] = demand[name]
    for name in cfg.overflow_order:
        give = min(pool, demand[name] - alloc[name])
        if give > 0:
            alloc[name] += give
            pool -= give

    rendered = {name: render(name, alloc[name]) for name in SECTION_NAMES}
    pool += sum(alloc[name] - cost(rendered[name]) for name in SECTION_NAMES)
    for name in SECTION_NAMES:
        alloc[name] = cost(rendered[name])
    for name in cfg.overflow_order:
        if pool <= 0:
            break
        if alloc[name] >= demand[name]:
            continue
        again = render(name, alloc[name] + pool)
        pool -= cost(again) - alloc[name]
        rendered[name], alloc[name] = again, cost(again)

    blocks = [(name, rendered[name]) for name in SECTION_NAMES if rendered[name].block]
    text = SEPARATOR.join(r.block for _, r in blocks)
    text = _enforce_budget(text, budget, cpt)

    usage = {
        name: SectionUsage(
            name=name,
            budget=alloc[name],
            tokens_used=cost(rendered[name]),
            items_total=len(sections.entries(name)),
            items_included=rendered[name].included,
            truncated=rendered[name].truncated,
        )
        for name in SECTION_NAMES
    }
    return AssembledPrompt(
        text=text,
        tokens_used=_tokens_for_chars(len(text), cpt),
        token_budget=budget,
        style=style,
        sections=usage,
    )


def _enforce_budget(text: str, budget: int, cpt: float) -> str:
    """Last line of defence: drop trailing lines until the estimate fits. By
    construction this never triggers; it keeps the promise even if float
    rounding in the estimate ever disagrees with the per-section accounting."""
    while text and _tokens_for_chars(len(text), cpt) > budget:
        cut = text.rfind("\n")
        text = text[:cut].rstrip("\n") if cut > 0 else ""
    return text
