// Maintenance (export): every observation note (reflected or still pending), all scopes, paged
// by an id cursor.
MATCH (o:ObservationNote)
WHERE o.id > $after
RETURN properties(o) AS note
ORDER BY o.id
LIMIT $limit
