// After a retrieval: the counter is incremented in the database (no lost update under
// concurrency); the spaced-repetition values were computed by the cognitive core. A dormant
// trace that is recalled is active again, unless a newer statement superseded it.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule).
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
SET t.retrievalCount = coalesce(t.retrievalCount, 0) + 1,
    t.encodingStrength = coalesce(row.encodingStrength, t.encodingStrength),
    t.lastAccessedAt = row.lastAccessedAt,
    t.stability = row.stability,
    t.reinforcementInterval = row.reinforcementInterval,
    t.nextReinforcementAt = row.nextReinforcementAt,
    t.dormant = CASE WHEN t.deactivatedReason = 'superseded' THEN t.dormant ELSE false END,
    t.updatedAt = $now, t.sweepDueAt = 1
RETURN t.id AS id, t.retrievalCount AS retrievalCount
