// Notes the reflector has processed: when, and which long-term traces they became (none: the
// note stays a note). Rows: {id, traceIds}.
UNWIND $rows AS row
MATCH (o:ObservationNote {id: row.id})
WHERE o.scopeKey = $scopeKey AND o.claimedBy = $runId
SET o.reflectedAt = $now, o.traceIds = row.traceIds, o.claimedBy = null, o.claimedAt = null
RETURN count(o) AS marked
