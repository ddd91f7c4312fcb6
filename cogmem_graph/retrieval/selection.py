"""The read path's last two stages:

- `select` (`Selected`): the rules that read the best memories' words, diversity, the top_k,
  tip-of-the-tongue partials and feeling-of-knowing, the whole traces loaded;
- `current_facts_first`: among what is returned, a statement a newer one contradicts ranks
  below it (`replaced_in_view`), even where no edge says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cogmem_graph.cognition.diversity import maximal_marginal_relevance
from cogmem_graph.cognition.mechanisms import FeelingOfKnowing, detect_feeling_of_knowing
from cogmem_graph.cognition.scoring import RecallKind
from cogmem_graph.graph.port import TraceVitals
from cogmem_graph.language.asked_value import disagree_on_asked_value
from cogmem_graph.language.contradiction import replaced_among
from cogmem_graph.language.entities import extract_entities
from cogmem_graph.language.memory_kind import tells_of_what_is_ahead
from cogmem_graph.language.query_intent import asks_about_self, asks_about_the_past, said_by_someone_else
from cogmem_graph.language.query_names import query_entity_keys
from cogmem_graph.language.speakers import speaker_of
from cogmem_graph.model import MemoryTrace
from cogmem_graph.results import ScoredTrace
from cogmem_graph.retrieval.ask import NOW, Ask, nothing
from cogmem_graph.retrieval.candidates import Expanded, Searched
from cogmem_graph.retrieval.query_plan import QueryPlan
from cogmem_graph.retrieval.ranking import Ranked, Scored, current_first

if TYPE_CHECKING:
    from cogmem_graph.context import MemoryContext


@dataclass(frozen=True)
class Selected:
    """What one question returns, before the after-retrieval writes."""

    recalled: list[ScoredTrace]
    """The best top_k, best first (in the order they happened, on the timeline)."""
    partial: list[ScoredTrace]
    """Tip-of-the-tongue: candidates that missed the cut although the cue matches them well."""
    feeling_of_knowing: list[FeelingOfKnowing]
    competitors: list[tuple[MemoryTrace, float]]
    """Losers similar enough for retrieval-induced forgetting, with their cosine (only when
    access is recorded)."""


NOTHING_SELECTED = Selected([], [], [], [])


def select(ctx: MemoryContext, ask: Ask, plan: QueryPlan, searched: Searched, expanded: Expanded, ranked: Ranked,
           now: int, record_access: bool) -> Selected:
    """The best top_k, whatever their strength: hiding the best match because it is weak
    would surprise every caller. Tip-of-the-tongue partials are the candidates that missed
    the cut although the cue matches them well (cosine > 0.6): weak or untrusted memories the
    agent "almost" has, to be re-cued."""
    cfg = ctx.config.retrieval
    top_k, keys, cosine = ask.top_k, ask.keys, searched.cosine
    read: dict[str, str] = {}  # texts read on the way, not read again
    scored = _reweigh_head(ctx, ask.query, searched.ahead, ranked.scored, ask.depth, keys, read, expanded.versions)
    if cfg.query.mmr_lambda < 1.0 and plan.route.diversify and len(scored) > top_k:
        scored = _diversified(ctx, scored, top_k, ask.depth, keys, read)
    best = [c for c, _ in scored[:top_k]]
    if ask.when.timeline:  # the best matches, told in the order they happened
        best.sort(key=lambda c: (c.vitals.created_at, c.vitals.id))
    almost = [c for c, kind in scored[top_k:] if kind is RecallKind.TIP_OF_TONGUE][:top_k]
    returned = {c.vitals.id for c in best}
    # Retrieval-induced forgetting can only suppress losers more similar than its threshold.
    rif = ctx.config.mechanisms.retrieval_induced_forgetting
    competitor_ids = ([c.vitals.id for c, _ in scored[top_k:]
                       if cosine.get(c.vitals.id, -1.0) > rif.similarity_threshold]
                      if record_access and best and rif.enabled else [])
    # The whole traces are read while the feeling-of-knowing signals are worked out.
    unread = list(dict.fromkeys([c.vitals.id for c in best + almost] + competitor_ids))
    loading = ctx.graph.get_traces_later(unread, keys) if unread else nothing
    cutoff = best[-1].score if len(best) == top_k else None
    # A candidate's vitals carry what the signal reads (read-only, which the Protocol does not say).
    losers: Iterable[tuple[Any, float, float]] = (
        (c.vitals, c.score, cosine.get(c.vitals.id, 0.0)) for c, _ in scored if c.vitals.id not in returned)
    fok = detect_feeling_of_knowing(
        losers, ctx.config.mechanisms.feeling_of_knowing, now, retrieval_cutoff=cutoff,
        query_entities=[e.name for e in extract_entities(ask.query)],
    )
    traces = {t.id: t for t in loading()}
    return Selected([c.scored(traces[c.vitals.id]) for c in best if c.vitals.id in traces],
                    [c.scored(traces[c.vitals.id]) for c in almost if c.vitals.id in traces], fok,
                    [(traces[tid], cosine[tid]) for tid in competitor_ids if tid in traces])


def current_facts_first(ctx: MemoryContext, ask: Ask, expanded: Expanded, selected: Selected) -> Selected:
    """On a question about now, a returned statement that a newer returned one contradicts
    ranks below it (`RetrievalConfig.current_facts_first`)."""
    if not (ctx.config.retrieval.current_facts_first and ask.when == NOW and not expanded.history):
        return selected
    return replace(selected, recalled=_newer_statement_first(ctx, selected.recalled, ask.query))


def _read_texts(ctx: MemoryContext, ids: list[str], keys: list[str], texts: dict[str, str]) -> dict[str, str]:
    """The texts of these traces, reading only those not yet in `texts` (which keeps them)."""
    unread = [tid for tid in ids if tid not in texts]
    if unread:
        texts.update(ctx.graph.trace_texts(unread, keys))
    return {tid: texts[tid] for tid in ids if tid in texts}


def _reweigh_head(
    ctx: MemoryContext, query: str, ahead: bool, scored: Scored, depth: int, keys: list[str], read: dict[str, str],
    versions: Sequence[tuple[str, str]] = (),
) -> Scored:
    """Rules that read the memories' words, applied to the best `depth` (who spoke from
    their leads, the whole texts read only for what is ahead), then that head is sorted again:

    * whose words: on a question about the asker, what another named person said scores
      × (1 - other_speaker_discount); on a question naming someone who speaks in these
      memories, what a speaker it does not name said scores × (1 - unnamed_speaker_discount);
    * what is ahead: on a question about what is still to come, a memory that spoke of
      something ahead (a plan, an announced event) scores × (1 + ahead_boost).
    """
    qcfg = ctx.config.retrieval.query
    about_self = asks_about_self(query)
    about_asker = bool(qcfg.other_speaker_discount) and about_self
    named = _named_in(ctx, query) if qcfg.unnamed_speaker_discount and not about_self else frozenset()
    if not (about_asker or ahead or named):
        return scored
    head = scored[:depth]
    texts = _read_texts(ctx, [c.vitals.id for c, _ in head], keys, read) if ahead else {}
    identity = ctx.identity
    asker = frozenset(n.lower() for n in (identity.user_id,) if n) if identity is not None else frozenset()
    speakers = _speakers(ctx, [c.vitals for c, _ in head], keys, read)
    # Only a name that speaks here says whose words answer: "What did we do in Paris?" names no speaker.
    named &= {s.lower() for s in speakers.values() if s}
    if not (about_asker or ahead or named):
        return scored

    def factor(tid: str) -> float:
        text, speaker = texts.get(tid, ""), speakers.get(tid)
        gain = 1.0
        if about_asker and said_by_someone_else(speaker, asker):
            gain *= 1.0 - qcfg.other_speaker_discount
        if named and said_by_someone_else(speaker, named):
            gain *= 1.0 - qcfg.unnamed_speaker_discount
        if ahead and tells_of_what_is_ahead(text):
            gain *= 1.0 + qcfg.ahead_boost
        return gain

    head = [(replace(c, score=c.score * factor(c.vitals.id)), kind) for c, kind in head]
    if versions:  # a replaced memory stays below its newer version whatever the rules did
        kept = current_first([c.vitals.id for c, _ in head], [c.score for c, _ in head], list(versions),
                             ctx.config.retrieval.current_first_margin)
        head = [(replace(c, score=score), kind) for (c, kind), score in zip(head, kept, strict=True)]
    head.sort(key=lambda pair: (-pair[0].score, pair[0].vitals.id))
    return head + scored[len(head):]


def _speakers(ctx: MemoryContext, vitals: list[TraceVitals], keys: list[str],
              read: dict[str, str]) -> dict[str, str | None]:
    """Who spoke each of these memories (None: said plainly), read from its lead (its text up to
    the first ": "); a memory's whole text is read only when that opening is too long to carry.
    The lead and ": " are the start of the text, and a speaker's name ends at the text's first
    colon, so they name the same speaker as the whole text."""
    speakers: dict[str, str | None] = {}
    unsure: list[str] = []
    for v in vitals:
        if v.lead is None:
            unsure.append(v.id)
        else:
            speakers[v.id] = speaker_of(v.lead if v.lead_is_whole else v.lead + ": ")
    if unsure:
        speakers.update({tid: speaker_of(text) for tid, text in _read_texts(ctx, unsure, keys, read).items()})
    return speakers


def _named_in(ctx: MemoryContext, query: str) -> frozenset[str]:
    """The names a question holds, lower case, as the entity search reads them."""
    limit = ctx.config.retrieval.multi_hop.max_query_entities
    return frozenset(name.lower() for _, name in query_entity_keys(query, limit))


def _diversified(ctx: MemoryContext, scored: Scored, top_k: int, depth: int, keys: list[str],
                 read: dict[str, str]) -> Scored:
    """MMR over the best depth × mmr_pool: the top_k it picks first (greedy picks, so the first
    of a longer list), then the rest in score order."""
    qcfg = ctx.config.retrieval.query
    pool = scored[: depth * qcfg.mmr_pool]
    texts = _read_texts(ctx, [c.vitals.id for c, _ in pool], keys, read)
    order = maximal_marginal_relevance([c.score for c, _ in pool], [texts.get(c.vitals.id, "") for c, _ in pool],
                                       top_k, qcfg.mmr_lambda)
    picked = set(order)
    return [pool[i] for i in order] + [pair for i, pair in enumerate(pool) if i not in picked] + scored[len(pool):]


def _newer_statement_first(ctx: MemoryContext, recalled: list[ScoredTrace], question: str) -> list[ScoredTrace]:
    """Among what is returned, a statement that a newer one contradicts ranks below it even
    when no edge says so (the write path did not see the two together): the same rule the
    write path applies (`language.contradiction.replaced_among`), read from the texts at hand,
    and two that give the value the question asks for differently (see `replaced_in_view`)."""
    pairs = replaced_in_view(ctx, [s.trace for s in recalled], question=question)
    if not pairs:
        return recalled
    scores = current_first([s.trace.id for s in recalled], [s.score for s in recalled], pairs,
                           ctx.config.retrieval.current_first_margin)
    out = [replace(s, score=score) for s, score in zip(recalled, scores, strict=True)]
    return sorted(out, key=lambda s: (-s.score, s.trace.id))


def replaced_in_view(ctx: MemoryContext, shown: Sequence[MemoryTrace],
                     known: Sequence[tuple[str, str]] = (), question: str | None = None) -> list[tuple[str, str]]:
    """(older id, newer id) among memories shown together where the newer contradicts the older
    and no edge (`known`) says so yet: what a prompt marks outdated though the write path missed
    it. With the `question` they answer (not one about the past), also where the two give
    different values of what it asks for (`language.asked_value`), however the change was worded."""
    cfg = ctx.config.retrieval
    if not cfg.current_facts_first:
        return []
    oldest_first = [(t.id, t.content) for t in sorted(shown, key=lambda t: (t.created_at, t.recorded_at, t.id))]
    have = set(known)
    pairs = replaced_among(oldest_first, ctx.config.write.contradiction_min_confidence)
    if question and cfg.asked_value_first and not asks_about_the_past(question):
        pairs += disagree_on_asked_value(question, oldest_first)
    return [pair for pair in dict.fromkeys(pairs) if pair not in have]
