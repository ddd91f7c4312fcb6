// A failed reflector run gives its notes back.
MATCH (o:ObservationNote)
WHERE o.scopeKey = $scopeKey AND o.agentId = $agentId AND o.claimedBy = $runId
SET o.claimedBy = null, o.claimedAt = null
RETURN count(o) AS released
