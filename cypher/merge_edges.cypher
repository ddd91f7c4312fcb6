// Create or strengthen associative edges of one type (the type comes from the EdgeType enum).
// Rows must be unique per (src, dst): the caller deduplicates before sending.
UNWIND $rows AS row
MATCH (a:Trace {id: row.src})
MATCH (b:Trace {id: row.dst})
MERGE (a)-[r:__EDGE_TYPE__]->(b)
ON CREATE SET r.weight = row.weight, r.createdAt = $now, r.updatedAt = $now
ON MATCH SET r.weight = CASE WHEN row.weight > r.weight THEN row.weight ELSE r.weight END, r.updatedAt = $now
RETURN count(r) AS merged
