// Read an archived original without touching it ($scopeKeys null: the store owner).
MATCH (a:ArchivedTrace {traceId: $traceId})
WHERE $scopeKeys IS NULL OR a.scopeKey IN $scopeKeys
RETURN properties(a) AS archive
