// Write-ahead archive: the verbatim original of a trace (with its emotional context, tags and
// entities), written before the trace's content is replaced. Returns what was stored so the
// caller can verify it before going on.
UNWIND $rows AS row
MERGE (a:ArchivedTrace {traceId: row.traceId})
SET a.verbatim = row.verbatim, a.contentHash = row.contentHash, a.reason = row.reason,
    a.scopeKey = row.scopeKey, a.createdAt = row.createdAt, a.tags = row.tags, a.entities = row.entities,
    a.valence = row.valence, a.arousal = row.arousal, a.intensity = row.intensity,
    a.archivedAt = $now, a.lastAccessAt = $now, a.accessCount = coalesce(a.accessCount, 0)
RETURN a.traceId AS traceId, a.contentHash AS contentHash
