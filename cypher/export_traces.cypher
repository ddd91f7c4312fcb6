// Export (a whole store, or the scopes in $scopeKeys when it is not null): every trace of the store, all scopes, paged by an id cursor
// (ids above $after, in id order) so a backup streams without holding the graph in memory.
MATCH (t:Trace)
WHERE t.id > $after AND ($scopeKeys IS NULL OR t.scopeKey IN $scopeKeys)
RETURN properties(t) AS trace
ORDER BY t.id
LIMIT $limit
