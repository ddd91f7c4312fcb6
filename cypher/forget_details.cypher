// Before a hard delete: the entities and schemas the doomed traces touch (entities left with
// no mention and schemas that had them as members go with them).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
OPTIONAL MATCH (t)-[:MENTIONS]->(e:Entity)
WITH t, collect(DISTINCT e.key) AS entityKeys
OPTIONAL MATCH (t)-[:SCHEMA_INSTANCE]->(s:Schema)
RETURN t.id AS id, entityKeys, collect(DISTINCT s.id) AS schemaIds
