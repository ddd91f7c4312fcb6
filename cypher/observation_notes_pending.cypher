// What the reflector has waiting for one agent in one scope key: unclaimed, unreflected notes.
MATCH (o:ObservationNote)
WHERE o.scopeKey = $scopeKey AND o.agentId = $agentId AND o.reflectedAt IS NULL AND o.claimedBy IS NULL
RETURN coalesce(sum(o.tokens), 0) AS tokens, count(o) AS notes
