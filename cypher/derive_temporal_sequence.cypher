// TEMPORAL_SEQUENCE: chain each given trace to the previous trace of the same sequence
// (thread or source) that happened within the window before it — a chain, not a clique.
UNWIND $ids AS id
MATCH (t:Trace {id: id})
WHERE t.sequenceKey IS NOT NULL
MATCH (p:Trace)
WHERE p.sequenceKey = t.sequenceKey AND p.id <> t.id AND p.isActive = true
  AND p.scopeKey IN $scopeKeys
  AND (p.createdAt < t.createdAt OR (p.createdAt = t.createdAt AND p.id < t.id))
  AND p.createdAt >= t.createdAt - $windowMs
WITH t, p ORDER BY p.createdAt DESC, p.id DESC
WITH t, collect(p.id)[0] AS prevId
MATCH (prev:Trace {id: prevId})
MERGE (t)-[r:TEMPORAL_SEQUENCE]->(prev)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
