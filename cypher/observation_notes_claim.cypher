// A reflector run claims the agent's unreflected notes in one scope key, oldest first; claims of a
// run that never finished expire at $staleBefore.
MATCH (o:ObservationNote)
WHERE o.scopeKey = $scopeKey AND o.agentId = $agentId AND o.reflectedAt IS NULL
  AND (o.claimedBy IS NULL OR o.claimedAt < $staleBefore)
WITH o ORDER BY o.createdAt, o.observedAt, o.seq LIMIT $limit
SET o.claimedBy = $runId, o.claimedAt = $now
RETURN properties(o) AS note
