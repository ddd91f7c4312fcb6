// Unresolved contradictions inside one scope key: both sides still active.
MATCH (a:Trace)-[c:CONTRADICTS]->(b:Trace)
WHERE a.scopeKey = $scopeKey AND b.scopeKey = $scopeKey AND a.isActive = true AND b.isActive = true
RETURN a.id AS a, b.id AS b, a.createdAt AS aCreatedAt, b.createdAt AS bCreatedAt,
       a.recordedAt AS aRecordedAt, b.recordedAt AS bRecordedAt,
       a.confidence AS aConfidence, b.confidence AS bConfidence
ORDER BY c.createdAt, a.id, b.id
LIMIT $limit
