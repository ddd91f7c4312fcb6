// Export (a whole store, or the scopes in $scopeKeys when it is not null): every observation note (reflected or still pending), all scopes, paged
// by an id cursor.
MATCH (o:ObservationNote)
WHERE o.id > $after AND ($scopeKeys IS NULL OR o.scopeKey IN $scopeKeys)
RETURN properties(o) AS note
ORDER BY o.id
LIMIT $limit
