"""Step 8: the references' mechanisms run between turns. Temporal gist (the verbatim original
archived first, write-ahead), source-confidence decay, emotion regulation."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cogmem_graph.clock import MS_PER_DAY, MS_PER_MINUTE
from cogmem_graph.cognition.mechanisms import (
    changed,
    gist_trace,
    regulate_emotions,
    select_for_gist,
    source_confidence_decay,
)
from cogmem_graph.graph.port import GistRewrite
from cogmem_graph.model import MemoryTrace, MemoryType
from cogmem_graph.write.embedding import embed_memories
from cogmem_graph.write.indexing import point_for

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext

log = logging.getLogger(__name__)

CLOCK_BATCH = 5_000
CONFIDENCE_CLOCK_VERSION = 1
"""Changes when what `confidenceClock` records changes: every scope key sets its clocks again."""

_GIST_SYSTEM = (
    "Compress the memory below to its gist: two or three short core assertions that keep names, "
    "places, dates and numbers. Answer with the gist only."
)


def write_fields(sc: StepContext, key: str, traces: Sequence[MemoryTrace], fields: Sequence[str],
                 extra: dict[str, Any] | None = None) -> int:
    if not traces:
        return 0
    written = {}
    for trace in traces:
        props = trace.to_graph_props()
        written[trace.id] = {**{f: props[f] for f in fields}, **(extra or {})}
    return sc.ctx.graph.set_trace_fields(written, key)


def gist_compressor(sc: StepContext):
    llm = sc.ctx.llm
    if llm is None:
        return None
    return lambda text: llm.complete(_GIST_SYSTEM, text, max_tokens=160)


def temporal_gist(sc: StepContext, key: str) -> None:
    mcfg = sc.ctx.config.mechanisms.temporal_gist
    if not mcfg.enabled or mcfg.max_per_cycle == 0:
        return
    now = sc.now()
    candidates = sc.load(sc.ctx.graph.gist_candidates(
        key, types=[MemoryType.EPISODIC.value, MemoryType.SEMANTIC.value],
        before=now - int(mcfg.age_threshold_days * MS_PER_DAY), max_retrievals=mcfg.protect_retrieval_count,
        immune_strength=mcfg.immune_strength, limit=mcfg.max_per_cycle))
    compress = gist_compressor(sc)
    rewritten: list[tuple[MemoryTrace, MemoryTrace]] = []
    marked: list[tuple[MemoryTrace, MemoryTrace]] = []
    for trace in select_for_gist(candidates, mcfg, now):
        try:
            gisted = gist_trace(trace, mcfg, now, compress)
        except Exception as exc:  # the LLM failed: the extractive gist stands in
            log.warning("LLM gist of trace %s failed (%s: %s); using the extractive gist",
                        trace.id, type(exc).__name__, exc)
            gisted = gist_trace(trace, mcfg, now, None)
        if gisted is trace:
            continue
        (rewritten if gisted.content != trace.content else marked).append((trace, gisted))

    # Write-ahead: the verbatim originals are archived and verified before any content changes.
    archived: set[str] = set()
    if rewritten:
        try:
            archived = set(sc.archive.store([old for old, _ in rewritten], reason="temporal_gist"))
        except Exception as exc:  # nothing is overwritten; the gist is retried next run
            log.warning("temporal gist not applied to %d trace(s) of %s: archiving the originals failed (%s)",
                        len(rewritten), key, exc)
            sc.result.gist_failures += len(rewritten)
        sc.result.archived += len(archived)
    rows: list[GistRewrite] = []
    reindexing = not mcfg.index_original
    for old, new in rewritten:
        if old.id in archived:
            props = new.to_graph_props()
            rows.append(GistRewrite(old.id, old.content_hash, {
                "content": new.content, "contentHash": new.content_hash,
                "encodingStrength": new.encoding_strength, "structuredData": props["structuredData"],
                "updatedAt": new.updated_at, "gistedAt": now,
                "sweepDueAt": 1, "mergeDueAt": 1,  # weaker: due for the sweep; new content: for merge
                **({"indexed": False} if reindexing else {})}))
    for old, new in marked:
        rows.append(GistRewrite(old.id, old.content_hash, {
            "structuredData": new.structured_data_json(), "updatedAt": new.updated_at,
            "gistedAt": now}))
    if not rows:
        return
    applied = sc.ctx.graph.apply_gists(rows, key)
    reindex = [new for old, new in rewritten if old.id in archived and old.id in applied]
    if reindex and reindexing:
        vectors, sentences, _ = embed_memories(sc.ctx, [t.content for t in reindex])
        sc.ctx.vectors.upsert([point_for(t, v, sentences=sentences[i] if sentences else None)
                               for i, (t, v) in enumerate(zip(reindex, vectors, strict=True))])
        sc.ctx.graph.set_indexed([t.id for t in reindex], True)
    sc.result.gisted += len(reindex)


def source_confidence(sc: StepContext, key: str) -> None:
    """Decay the confidence of the traces decayed (or recorded) longest ago, at most
    `max_traces_per_cycle`. They are read through the confidence clock's index: a window of
    clocks from where the last run stopped, widened until it holds enough (the same traces
    in the same order as reading every trace, which the run's `full_pass` does)."""
    scfg = sc.ctx.config.mechanisms.source_confidence_decay
    if not scfg.enabled:
        return
    now = sc.now()
    limit = sc.ctx.config.consolidation.max_traces_per_cycle
    if sc.full_pass:
        found = sc.ctx.graph.confidence_candidates(key, before=now - scfg.min_interval_ms, limit=limit)
    else:
        found = _oldest_confidence_clocks(sc, key, before=now - scfg.min_interval_ms, limit=limit)
    before = sc.load(found)
    after = changed(before, source_confidence_decay(before, scfg, now))
    sc.result.confidence_decayed += write_fields(
        sc, key, after, ("confidence", "structuredData", "updatedAt"), {"sourceDecayAt": now, "confidenceClock": now})


def _oldest_confidence_clocks(sc: StepContext, key: str, *, before: int, limit: int) -> list[dict[str, Any]]:
    """The `limit` active traces of `key` with the oldest confidence clocks at or before
    `before` (ties by id). The window ends at the last run's last clock, then one minute later,
    three, seven, ... (counted through the index, nothing loaded) until it holds `limit`
    traces or reaches `before`: a window that holds `limit` holds the oldest ones. A key whose
    clocks predate this bookkeeping has them set first, once."""
    state = sc.state(key)
    if state.get("confidenceClock") != CONFIDENCE_CLOCK_VERSION:
        repaired = 0
        while (done := sc.ctx.graph.repair_confidence_clocks(key, CLOCK_BATCH)) >= CLOCK_BATCH:
            repaired += done
        log.info("source-confidence decay of %s: %d clock(s) set", key, repaired + done)
        sc.set_state(key, {"confidenceClock": CONFIDENCE_CLOCK_VERSION})
        state = {}
    frontier = state.get("confidenceFrontier")
    upto = before if frontier is None else min(before, int(frontier))
    widen = MS_PER_MINUTE
    while upto < before and sc.ctx.graph.count_confidence_clocks_upto(key, upto=upto) < limit:
        upto, widen = min(before, upto + widen), widen * 2
    rows = sc.ctx.graph.confidence_candidates_upto(key, upto=upto, limit=limit)
    if rows:
        sc.set_state(key, {"confidenceFrontier": rows[-1][1]})
    return [trace for trace, _ in rows]


def emotion_regulation(sc: StepContext, key: str) -> None:
    ecfg = sc.ctx.config.mechanisms.emotion_regulation
    if not ecfg.enabled or ecfg.max_regulation_per_cycle == 0:
        return
    now = sc.now()
    before = sc.load(sc.ctx.graph.regulation_candidates(
        key, arousal_threshold=ecfg.arousal_threshold, immune_strength=ecfg.immune_strength,
        limit=ecfg.max_regulation_per_cycle))
    after = changed(before, regulate_emotions(before, ecfg, now))
    sc.result.regulated += write_fields(  # calmer may mean no longer protected: due for the decay sweep
        sc, key, after, ("valence", "arousal", "intensity", "encodingStrength", "structuredData", "updatedAt"),
        {"sweepDueAt": 1})
