// Pin or unpin traces (truth anchors) the caller may see; pinning a dormant trace wakes it.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule); mergeDueAt = 1: an unpinned trace may now merge with its
// exact duplicates (consolidation_duplicate_hashes_due).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys AND t.isActive = true
SET t.pinned = $pinned, t.dormant = CASE WHEN $pinned THEN false ELSE coalesce(t.dormant, false) END,
    t.updatedAt = $now, t.sweepDueAt = 1, t.mergeDueAt = 1
RETURN t.id AS id
