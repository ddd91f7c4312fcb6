// Maintenance (export): every trace of the store, all scopes, paged by an id cursor
// (ids above $after, in id order) so a backup streams without holding the graph in memory.
MATCH (t:Trace)
WHERE t.id > $after
RETURN properties(t) AS trace
ORDER BY t.id
LIMIT $limit
