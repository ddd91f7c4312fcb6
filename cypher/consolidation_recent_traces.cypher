// Replay: the traces of one scope key recorded within the replay window and not replayed yet,
// newest first, and whether the write path already linked them (a trace with SHARED_ENTITY edges
// is not re-derived: MERGE is directed, re-deriving would add the reverse twin of an edge).
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.recordedAt >= $since AND t.replayedAt IS NULL
RETURN t.id AS id,
       size([(t)-[:SHARED_ENTITY]-(:Trace) | 1]) = 0 AS unlinked,
       size([(t)-[:TEMPORAL_SEQUENCE]->(:Trace) | 1]) = 0 AS unchained
ORDER BY t.recordedAt DESC, t.id
LIMIT $limit
