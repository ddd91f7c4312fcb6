// Export (a whole store, or the scopes in $scopeKeys when it is not null): every conversation turn still buffered for the observer, all scopes,
// paged by an id cursor.
MATCH (t:ConversationTurn)
WHERE t.id > $after AND ($scopeKeys IS NULL OR t.scopeKey IN $scopeKeys)
RETURN properties(t) AS turn
ORDER BY t.id
LIMIT $limit
