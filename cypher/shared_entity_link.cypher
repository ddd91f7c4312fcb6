// SHARED_ENTITY, step 2 of 2: link each trace to the traces the caller picked for it.
// Rows are unique per (id, other) and never hold both directions of a pair.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
MATCH (o:Trace {id: row.other})
MERGE (t)-[r:SHARED_ENTITY]->(o)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
