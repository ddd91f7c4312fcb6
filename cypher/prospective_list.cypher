// The intentions of the visible scopes, oldest first, without the cue vectors.
MATCH (p:Prospective)
WHERE p.scopeKey IN $scopeKeys AND ($includeInactive OR p.active = true)
RETURN p {.id, .scopeKey, .agentId, .content, .triggerKind, .triggerAt, .intervalMs, .keywords, .cue,
          .similarityThreshold, .recurring, .cooldownMs, .importance, .firedCount, .lastFiredAt,
          .nextFireAt, .active, .createdAt, .updatedAt, .cancelledAt} AS intention
ORDER BY p.createdAt, p.id
SKIP $skip LIMIT $limit
