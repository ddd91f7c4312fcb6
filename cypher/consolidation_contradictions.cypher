// Unresolved contradictions inside one scope key: both sides still active (dormant or not), and
// neither already settled against the other (a loser remembers its winner in contradictedBy).
MATCH (a:Trace)-[c:CONTRADICTS]->(b:Trace)
WHERE a.scopeKey = $scopeKey AND b.scopeKey = $scopeKey AND a.isActive = true AND b.isActive = true
  AND NOT a.id IN coalesce(b.contradictedBy, []) AND NOT b.id IN coalesce(a.contradictedBy, [])
RETURN a.id AS a, b.id AS b, a.createdAt AS aCreatedAt, b.createdAt AS bCreatedAt,
       a.recordedAt AS aRecordedAt, b.recordedAt AS bRecordedAt,
       a.confidence AS aConfidence, b.confidence AS bConfidence,
       a.agentId AS aAgent, b.agentId AS bAgent,
       coalesce(a.pinned, false) AS aPinned, coalesce(b.pinned, false) AS bPinned
ORDER BY c.createdAt, a.id, b.id
LIMIT $limit
