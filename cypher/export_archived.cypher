// Maintenance (export): every archived verbatim original, paged by a trace-id cursor.
MATCH (a:ArchivedTrace)
WHERE a.traceId > $after
RETURN properties(a) AS archived
ORDER BY a.traceId
LIMIT $limit
