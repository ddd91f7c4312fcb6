// Export (a whole store, or the scopes in $scopeKeys when it is not null): every schema (consolidation clusters), paged by an id cursor.
MATCH (s:Schema)
WHERE s.id > $after AND ($scopeKeys IS NULL OR s.scopeKey IN $scopeKeys)
RETURN properties(s) AS schema
ORDER BY s.id
LIMIT $limit
