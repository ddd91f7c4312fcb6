// Export (a whole store, or the scopes in $scopeKeys when it is not null): the entities each trace mentions (key, and the mention's name, kind
// and time), for a page of traces
// (ids above $after, in id order); traces without mentions come back with an empty list.
MATCH (t:Trace)
WHERE t.id > $after AND ($scopeKeys IS NULL OR t.scopeKey IN $scopeKeys)
WITH t ORDER BY t.id LIMIT $limit
OPTIONAL MATCH (t)-[m:MENTIONS]->(e:Entity)
WITH t.id AS id, collect(CASE WHEN e IS NULL THEN NULL
                         ELSE {key: e.key, name: m.name, kind: m.kind, createdAt: m.createdAt} END) AS mentions
RETURN id, mentions
ORDER BY id
