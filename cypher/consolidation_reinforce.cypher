// Rehearsal of due traces with the values the cognitive core computed (stability grows, the
// interval doubles). Not a retrieval: retrievalCount is left alone, reinforcementCount counts.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
WHERE t.scopeKey = $scopeKey AND t.isActive = true
SET t.encodingStrength = row.encodingStrength, t.stability = row.stability,
    t.lastAccessedAt = row.lastAccessedAt, t.reinforcementInterval = row.reinforcementInterval,
    t.nextReinforcementAt = row.nextReinforcementAt,
    t.reinforcementCount = coalesce(t.reinforcementCount, 0) + 1, t.updatedAt = $now
RETURN t.id AS id
