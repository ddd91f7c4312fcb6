// Contradiction resolved: the winner SUPERSEDES the loser, which is soft-deleted (never
// hard-deleted: the history stays) and remembers who contradicted it. Rows: {winner, loser},
// each loser once.
UNWIND $rows AS row
MATCH (w:Trace {id: row.winner})
MATCH (l:Trace {id: row.loser})
WHERE w.scopeKey = $scopeKey AND l.scopeKey = $scopeKey AND w.isActive = true AND l.isActive = true
SET l.isActive = false, l.deactivatedReason = $reason, l.updatedAt = $now, l.consolidatedAt = $now,
    l.contradictedBy = coalesce(l.contradictedBy, []) + row.winner
MERGE (w)-[r:SUPERSEDES]->(l)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now, r.reason = $reason
SET w.strongestLink = CASE WHEN w.strongestLink IS NULL OR w.strongestLink >= r.weight THEN w.strongestLink ELSE r.weight END,
    l.strongestLink = CASE WHEN l.strongestLink IS NULL OR l.strongestLink >= r.weight THEN l.strongestLink ELSE r.weight END
RETURN w.id AS winner, l.id AS loser
