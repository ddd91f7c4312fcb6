// Observation notes an agent may see, newest first ($agentId null: every agent's in those scopes;
// $pendingOnly: only notes not reflected yet).
MATCH (o:ObservationNote)
WHERE o.scopeKey IN $scopeKeys AND ($agentId IS NULL OR o.agentId = $agentId)
  AND ($pendingOnly = false OR o.reflectedAt IS NULL)
RETURN properties(o) AS note, o.createdAt AS createdAt, o.observedAt AS observedAt, o.seq AS seq
ORDER BY createdAt DESC, observedAt DESC, seq DESC
LIMIT $limit
