// Rehydration: the verbatim original; only the archive's access log moves (last access, count,
// the most recent access times) — the trace itself is not strengthened.
MATCH (a:ArchivedTrace {traceId: $traceId})
WHERE $scopeKeys IS NULL OR a.scopeKey IN $scopeKeys
SET a.lastAccessAt = $now, a.accessCount = coalesce(a.accessCount, 0) + 1,
    a.accessLog = (coalesce(a.accessLog, []) + $now)[-$logSize..]
RETURN a.verbatim AS verbatim, a.archivedAt AS archivedAt, a.accessCount AS accessCount
