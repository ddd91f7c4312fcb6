// Spaced repetition: active traces whose scheduled reinforcement time has come, most overdue first;
// with $retrievedOnly, only those recalled at least once (the schedule starts with a use).
// Dormant traces wait to be recalled.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.nextReinforcementAt <= $now
  AND coalesce(t.dormant, false) = false AND (NOT $retrievedOnly OR coalesce(t.retrievalCount, 0) > 0)
RETURN properties(t) AS trace
ORDER BY t.nextReinforcementAt, t.id
LIMIT $limit
