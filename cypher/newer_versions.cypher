// The current versions of retrieval candidates: for each candidate, the visible active traces
// that contradict it from a later event time, or that superseded it in a resolved
// contradiction (not a merge: a merged duplicate is deleted). Ranking puts each candidate just
// below its newer version, and brings the newer version in when the query found only the old.
UNWIND $ids AS id
MATCH (old:Trace {id: id})
// (scope tested after the id lookup: FalkorDB folds a WHERE into the id index scan, ~4 µs more per id)
WITH *, old.scopeKey AS oldScope
WHERE oldScope IN $scopeKeys
MATCH (new:Trace)-[r:CONTRADICTS|SUPERSEDES]->(old)
WHERE new.scopeKey IN $scopeKeys AND new.isActive = true AND new.indexed = true
  AND (type(r) = 'SUPERSEDES' AND r.reason = 'superseded'
       OR type(r) = 'CONTRADICTS' AND (new.createdAt > old.createdAt
                                       OR new.createdAt = old.createdAt AND new.recordedAt > old.recordedAt))
RETURN DISTINCT old.id AS old, new.id AS new
