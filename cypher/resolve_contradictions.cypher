// Contradiction resolved: the winner SUPERSEDES the loser, which remembers who contradicted it.
// With $keepLoser the loser becomes dormant (still reachable for "what did I say before"),
// otherwise it is soft-deleted; never hard-deleted, the history stays. A pinned loser is left
// alone. A newer winner ends the loser's validity where its own begins (point-in-time
// queries). Rows: {winner, loser}, each loser once.
UNWIND $rows AS row
MATCH (w:Trace {id: row.winner})
MATCH (l:Trace {id: row.loser})
WHERE w.scopeKey = $scopeKey AND l.scopeKey = $scopeKey AND w.isActive = true AND l.isActive = true
  AND coalesce(l.pinned, false) = false
SET l.isActive = $keepLoser, l.dormant = $keepLoser, l.dormantAt = $now,
    l.deactivatedReason = $reason, l.updatedAt = $now, l.consolidatedAt = $now,
    l.contradictedBy = coalesce(l.contradictedBy, []) + row.winner,
    l.validUntil = CASE
      WHEN coalesce(w.validFrom, w.createdAt) > coalesce(l.validFrom, l.createdAt)
           AND (l.validUntil IS NULL OR l.validUntil > coalesce(w.validFrom, w.createdAt))
      THEN coalesce(w.validFrom, w.createdAt) ELSE l.validUntil END
MERGE (w)-[r:SUPERSEDES]->(l)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now, r.reason = $reason
SET w.strongestLink = CASE WHEN w.strongestLink IS NULL OR w.strongestLink >= r.weight THEN w.strongestLink ELSE r.weight END,
    l.strongestLink = CASE WHEN l.strongestLink IS NULL OR l.strongestLink >= r.weight THEN l.strongestLink ELSE r.weight END
RETURN w.id AS winner, l.id AS loser
