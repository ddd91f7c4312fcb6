// Source-confidence decay: active traces whose confidence was last decayed (or recorded) long
// enough ago, least recently decayed first.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND coalesce(t.sourceDecayAt, t.recordedAt) <= $before
RETURN properties(t) AS trace
ORDER BY coalesce(t.sourceDecayAt, t.recordedAt), t.id
LIMIT $limit
