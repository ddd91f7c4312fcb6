// After a retrieval, mechanisms (reconsolidation, retrieval-induced forgetting) change a
// few fields; a null field in a row leaves that property as it is.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule).
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
SET t.valence = coalesce(row.valence, t.valence),
    t.arousal = coalesce(row.arousal, t.arousal),
    t.dominance = coalesce(row.dominance, t.dominance),
    t.stability = coalesce(row.stability, t.stability),
    t.structuredData = coalesce(row.structuredData, t.structuredData),
    t.updatedAt = $now, t.sweepDueAt = 1
RETURN t.id AS id
