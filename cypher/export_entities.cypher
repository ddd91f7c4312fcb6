// Maintenance (export): every entity, paged by a key cursor.
MATCH (e:Entity)
WHERE e.key > $after
RETURN properties(e) AS entity
ORDER BY e.key
LIMIT $limit
