// Temporal gist candidates: old, rarely retrieved, not flashbulb-grade, never gisted, not pinned.
// The cognitive core makes the final decision (same rules) on the traces returned.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.isActive = true AND t.type IN $types AND t.recordedAt <= $before
  AND coalesce(t.retrievalCount, 0) < $maxRetrievals AND t.encodingStrength < $immuneStrength
  AND t.gistedAt IS NULL AND coalesce(t.pinned, false) = false
RETURN properties(t) AS trace
ORDER BY t.recordedAt, t.id
LIMIT $limit
