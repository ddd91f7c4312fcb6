// Export (a whole store, or the scopes in $scopeKeys when it is not null): every intention of prospective memory (reminders with their trigger
// state, spent and cancelled ones too, and a context trigger's cueEmbedding and embedModel),
// all scopes, paged by an id cursor.
MATCH (p:Prospective)
WHERE p.id > $after AND ($scopeKeys IS NULL OR p.scopeKey IN $scopeKeys)
RETURN properties(p) AS prospective
ORDER BY p.id
LIMIT $limit
