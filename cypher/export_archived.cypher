// Export (a whole store, or the scopes in $scopeKeys when it is not null): every archived verbatim original, paged by a trace-id cursor.
MATCH (a:ArchivedTrace)
WHERE a.traceId > $after AND ($scopeKeys IS NULL OR a.scopeKey IN $scopeKeys)
RETURN properties(a) AS archived
ORDER BY a.traceId
LIMIT $limit
