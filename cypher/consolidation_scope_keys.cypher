// Consolidation for the store owner: every scope key that holds active traces.
MATCH (t:Trace)
WHERE t.isActive = true
RETURN DISTINCT t.scopeKey AS scopeKey
ORDER BY scopeKey
