// Merge near-duplicates: the survivor keeps the union of tags, adds up retrievals, counts each
// duplicate as a verification and keeps the best strength and stability; each loser is
// soft-deleted behind a SUPERSEDES edge survivor -> loser. Rows: {survivor, losers}; a trace is
// in at most one row (the caller guarantees it), so no relationship is merged twice.
UNWIND $rows AS row
MATCH (s:Trace {id: row.survivor})
WHERE s.scopeKey = $scopeKey AND s.isActive = true
UNWIND row.losers AS loserId
MATCH (l:Trace {id: loserId})
WHERE l.scopeKey = $scopeKey AND l.isActive = true AND l.id <> s.id
WITH s, collect(l) AS losers
SET s.tags = reduce(acc = coalesce(s.tags, []), l IN losers | acc + [x IN coalesce(l.tags, []) WHERE NOT x IN acc]),
    s.retrievalCount = coalesce(s.retrievalCount, 0) + reduce(n = 0, l IN losers | n + coalesce(l.retrievalCount, 0)),
    s.verificationCount = coalesce(s.verificationCount, 0) + size(losers),
    s.encodingStrength = reduce(m = s.encodingStrength, l IN losers |
                                CASE WHEN l.encodingStrength > m THEN l.encodingStrength ELSE m END),
    s.stability = reduce(m = s.stability, l IN losers | CASE WHEN l.stability > m THEN l.stability ELSE m END),
    s.updatedAt = $now, s.consolidatedAt = $now
WITH s, losers
UNWIND losers AS l
SET l.isActive = false, l.deactivatedReason = $reason, l.updatedAt = $now, l.consolidatedAt = $now
MERGE (s)-[r:SUPERSEDES]->(l)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now, r.reason = $reason
SET s.strongestLink = CASE WHEN s.strongestLink IS NULL OR s.strongestLink >= r.weight THEN s.strongestLink ELSE r.weight END,
    l.strongestLink = CASE WHEN l.strongestLink IS NULL OR l.strongestLink >= r.weight THEN l.strongestLink ELSE r.weight END
RETURN s.id AS survivor, l.id AS loser
