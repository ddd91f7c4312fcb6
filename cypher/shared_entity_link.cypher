// SHARED_ENTITY, step 2 of 2: link each trace to the traces the caller picked for it, one
// row per trace (its node is looked up once, not once per link). The picks never hold both
// directions of a pair. An existing link is left as it is.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
UNWIND row.others AS other
MATCH (o:Trace {id: other})
MERGE (t)-[r:SHARED_ENTITY]->(o)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
