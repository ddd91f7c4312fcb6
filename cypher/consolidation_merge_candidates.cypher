// Traces not yet checked for near-duplicates (never consolidated), oldest first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.consolidatedAt IS NULL
RETURN t.id AS id, t.content AS content
ORDER BY t.recordedAt, t.id
LIMIT $limit
