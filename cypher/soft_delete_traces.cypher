// Soft delete: the trace stays for history (and SUPERSEDES chains) but is no longer active.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys AND t.isActive = true
SET t.isActive = false, t.updatedAt = $now, t.deactivatedReason = $reason
RETURN t.id AS id
