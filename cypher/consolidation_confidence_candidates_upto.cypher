// Source-confidence decay, read through the confidenceClock index: as
// consolidation_confidence_candidates (same traces, same order), but only among the traces whose
// clock is at most $upto. confidenceClock is coalesce(sourceDecayAt, recordedAt), kept by every
// write of either; the caller widens $upto (never past $before) until $limit rows come back.
MATCH (t:Trace)
WHERE t.scopeKey = $scopeKey AND t.confidenceClock <= $upto AND t.isActive = true
RETURN properties(t) AS trace, t.confidenceClock AS clock
ORDER BY t.confidenceClock, t.id
LIMIT $limit
