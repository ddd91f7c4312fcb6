// Export of some scopes: the entities their traces mention (only the shared key; what each
// trace calls it is on its mention record), paged by a key cursor.
MATCH (t:Trace)-[:MENTIONS]->(e:Entity)
WHERE t.scopeKey IN $scopeKeys AND e.key > $after
WITH DISTINCT e
RETURN properties(e) AS entity
ORDER BY e.key
LIMIT $limit
