// SHARED_ENTITY: link each given trace to the most recent other visible traces that mention
// one of its entities. Within the batch only the lower id links to the higher, so no pair twice.
UNWIND $ids AS id
MATCH (t:Trace {id: id})-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(o:Trace)
WHERE o.id <> t.id AND o.isActive = true AND o.scopeKey IN $scopeKeys
  AND (NOT o.id IN $ids OR o.id < t.id)
WITH t, e, o ORDER BY o.createdAt DESC
WITH t, e, collect(o)[0..$maxLinks] AS others
UNWIND others AS o
WITH DISTINCT t, o
MERGE (t)-[r:SHARED_ENTITY]->(o)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
