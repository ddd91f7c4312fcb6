// Maintenance (export): every conversation turn still buffered for the observer, all scopes,
// paged by an id cursor.
MATCH (t:ConversationTurn)
WHERE t.id > $after
RETURN properties(t) AS turn
ORDER BY t.id
LIMIT $limit
