// Interference and the mechanisms change encoding strengths; the cognitive core computed
// the new values, the database stores them for the traces the caller may see. Pinned traces
// (truth anchors) keep theirs.
// sweepDueAt = 1: the change may bring the trace's forgetting closer, so the decay sweep reads it
// again (consolidation_sweep_schedule).
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys AND coalesce(t.pinned, false) = false
SET t.encodingStrength = row.encodingStrength, t.updatedAt = $now, t.sweepDueAt = 1
RETURN t.id AS id
