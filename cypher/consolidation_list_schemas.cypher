// The schemas of some scope keys with their member traces (inspection and tests).
MATCH (t:Trace)-[r:SCHEMA_INSTANCE]->(s:Schema)
WHERE s.scopeKey IN $scopeKeys AND t.scopeKey IN $scopeKeys
WITH s, collect(t.id) AS members, min(r.weight) AS weight
RETURN s.id AS id, s.summary AS summary, s.scopeKey AS scopeKey, s.size AS size, s.algorithm AS algorithm,
       members, weight
ORDER BY s.createdAt, s.id
