// Contradiction resolved: the winner SUPERSEDES the loser, which remembers who contradicted it.
// With $keepLoser the loser becomes dormant (still reachable for "what did I say before"),
// otherwise it is soft-deleted; never hard-deleted, the history stays. A pinned loser is left
// alone. A keyed loser (an entry read back by its key) is only linked: it stays current, so its
// key stays gettable, and the read path ranks it below the winner and marks it outdated. A newer
// winner ends a replaced loser's validity where its own begins (point-in-time queries).
// Rows: {winner, loser}, each loser once. Returns each loser with whether it was replaced.
UNWIND $rows AS row
MATCH (w:Trace {id: row.winner})
MATCH (l:Trace {id: row.loser})
WHERE w.scopeKey = $scopeKey AND l.scopeKey = $scopeKey AND w.isActive = true AND l.isActive = true
  AND coalesce(l.pinned, false) = false
WITH w, l, row, coalesce(l.keyed, false) = false AS replaced
SET l.isActive = CASE WHEN replaced THEN $keepLoser ELSE l.isActive END,
    l.dormant = CASE WHEN replaced THEN $keepLoser ELSE l.dormant END,
    l.dormantAt = CASE WHEN replaced THEN $now ELSE l.dormantAt END,
    l.deactivatedReason = CASE WHEN replaced THEN $reason ELSE l.deactivatedReason END,
    l.updatedAt = $now, l.consolidatedAt = $now,
    l.contradictedBy = coalesce(l.contradictedBy, []) + row.winner,
    l.validUntil = CASE
      WHEN replaced AND coalesce(w.validFrom, w.createdAt) > coalesce(l.validFrom, l.createdAt)
           AND (l.validUntil IS NULL OR l.validUntil > coalesce(w.validFrom, w.createdAt))
      THEN coalesce(w.validFrom, w.createdAt) ELSE l.validUntil END
MERGE (w)-[r:SUPERSEDES]->(l)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now, r.reason = $reason
SET w.strongestLink = CASE WHEN w.strongestLink IS NULL OR w.strongestLink >= r.weight THEN w.strongestLink ELSE r.weight END,
    l.strongestLink = CASE WHEN l.strongestLink IS NULL OR l.strongestLink >= r.weight THEN l.strongestLink ELSE r.weight END
RETURN w.id AS winner, l.id AS loser, replaced
