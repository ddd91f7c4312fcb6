// Maintenance (export): every schema (consolidation clusters), paged by an id cursor.
MATCH (s:Schema)
WHERE s.id > $after
RETURN properties(s) AS schema
ORDER BY s.id
LIMIT $limit
