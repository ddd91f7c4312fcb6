// What consolidation remembers about one scope key between runs.
MATCH (s:ConsolidationState)
WHERE s.scopeKey = $scopeKey
RETURN properties(s) AS state
