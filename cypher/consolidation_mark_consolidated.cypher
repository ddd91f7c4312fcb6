// Remember that consolidation has examined these traces.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.scopeKey = $scopeKey
SET t.consolidatedAt = $now
RETURN count(t) AS marked
