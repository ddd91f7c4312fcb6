// The newest schemas of some scope keys (at most $limit), each with up to $members of its member
// traces inside the scopes: what consolidation abstracted, for the dashboard's consolidation page.
MATCH (s:Schema)
WHERE s.scopeKey IN $scopeKeys
WITH s
ORDER BY s.createdAt DESC, s.id
LIMIT $limit
MATCH (t:Trace)-[:SCHEMA_INSTANCE]->(s)
WHERE t.scopeKey IN $scopeKeys
WITH s, collect({id: t.id, content: t.content}) AS members
RETURN s.id AS id, s.summary AS summary, s.size AS size, s.createdAt AS createdAt, members[0..$members] AS members
ORDER BY createdAt DESC, id
