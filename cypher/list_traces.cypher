// Page through the traces of the visible scopes, newest event first.
MATCH (t:Trace)
WHERE t.scopeKey IN $scopeKeys AND ($includeInactive OR t.isActive = true)
RETURN properties(t) AS trace
ORDER BY t.createdAt DESC, t.id
SKIP $skip LIMIT $limit
