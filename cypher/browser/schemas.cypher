// Schemas formed by consolidation and the traces that are instances of them.
// :param scopeKeys => ['user:acme/u1']
MATCH (t:Trace)-[r:SCHEMA_INSTANCE]->(s:Schema)
WHERE s.scopeKey IN $scopeKeys AND t.scopeKey IN $scopeKeys
RETURN s, r, t
LIMIT 200
