// Source-confidence decay's clock for the traces of one scope key that lack it or hold a stale
// one (written before the clock was kept): coalesce(sourceDecayAt, recordedAt), at most $limit per
// call (the caller repeats until fewer come back).
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey
  AND (t.confidenceClock IS NULL OR t.confidenceClock <> coalesce(t.sourceDecayAt, t.recordedAt))
WITH t LIMIT $limit
SET t.confidenceClock = coalesce(t.sourceDecayAt, t.recordedAt)
RETURN count(t) AS reset
