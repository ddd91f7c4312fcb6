// Traces written before metadata filters: no derived metadata lists yet (a page of them).
MATCH (t:Trace)
WHERE t.metaPairs IS NULL
RETURN t.id AS id, t.metadata AS metadata
ORDER BY t.id
LIMIT $limit
