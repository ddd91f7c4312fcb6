// Maintenance (export): every intention of prospective memory (reminders with their trigger
// state, spent and cancelled ones too, and a context trigger's cueEmbedding and embedModel),
// all scopes, paged by an id cursor.
MATCH (p:Prospective)
WHERE p.id > $after
RETURN properties(p) AS prospective
ORDER BY p.id
LIMIT $limit
