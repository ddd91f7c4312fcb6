// Archive retention: drop archived originals neither archived nor rehydrated since the cutoff
// (recently rehydrated ones stay whatever their age).
MATCH (a:ArchivedTrace)
WHERE ($scopeKeys IS NULL OR a.scopeKey IN $scopeKeys) AND coalesce(a.lastAccessAt, a.archivedAt) < $cutoff
WITH a
LIMIT $limit
WITH a, a.traceId AS traceId
DETACH DELETE a
RETURN count(traceId) AS pruned
