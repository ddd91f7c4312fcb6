// CAUSED_BY from a turn that presents itself as a consequence ("that's why ...") to its
// predecessor in the conversation (the trace its TEMPORAL_SEQUENCE edge points to).
// An existing link is left as it is.
UNWIND $rows AS row
MATCH (t:Trace {id: row.id})
MATCH (prev:Trace {id: row.prev})
MERGE (t)-[r:CAUSED_BY]->(prev)
ON CREATE SET r.weight = $weight, r.createdAt = $now, r.updatedAt = $now
RETURN count(r) AS linked
