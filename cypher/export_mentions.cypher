// Maintenance (export): the entity keys each trace mentions, for a page of traces
// (ids above $after, in id order); traces without mentions come back with an empty list.
MATCH (t:Trace)
WHERE t.id > $after
WITH t ORDER BY t.id LIMIT $limit
OPTIONAL MATCH (t)-[:MENTIONS]->(e:Entity)
WITH t.id AS id, collect(e.key) AS keys
RETURN id, keys
ORDER BY id
