// Memories by id as the caller sees them: every property, whether an archived original
// exists, and the memory that replaced it (if any).
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WITH t, t.scopeKey AS scopeKey
WHERE scopeKey IN $scopeKeys
OPTIONAL MATCH (a:ArchivedTrace {traceId: t.id})
OPTIONAL MATCH (n:Trace)-[:SUPERSEDES]->(t)
WHERE n.scopeKey IN $scopeKeys
RETURN properties(t) AS trace, count(a) > 0 AS archived, collect(DISTINCT n.id) AS supersededBy
