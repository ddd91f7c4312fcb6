// Compaction: old, often-retrieved episodic traces, ready to become semantic knowledge.
MATCH (t:Trace:Episodic)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.recordedAt <= $before
  AND coalesce(t.retrievalCount, 0) >= $minRetrievals
RETURN t.id AS id
ORDER BY t.recordedAt, t.id
LIMIT $limit
