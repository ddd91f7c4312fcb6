// Spaced repetition: active traces whose scheduled reinforcement time has come, most overdue first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.nextReinforcementAt <= $now
RETURN properties(t) AS trace
ORDER BY t.nextReinforcementAt, t.id
LIMIT $limit
