// TEMPORAL_SEQUENCE, step 2 of 2: link each trace to the predecessor the caller chose
// (a chain, not a clique). An existing link is left as it is.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
MATCH (prev:Trace {id: row.prev})
MERGE (t)-[r:TEMPORAL_SEQUENCE]->(prev)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
